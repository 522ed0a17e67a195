"""Playing a ladder: deterministic matchmaking that brings every pair together, every deal in every
seat rotation, standings kept incrementally equal to a fold of every match, and a kill -9 that
loses or doubles nothing."""
import itertools
import json
import os
import pathlib
import signal

import pytest

from arena.ladder import matchmaking, standing
from arena.ladder import store as ladders
from arena.match import AgentSpec
from arena.store import Store, migrate
from arena_processes import start, wait_for_matches
from cli import ok

KEY = "00112233445566778899aabbccddeeff"


def make_ladder(path, agents, seed=5, players=None, game="insert"):
    ok("ladder", "new", "lad", "--game", game, "--seed", seed, "--deal-key", KEY, "--store", path,
       *(["--players", players] if players else []))
    for agent in agents:
        ok("ladder", "add", "lad", agent, "--store", path)


def played(path):
    store = Store(str(path), readonly=True)
    try:
        return [(m["match_id"], m["deal"], m["seed"], [s["label"] for s in m["seats"]], m["placements"], m["actions"])
                for m in store.matches("ladder-lad")]
    finally:
        store.close()


def standings(path):
    return json.loads(ok("ladder", "show", "lad", "--json", "--all", "--store", path))["standings"]


def test_matchmaking_is_deterministic_plays_every_rotation_and_brings_every_pair_together(tmp_path):
    agents = ["random as r1", "random as r2", "greedy as g1", "greedy as g2", "ismcts[iterations=30] as m"]
    for name in ("a", "b"):
        make_ladder(tmp_path / f"{name}.sqlite", agents)
        ok("ladder", "run", "lad", "--matches", 40, "-j", 1, "--store", tmp_path / f"{name}.sqlite")
    a, b = played(tmp_path / "a.sqlite"), played(tmp_path / "b.sqlite")
    assert a == b and len(a) == 48                 # the same matches, the same results: 3 batches of 8 deals
    assert [m[0] for m in a] == list(range(48))    # no gap, no double
    deals = {deal: [m[3] for m in ms] for deal, ms in itertools.groupby(a, key=lambda m: m[1])}
    assert len(deals) == 24
    for seatings in deals.values():                # each deal: one line-up in both seatings, on one seed
        assert len(seatings) == 2 and seatings[0] == seatings[1][::-1] and seatings[0][0] != seatings[0][1]
    assert len({m[2] for m in a}) == 24
    met = {tuple(sorted(s[0])) for s in deals.values()}
    assert met == {tuple(sorted(p)) for p in itertools.combinations(["r1", "r2", "g1", "g2", "m"], 2)}
    assert standings(tmp_path / "a.sqlite") == standings(tmp_path / "b.sqlite")


def test_a_new_entry_is_matched_first_against_opponents_close_in_rating(tmp_path):
    path = tmp_path / "new.sqlite"
    make_ladder(path, ["random as r", "greedy as g", "ismcts[iterations=30] as m"])
    ok("ladder", "run", "lad", "--matches", 60, "-j", 1, "--store", path)
    before = len(played(path))
    ok("ladder", "add", "lad", "ismcts[iterations=60] as newcomer", "--store", path)
    ok("ladder", "run", "lad", "--matches", 1, "-j", 1, "--store", path)
    batch = played(path)[before:]
    deals = {m[1]: m[3] for m in batch}
    with_newcomer = [seats for seats in deals.values() if "newcomer" in seats]
    # six of the batch's eight deals start from the least known entry; the exploration slots from
    # the least-met pairs, which are the newcomer's too
    assert len(with_newcomer) == len(deals) == matchmaking.BATCH
    opponents = [next(s for s in seats if s != "newcomer") for seats in with_newcomer]
    assert set(opponents) == {"r", "g", "m"}


def test_choose_gives_the_same_batch_for_the_same_state_and_another_for_another_seed():
    env = standing.environment()
    entries = [standing.Entry(i, f"e{i}", 1, None, "") for i in range(1, 7)]
    for e, mu in zip(entries, (20, 22, 25, 27, 30, 35)):
        r = env.create_rating(mu, 2.0)
        e.pi, e.tau, e.deals = r.pi, r.tau, 40
    met = {p: 10 for p in itertools.combinations(range(1, 7), 2)}
    met[(1, 6)] = 0
    first = matchmaking.choose(entries, met, 2, 8, 1, 3, env)
    assert first == matchmaking.choose(entries, met, 2, 8, 1, 3, env)
    assert first[matchmaking.EXPLORE - 1] == (1, 6)        # the exploration slot: the pair never met
    assert all(abs(a - b) <= 2 for a, b in first if (a, b) != (1, 6))  # the others: close in rating
    ties = [standing.Entry(i, f"e{i}", 1, None, "") for i in range(1, 7)]
    assert {tuple(matchmaking.choose(ties, {}, 2, 8, s, 0, env)) for s in range(6)} != \
        {tuple(matchmaking.choose(ties, {}, 2, 8, 0, 0, env))}


def test_the_kept_standings_equal_a_fold_of_every_match_and_show_reads_no_match(tmp_path):
    path = tmp_path / "fold.sqlite"
    make_ladder(path, ["random as r", "greedy as g", "greedy as g2"], players=3, game="belle_of_the_ball")
    ok("ladder", "add", "lad", "random as r2", "--store", path)
    ok("ladder", "run", "lad", "--matches", 30, "-j", 2, "--store", path)
    store = Store(str(path))
    kept = {e.name: e for e in ladders.entries(store, "lad")}
    fresh = {name: standing.Entry(e.entry, e.label, e.version, e.spec, e.digest) for name, e in kept.items()}
    matches = store.matches("ladder-lad")
    assert {len(m["seats"]) for m in matches} == {3}
    for _, deal in itertools.groupby(matches, key=lambda m: m["deal"]):
        standing.fold_deal(fresh, list(deal), standing.environment())
    for name, e in kept.items():
        assert (e.pi, e.tau, e.deals, e.games, e.wins, e.draws, e.losses, e.share, e.form) == \
            (fresh[name].pi, fresh[name].tau, fresh[name].deals, fresh[name].games, fresh[name].wins,
             fresh[name].draws, fresh[name].losses, fresh[name].share, fresh[name].form)
    shown = standings(path)
    with store.db:
        store.db.execute("DELETE FROM matches")
    store.close()
    assert [{k: v for k, v in r.items()} for r in standings(path)] == shown
    assert [r["deals"] for r in shown] == [kept[r["name"]].deals for r in shown] and sum(r["games"] for r in shown) > 0


def counted_head_to_heads(matches, name):
    """An entry's head-to-heads counted afresh from every match: per opponent seat, ahead or not."""
    rows = {}
    for m in matches:
        seats = [(s["label"], p) for s, p in zip(m["seats"], m["placements"])]
        for label, mine in seats:
            for other, theirs in seats:
                if label == name and other != name:
                    row = rows.setdefault(other, {"opponent": other, "games": 0, "wins": 0, "draws": 0, "losses": 0})
                    row["games"] += 1
                    row["wins" if mine < theirs else "losses" if mine > theirs else "draws"] += 1
    return sorted(rows.values(), key=lambda r: (-r["games"], r["opponent"]))


def test_the_kept_head_to_heads_equal_a_count_of_every_match_and_an_older_store_is_counted_once(tmp_path):
    path = tmp_path / "h2h.sqlite"
    make_ladder(path, ["random as r", "greedy as g", "greedy as g2", "random as r2"], players=3,
                game="belle_of_the_ball")
    ok("ladder", "run", "lad", "--matches", 20, "-j", 1, "--store", path)
    store = Store(str(path))
    matches = store.matches("ladder-lad")
    names = [e.name for e in ladders.entries(store, "lad")]
    expected = {name: counted_head_to_heads(matches, name) for name in names}
    assert all(expected.values())
    assert {name: ladders.head_to_head(store, "lad", name) for name in names} == expected
    lad = ladders.get(store, "lad")   # the ladder page's other reads, none past every match
    assert ladders.stored(store, lad) == len(matches)
    assert [m["match_id"] for m in ladders.recent(store, lad, 5)] == [m["match_id"] for m in matches][-5:][::-1]
    every, few = ladders.history(store, "lad", "r"), ladders.history(store, "lad", "r", 4)
    assert len(every) > 6 and len(few) <= 5 and few[0] == every[0] and few[-1] == every[-1] and \
        all(p in every for p in few)
    with store.db:   # a store from before the table: counted from the matches, read-only, then kept on a write
        store.db.execute("DROP TABLE ladder_meetings")
        store.db.execute("PRAGMA user_version = 2")
    store.close()
    assert {name: ladders.head_to_head(Store(str(path), readonly=True), "lad", name) for name in names} == expected
    migrate(str(path))   # the table, empty: still counted from the matches until the next write counts them once
    assert {name: ladders.head_to_head(Store(str(path), readonly=True), "lad", name) for name in names} == expected
    store = Store(str(path))
    ladders.count_meetings(store)
    with store.db:
        store.db.execute("DELETE FROM matches")
    assert {name: ladders.head_to_head(store, "lad", name) for name in names} == expected
    store.close()


@pytest.mark.slow
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT])
def test_a_ladder_killed_mid_batch_resumes_to_the_same_matches_without_loss_or_double(tmp_path, how):
    agents = ["ismcts[iterations=400] as a", "ismcts[iterations=400,c=1.4] as b", "greedy as g"]
    whole, killed = tmp_path / "whole.sqlite", tmp_path / "killed.sqlite"
    for path in (whole, killed):
        make_ladder(path, agents)
    ok("ladder", "run", "lad", "--matches", 32, "-j", 2, "--store", whole)
    proc = start(["run", "lad", "--matches", 32, "-j", 2, "--store", killed], tmp_path, command="ladder")
    wait_for_matches(killed, 20, proc)           # inside the second batch (16 matches each)
    os.kill(proc.pid, how)
    out, err = proc.communicate(timeout=60)
    if how == signal.SIGINT:   # Ctrl-C: stopped at once, said so in one line, exit 130
        assert proc.returncode == 130 and "interrupted after" in err and "Traceback" not in err, err
    store = Store(str(killed), readonly=True)
    assert store.count("ladder-lad") < 32 and store.db.execute("SELECT count(*) FROM ladder_plan").fetchone()[0]
    store.close()
    ok("ladder", "run", "lad", "--matches", 1, "-j", 2, "--store", killed)   # finishes the recorded batch
    assert played(killed) == played(whole) and [m[0] for m in played(whole)] == list(range(32))
    assert standings(killed) == standings(whole)


@pytest.mark.slow
def test_until_settled_stops_at_the_first_batch_where_every_place_is_settled(tmp_path):
    path = tmp_path / "settle.sqlite"
    make_ladder(path, ["random as r", "greedy as g", "ismcts[iterations=30] as m"])
    out = json.loads(ok("ladder", "run", "lad", "--until-settled", "-j", 1, "--json", "--store", path))
    assert out["status"] == "finished" and all(r["settled"] and not r["provisional"] for r in out["standings"])
    batches = out["batches"]
    assert batches > 1 and out["played"] == batches * 2 * matchmaking.BATCH
    # one batch fewer was not settled yet: the history of the ladder replayed up to then says so
    store = Store(str(path))
    last_deal = (batches - 1) * matchmaking.BATCH
    before = {}
    for row in store.db.execute("SELECT entry, deal, mu, sigma FROM ladder_history WHERE deal < ? ORDER BY deal",
                                (last_deal,)):
        before[row[0]] = row
    store.close()
    earlier = []
    for number, (_, _, mu, sigma) in before.items():
        r = standing.environment().create_rating(mu, sigma)
        e = standing.Entry(number, str(number), 1, None, "")
        e.pi, e.tau = r.pi, r.tau
        earlier.append(e)
    order = standing.ordered(earlier)
    assert not all(standing.settled(order, e) for e in order)


def test_the_reading_commands_read_a_ladder_s_matches_as_any_run_s(tmp_path):
    path = tmp_path / "read.sqlite"
    make_ladder(path, ["random as r", "greedy as g"])
    ok("ladder", "run", "lad", "--matches", 1, "-j", 1, "--store", path)
    assert "run ladder-lad: 16 of 16 matches" in ok("matches", "ladder-lad", "--store", path)
    assert "final scores" in ok("replay", "ladder-lad", 3, "--to-end", "--store", path)
    assert "has no faults" in ok("faults", "ladder-lad", "--store", path)
    ok("export", "ladder-lad", "--out", tmp_path / "lad.jsonl", "--store", path)
    lines = [json.loads(line) for line in (tmp_path / "lad.jsonl").read_text().splitlines()]
    assert lines[0]["kind"] == "ladder" and len(lines) == 17
    ok("import", tmp_path / "lad.jsonl", "--store", tmp_path / "other.sqlite")   # every match replayed and checked


def test_runs_lists_a_ladder_s_active_entries_as_its_agents(tmp_path):
    path = tmp_path / "runs.sqlite"
    make_ladder(path, ["random as r", "greedy as g", "random as gone"])
    ok("ladder", "retire", "lad", "gone", "--store", path)
    [row] = json.loads(ok("runs", "--json", "--store", path))
    assert row["run_id"] == "ladder-lad" and row["agents"] == ["r", "g"]
    assert "r, g" in ok("runs", "--store", path)


def test_a_ladder_no_run_plays_is_idle_and_counts_matches_played_not_planned(tmp_path):
    import jsonschema
    path = tmp_path / "idle.sqlite"
    make_ladder(path, ["random as r", "greedy as g"])
    ok("ladder", "run", "lad", "--matches", 1, "-j", 1, "--store", path)
    [row] = json.loads(ok("runs", "--json", "--store", path))
    assert (row["status"], row["played"], row["planned"]) == ("idle", 16, None)
    [line] = [line for line in ok("runs", "--store", path).splitlines() if "ladder-lad" in line]
    assert line.split()[1:4] == ["ladder", "idle", "16"]
    ok("export", "ladder-lad", "--out", tmp_path / "lad.jsonl", "--store", path)
    head = json.loads((tmp_path / "lad.jsonl").read_text().splitlines()[0])
    schema = json.loads((pathlib.Path(__file__).parents[3] / "docs" / "export" / "line.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(head)
    assert head["status"] == "idle"


def test_a_fault_in_a_deal_moves_only_the_faulters_standing():
    """The fault rule in a ladder: the entries that did not fault are rated, counted and scored on the
    played-out games; the faulter as last in the matches it faulted in."""
    def deal(faulty):
        rotations = [["f", "a", "r"], ["a", "r", "f"], ["r", "f", "a"]]
        order = {"f": 1, "a": 2, "r": 3}   # the played-out games: the faulter's seat first every time
        return [{"seats": [{"label": x} for x in labels], "placements": [order[x] for x in labels],
                 "faults": [{"seat": labels.index("f"), "label": "f"}] if faulty else []} for labels in rotations]

    def fold(matches):
        entries = {x: standing.Entry(i, x, 1, AgentSpec(x, "random"), "") for i, x in enumerate("far", 1)}
        standing.fold_deal(entries, matches, standing.environment())
        return entries

    faulty, honest = fold(deal(True)), fold(deal(False))
    figures = ("pi", "tau", "wins", "draws", "losses", "share", "form")
    for x in "ar":
        assert [getattr(faulty[x], k) for k in figures] == [getattr(honest[x], k) for k in figures], x
    f = faulty["f"]
    assert (f.wins, f.losses, f.faults, f.form, f.share[1]) == (0, 3, 3, "L", 0.0)
    assert f.mu < honest["f"].mu
    assert standing.meetings(deal(True))[("a", "f")] == [3, 0, 0, 3]   # a was below f's seat every time
    assert standing.meetings(deal(True))[("f", "a")] == [3, 0, 0, 3]   # and f lost by its faults
