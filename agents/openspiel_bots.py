"""OpenSpiel's search bots as arena agents, playing through the adapter in engines/openspiel.py.

    arena run --game insert --agents "openspiel_mcts[iterations=200],random"
    arena run --game wizard --agents "openspiel_ismcts[iterations=100,c=2],ismcts,greedy,random"

- `openspiel_mcts`: OpenSpiel's Python `MCTSBot` (UCT, random-rollout evaluator). On a
  hidden-information game it searches the determinized state the arena gives it (one world).
- `openspiel_ismcts`: OpenSpiel's Python `ISMCTSBot`; its worlds are resampled by the adapter's
  `resample_from_infostate`, that is by our `determinize`, from a seeded generator.

Parameters: `iterations` (simulations per move, at least 2), `c` (the UCT exploration constant,
applied to the engines' raw returns: +1/-1 in Insert, scores in the card games), `rollouts` (random rollouts per
evaluation), `rollout` (`openspiel`: OpenSpiel's RandomRolloutEvaluator, in Python; `engine`:
the same uniformly random rollouts played by the engine's C-level `rollout`, much faster on long
games), `seed` (combined with the match seed and the seat); MCTS also `solve` (back up proven
results), ISMCTS `worlds` (at most that many root worlds, -1 for a new one per simulation) and
`final` (the move played: `max_visit_count` or `max_value`).

- `openspiel_bot`: any `pyspiel.Bot` made by a factory of yours, `factory=package.module:function`
  or `factory=/path/file.py:function` (default: `agents.openspiel_bots:uniform_random`, OpenSpiel's
  uniformly random bot). The factory is called once per match as
  `function(game, player, seed, **params)`, `game` being the OpenSpiel game of the match
  (engines.openspiel), and returns a bot; the agent calls `bot.step(state)` on each move's
  determinized view, wrapped as an OpenSpiel state (a fresh state each move: the bot is not told the
  other players' actions through `inform_action`). The factory's keyword parameters with defaults are
  the agent's parameters besides `factory` and `seed`, typed by those defaults as any agent's
  `PARAMS` are: `"openspiel_bot[factory=mybots:make_alpha_beta,depth=3]"`. Like the built-in agents
  (and unlike a submitted `package.module:Class`), the factory's code runs in the arena's worker,
  neither sandboxed nor timed: it is for your own bots, not for bots submitted by others.

The bots run in Python over Python states (each simulation clones through OpenSpiel's bridge), so
they are far slower per iteration than our Cython `ismcts`. Without open_spiel installed,
`cannot_play` says so for every game and the arena leaves them out.
"""
import importlib
import importlib.util
import inspect
import os
import random
import sys
from collections.abc import Callable
from typing import Any

from agents.base import SEED_LIMITS, Agent, BadAgentParameter
from engines.params import coerce

# OpenSpiel's MCTS and ISMCTS fail with a single simulation (no child visited yet to choose from)
ITERATION_LIMITS = (2, 1_000_000)


def _missing() -> str | None:
    try:
        import pyspiel  # noqa: F401
        from open_spiel.python.algorithms import ismcts, mcts  # noqa: F401
    except ImportError as e:
        return f"needs OpenSpiel, which is not importable here ({e}): pip install 'tabletop-arena[openspiel]'"
    return None


class _OpenSpielAgent(Agent):
    PARAMS: dict[str, Any] = {"iterations": 100, "c": 2.0, "rollouts": 1, "rollout": "openspiel", "seed": 0}
    CHOICES: dict[str, tuple[str, ...]] = {"rollout": ("openspiel", "engine")}
    LIMITS: dict[str, tuple[float, float]] = {"iterations": ITERATION_LIMITS, "c": (0.0, 1000.0),
                                              "rollouts": (1, 1000), "seed": SEED_LIMITS}

    @classmethod
    def missing(cls) -> str | None:
        return _missing()

    @classmethod
    def cannot_play(cls, game_id: str, players: int) -> str | None:
        return _missing()

    def reset(self, game_id: str, game_params: dict[str, Any], seat: int, seed: int) -> None:
        super().reset(game_id, game_params, seat, seed)
        import numpy as np

        import engines.openspiel as eo
        self.rng = random.Random(hash((self.params["seed"], seed, seat)))
        self.game = eo.load(game_id, **game_params)
        self.np_rng = np.random.RandomState(self.rng.getrandbits(32))
        self.bot = self._make_bot()

    def _evaluator(self) -> Any:
        from open_spiel.python.algorithms import mcts
        if self.params["rollout"] == "engine":
            return _engine_rollouts()(self.params["rollouts"], self.rng)
        return mcts.RandomRolloutEvaluator(n_rollouts=self.params["rollouts"], random_state=self.np_rng)

    def _make_bot(self) -> Any:
        raise NotImplementedError

    def act(self, state: Any) -> int:
        import engines.openspiel as eo
        legal = state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        return int(self.bot.step(eo.wrap(self.game, state)))


def _engine_rollouts() -> Any:
    """An OpenSpiel evaluator with the same policy as its RandomRolloutEvaluator (uniformly random
    actions to the end of the game, uniform priors), played by the engine's C-level `rollout`."""
    import numpy as np
    from open_spiel.python.algorithms import mcts

    class EngineRollouts(mcts.Evaluator):
        def __init__(self, n_rollouts, rng):
            self.n_rollouts, self.rng = n_rollouts, rng

        def evaluate(self, state):
            total = np.zeros(state.num_players())
            for _ in range(self.n_rollouts):
                s = state.engine.clone()
                s.rollout(self.rng.getrandbits(64), "game")
                total += s.returns()
            return total / self.n_rollouts

        def prior(self, state):
            legal = state.legal_actions()
            return [(a, 1.0 / len(legal)) for a in legal]

    return EngineRollouts


class OpenSpielMCTSAgent(_OpenSpielAgent):
    """OpenSpiel's MCTSBot (see the module docstring)."""

    name = "openspiel_mcts"
    PARAMS = {**_OpenSpielAgent.PARAMS, "solve": True}

    def _make_bot(self) -> Any:
        from open_spiel.python.algorithms import mcts
        p = self.params
        return mcts.MCTSBot(self.game, p["c"], p["iterations"], self._evaluator(), solve=p["solve"],
                            random_state=self.np_rng)


def _bot_class() -> Any:
    """OpenSpiel's ISMCTSBot, whose search also runs on a perfect-information game (Insert), where
    each information set is a single state: OpenSpiel's `run_search` asserts imperfect information,
    so the root loop is restated for that case (a new tree, one resampled root per simulation)."""
    import pyspiel
    from open_spiel.python.algorithms import ismcts

    class Bot(ismcts.ISMCTSBot):
        def run_search(self, state):
            if state.get_game().get_type().information != pyspiel.GameType.Information.PERFECT_INFORMATION:
                return super().run_search(state)
            self.reset()
            legal = state.legal_actions()
            if len(legal) == 1:
                return [(legal[0], 1.0)]
            self._root_node = self.create_new_node(state)
            for _ in range(self._max_simulations):
                self.run_simulation(self.sample_root_state(state))
            return self.get_final_policy(state, self._root_node)

    return Bot


class OpenSpielISMCTSAgent(_OpenSpielAgent):
    """OpenSpiel's ISMCTSBot (see the module docstring)."""

    name = "openspiel_ismcts"
    PARAMS = {**_OpenSpielAgent.PARAMS, "worlds": -1, "final": "max_visit_count"}
    LIMITS = {**_OpenSpielAgent.LIMITS, "worlds": (-1, ITERATION_LIMITS[1])}
    CHOICES = {**_OpenSpielAgent.CHOICES, "final": ("max_visit_count", "max_value")}

    def _make_bot(self) -> Any:
        from open_spiel.python.algorithms import ismcts
        p = self.params
        final = {"max_visit_count": ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
                 "max_value": ismcts.ISMCTSFinalPolicyType.MAX_VALUE}[p["final"]]
        bot = _bot_class()(self.game, self._evaluator(), p["c"], p["iterations"],
                               max_world_samples=p["worlds"] if p["worlds"] > 0 else ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
                               random_state=self.np_rng, final_policy_type=final)
        # worlds drawn from our seeded generator (the default sampler is not seeded)
        bot.set_resampler(lambda state, player: state.resample_from_infostate(player, self.rng))
        return bot

    def act(self, state: Any) -> int:
        self.bot.reset()     # a new search tree per move, as the other search agents do
        return super().act(state)


def load_factory(target: str) -> Callable:
    """The function named by `module:function` or `FILE.py:function`.

    :raises BadAgentParameter: malformed, not found, or not callable (one line)."""
    where, _, name = target.rpartition(":")
    if not where or not name.isidentifier():
        raise BadAgentParameter(f"parameter 'factory' of agent openspiel_bot: expected package.module:function "
                                f"or FILE.py:function, not {target!r}")
    try:
        if where.endswith(".py") or "/" in where or os.sep in where:
            path = os.path.abspath(os.path.expanduser(where))
            module_name = "openspiel_factory_" + os.path.splitext(os.path.basename(path))[0]
            module = sys.modules.get(module_name)
            if module is None or getattr(module, "__file__", None) != path:
                spec = importlib.util.spec_from_file_location(module_name, path)
                if spec is None or spec.loader is None or not os.path.isfile(path):
                    raise ImportError(f"no file {where}")
                module = importlib.util.module_from_spec(spec)
                spec.loader.exec_module(module)
                sys.modules[module_name] = module
        else:
            module = importlib.import_module(where)
        fn = getattr(module, name)
    except Exception as e:
        raise BadAgentParameter(f"factory {target!r} of agent openspiel_bot: {type(e).__name__}: {e}".splitlines()[0]) from None
    if not callable(fn):
        raise BadAgentParameter(f"factory {target!r} of agent openspiel_bot is not callable")
    return fn


def factory_params(fn: Callable, target: str) -> dict[str, Any]:
    """The factory's own parameters (keyword parameters after game, player, seed) with their defaults.

    :raises BadAgentParameter: it does not take (game, player, seed, ...), or a parameter beyond those
        has no default (nothing to type it by)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        raise BadAgentParameter(f"factory {target!r} of agent openspiel_bot has no readable signature") from None
    ps = [p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if len(ps) < 3 or any(p.kind == p.KEYWORD_ONLY for p in ps[:3]):
        raise BadAgentParameter(f"factory {target!r} of agent openspiel_bot must take (game, player, seed, **params)")
    out = {}
    for p in ps[3:]:
        if p.default is p.empty:
            raise BadAgentParameter(f"factory {target!r} of agent openspiel_bot: parameter {p.name!r} needs a "
                                    f"default (it fixes the parameter's type)")
        out[p.name] = p.default
    return out


def uniform_random(game: Any, player: int, seed: int) -> Any:
    """OpenSpiel's uniformly random bot (its C++ `make_uniform_random_bot`): the default factory of
    `openspiel_bot`."""
    import pyspiel
    return pyspiel.make_uniform_random_bot(player, seed)


DEFAULT_FACTORY = "agents.openspiel_bots:uniform_random"


class OpenSpielFactoryAgent(Agent):
    """A pyspiel.Bot from a factory: openspiel_bot[factory=package.module:function, ...] (see agents.openspiel_bots)."""

    name = "openspiel_bot"
    # `factory` is not among PARAMS: it picks the bot, whose own parameters join PARAMS per instance.
    PARAMS: dict[str, Any] = {"seed": 0}
    CODE_PARAMS = ("factory",)
    LIMITS = {"seed": SEED_LIMITS}

    def __init__(self, **params: Any) -> None:
        raw = params.pop("factory", DEFAULT_FACTORY)
        target = raw.strip() if isinstance(raw, str) else ""
        if not target:
            raise BadAgentParameter(f"parameter 'factory' of agent openspiel_bot must be package.module:function "
                                    f"or FILE.py:function, not {raw!r}")
        self.factory = load_factory(target)
        extra = factory_params(self.factory, target)
        clash = sorted(set(extra) & {*self.PARAMS, "factory"})
        if clash:
            raise BadAgentParameter(f"factory {target!r} of agent openspiel_bot: parameter {clash[0]!r} is the agent's own")
        unknown = sorted(set(params) - set(self.PARAMS) - set(extra))
        if unknown:
            valid = ", ".join(sorted({*self.PARAMS, *extra, "factory"}))
            raise BadAgentParameter(f"unknown parameter {unknown[0]!r} for agent openspiel_bot with factory "
                                    f"{target}; valid: {valid}")
        super().__init__(**{k: v for k, v in params.items() if k in self.PARAMS})
        self.factory_params = {k: coerce(params.get(k, d), d, f"parameter {k!r} of agent openspiel_bot",
                                         BadAgentParameter) for k, d in extra.items()}
        self.params.update(self.factory_params, factory=target)

    @classmethod
    def missing(cls) -> str | None:
        return _missing()

    @classmethod
    def cannot_play(cls, game_id: str, players: int) -> str | None:
        return _missing()

    def reset(self, game_id: str, game_params: dict[str, Any], seat: int, seed: int) -> None:
        super().reset(game_id, game_params, seat, seed)
        import engines.openspiel as eo
        self.game = eo.load(game_id, **game_params)
        self.bots: dict[int, Any] = {}
        self.bot = self._bot(seat)

    def _bot(self, player: int) -> Any:
        """The factory's bot for `player`, made on first use: a bot only ever plays the player it was
        made for (OpenSpiel's C++ bots crash on another player's turn), and the arena asks only for
        the agent's seat."""
        if player not in self.bots:
            bot_seed = random.Random(hash((self.params["seed"], self.seed, player))).getrandbits(31)
            bot = self.factory(self.game, player, bot_seed, **self.factory_params)
            if not callable(getattr(bot, "step", None)):
                raise TypeError(f"factory {self.params['factory']} returned {type(bot).__name__}, not a pyspiel.Bot")
            bot.restart()
            self.bots[player] = bot
        return self.bots[player]

    def act(self, state: Any) -> int:
        import engines.openspiel as eo
        legal = state.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        return int(self._bot(state.current_player()).step(eo.wrap(self.game, state)))
