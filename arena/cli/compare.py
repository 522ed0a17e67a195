"""`arena compare`: is the candidate stronger than the baseline? A sequential test over duplicate deals."""
import sys

import click

from arena.cli.common import (
    WholeNumber,
    bot_limit_option,
    deal_key_option,
    deals_option,
    echo_json,
    json_option,
    literal,
    play_options,
    rich_console,
    sandbox_option,
    seeding_option,
    store_option,
    user_errors,
)
from arena.defaults import COMPARE_MAX_DEALS as DEFAULT_MAX_DEALS


def _range(r, digits=0, sign=1):
    """"mean [low, high]"; JSON's None (not finite) is shown as -inf at the low end, inf at the high end,
    and with the sign of `sign` for the mean."""
    if r is None:
        return "-"

    def num(v, end):
        if v is None:
            return "inf" if end > 0 else "-inf"
        return f"{v:+.0f}" if digits == 0 else f"{v:.{digits}f}"
    return f"{num(r['mean'], sign)} [{num(r['low'], -1)}, {num(r['high'], 1)}]"


def _side(score):
    return 1 if score is None or score["mean"] >= 0.5 else -1


def _live(plan, outcome):
    """One line of progress: deals, LLR and its bounds, the Elo estimate and its interval."""
    line = f"deals {outcome.deals}/{plan.max_deals}: LLR {outcome.llr:+.2f} " \
           f"[{plan.test.lower:.2f}, {plan.test.upper:.2f}]"
    if outcome.estimates:
        line += f", Elo {_range(outcome.estimates['elo'].as_dict(), sign=_side(outcome.estimates['score'].as_dict()))}"
    return line


@click.command(short_help="Is CANDIDATE stronger than BASELINE? SPRT on duplicate deals.",
               help="Play CANDIDATE against BASELINE on duplicate deals until a sequential probability ratio "
                    "test decides (H1: CANDIDATE is stronger by elo1 or more; H0: by elo0 or less) or "
                    "--max-deals is reached. Two-player games: each deal twice with the seats swapped, "
                    "scored as a pentanomial pair (fishtest's GSPRT, logistic and normalized Elo). More "
                    "players: CANDIDATE and BASELINE take the same seat on the same deal against the same "
                    "field, and the test is on the paired difference of their score shares. The run is "
                    "stored: the same command resumes it or prints it again.")
@click.argument("candidate")
@click.argument("baseline")
@click.option("--game", "game_id", default=None, help="Game id (required without --deals).")
@click.option("--players", type=int, default=None, help="Players per match (default: the game's).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="Game parameter.")
@click.option("--field", default=None, metavar="AGENTS",
              help="More players: the agents of the other seats, one or a list rotated through them "
                   "[default: the baseline].")
@click.option("--sprt", "sprt_text", default="elo0=0,elo1=10,alpha=0.05,beta=0.05", show_default=True,
              help="Hypotheses in logistic Elo and error rates; parts left out keep these defaults.")
@click.option("--max-deals", type=WholeNumber(min=1), default=None,
              help=f"Stop undecided after this many deals (two matches each)  [default: {DEFAULT_MAX_DEALS}; "
                   f"with --deals, the book's deals].")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the deals.")
@click.option("--replays", type=WholeNumber(min=0, max=100), default=0, show_default=True,
              help="Also report the corrected score: each deal that parted is scored by the mean over its stored "
                   "continuation and this many replays from the move after the divergence (coupled seeds, "
                   "built-in agents; not used for the verdict).")
@store_option
@play_options
@sandbox_option
@bot_limit_option
@deal_key_option
@deals_option
@seeding_option
@json_option
@user_errors
def compare(candidate: str, baseline: str, game_id: str | None, players: int | None, params: tuple[str, ...],
            field: str | None, sprt_text: str, max_deals: int | None, seed: int, replays: int, store_path: str,
            jobs: int | None, backend: str, address: str | None, time_limit: float, time_control: str | None,
            sandbox: str, bot_limits: tuple[str, ...], deal_key: str | None, book: str | None,
            seeding: str | None, as_json: bool) -> None:
    from arena import edge
    from arena.compare import compare as cmp
    from arena.compare import correction
    from arena.tournament import coordinator as tournament

    if replays:   # refused before the run is stored (agents the plan cannot read, it refuses itself)
        try:
            unconfined = edge.sandbox_policy("none")
            agents = [edge.agent(candidate, unconfined), edge.agent(baseline, unconfined),
                      *(edge.agent_items(field, "--field", unconfined) if field else ())]
        except ValueError:
            agents = []
        reason = correction.refusal(seeding, time_control, agents)
        if reason:
            raise click.UsageError(f"--replays: {reason}")
    # The store is opened (made) by the plan, only once the comparison passed its checks.
    plan = edge.plan_comparison(store_path, candidate, baseline, game_id, players, params, field, sprt_text, max_deals,
                                seed, time_limit, sandbox, deal_key, backend, address, time_control, book, seeding,
                                bot_limits)
    store = plan.store
    assert store is not None
    if replays and correction.unavailable(plan):
        raise click.UsageError(f"--replays: {correction.unavailable(plan)}")
    err = rich_console(stderr=True)
    if not as_json:
        from arena.text import book_text
        dealt = f", the deals of book {book_text(plan.config.book)}" if plan.config.book else ""
        err.print(literal(f"run {plan.run_id}: {plan.candidate.label} against {plan.baseline.label} on "
                          f"{plan.game_id}{dealt}, SPRT {plan.test.text()}, {plan.config.seeding} seeds, "
                          f"store {store_path} "
                          f"(Ctrl-C stops; the same command resumes)"))

    def on_batch(outcome):
        if not as_json and outcome.deals:
            err.print(literal(_live(plan, outcome)))
    try:
        status, outcome = cmp.play(store, plan, backend, jobs, address, on_batch=on_batch)
    except tournament.MatchFailed as e:
        raise click.ClickException(f"{e}; the comparison stopped (the same command resumes it)") from None
    if status == "interrupted":
        # click, not rich: the command is copied as it is ("[iterations=3000]" is not markup) and never wrapped.
        click.echo(f"interrupted after {outcome.deals} deals; the same command resumes:\n"
                   f"  {cmp.command(plan, store_path)}", err=True)
        store.close()
        sys.exit(130)
    data = cmp.summary(plan, outcome, status, store_path)
    data["corrected"] = correction.correct(plan, store.matches(plan.run_id), outcome.deals, replays).as_dict() \
        if replays and outcome.deals else None
    store.close()
    if as_json:
        echo_json(data)
        return
    _print(data, plan, outcome)


def _parted(divergence):
    """Where the deals that did not play identically parted: the median first move that differed."""
    firsts = sorted(d["first_move"] for d in divergence if d["first_move"] is not None)
    if not firsts:
        return ""
    differing = sorted(d["differing_moves"] for d in divergence if d["first_move"] is not None)
    return (f"; the others part at move {firsts[len(firsts) // 2]} and differ in {differing[len(differing) // 2]} "
            f"moves (medians)")


def _print(data, plan, outcome):
    from arena.cli.layout import Column, fits, print_table
    console = rich_console()
    console.print(literal(data["verdict"]), style="bold")
    console.print(literal(f"deals used {data['deals']} ({2 * data['deals']} matches; {data['not_counted']} "
                          f"more stored, not counted), LLR {data['llr']:+.3f} "
                          f"[{plan.test.lower:.3f}, {plan.test.upper:.3f}]"))
    if data["score"]:
        model = "pair score" if plan.players == 2 else "1/2 + share difference"
        console.print(literal(f"score ({model}) {_range(data['score'], 3)}   Elo {_range(data['elo'], sign=_side(data['score']))}   "
                              f"normalized Elo {_range(data['nelo'])}   (95%)"))
    c = data["corrected"]
    if c and c["score"]:
        spread = f", sd per deal {c['sd']:.3f} against {c['raw_sd']:.3f} raw" if c["sd"] is not None else ""
        console.print(literal(f"corrected score {_range(c['score'], 3)} (95%){spread}: {c['replayed_deals']} deals "
                              f"that parted replayed {c['replays']} times from the move after the divergence"))
    if data["points"] and data["points"]["low"] is not None:
        who = "pair" if plan.players == 2 else "seat"
        console.print(literal(f"points per {who} (candidate minus baseline) {_range(data['points'], 2)}"))
    if data["deals"]:
        console.print(literal(f"{data['identical']} ({data['seeding']} seeds)" + _parted(data["divergence"])))
    console.print("pentanomial: deals by the candidate's points over the pair (0 to 2)" if plan.players == 2
                  else "paired differences: deals by the candidate's share minus the baseline's (-1 to 1)")
    # A value per column; a terminal too narrow for them all shows a value per row.
    columns = [Column(item["value"], justify="right") for item in data["histogram"]]
    counts = [str(item["count"]) for item in data["histogram"]]
    if fits(console, columns, [counts]):
        print_table(console, columns, [counts])
    else:
        print_table(console, [Column("value", justify="right"), Column("deals", justify="right")],
                    [[item["value"], count] for item, count in zip(data["histogram"], counts)])
    click.echo("reproduce: " + data["command"])   # one line, never wrapped: it is for copying
