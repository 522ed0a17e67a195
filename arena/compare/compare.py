"""`arena compare`: is the candidate stronger than the baseline? A sequential test over duplicate deals.

    import arena
    store = arena.Store("results/arena.sqlite")
    plan = arena.plan_comparison(store, "greedy", "random", game_id="insert", sprt_text="elo0=0,elo1=100")
    result = arena.play_comparison(store, plan, jobs=1)   # a Comparison; its decision "H1", "H0" or None

(`arena.plan_comparison` reads its options' text, arena.edge, and calls `plan` here with the typed
values; `arena.play_comparison` calls `play`.)

How the deals are played (the statistics are in arena.compare.sprt):

* **Two players.** Deal d is played twice with the same seed: candidate in seat 0 and baseline in
  seat 1, then swapped. The candidate's points over the pair (1 a win, 1/2 a draw, from the
  placements) make one pentanomial observation.
* **More players.** Deal d is played twice with the same seed: the candidate in seat k = d mod n
  (so every seat is taken equally often), then the baseline in that seat, with the same field in
  the other seats of both matches. The field is `--field` (one agent, or a list rotated through the
  other seats: the i-th other seat of deal d holds field[(d + i) mod len]), by default the baseline.
  The observation is the candidate's score share at seat k minus the baseline's (see arena.compare.sprt).
  The duplicate point difference (the seat's return with the candidate minus with the baseline) is
  reported beside it, not tested.
* **Coupled seeds** (arena.seeds, new runs): both matches of a deal give each seat's agent the
  same seed and each move the same view, so the candidate's match and the baseline's play alike
  until the candidate first decides otherwise (for two players: until one of the two seats' agents
  does). Each deal's divergence (arena.results.divergence: the first move at which the two matches
  differ, how many moves differ) is reported, and "identical play on N of M deals". While every
  deal so far played identically the test waits (such deals carry no evidence either way); after
  IDENTICAL_DEALS of them (defaults.IDENTICAL_DEALS) the comparison stops with the verdict
  "identical play". `--seeding independent` gives each match its own seeds, as runs made before
  coupling did.
* **Stopping does not depend on timing.** Deals are played in batches through
  `arena.tournament.coordinator.play_specs`; after each batch the test is evaluated deal by deal, in deal order,
  on the deals whose both matches are stored, and stops at the first deal where the LLR leaves its
  bounds, or at --max-deals. So `--jobs`, the backend, the batch size and a kill -9 and resume never
  change the decision or the number of deals it used. Matches of later deals (the rest of the last
  batch) stay in the store and are reported as not counted.
* **A run in the store.** The command line (agents, field, game, --sprt, --max-deals, --seed, and the
  code digest, not --jobs or the backend) is hashed into the run id (`cmp-GAME-HASH`): the same
  command on the same store resumes (after Ctrl-C or kill -9) or reprints the run. Deal seeds are
  those of `arena run` with the same seed and deal key. Its matches are ordinary matches: `arena
  leaderboard`, `matchups` and `report` show them (ratings included); the leaderboard's verdict is
  this test's (`stored_verdict`), never its own intervals'. `arena run --resume` of a compare run is
  not supported: it needs the compare command.

Decisions where the issue is silent: labels must differ (two copies of one agent need `as LABEL`);
`--field` is refused for two-player games; --max-deals defaults to 1000 deals (2000 matches); the
batch is max(4 x workers, a quarter of the deals counted so far) deals, so at most about a quarter
more deals than needed are played, and few pool start-ups are paid; a match with a fault counts
by the fault rule, like on the leaderboard (arena.results.outcome: the faulty agent last for its
own score, every other seat's score from the played-out game).
"""
import dataclasses
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import engines
from arena import defaults, seeds
from arena.agent_list import item_text
from arena.compare import sprt
from arena.match import AgentSpec, MatchSpec, SandboxPolicy, TimeControl
from arena.results.divergence import divergence, identical_text
from arena.results.intervals import t_interval
from arena.results.outcome import placements_seen_by
from arena.results.standings import pair_score
from arena.run_config import CompareSettings, GameSetting, TournamentConfig
from arena.sandbox import DEFAULT_POLICY, policy_options, stage, validate_all
from arena.store import Store
from arena.text import option_value
from arena.tournament import books
from arena.tournament import coordinator as tournament
from arena.tournament import schedule as sched
from arena.tournament.backends import check_backend, default_jobs

DEFAULT_MAX_DEALS = defaults.COMPARE_MAX_DEALS
IDENTICAL_DEALS = defaults.IDENTICAL_DEALS
MAX_DEALS = sched.MAX_MATCHES // 2


@dataclass
class ComparePlan:
    """A comparison ready to play (`plan` makes it, `play` plays it): the candidate against the
    baseline (and the field) on one game, its sequential test, its deals and their limits."""
    run_id: str
    config: TournamentConfig
    deal_key: str
    game_id: str
    params: dict
    candidate: AgentSpec
    baseline: AgentSpec
    field: list           # AgentSpecs of the other seats (more players only)
    test: sprt.SprtParams
    max_deals: int
    seed: int
    time_limit: float
    sandbox: SandboxPolicy
    time_control: TimeControl | None = None
    book: books.Book | None = None   # the deal book whose deals it plays (--deals)
    # where it is stored (`dataclasses.field`: `field` above names the other seats)
    store: Store | None = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def players(self) -> int:
        return int(self.params["players"])

    @property
    def values(self) -> tuple:
        return sprt.PENTANOMIAL if self.players == 2 else sprt.paired_values(self.players)

    def deal_specs(self, deal: int) -> list:
        """The two matches of a deal (match ids 2 deal and 2 deal + 1)."""
        game_params = tuple(sorted(self.params.items()))
        seed = self.book.seeds[deal] if self.book else \
            seeds.derive_seed(self.seed, self.game_id, game_params, deal, key=bytes.fromhex(self.deal_key))
        if self.players == 2:
            seatings = [(self.candidate, self.baseline), (self.baseline, self.candidate)]
        else:
            seat = deal % self.players
            others = [self.field[(deal + i) % len(self.field)] for i in range(self.players - 1)]
            seatings = [tuple(others[:seat] + [who] + others[seat:]) for who in (self.candidate, self.baseline)]
        return [MatchSpec(self.run_id, 2 * deal + j, self.game_id, game_params, seed, seating, deal,
                          self.time_limit, self.sandbox, self.time_control, self.config.seeding)
                for j, seating in enumerate(seatings)]


@dataclass
class Outcome:
    """What the stored matches say, evaluated deal by deal in deal order."""
    decision: str | None    # "H1", "H0", "identical" (every deal played alike), or None (undecided)
    deals: int                 # deals the test used
    llr: float
    counts: list               # per grid value, over the deals used
    estimates: dict            # arena.compare.sprt.estimates of the deals used
    points: dict | None     # mean point difference with its 95% interval (None without deals)
    curve: list = field(default_factory=list)   # [(deals, llr)] after every deal used
    played: int = 0            # complete deals stored
    not_counted: int = 0       # stored matches past the stopping point
    divergence: list = field(default_factory=list)   # a Divergence per deal used

    @property
    def identical(self) -> int:
        """Deals used whose two matches played the same moves."""
        return sum(d.identical for d in self.divergence)

    @property
    def finished(self) -> bool:
        return self.decision is not None


def plan(store: "Store | str", candidate: AgentSpec, baseline: AgentSpec, game: GameSetting,
         field: Sequence[AgentSpec] | None = None, test: sprt.SprtParams | None = None,
         max_deals: int | None = None, seed: int = 0, time_limit: float = tournament.DEFAULT_TIME_LIMIT,
         sandbox: SandboxPolicy = DEFAULT_POLICY, deal_key: str | None = None, backend: str = "local",
         address: str | None = None, time_control: TimeControl | None = None,
         book: books.Book | None = None, seeding: str | None = None) -> ComparePlan:
    """The comparison to play, new or resumed (the same arguments on the same store are the same run).
    Everything is checked before the run is stored. The arguments are typed values, as `arena.edge`
    reads them from the command line: the candidate's and the baseline's AgentSpecs, the
    GameSetting, the `field` of the other seats (more players only; None: the baseline), the SPRT's
    `test` (None: its defaults). With `book` (a deal book) it plays the book's deals of its game, at
    most all of them (`max_deals`: at most the first ones); otherwise at most `max_deals` (None:
    DEFAULT_MAX_DEALS). `seeding` (arena.seeds.SEEDINGS) is coupled when None; it is part of the run
    id, so the same command with another seeding is another run. `store` is a Store or the path of
    one, opened (made) only once the comparison passed its checks (`ComparePlan.store`).

    :raises ValueError: equal labels, a field for a two-player game, --max-deals out of range, a
        stored run with other deals than `deal_key`, a game other than the deal book's, or another
        process playing the run.
    """
    wanted_key = deal_key
    seeding = seeding or "coupled"
    if book:
        books.check_games(book, [game])
        wanted_key = book.key
        max_deals = books.take(book, max_deals, "--max-deals")
    elif max_deals is None:
        max_deals = DEFAULT_MAX_DEALS
    check_backend(backend, address)
    test = test or sprt.SprtParams(**sprt.DEFAULTS)
    if not (isinstance(max_deals, int) and 1 <= max_deals <= MAX_DEALS):
        raise ValueError(f"--max-deals must be between 1 and {MAX_DEALS:,}, not {max_deals}")
    time_limit = tournament.check_time_limit(time_limit)
    game_id, game_params = game.game_id, game.params
    cand, base = stage(candidate), stage(baseline)
    if cand.label == base.label:
        raise ValueError(f"the candidate and the baseline are both labelled {cand.label!r}; "
                         f"rename one with 'as LABEL', e.g. \"{item_text(cand)} as new\"")
    n = game_params["players"]
    if n == 2 and field is not None:
        raise ValueError(f"--field is for games of three or more players; {game_id} is played by 2 "
                         f"(each deal is played twice with the seats swapped)")
    others = [stage(a) for a in field] if field is not None else [base]
    labels: dict = {}
    for a in [cand, base] + others:
        if labels.setdefault(a.label, a) != a:
            raise ValueError(f"two different agents are labelled {a.label!r}; rename one with 'as LABEL'")
    agents = list(labels.values())
    sched.check_can_play(agents, game_id, game_params)
    validate_all(agents, sandbox)
    # No fixed number of deals: the test stops it (`arena run --resume` and its rerun line refuse it).
    config = replace(sched.tournament_config([game], agents, None, seed, time_limit, sandbox, time_control,
                                             seeding=seeding),
                     book=book.ref() if book else None,
                     compare=CompareSettings(cand.label, base.label, tuple(a.label for a in others) if n > 2 else (),
                                             {"elo0": test.elo0, "elo1": test.elo1, "alpha": test.alpha,
                                              "beta": test.beta}, max_deals))
    run_id = config.run_id
    with tournament.opened(store) as planned_in:
        key = tournament.deal_key_for(planned_in, run_id, wanted_key)
        planned_in.claim(run_id)
        planned_in.create_run(run_id, config, 2 * max_deals, key)
    return ComparePlan(run_id, config, key, game_id, dict(game_params), cand, base, others, test, max_deals,
                       seed, time_limit, sandbox, time_control, book, planned_in)


def stored_verdict(store: Store, run_id: str) -> str | None:
    """The verdict of the comparison stored as `run_id` with its score, from its sequential test on
    the matches stored, as `arena compare` gives it (its plan read back from the run's config:
    nothing is staged, checked, claimed or played); None for a run that is no comparison. A stored
    config that does not make a comparison (a store changed by hand) gives a line that says so."""
    run = store.run(run_id)
    config = run.tournament
    if config is None or config.compare is None:
        return None
    settings, game = config.compare, config.games[0]
    agent = {a.label: a for a in config.agents}
    missing = [x for x in (settings.candidate, settings.baseline, *settings.field) if x not in agent]
    problem = ""
    if missing:
        problem = f"it names no agent {missing[0]!r} of the run"
    elif not (isinstance(settings.max_deals, int) and 1 <= settings.max_deals <= MAX_DEALS):
        problem = f"--max-deals {settings.max_deals!r}"
    else:
        try:
            test = sprt.checked(settings.sprt)
        except (ValueError, TypeError) as e:
            problem = str(e)
    if problem:
        return f"this comparison's stored settings cannot be tested: {problem}"
    field = [agent[label] for label in settings.field] or [agent[settings.baseline]]
    plan = ComparePlan(run_id, config, run.deal_key, game.game_id, dict(game.params), agent[settings.candidate],
                       agent[settings.baseline], field, test, settings.max_deals,
                       config.seed, config.time_limit, config.sandbox, config.time_control)
    outcome = evaluate(plan, store.matches(run_id))
    if not outcome.estimates:
        return verdict(plan, outcome)
    score = outcome.estimates["score"]
    return f"{verdict(plan, outcome)}; score {score.mean:.3f} [{score.low:.3f}, {score.high:.3f}] " \
           f"(the sequential test of `arena compare`)"


def _share(match, seat):
    """The seat's score against the other seats (standings.pair_score), averaged, as its agent's
    result reads the match (the fault rule, arena.results.outcome)."""
    placements = placements_seen_by(match, match["seats"][seat]["label"])
    scores = [pair_score(placements[seat], p) for i, p in enumerate(placements) if i != seat]
    return sum(scores) / len(scores)


def observation(plan: ComparePlan, deal: int, first: dict, second: dict) -> tuple:
    """(grid index, point difference, Divergence) of one deal from its two stored matches."""
    if plan.players == 2:
        points = _share(first, 0) + _share(second, 1)
        margin = ((first["returns"][0] - first["returns"][1]) + (second["returns"][1] - second["returns"][0])) / 2
        return round(points * 2), margin, divergence(first["actions"], second["actions"])
    seat, steps = deal % plan.players, 2 * (plan.players - 1)
    diff = _share(first, seat) - _share(second, seat)
    return (round(diff * steps) + steps, first["returns"][seat] - second["returns"][seat],
            divergence(first["actions"], second["actions"]))


def evaluate(plan: ComparePlan, matches: Sequence[dict], known: list | None = None) -> Outcome:
    """The test on the stored matches: deal by deal in deal order over the complete deals, up to the
    first decision or --max-deals. `known` keeps (grid index, point difference, LLR, Divergence) of
    the deals evaluated by an earlier call on the same run (a stored deal never changes), and is
    extended. While every deal so far played identically the test waits, and IDENTICAL_DEALS such
    deals are the decision "identical"."""
    by_id = {m["match_id"]: m for m in matches}
    known = [] if known is None else known
    counts = [0] * len(plan.values)
    margins, curve, parted = [], [], []
    value, decision, deal, alike = 0.0, None, 0, True
    s0, s1 = sprt.logistic(plan.test.elo0), sprt.logistic(plan.test.elo1)
    while deal < plan.max_deals and decision is None and 2 * deal in by_id and 2 * deal + 1 in by_id:
        if deal == len(known):
            index, margin, where = observation(plan, deal, by_id[2 * deal], by_id[2 * deal + 1])
            counts[index] += 1
            known.append((index, margin, sprt.llr(counts, plan.values, s0, s1), where))
        else:
            counts[known[deal][0]] += 1
        _, margin, value, where = known[deal]
        margins.append(margin)
        parted.append(where)
        deal += 1
        curve.append((deal, value))
        alike = alike and where.identical
        decision = decide(alike, deal, value, plan.test)
    played = sum(1 for d in range(plan.max_deals) if 2 * d in by_id and 2 * d + 1 in by_id)
    counted = sum(1 for m in by_id if m < 2 * deal)
    points = t_interval(margins)
    return Outcome(decision, deal, value, counts, sprt.estimates(counts, plan.values) if deal else {},
                   points.as_dict() if points else None, curve, played, len(by_id) - counted, parted)


def decide(alike: bool, deals: int, llr: float, test: sprt.SprtParams) -> str | None:
    """The decision after `deals` deals whose LLR is `llr`: while every deal so far played alike
    (`alike`) none, until IDENTICAL_DEALS of them are "identical"; otherwise the SPRT's."""
    if alike:
        return "identical" if deals >= IDENTICAL_DEALS else None
    return sprt.decide(llr, test)


def _next_batch(plan: ComparePlan, done: set, start: int, size: int) -> list:
    """The missing matches of the next `size` deals from `start` that are not complete."""
    out: list = []
    deal, taken = start, 0
    while deal < plan.max_deals and taken < size:
        missing = [s for s in plan.deal_specs(deal) if s.match_id not in done]
        if missing:
            out += missing
            taken += 1
        deal += 1
    return out


def play(store: Store, plan: ComparePlan, backend: str = "local", jobs: int | None = None,
         address: str | None = None, on_batch: Callable[[Outcome], None] | None = None,
         on_match: Callable | None = None) -> tuple:
    """Plays batches of deals until the test decides or --max-deals, calling `on_batch(outcome)`
    before each batch and at the end; returns (status, Outcome), status "finished" or "interrupted"
    (Ctrl-C, SIGTERM: the same command resumes). An engine error marks the run interrupted and is
    raised (tournament.MatchFailed)."""
    check_backend(backend, address)
    workers = jobs or default_jobs()
    status = "finished"
    known: list = []   # the deals evaluated so far (see evaluate)
    with tournament.running(store, plan.run_id) as ended:
        while True:
            outcome = evaluate(plan, store.matches(plan.run_id), known)
            if outcome.finished or outcome.deals >= plan.max_deals:
                break
            if on_batch:
                on_batch(outcome)
            size = max(4 * workers, outcome.deals // 4)
            todo = _next_batch(plan, store.finished_ids(plan.run_id), outcome.deals, size)
            status = tournament.play_specs(store, todo, backend, jobs, address, on_match)
            if status == "interrupted":
                break
        ended(status)
    if status == "finished" and on_batch:
        on_batch(outcome)
    return status, outcome


def command(plan: ComparePlan, store_path: str | None = None) -> str:
    """The command line that plays this comparison again: the same run id, deals and decision."""
    words = ["arena", "compare", item_text(plan.candidate), item_text(plan.baseline), "--game", plan.game_id]
    defaults = engines.registry.resolve(plan.game_id, players=plan.players)
    for k, v in sorted(plan.params.items()):
        if k == "players":
            if v != engines.spec(plan.game_id).default_players:
                words += ["--players", str(v)]
        elif v != defaults.get(k):
            words += ["--param", f"{k}={option_value(v)}"]
    if plan.config.compare and plan.config.compare.field and plan.field != [plan.baseline]:
        words += ["--field", ", ".join(item_text(a) for a in plan.field)]
    words += ["--sprt", plan.test.text(), "--max-deals", str(plan.max_deals), "--seed", str(plan.seed)]
    if plan.time_limit != tournament.DEFAULT_TIME_LIMIT:
        words += ["--time-limit", f"{plan.time_limit:g}"]
    if plan.time_control is not None:
        words += ["--time-control", str(plan.time_control)]
    words += policy_options(plan.sandbox)
    if plan.config.seeding != "coupled":
        words += ["--seeding", plan.config.seeding]
    if store_path:
        words += ["--store", store_path]
    words += ["--deals", plan.book.path] if plan.book else ["--deal-key", plan.deal_key]
    return " ".join(shlex.quote(w) for w in words)


def histogram(plan: ComparePlan, outcome: Outcome) -> list:
    """[(label, count)] per grid value: the pair's points for two players (0 to 2), the share
    difference for more (-1 to 1); for more players only the values seen."""
    if plan.players == 2:
        return [(f"{i / 2:g}", c) for i, c in enumerate(outcome.counts)]
    steps = 2 * (plan.players - 1)
    return [(f"{(i - steps) / steps:+.3g}", c) for i, c in enumerate(outcome.counts) if c]


def verdict(plan: ComparePlan, outcome: Outcome) -> str:
    c, b = plan.candidate.label, plan.baseline.label
    t = plan.test
    if outcome.decision == "H1":
        return f"H1 accepted: {c} is stronger than {b}; the deals favour elo1={t.elo1:g} over elo0={t.elo0:g} " \
               f"(a wrong H1 at most about {t.alpha:g} of the time)"
    if outcome.decision == "identical":
        return f"identical play: {c} and {b} played every move alike on all {outcome.deals} deals " \
               f"({plan.config.seeding} seeds); nothing tells them apart"
    if outcome.decision == "H0":
        return f"H0 accepted: {c} is not stronger than {b} by elo1={t.elo1:g}; the deals favour elo0={t.elo0:g} " \
               f"(a wrong H0 at most about {t.beta:g} of the time)"
    return f"no decision after {outcome.deals} deals (--max-deals {plan.max_deals})" \
        if outcome.deals >= plan.max_deals else f"no decision yet after {outcome.deals} deals"


def summary(plan: ComparePlan, outcome: Outcome, status: str, store_path: str | None = None) -> dict:
    """Everything `arena compare --json` prints."""
    est = outcome.estimates
    return {
        "run_id": plan.run_id, "status": status, "game_id": plan.game_id, "params": plan.params,
        "book": plan.config.book,
        "candidate": plan.candidate.label, "baseline": plan.baseline.label,
        "field": [a.label for a in plan.field] if plan.players > 2 else [],
        "model": "pentanomial" if plan.players == 2 else "paired-difference",
        "sprt": plan.test.as_dict(), "decision": outcome.decision, "verdict": verdict(plan, outcome),
        "deals": outcome.deals, "max_deals": plan.max_deals, "deals_played": outcome.played,
        "not_counted": outcome.not_counted, "llr": outcome.llr,
        "score": est["score"].as_dict() if est else None, "elo": est["elo"].as_dict() if est else None,
        "nelo": est["nelo"].as_dict() if est else None, "points": outcome.points,
        "histogram": [{"value": label, "count": n} for label, n in histogram(plan, outcome)],
        "llr_curve": [[d, v] for d, v in outcome.curve],
        "seeding": plan.config.seeding, "identical_deals": outcome.identical,
        "identical": identical_text(outcome.identical, outcome.deals),
        "divergence": [d.as_dict() for d in outcome.divergence],
        "command": command(plan, store_path),
    }
