"""A tournament from a description to stored results: plan it (new or resumed), then play it.

    from arena import tournament
    from arena.store import Store
    store = Store("results/arena.sqlite")
    plan = tournament.plan(store, game_id="insert", agents="ismcts, greedy", deals=10)
    status = tournament.play(store, plan, jobs=2)      # "finished" or "interrupted"

Everything is checked before the run is created (games, parameters, agents, limits, the sandbox),
so a tournament that cannot be played never leaves a run behind. The CLI (`arena run`) is a thin
layer over these two calls.
"""
import math
from dataclasses import dataclass

from arena import schedule as sched
from arena.backends import check_backend, play_all
from arena.sandbox import check_available, make_policy, stage, validate_all

DEFAULT_DEALS_ONE_GAME = 10   # deals per line-up with a game given
DEFAULT_DEALS_EVERY_GAME = 3  # deals per line-up and game without one (a quick first look)
DEFAULT_TIME_LIMIT = 10.0     # seconds per move for submitted agents
MAX_TIME_LIMIT = 3600.0


@dataclass
class Plan:
    run_id: str
    config: dict
    deal_key: str
    schedule: list     # every MatchSpec of the run
    todo: list         # the MatchSpecs not stored yet
    stored: int        # matches already stored
    human: bool        # a person plays: one match at a time, in this process

    def sit_outs(self):
        return sit_outs(self.config)


def check_time_limit(value):
    if not (isinstance(value, (int, float)) and math.isfinite(value) and 0 < value <= MAX_TIME_LIMIT):
        raise ValueError(f"--time-limit must be more than 0 and at most {MAX_TIME_LIMIT:g} seconds, not {value}")
    return float(value)


def plan(store, game_id=None, players=None, agents=None, deals=None, seed=0, time_limit=DEFAULT_TIME_LIMIT,
         params=(), sandbox="bwrap", bot_limits=(), deal_key=None, resume=None, backend="local", address=None):
    """The run to play: `resume` (a run id) continues a stored run; otherwise the arguments describe
    a new one (the same description again on the same store is the same run). Raises ValueError (one
    line) for anything that cannot be played; creates the run in the store only when all is well."""
    wanted_key = sched.parse_deal_key(deal_key) if deal_key else None
    check_backend(backend, address)
    if resume:
        config = store.run(resume)["config"]
        run_id = resume
        if config.get("code", sched.code_digest()) != sched.code_digest():
            raise ValueError(f"the engines or built-in agents changed since run {resume} started; "
                             f"its remaining matches would not be comparable: start a new run")
        agent_specs = sched.agents_from_config(config)
        if any(a.submitted for a in agent_specs):
            check_available(sched.sandbox_from_config(config))
        for a in agent_specs:
            stage(a)   # the copy made when the run started, or the unchanged original
    else:
        time_limit = check_time_limit(time_limit)
        games = sched.resolve_games(game_id, players, sched.param_options(params))
        policy = make_policy(sandbox, sched.parse_params(",".join(bot_limits), "--bot-limit"))
        if agents is not None and not agents.strip():
            raise sched.ScheduleError("--agents is empty: give at least two agents, e.g. --agents greedy,random")
        agent_specs = [stage(a) for a in sched.parse_agents(agents or sched.DEFAULT_AGENTS)]
        if deals is None:
            deals = DEFAULT_DEALS_ONE_GAME if game_id else DEFAULT_DEALS_EVERY_GAME
        config = sched.tournament_config(games, agent_specs, deals, seed, time_limit, policy)
        sched.check_size(config)
        validate_all(agent_specs, policy)
        run_id = sched.run_id_for(config)
    stored_key = store.deal_key(run_id)
    if wanted_key and stored_key is not None and stored_key != wanted_key:
        raise ValueError(f"run {run_id} is already in {store.path} with other deals than --deal-key gives; "
                         f"use another store")
    key = stored_key if stored_key is not None else (wanted_key or sched.new_deal_key())
    human = any(a["source"] == "human" for a in config["agents"])
    if human and backend != "local":
        raise ValueError("the human agent plays on this terminal: use the local backend")
    schedule = sched.schedule_from_config(run_id, config, key)
    if not schedule:
        raise ValueError("no game has two agents that can play it: " + "; ".join(sit_outs(config)))
    store.claim(run_id)
    store.create_run(run_id, config, len(schedule), key)
    done = store.finished_ids(run_id)
    return Plan(run_id, config, key, schedule, [s for s in schedule if s.match_id not in done], len(done), human)


def play(store, plan, backend="local", jobs=None, address=None, quiet=True):
    """Plays the plan's missing matches, storing each as it arrives; returns the run's status,
    "finished" or "interrupted" (Ctrl-C, SIGTERM). An error (an engine bug, an unreachable
    cluster) marks the run interrupted and is raised."""
    check_backend(backend, address)
    if plan.human:
        # A person answers on this terminal: play in this process, one match at a time, no live bar.
        jobs, quiet = 1, True
    status = "finished"
    if plan.todo:
        store.set_status(plan.run_id, "running")
        try:
            status = play_all(store, plan.todo, len(plan.schedule), plan.stored, backend, jobs, address, quiet)
        except BaseException:
            store.set_status(plan.run_id, "interrupted")
            store.release(plan.run_id)
            raise
    store.set_status(plan.run_id, status)
    store.release(plan.run_id)
    return status


def sit_outs(config):
    """One line per agent that sits a game out, and why."""
    notes, specs = [], sched.agents_from_config(config)
    for g in config["games"]:
        for a in specs:
            reason = sched.sits_out(a, g["game_id"], g["params"]["players"])
            if reason:
                notes.append(f"{a.label} sits out {g['game_id']}: {reason}")
    return notes
