"""What every view shows of a run (the terminal's tables, the HTML report, the web app): per game
and rule variant, the leaderboard, head to head, verdict, cycles, rating history, faults and first
matches, as plain JSON-able data folded from the run's tallies."""
from typing import TYPE_CHECKING, Any

from arena.results import tallies
from arena.results.divergence import identical_line
from arena.results.verdict import settle_verdict, verdict
from arena.text import game_title, interval_fields, jsonable
from arena.tournament.schedule import stored_looks

if TYPE_CHECKING:
    from arena.store import Store

# A comparison stops by its sequential test, so intervals read after it stopped are no test of their
# own; `arena leaderboard` (arena.cli, above arena.compare) puts the test's verdict in its place.
COMPARISON_VERDICT = "a comparison, decided by its sequential test and not by these intervals: " \
                     "arena leaderboard {run_id} prints the test's verdict"


def run_sections(store: "Store", run_id: str, game_id: str | None = None, first_matches: int = 0
             ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """([section], [summary]) per game and rule variant of the run (or of one game), as every view
    shows them: each section is plain JSON-able data (leaderboard, head to head, verdict, cycles,
    rating history, faults, deals, the identical-play line) with its first `first_matches` matches; each summary is the
    `GroupTally.summary` it was made from."""
    out, summaries = [], []
    looks = stored_looks(store, run_id)
    alike = store.identical_deals(run_id)
    config = store.run(run_id).tournament
    seeding = config.seeding if config else "independent"
    for tally in tallies.read(store, run_id, game_id):
        summ = tally.summary()
        summaries.append(summ)
        same, compared = alike.get(tally.key, (0, 0))
        rows, h2h = jsonable(summ["leaderboard"]), jsonable(summ["head_to_head"])
        out.append({
            "game_id": tally.game_id,
            "game_params": tally.params,
            "title": game_title(tally.game_id, tally.params, only_changed=True),   # as the terminal titles it
            "matches": summ["matches"],
            "deals": summ["deals"],
            "seed_range": summ["seeds"],
            "leaderboard": rows,
            "cycles": summ["cycles"],
            "verdict": COMPARISON_VERDICT.format(run_id=run_id) if config and config.compare else
            verdict(rows, h2h, summ["cycles"]) if tally.key not in looks else
            settle_verdict(looks[tally.key], looks["rule"], len(rows)),
            "settled": looks[tally.key].settled if tally.key in looks else None,
            # over the deals with two or more matches; None when no deal has
            "identical_deals": same, "deals_compared": compared,
            "identical_play": identical_line(same, compared, seeding) if compared else None,
            "head_to_head": h2h,
            "rating_history": summ["rating_history"],
            "fault_summary": summ["faults"],
            "first_matches": [{"match_id": m["match_id"], "deal": m["deal"], "seed": m["seed"],
                               "seats": [s["label"] for s in m["seats"]], "placements": m["placements"],
                               "returns": m["returns"]}
                              for m in store.first_results(run_id, tally.game_id, tally.key[1],
                                                           summ["first_match"], first_matches)],
        })
    return out, summaries


def standings(store: "Store", run_id: str, game_id: str | None = None) -> list[dict[str, Any]]:
    """The run's leaderboards (or one game's) as flat records, one per agent and game, in each game
    best first, as `arena leaderboard` shows them: plain numbers and strings only, so that
    `pandas.DataFrame(records)` or `csv.DictWriter` takes them as they are. `game` is the table's
    title (the game and the parameters that differ from its defaults); each interval (score share,
    placement, each game metric) is three fields: NAME, NAME_low and NAME_high (95%, over deals)."""
    records = []
    for section in run_sections(store, run_id, game_id)[0]:
        for row in section["leaderboard"]:
            record = {"run_id": run_id, "game": section["title"], "game_id": row["game_id"]}
            record.update({k: row[k] for k in ("rank", "label", "mu", "sigma", "conservative", "games", "wins",
                                               "draws", "losses", "faults", "mean_return", "duplicate_score")})
            record["deals"] = row["score_share"]["deals"] if row["score_share"] else 0
            intervals = {"score_share": row["score_share"], "placement": row["placement"], **row["metrics"]}
            for name, iv in intervals.items():
                record.update(interval_fields(name, iv))
            records.append(record)
    return records
