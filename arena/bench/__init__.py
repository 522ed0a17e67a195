"""`arena bench`: throughput of the engines, the search agents and the arena, as JSON rows.

Every row is `{"case", "unit", "rates": [one per repeat], "median_per_s"}`; a row measured against
a baseline in the same run also names it (`"baseline"`) and gives `"speedup"` (median / baseline
median). Engine rows per game:

- `<game>/rollouts`: random playouts per second, each from a fresh deal to the end of the game,
  the whole loop in C (`engines.core.run_rollouts`); baseline `<game>/rollouts_python`, the same
  playouts through the Python face (make, legal_actions, random choice, apply_action).
- `<game>/clones`: copies of the start position into a scratch state (`run_clones`); baseline
  `<game>/clones_python`, `state.clone()`.
- `wizard/rollouts_plain_c`: the same Wizard hand played by a plain C program compiled with
  `cc -O2` (arena/bench/yardstick/wizard_hand.c), timed in rounds interleaved with `wizard/rollouts`
  (engine, yardstick, engine, ...), both in CPU time: it is then the baseline of `wizard/rollouts`,
  whose `speedup` is the median of the per-round ratios (`ratios`), and `wizard/rollouts_python`
  stands alone. Without a C compiler, `wizard/rollouts` is measured as elsewhere.
- `<game>/apply_undo`: apply+undo pairs of random legal actions at the start (`run_apply_undo`);
  baseline `<game>/apply_undo_python`, `apply_action` + `undo_action`.

Wizard is measured on one 4-player hand of 10 cards, the deal included
(`engines.make("wizard", players=4, hands=(10,))`), Royal Ball on one round
(`match="single_round"`); other games on their defaults.
Search rows come from `arena.bench.ismcts`, `arena.bench.minimax` and `arena.bench.pimc`, and the
learned bid's rows (its trees in C beside scikit-learn, its bid beside pimc's playout bid) from
`arena.bench.learned`.
With `--arena`: `arena/<game>/bare_loop` (the matches of a greedy-vs-random tournament, enough
deals in both seatings for about two seconds of play, played in a plain loop on the true state), `arena/<game>/workers_1` and `workers_2`
(the same matches through the arena: determinized views, fault checks, a process pool started for
the run, a SQLite store); `overhead_pct` is how much longer the arena takes than the bare loop, and
`playout_pct` its games/s as a percentage of `arena/<game>/playouts`, the raw random playouts/s of
`engines.core.run_rollouts` measured in the same run (bench_state's game: Wizard one hand).
Also with `--arena`, the cost of the sandbox for submitted agents (the built-in random agent loaded
as a submitted one): `sandbox/starts_bwrap` (a bot process started under bubblewrap and its class
loaded, per second) and `sandbox/moves_bwrap` (act requests answered per second, a Wizard position
sent each time), each beside the same without the sandbox (`--sandbox none`, a plain process);
`overhead_ms` is the extra time per start or per move.
With `--instructions`, only instruction counts per playout and per search iteration, under
callgrind (arena.bench.instructions): they repeat on a busy machine, where seconds do not.
"""
import os
import random
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import engines
import engines.core as core
from arena.bench import yardstick
from arena.bench.measure import Row, calibrated_rates, row, timed, versus
from engines.core import GameState

if TYPE_CHECKING:   # the tournament modules load only when a bench plays through the arena
    from arena.run_config import TournamentConfig
    from arena.tournament.schedule import Schedule

# The units the engines' targets are stated in: one Wizard hand, one Royal Ball round.
BENCH_PARAMS: dict[str, dict[str, Any]] = {"wizard": {"players": 4, "hands": (10,)}, "royal_ball": {"match": "single_round"}}
ARENA_DEALS = 50


def bench_state(game_id: str) -> GameState:
    params = BENCH_PARAMS.get(game_id, {})
    try:
        return engines.make(game_id, seed=1, **params)
    except ValueError:
        return engines.make(game_id, seed=1)


def engine_rows(game_id: str, repeats: int = 5, seconds: float = 0.2) -> list[Row]:
    proto = bench_state(game_id)
    params = dict(proto.params)
    rng = random.Random(0)

    def python_rollouts(n):
        for i in range(n):
            s = engines.make(game_id, seed=i, **params)
            while not s.is_terminal():
                s.apply_action(rng.choice(s.legal_actions()))

    def python_clones(n):
        for _ in range(n):
            proto.clone()

    legal = proto.legal_actions()

    def python_apply_undo(n):
        s = proto.clone()
        for _ in range(n):
            s.apply_action(rng.choice(legal))
            s.undo_action()

    rows = []
    python = row(f"{game_id}/rollouts_python", "playouts/s", calibrated_rates(python_rollouts, repeats, seconds))
    if engines.spec(game_id).yardstick and yardstick.compiler():
        rows += [python] + yardstick_rows(proto, 2 * repeats + 1, seconds)
    else:
        rows += versus(python, row(f"{game_id}/rollouts", "playouts/s",
                                   calibrated_rates(lambda n: core.run_rollouts(proto, n, 7), repeats, seconds)))
    rows += versus(row(f"{game_id}/clones_python", "clones/s", calibrated_rates(python_clones, repeats, seconds)),
                    row(f"{game_id}/clones", "clones/s",
                        calibrated_rates(lambda n: core.run_clones(proto, n), repeats, seconds)))
    rows += versus(row(f"{game_id}/apply_undo_python", "pairs/s", calibrated_rates(python_apply_undo, repeats, seconds)),
                    row(f"{game_id}/apply_undo", "pairs/s",
                        calibrated_rates(lambda n: core.run_apply_undo(proto, n, 7), repeats, seconds)))
    setup = BENCH_PARAMS.get(game_id)
    if setup:
        for r in rows:
            r["params"] = {k: list(v) if isinstance(v, tuple) else v for k, v in setup.items()}
    return rows


def yardstick_rows(proto: GameState, rounds: int, seconds: float) -> list[Row]:
    """`wizard/rollouts_plain_c` (the plain-C yardstick, arena.bench.yardstick) and `wizard/rollouts`
    timed in interleaved rounds on the same number of playouts, in CPU time; the engine's row has
    the yardstick as its baseline and, as its speedup, the median of its per-round ratios."""
    program, folder = yardstick.temporary_program()
    with folder:
        mine, plain = yardstick.interleaved(lambda n, r: core.run_rollouts(proto, n, 7 + r), program, rounds, seconds)
    base = row("wizard/rollouts_plain_c", "playouts/s", plain, rounds=rounds, clock="cpu",
               source="arena/bench/yardstick/wizard_hand.c (cc -O2)")
    fast = row("wizard/rollouts", "playouts/s", mine, rounds=rounds, clock="cpu", baseline=base["case"],
               speedup=round(yardstick.median_ratio(mine, plain), 3), ratios=[round(a / b, 3) for a, b in zip(mine, plain)])
    return [base, fast]


def search_rows(game_ids: Iterable[str]) -> Iterator[Row]:
    """Rows of the search agents' benchmarks (arena.bench.ismcts, .minimax, .pimc) and of the learned
    bid beside the rule it replaces (arena.bench.learned)."""
    from arena.bench import ismcts, learned, minimax, pimc
    for module in (ismcts, minimax, pimc, learned):
        yield from module.cases(list(game_ids))


def arena_rows(game_id: str, repeats: int = 3, deals: int | None = None, agents: str = "greedy, random",
               seconds: float = 2.0) -> list[Row]:
    """Games per second through the arena at 1 and 2 workers, against a bare loop of the same matches.

    Without `deals`, enough deals that the bare loop takes about `seconds` (at least ARENA_DEALS), so
    that starting the worker pool does not dominate quick games. A bare loop plays no submitted agent
    (an exec bot or a Python file bot, each in its sandbox): with one in `agents`, `submitted_rows`.
    """
    import agents as agent_registry
    from arena import edge
    from arena.tournament.runner import agent_seed

    specs = edge.agents(agents)
    submitted = [s for s in specs if s.submitted]
    if submitted:
        return submitted_rows(game_id, submitted, repeats, deals or SUBMITTED_DEALS)
    params = engines.registry.resolve(game_id)

    def schedule(n):
        return arena_schedule(game_id, params, specs, n)

    def bare():
        for m in matches:
            state = engines.make(m.game_id, seed=m.seed, **m.params_dict())
            players = [agent_registry.make(a.source, **dict(a.params)) for a in m.seats]
            for seat, p in enumerate(players):
                p.reset(m.game_id, m.params_dict(), seat, agent_seed(m, seat))   # the arena's seeds
            while not state.is_terminal():
                state.apply_action(players[state.current_player()].act(state))

    def through_arena(jobs):
        play_through_arena(config, matches, jobs)

    if deals is None:
        config, matches = schedule(ARENA_DEALS)
        t = time.perf_counter()
        bare()
        per_deal = (time.perf_counter() - t) / ARENA_DEALS
        deals = max(ARENA_DEALS, min(20000, int(seconds / max(per_deal, 1e-9))))
    config, matches = schedule(deals)

    def games_per_s(fn):
        rates = []
        for _ in range(repeats):
            t = time.perf_counter()
            fn()
            rates.append(len(matches) / (time.perf_counter() - t))
        return rates

    info: dict[str, Any] = {"games": len(matches), "agents": agents}
    base = row(f"arena/{game_id}/bare_loop", "games/s", games_per_s(bare), **info)
    one = row(f"arena/{game_id}/workers_1", "games/s", games_per_s(lambda: through_arena(1)), **info)
    two = row(f"arena/{game_id}/workers_2", "games/s", games_per_s(lambda: through_arena(2)), **info)
    proto = bench_state(game_id)
    playouts = row(f"arena/{game_id}/playouts", "playouts/s",
                   calibrated_rates(lambda n: core.run_rollouts(proto, n, 7), repeats, 0.2))
    for r in (one, two):
        versus(base, r, digits=2)
        r["overhead_pct"] = round(100 * (base["median_per_s"] / r["median_per_s"] - 1), 1)
        r["playout_pct"] = round(100 * r["median_per_s"] / playouts["median_per_s"], 2)
    return [base, one, two, playouts]


def arena_schedule(game_id: str, params: dict[str, Any], specs: Sequence[Any], deals: int) -> tuple["TournamentConfig", "Schedule"]:
    """(the tournament config, its MatchSpecs) of `deals` deals of `specs` on one game, as `arena run` plays them."""
    from arena.run_config import GameSetting
    from arena.sandbox import DEFAULT_POLICY
    from arena.tournament import schedule as sched
    config = sched.tournament_config([GameSetting(game_id, params)], specs, deals, 0, 10.0, DEFAULT_POLICY)
    return config, sched.schedule_from_config("bench", config)


def play_through_arena(config: Any, matches: Sequence[Any], jobs: int) -> int:
    """Plays `matches` through the arena (a throwaway store, `jobs` workers); returns the moves played."""
    from arena.store import Store
    from arena.tournament.coordinator import play_specs
    moves = [0]

    def count(result):
        moves[0] += len(result.actions)

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(os.path.join(tmp, "bench.sqlite"))
        store.create_run("bench", config, len(matches))
        play_specs(store, matches, "local", jobs, on_match=count)
        store.close()
    return moves[0]


SUBMITTED_DEALS = 5   # deals of each submitted agent against random: each match starts its sandboxes


def submitted_rows(game_id: str, submitted: Sequence[Any], repeats: int = 3, deals: int = SUBMITTED_DEALS) -> list[Row]:
    """Moves per second of each submitted agent against random through the arena (1 worker, its
    sandbox), beside a Python file bot that plays random (agents/simple.py:RandomAgent as a file) on
    the same deals: the ratio is what the agent's way of playing (an exec bot: the protocol's JSON
    lines and its own process) costs per move, beyond a sandboxed Python bot."""
    import agents.simple
    from arena import edge
    from arena.sandbox import stage
    params = engines.registry.resolve(game_id)
    baseline_file = os.path.splitext(agents.simple.__file__)[0] + ".py"

    def moves_per_s(spec):
        specs = [stage(spec), opponent]
        config, matches = arena_schedule(game_id, params, specs, deals)
        rates = []
        for _ in range(repeats):
            t = time.perf_counter()
            moves = play_through_arena(config, matches, 1)
            rates.append(moves / (time.perf_counter() - t))
        return rates, len(matches)

    opponent, file_bot = edge.agents(f"random, {baseline_file}:RandomAgent as python-file-random")
    rates, games = moves_per_s(file_bot)
    base = row(f"arena/{game_id}/python_file_random", "moves/s", rates, games=games, agents="python-file-random, random")
    out = [base]
    for spec in submitted:
        rates, games = moves_per_s(spec)
        mine = row(f"arena/{game_id}/{spec.label}", "moves/s", rates, games=games, agents=f"{spec.label}, random")
        out.append(versus(base, mine, digits=2)[1])
    return out


def sandbox_rows(repeats: int = 3, moves: int = 300, matches: int = 30) -> list[Row]:
    """Per-match start-up and per-move cost of a sandboxed bot against the same bot in a plain
    process (--sandbox none), both started by a warm fork server as a tournament starts them."""
    from arena import edge
    from arena.match import AgentSpec
    from arena.sandbox import BotPool, RemoteAgent

    spec = AgentSpec("random", "agents.simple:RandomAgent", (), "module", "agents.simple:RandomAgent")
    state = bench_state("wizard")

    def start(pool, policy):
        def fn(n):
            for _ in range(n):
                agent = RemoteAgent(spec, 10.0, policy, pool=pool, staged=False)
                agent.reset("wizard", dict(state.params), 0, 1)
                agent.close()
        return fn

    def act(pool, policy):
        agent = RemoteAgent(spec, 10.0, policy, pool=pool, staged=False)
        agent.reset("wizard", dict(state.params), 0, 1)

        def fn(n):
            for _ in range(n):
                agent.act(state)
        return agent, fn

    rows = []
    for what, unit in (("match_starts", "starts/s"), ("moves", "moves/s")):
        pair = []
        for mode in ("none", "bwrap"):
            policy, pool = edge.sandbox_policy(mode), BotPool()
            try:
                start(pool, policy)(1)   # the box itself, started once per worker
                if what == "match_starts":
                    pair.append(row(f"sandbox/{what}_{mode}", unit, timed(start(pool, policy), matches, repeats)))
                else:
                    agent, fn = act(pool, policy)
                    pair.append(row(f"sandbox/{what}_{mode}", unit, timed(fn, moves, repeats)))
                    agent.close()
            finally:
                pool.close()
        base, boxed = versus(pair[0], pair[1], digits=2)
        boxed["overhead_ms"] = round(1000 / boxed["median_per_s"] - 1000 / base["median_per_s"], 3)
        rows += [base, boxed]
    return rows
