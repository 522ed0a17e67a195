"""The one reading of a run's text: what the command line and the web app's requests say of a run
(agent lists, `NAME=VALUE` game parameters and bot limits, "BASE+INC" time controls, --sprt, the
sandbox, the seeding, the deal key, a deal book's path), made into the typed values that
`coordinator.plan`, `compare.plan`, `ladder.store.create` and check-agent take. Each function raises
ValueError with one line that names the option, the same line whichever command the text came
through.

    from arena import edge
    policy = edge.sandbox_policy("bwrap", ["memory=512"])
    agents = edge.agents("ismcts, greedy", policy)
    games = edge.games("insert", None, ["hands=10,9"])
"""
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Optional

from arena import agent_list, seeds
from arena.agent_list import ScheduleError
from arena.match import AgentSpec, SandboxPolicy, TimeControl
from arena.run_config import GameSetting

if TYPE_CHECKING:
    from arena.compare.compare import ComparePlan
    from arena.compare.sprt import SprtParams
    from arena.store import Store
    from arena.tournament.books import Book
    from arena.tournament.coordinator import Plan

DEFAULT_AGENTS = agent_list.DEFAULT_AGENTS


def params(texts: Sequence[str], option: str = "--param") -> tuple[tuple[str, str], ...]:
    """Repeated `OPTION NAME=VALUE` texts as ((name, value), ...), the values still text (the
    receiver reads them as its parameters' types)."""
    return agent_list.parse_params(",".join(texts), option)


def sandbox_policy(mode: str = "bwrap", bot_limits: Sequence[str] = ()) -> SandboxPolicy:
    """--sandbox and the repeated --bot-limit NAME=VALUE as a SandboxPolicy (every limit set)."""
    from arena.sandbox import make_policy
    limits = params(bot_limits, "--bot-limit")
    make_policy(mode)   # an unknown sandbox is named as such
    try:
        return make_policy(mode, limits)
    except ValueError as e:
        raise ValueError(f"--bot-limit: {e}") from None


def agents(text: str | None, sandbox: SandboxPolicy | None = None) -> tuple[AgentSpec, ...]:
    """--agents (None: the default list) as AgentSpecs with unique labels; a built-in agent told to
    load code of the user's only with `sandbox` mode none (None: confined)."""
    if text is not None and not text.strip():
        raise ScheduleError("--agents is empty: give at least two agents, e.g. --agents greedy,random")
    return tuple(agent_list.parse_agents(text or DEFAULT_AGENTS, run_code=_unconfined(sandbox)))


def agent(text: str, sandbox: SandboxPolicy | None = None) -> AgentSpec:
    """One agent as `--agents` takes an item of its list."""
    return agent_list.parse_agent(text, run_code=_unconfined(sandbox))


def _unconfined(sandbox: SandboxPolicy | None) -> bool:
    return sandbox is not None and sandbox.mode == "none"


def one_agent(text: str, command: str, sandbox: SandboxPolicy | None = None) -> AgentSpec:
    """One agent, and not a list, for a command that takes one (`arena ladder add`)."""
    if agent_list.split_list(text) != [text.strip()]:
        raise ValueError(f"give one agent per `{command}`, not a list: {text!r}")
    return agent(text, sandbox)


def agent_items(text: str, option: str, sandbox: SandboxPolicy | None = None) -> tuple[AgentSpec, ...]:
    """A list of one agent or more (`--field`), each as `agent` reads it."""
    if not text.strip():
        raise ValueError(f"{option} is empty: give an agent or a list, e.g. {option} greedy")
    return tuple(agent(item, sandbox) for item in agent_list.split_list(text))


def games(game_id: str | None, players: int | None, param_texts: Sequence[str] = (),
          book: Optional["Book"] = None) -> tuple[GameSetting, ...]:
    """--game, --players and --param as the games of a run, each with its complete parameters:
    every registered game without --game, the book's game with a deal book (which the options may
    only repeat)."""
    from arena.tournament import books
    from arena.tournament.schedule import resolve_games
    pairs = params(param_texts)
    return tuple(books.games(book, game_id, players, pairs) if book else resolve_games(game_id, players, pairs))


def game(game_id: str | None, players: int | None, param_texts: Sequence[str] = (),
         book: Optional["Book"] = None, command: str = "this command") -> GameSetting:
    """The one game of a command that plays one (compare, a ladder, check-agent)."""
    if not game_id and book is None:
        raise ValueError(f"{command} needs --game (or --deals)")
    [setting] = games(game_id or None, players, param_texts, book)
    return setting


def game_variants(game_id: str, param_texts: Sequence[str] = ()) -> list[GameSetting]:
    """`arena analyze`'s --param: the variants of the game to play, each with its complete
    parameters. A name given several times, or a scalar parameter given as "a,b", is one variant
    per value (list parameters such as Wizard's hands keep their commas: repeat --param for
    several); every variant is checked before any is played."""
    import itertools

    import engines
    from arena.tournament.schedule import resolve_games
    spec = engines.spec(game_id)
    values: dict[str, list[str]] = {}
    for text in param_texts:
        name, eq, value = text.partition("=")
        name = name.strip()
        if not eq or not name:
            raise ScheduleError(f"malformed parameter {text!r} in --param: expected name=value")
        default = spec.params.get(name)
        split = not isinstance(default, (list, tuple)) and name in spec.params or name == "players"
        items = [v.strip() for v in value.split(",")] if split else [value.strip()]
        for v in items:
            if v in values.setdefault(name, []):
                raise ScheduleError(f"--param {name}: the value {v!r} is given twice")
            values[name].append(v)
    names = list(values)
    return [resolve_games(game_id, None, dict(zip(names, combo)))[0]
            for combo in itertools.product(*(values[k] for k in names))]


def self_play(text: str) -> tuple[AgentSpec, ...]:
    """`arena analyze`'s --agents: a list as `agents` reads it, or one agent, which then plays
    itself (a copy labelled NAME-2)."""
    items = agent_list.split_list(text)
    if len(items) == 1:
        spec = agent(items[0])
        text = f"{items[0]}, {agent_list.with_params(spec.source, spec.params)} as {spec.label}-2"
    return agents(text)


def opponents(value: str | Sequence[str], others: int, game_id: str) -> tuple[AgentSpec, ...]:
    """The Gymnasium environment's `opponents` (arena.interop.gymnasium): an item of `--agents` for
    every other seat, a list with one per other seat, or a Python list of items; the submitted kinds
    are accepted, as the RL user's own code loaded into their process."""
    if isinstance(value, str):
        items = agent_list.split_list(value)
    elif isinstance(value, (list, tuple)) and all(isinstance(i, str) for i in value):
        items = [i.strip() for i in value]
    else:
        raise ValueError(f"opponents must be agent text such as 'greedy' or a list of it, not {value!r}")
    if len(items) == 1:
        items = items * others
    if len(items) != others:
        raise ValueError(f"opponents: {len(items)} agents given for the {others} other seats of {game_id}; "
                         f"give one for all or one per seat")
    try:
        return tuple(agent_list.parse_agent(item, run_code=True) for item in items)
    except ScheduleError as e:
        raise ValueError(f"opponents: {e}") from None


def time_control(text: str | None) -> TimeControl | None:
    """--time-control "BASE+INC" (or "BASE"), None when not given."""
    return TimeControl.parse(text) if text is not None else None


def time_limit(value: float) -> float:
    """--time-limit, checked: more than 0 and at most MAX_TIME_LIMIT seconds."""
    from arena.tournament.coordinator import check_time_limit
    return check_time_limit(value)


def seeding(text: str | None) -> str | None:
    """--seeding, one of arena.seeds.SEEDINGS; None when not given."""
    return seeds.parse_seeding(text) if text is not None else None


def deal_key(text: str | None) -> str | None:
    """--deal-key: 32 hexadecimal digits, lower case; None when not given."""
    return seeds.parse_deal_key(text) if text else None


def book(path: str | None, deal_key_text: str | None, seed: int) -> Optional["Book"]:
    """The deal book --deals PATH names (None without one), read and checked; refused beside
    --deal-key or --seed, which it fixes."""
    if path is None:
        return None
    from arena.tournament import books
    return books.load_for(path, deal_key_text, seed)


def sprt(text: str | None) -> "SprtParams":
    """--sprt "elo0=0,elo1=10,alpha=0.05,beta=0.05" (any of them; the others their defaults)."""
    from arena.compare.sprt import parse_sprt
    return parse_sprt(text)


def web_agent(item: str, offered: Mapping[str, str]) -> AgentSpec:
    """One item of a web request's agent list as an AgentSpec: an offered bot ("FILE.py:Class", see
    arena.serve.sessions.find_bots), a built-in agent or an installed one, with parameters and a
    label as in `--agents`. Anything else (a path, a module) is refused before anything is looked
    up on the server."""
    import agents as agent_registry
    m = agent_list._ITEM.match(item.strip())
    source = m["source"] if m else ""
    params = agent_list.parse_params(m["params"] or "", f"agent {source!r}") if m else ()
    if m and source in offered:
        if not item.strip().isprintable():
            raise ScheduleError(f"agent {item.strip()!r}: parameters and labels must be printable text")
        return AgentSpec(m["label"] or source.rpartition(":")[2], source, params, "file", offered[source])
    installed = agent_list.entry_points()
    if m and source not in agent_registry.agent_names() and source not in installed:
        known = [a for a in agent_registry.agent_names() if a != "human"] + list(offered) + sorted(installed)
        raise ScheduleError(f"unknown agent {source!r}: this server offers only {', '.join(known)}")
    param = agent_registry.code_param(source, dict(params))
    if param:
        raise ScheduleError(f"agent {source}: its {param} names code that would run in the server's own process, "
                            f"outside the sandbox, which a game in the browser may not ask for")
    param = agent_list.file_param(source, dict(params))
    if param:
        raise ScheduleError(f"agent {source}: its {param} names a file on the server, which a game in the browser "
                            f"may not ask for (the model the project ships may be)")
    return agent_list.parse_agent(item)


def web_agents(text: str, offered: Mapping[str, str] | None = None) -> list[AgentSpec]:
    """A web request's agent list (a game in the browser): one AgentSpec per seat other than the
    person's, each as `web_agent` reads it."""
    specs = [web_agent(item, offered or {}) for item in agent_list.split_list(text)]
    if not specs:
        raise ScheduleError("give at least one agent to play against, e.g. random")
    if any(spec.source == "human" for spec in specs):
        raise ScheduleError("the human agent plays in a terminal: here you are the human; give bots")
    return specs


# The readers under other names, for the functions below whose keywords are the options' names.
_agents, _book, _time_control, _deal_key, _seeding = agents, book, time_control, deal_key, seeding


def plan(store: "Store | str", *, game_id: str | None = None, players: int | None = None,
         agents: str | None = None, params: Sequence[str] = (), sandbox: str = "bwrap",
         bot_limits: Sequence[str] = (), time_control: str | None = None, book: str | None = None,
         deal_key: str | None = None, seeding: str | None = None, seed: int = 0,
         resume: str | None = None, **options: Any) -> "Plan":
    """`arena run`'s plan from its options as text, as the command line and a script give them
    (`agents` as `--agents` writes them, `params` and `bot_limits` as ["NAME=VALUE", ...],
    `time_control` "BASE+INC", `book` a deal book's path), read here and handed to
    `arena.tournament.coordinator.plan` as typed values with the other `options` (`deals`,
    `max_deals`, `time_limit`, `backend`, `address`, `kind`). A resumed run (`resume`) keeps its
    own games and agents. `store` is a Store or the path of one, which the plan opens (makes) only
    once the run passed its checks (`Plan.store`)."""
    from arena.tournament import coordinator
    policy = sandbox_policy(sandbox, bot_limits)
    deal_book = _book(book, deal_key, seed)
    return coordinator.plan(store, games=None if resume else games(game_id, players, params, deal_book),
                            agents=None if resume else _agents(agents, policy), sandbox=policy,
                            time_control=_time_control(time_control), book=deal_book,
                            deal_key=_deal_key(deal_key), seeding=_seeding(seeding), seed=seed, resume=resume,
                            **options)


def plan_comparison(store: "Store | str", candidate: str, baseline: str, game_id: str | None = None,
                    players: int | None = None, params: Sequence[str] = (), field: str | None = None,
                    sprt_text: str | None = None, max_deals: int | None = None, seed: int = 0,
                    time_limit: float | None = None, sandbox: str = "bwrap", deal_key: str | None = None,
                    backend: str = "local", address: str | None = None, time_control: str | None = None,
                    book: str | None = None, seeding: str | None = None,
                    bot_limits: Sequence[str] = ()) -> "ComparePlan":
    """`arena compare`'s plan from its options as text (the candidate and the baseline as items of
    `--agents`, `field` a list, `params` and `bot_limits` ["NAME=VALUE", ...], `sprt_text` as
    --sprt), read here and handed to `arena.compare.compare.plan` as typed values. `store` is a Store
    or the path of one, opened (made) only once the comparison passed its checks (`ComparePlan.store`)."""
    from arena.compare import compare
    from arena.tournament.coordinator import DEFAULT_TIME_LIMIT
    policy = sandbox_policy(sandbox, bot_limits)
    deal_book = _book(book, deal_key, seed)
    return compare.plan(store, agent(candidate, policy), agent(baseline, policy),
                        game(game_id, players, params, deal_book, "compare"),
                        None if field is None else agent_items(field, "--field", policy), sprt(sprt_text),
                        max_deals, seed, DEFAULT_TIME_LIMIT if time_limit is None else time_limit, policy,
                        _deal_key(deal_key), backend, address, _time_control(time_control), deal_book,
                        _seeding(seeding))
