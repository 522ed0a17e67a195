"""The cost of a learned bid (agents/learned.py, agents/forest.pyx), as JSON rows for `arena bench`,
each beside what it replaces, measured in the same run.

`cases(game_ids)` yields, when "wizard" is among the game ids, on POSITIONS bids of default 4-player
games (seeds 0.., the first bid of rounds whose hand sizes cycle through SIZES, every earlier move
the first legal one):

- `learned/wizard/trees_sklearn`: one row of bid features through scikit-learn's `predict_proba`
  per call, on a GradientBoostingClassifier of the shipped model's shape (its stages, depth, leaf
  size and classes) fitted here to the positions' features, its targets drawn from the shipped
  model's own distribution (seeded), on SAMPLE_ROWS positions dealt as above; timed on the first
  POSITIONS of them. Only with scikit-learn (the `[learn]` extra).
- `learned/wizard/trees_c`: the same fitted trees, exported to arrays (`arena.learn.fit.export_trees`)
  and walked in C (`Forest.raw`), with the softmax, per call; baseline `trees_sklearn`.
- `learned/wizard/bid_playout`: a bid of the teacher the shipped model learned from (`pimc`,
  `bid_samples` as in its teacher): the hand-written rule, every bid played out in sampled worlds.
- `learned/wizard/bid`: a bid of `pimc[bidding=learned]` with the shipped model (features, the trees
  in C, the bid of highest expected score), through `act`; baseline `bid_playout`.
- `learned/wizard/world_plausibility`: how likely a sampled world is, by the engine's hand-written
  `c_plausibility` (the bids seen against each hand's estimated tricks), in C, on POSITIONS worlds
  drawn for the player to move at the first card of rounds dealt as above.
- `learned/wizard/world_weight`: the same worlds' weights under ismcts's shipped bid model
  (agents/world_weights.pyx: each seen bid's view, the trees and the bid's chance, in C), as
  `ismcts[inference=learned]` weighs each world it draws; baseline `world_plausibility`.

And for each game of `game_ids` with a shipped leaf value (agents/models/value-GAME-Np.json) or
playout policy (below), at each player count N one was trained for, on LEAF_POSITIONS positions of
random N-player play (seeds 0.., a third of a random game's plies in); the rows of a player count
other than the game's default are named `learned/GAME/Np/...`:

- `learned/GAME/playout`: a random play-out from the position to the horizon ismcts plays out to
  by default (`round`: Wizard's and Royal Ball's round, the others' game), the engine's `c_rollout`
  on a copy, in C: what the leaf value replaces.
- `learned/GAME/leaf_value`: the leaf value of the same position for every seat (the features of
  agents/leaf.pyx and the trees walked in C, the path ismcts takes per leaf); baseline `playout`.

And for each game of `game_ids` with a shipped playout policy (agents/models/playout-GAME-Np.json),
on the same positions:

- `learned/GAME/playout_policy`: the same play-out with every ply drawn by the policy from its moves'
  patterns (agents/move_policy.pyx), as `ismcts[playout=...]` plays out; baseline `playout`.

Rates are calls per second of the process's CPU time, one core. Run alone: `python -m arena.bench.learned`.
"""
import random
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

import engines
from agents import learned
from agents.pimc import PIMCAgent
from arena import edge
from arena.bench.measure import Row, row, run_alone, versus

GAME = "wizard"
SIZES = (3, 5, 8, 10, 13)
POSITIONS = 20
SAMPLE_ROWS = 2000   # positions whose features the sklearn fit reads (targets drawn from the shipped model)


def _positions(n: int) -> list[Any]:
    """Bids of default 4-player games (deal i: seed i), at the round of SIZES[i % len(SIZES)] cards,
    reached by playing every move before it as the first legal action."""
    out = []
    for i in range(n):
        st: Any = engines.make(GAME, players=4, seed=i)
        cards = SIZES[i % len(SIZES)]
        while not (st.phase() == "bid" and len(st.hand(st.current_player())) == cards):
            st.apply_action(st.legal_actions()[0])
        out.append(st)
    return out


def _rate(fn: Callable[[], object], calls: int, repeats: int) -> list[float]:
    rates = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        rates.append(calls / max(time.process_time() - t0, 1e-9))
    return rates


def _tree_rows(body: dict[str, Any], repeats: int) -> Iterator[Row]:
    try:
        from sklearn.ensemble import GradientBoostingClassifier
    except ImportError:
        return
    from agents.forest import Forest

    from arena.learn import fit
    rng = np.random.default_rng(0)
    x = np.asarray([learned.bid_features(st.observation(st.current_player())) for st in _positions(SAMPLE_ROWS)])
    p = learned.probabilities(body["model"], x)
    classes = np.asarray(body["model"]["classes"])
    y = np.array([rng.choice(classes, p=q) for q in p])
    clf = GradientBoostingClassifier(n_estimators=body.get("stages", 60), max_depth=body.get("depth", fit.TREE_DEPTH),
                                     learning_rate=fit.LEARNING_RATE, subsample=0.8, min_samples_leaf=fit.MIN_LEAF,
                                     random_state=0).fit(x, y)
    trees = fit.export_trees(clf)
    forest = Forest(trees, x.shape[1])
    one_rows = [f.reshape(1, -1) for f in x[:POSITIONS]]
    shape = {"trees": forest.trees, "nodes": forest.nodes, "classes": len(trees["classes"]), "calls": len(one_rows)}

    def sklearn_calls():
        for r in one_rows:
            clf.predict_proba(r)

    def c_calls():
        for r in one_rows:
            learned.softmax(forest.raw(r))
    base = row(f"learned/{GAME}/trees_sklearn", "calls/s", _rate(sklearn_calls, len(one_rows), repeats), **shape)
    mine = row(f"learned/{GAME}/trees_c", "calls/s", _rate(c_calls, len(one_rows), repeats), **shape)
    yield from versus(base, mine)


def _bid_rows(body: dict[str, Any], positions: list[Any], repeats: int) -> Iterator[Row]:
    teacher = edge.agent(str(body.get("teacher")))
    playout = dict(teacher.params) if teacher.source == "pimc" else {}   # the rule the model learned from

    def bids(**params: Any) -> Callable[[], None]:
        bot = PIMCAgent(**params)   # made once: a learned one reads and checks its model file here
        views = [st.determinize(st.current_player(), i) for i, st in enumerate(positions)]

        def fn():
            for i, view in enumerate(views):
                bot.reset(GAME, view.params, view.current_player(), i)
                bot.act(view)
        return fn
    info: dict[str, Any] = {"positions": len(positions), "sizes": list(SIZES)}
    base = row(f"learned/{GAME}/bid_playout", "bids/s", _rate(bids(**playout), len(positions), repeats),
               agent=f"pimc[{','.join(f'{k}={v}' for k, v in playout.items())}]", **info)
    mine = row(f"learned/{GAME}/bid", "bids/s", _rate(bids(bidding="learned"), len(positions), repeats), **info)
    yield from versus(base, mine)


LEAF_POSITIONS = 20
LEAF_CALLS = 200   # calls per position and repeat


def _leaf_positions(game_id: str, players: int) -> list[Any]:
    out = []
    for i in range(LEAF_POSITIONS):
        rng = random.Random(i)
        st: Any = engines.make(game_id, players=players, seed=i)
        actions = []
        while not st.is_terminal():
            actions.append(rng.choice(st.legal_actions()))
            st.apply_action(actions[-1])
        st = engines.make(game_id, players=players, seed=i)
        for a in actions[: len(actions) // 3]:
            st.apply_action(a)
        out.append(st)
    return out


def _shipped(game_id: str) -> dict[int, dict[str, str]]:
    """{players: {"value" or "playout": file name}}: the leaf values and playout policies shipped
    for `game_id` (agents/models/), by the player count each was trained for."""
    from importlib import resources
    spec = engines.spec(game_id)
    names = {"value": learned.value_model_name, "playout": learned.playout_model_name}
    found: dict[int, dict[str, str]] = {}
    for players in range(spec.min_players, spec.max_players + 1):
        for kind, name in names.items():
            if (resources.files("agents") / "models" / name(game_id, players)).is_file():
                found.setdefault(players, {})[kind] = name(game_id, players)
    return found


def _leaf_rows(game_id: str, repeats: int) -> Iterator[Row]:
    for players, shipped in sorted(_shipped(game_id).items()):
        prefix = f"learned/{game_id}" + ("" if players == engines.spec(game_id).default_players else f"/{players}p")
        yield from _leaf_rows_of(game_id, players, shipped, prefix, repeats)


def _leaf_rows_of(game_id: str, players: int, shipped: dict[str, str], prefix: str, repeats: int) -> Iterator[Row]:
    from agents.ismcts import ISMCTSAgent
    from agents.leaf import bench_rollouts, bench_values
    from agents.move_policy import bench_playouts
    positions = _leaf_positions(game_id, players)
    horizon = ISMCTSAgent.PARAMS["horizon"]
    calls = LEAF_CALLS * len(positions)
    info = {"positions": len(positions), "players": players}

    def playouts():
        for st in positions:
            bench_rollouts(st, LEAF_CALLS, horizon)
    base = row(f"{prefix}/playout", "calls/s", _rate(playouts, calls, repeats), horizon=horizon, **info)
    yield base
    if "value" in shipped:
        _, forest = learned.value_forest("shipped", game_id, players)

        def values():
            for st in positions:
                bench_values(st, forest, LEAF_CALLS)
        yield versus(base, row(f"{prefix}/leaf_value", "calls/s", _rate(values, calls, repeats),
                               model=shipped["value"], trees=forest.trees, nodes=forest.nodes, **info))[1]
    if "playout" in shipped:
        _, policy = learned.move_policy("shipped", game_id, players)

        def policy_playouts():
            for st in positions:
                bench_playouts(st, policy, LEAF_CALLS, horizon)
        yield versus(base, row(f"{prefix}/playout_policy", "calls/s", _rate(policy_playouts, calls, repeats),
                               model=shipped["playout"], patterns=policy.patterns, horizon=horizon, **info))[1]


WEIGHT_CALLS = 200   # calls per world and repeat


def _weight_rows(repeats: int) -> Iterator[Row]:
    from agents.world_weights import WorldWeights, bench_weights
    worlds: list[tuple[Any, int]] = []
    for st in _positions(POSITIONS):
        while st.phase() != "play":
            st.apply_action(st.legal_actions()[0])
        worlds.append((st.determinize(st.current_player(), len(worlds)), st.current_player()))
    model = learned.shipped_path(learned.SHIPPED_ISMCTS)
    weights = WorldWeights(learned.load(model, learned.BID_FEATURES), model)

    def weigh(by: Any) -> Callable[[], None]:
        def fn() -> None:
            for world, me in worlds:
                bench_weights(world, me, WEIGHT_CALLS, by)
        return fn
    calls = WEIGHT_CALLS * len(worlds)
    info: dict[str, Any] = {"worlds": len(worlds), "sizes": list(SIZES)}
    base = row(f"learned/{GAME}/world_plausibility", "calls/s", _rate(weigh(None), calls, repeats), **info)
    mine = row(f"learned/{GAME}/world_weight", "calls/s", _rate(weigh(weights), calls, repeats),
               model=learned.SHIPPED_ISMCTS, **info)
    yield from versus(base, mine)


def cases(game_ids: Iterable[str], repeats: int = 3) -> Iterator[Row]:
    """Yields the rows described in the module docstring: the bid's when "wizard" is among the game
    ids, the leaf value's and the playout policy's for each of them with a shipped one."""
    for game_id in game_ids:
        yield from _leaf_rows(game_id, repeats)
    if GAME not in game_ids:
        return
    body = learned.load("", learned.BID_FEATURES)
    yield from _tree_rows(body, repeats)
    yield from _bid_rows(body, _positions(POSITIONS), repeats)
    yield from _weight_rows(repeats)


if __name__ == "__main__":
    run_alone("arena.bench.learned", cases, default=[GAME])
