"""What a tournament's stored matches say: head-to-head scores, standings, cycles, rating history.

Everything here works per group, a game with one set of parameters (players included): scores from
different games or rule variants never mix. One fold computes it all, `GroupTally`, over the match
dicts of a store in match-id order, keeping running totals (never a list of matches), so its state
can be checkpointed in the store (arena.results.tallies) and a view folds only newer matches. The functions
on lists of matches (`standings`, `head_to_head`, `summary`, ...) fold the list they are given.

Statistics are over *deals*, not matches. The matches of one duplicate group share a deal id and a
seed and replay one deal with the agents rotated through the seats, so their average is one
observation with the luck of the deal cancelled out (and the seat advantage with it); so the
intervals (arena.results.intervals) count deals, and narrow as fast as the deals agree.
"""
import itertools
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.results import ratings
from arena.results.intervals import Interval, Moments, moments_interval, moments_t_interval
from arena.results.outcome import faulty_labels, placements_seen_by
from arena.text import jsonable

if TYPE_CHECKING:
    import networkx as nx  # imported where a graph is made: it costs a command a quarter second to start

MAX_CYCLES = 50


# ---- groups -------------------------------------------------------------------------------------

def group_key(match: dict[str, Any]) -> tuple[str, str]:
    """(game_id, canonical JSON of its parameters): one leaderboard per key."""
    return match["game_id"], json.dumps(match["game_params"], sort_keys=True)


def groups(matches: Iterable[dict[str, Any]]) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """[(game_id, game_params, matches)] per game and parameter set, in order of first appearance."""
    out: dict[tuple[str, str], tuple[str, dict[str, Any], list[dict[str, Any]]]] = {}
    for m in matches:
        out.setdefault(group_key(m), (m["game_id"], m["game_params"], []))[2].append(m)
    return list(out.values())


def seat_metrics(match: dict[str, Any]) -> Iterator[tuple[int, str, float]]:
    """(seat, name, value) for every number a match's metrics give per seat."""
    seats = len(match["seats"])
    for name, values in (match.get("metrics") or {}).items():
        if isinstance(values, list) and len(values) == seats:
            for seat, v in enumerate(values):
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    yield seat, name, v


def pair_score(p_a: float, p_b: float) -> float:
    """A seat's score against another from their placements: 1 above it, 1/2 level, 0 below."""
    return 1.0 if p_a < p_b else 0.5 if p_a == p_b else 0.0


def _rotation_count(labels):
    return len({tuple(labels[r:] + labels[:r]) for r in range(len(labels))})


def _free_interval(mo):
    """The t interval of per-game metrics on a leaderboard; one value reads as its own interval."""
    iv = moments_t_interval(mo)
    return iv if iv is None or iv.low is not None else Interval(iv.mean, iv.mean, iv.mean, iv.n, iv.games)


# ---- the fold: one group's running totals -------------------------------------------------------

@dataclass
class Standing:
    """One agent's row of one game's leaderboard: every view (terminal, --json, report) shows these.

    rank is 1 + the number of agents surely above it (`separated_ranks`): agents that no result
    separates share a rank, and the rows are sorted by rank, then by mu - 3 sigma. mu, sigma and
    conservative (mu - 3 sigma) are its TrueSkill rating after the matches in match-id order; wins, draws and losses count its matches (a win is first place alone, a draw a shared first
    place); score_share is its head-to-head score against every other agent's seats (1 win, 1/2 tie),
    placement its mean placement, both with 95% intervals over deals; faults counts the matches it
    lost to its own fault; duplicate_score is how much more it scored than its table on the same
    deals (None without a complete, fault-free duplicate group); metrics are per-seat game metrics
    (e.g. Wizard's bid_accuracy) with 95% intervals.
    """
    game_id: str
    params: dict
    rank: int
    label: str
    mu: float
    sigma: float
    conservative: float
    games: int
    wins: int
    draws: int
    losses: int
    faults: int
    score_share: "Interval | None"
    placement: "Interval | None"
    mean_return: float
    duplicate_score: "float | None"
    metrics: dict = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return jsonable(dict(self.__dict__))


TALLY_VERSION = 2     # a checkpoint of another version is ignored (replayed from the matches); 2: the fault rule
MAX_HISTORY = 200     # rating-history points kept per agent, thinned evenly as its games grow


def _new_state():
    return {"version": TALLY_VERSION, "matches": 0, "deals": 0, "first": None, "players": 1,
            "seeds": None, "agents": {}, "ratings": {}, "counts": {}, "history": {}, "returns": {},
            "share": {}, "place": {}, "metrics": {}, "h2h": {}, "h2h_games": {}, "duplicate": {},
            "fault_kinds": {}, "open": None}


def _bump(table, key, value):
    """table[key] = [sum, count] plus one value."""
    total = table.get(key)
    if total is None:
        total = table[key] = [0.0, 0]
    total[0] += value
    total[1] += 1


def _moments(table, key):
    return Moments(*table.get(key, (0, 0.0, 0.0)))


def _add_moment(table, key, value):
    mo = _moments(table, key)
    mo.add(value)
    table[key] = mo.state()


class GroupTally:
    """One group's running totals, folded over its matches in match-id order: everything the views
    show (ratings, counts, intervals over deals, head to head, duplicate scores, a sampled rating
    history) with no list of matches kept. The state is plain JSON (`state`), so the store keeps it
    as a checkpoint and a view folds only the newer matches: the same matches give the same bits
    however the fold was cut.

    The matches of one deal are contiguous in match-id order (arena.tournament.schedule plays deal after deal),
    so a deal's observations (its mean score, placement, pair scores, duplicate groups) close when
    the next deal starts; the last deal closes when a view is made.
    """

    def __init__(self, game_id: str, params: dict[str, Any], state: dict[str, Any] | None = None) -> None:
        self.game_id, self.params = game_id, params
        self.s = state if state is not None else _new_state()
        self._env = ratings.environment()
        self._lineup_keys: dict[tuple[str, ...], str] = {}

    def state(self) -> dict[str, Any]:
        return self.s

    @property
    def key(self) -> tuple[str, str]:
        """The group's key, as `group_key` gives it for each of its matches."""
        return group_key({"game_id": self.game_id, "game_params": self.params})

    def add(self, m: dict[str, Any]) -> None:
        """Folds in one match (a dict as `Store.matches` gives it; its actions are not needed)."""
        s = self.s
        labels = [seat["label"] for seat in m["seats"]]
        key = [m["deal"], m["seed"]]
        if s["open"] is not None and s["open"]["key"] != key:
            self._close_deal()
        if s["open"] is None:
            s["open"] = {"key": key, "share": {}, "place": {}, "pairs": {}, "lineups": {}}
            s["deals"] += 1
        s["matches"] += 1
        s["first"] = m["match_id"] if s["first"] is None else s["first"]
        s["players"] = max(s["players"], len(labels))
        seed, seeds = m["seed"], s["seeds"]
        if not seeds:
            s["seeds"] = [seed, seed]
        elif not seeds[0] <= seed <= seeds[1]:
            s["seeds"] = [min(seeds[0], seed), max(seeds[1], seed)]
        agents = s["agents"]
        for seat in m["seats"]:
            if seat["label"] not in agents:
                agents[seat["label"]] = seat
        self._rate(m)
        deal = s["open"]
        share, place, returns, totals = deal["share"], deal["place"], m["returns"], s["returns"]
        # Each agent's figures are of the match as its own result reads it (the fault rule,
        # arena.results.outcome: a faulter is last, the others keep the played-out game's places).
        seen = {a: placements_seen_by(m, a) for a in dict.fromkeys(labels)}
        # One observation per agent and match (an agent may hold several seats), so that with two
        # agents the two score shares of a match, and of a deal, add up to 1 (when nobody faulted).
        for a, places in seen.items():
            mine = [i for i, b in enumerate(labels) if b == a]
            pairs = [pair_score(places[i], places[j]) for i in mine for j, b in enumerate(labels) if b != a]
            if pairs:
                _bump(share, a, sum(pairs) / len(pairs))
            _bump(place, a, sum(places[i] for i in mine) / len(mine))
            for i in mine:
                _bump(totals, a, returns[i])
        met: dict[str, set[str]] = {}
        deal_pairs = deal["pairs"]
        for i, a in enumerate(labels):
            for j, b in enumerate(labels):
                if i != j and a != b:   # itertools.permutations' order
                    _bump(deal_pairs.setdefault(a, {}), b, pair_score(seen[a][i], seen[a][j]))
                    met.setdefault(a, set()).add(b)
        h2h_games = s["h2h_games"]
        for a, bs in met.items():
            row = h2h_games.setdefault(a, {})
            for b in sorted(bs):
                row[b] = row.get(b, 0) + 1
        lineup_key = self._lineup_key(labels)
        lineup = deal["lineups"].get(lineup_key)
        if lineup is None:
            lineup = deal["lineups"][lineup_key] = {
                "labels": labels, "seatings": [], "faulty": False, "sums": {}, "total": 0.0, "n": 0}
        if labels not in lineup["seatings"]:
            lineup["seatings"].append(labels)
        lineup["faulty"] = lineup["faulty"] or bool(m["faults"])
        for label, ret in zip(labels, m["returns"]):
            _bump(lineup["sums"], label, ret)
            lineup["total"] += ret
            lineup["n"] += 1
        for seat, name, v in seat_metrics(m):
            _add_moment(s["metrics"].setdefault(labels[seat], {}), name, float(v))
        for f in m["faults"]:
            kind = s["fault_kinds"].setdefault(f["label"], {}).setdefault(
                f.get("kind", "fault"), {"count": 0, "first": {"match_id": m["match_id"], "game_id": m["game_id"], **f}})
            kind["count"] += 1

    def _lineup_key(self, labels):
        """The key of a line-up in a deal's state, JSON of its sorted labels (made once per seating)."""
        key = self._lineup_keys.get(tuple(labels))
        if key is None:
            key = self._lineup_keys[tuple(labels)] = json.dumps(sorted(labels))
        return key

    def _rate(self, m):
        s = self.s
        rated = ratings.rate_match(self._env, m, self._rating)
        faulty = faulty_labels(m)
        for label, (rating, result) in rated.items():
            s["ratings"][label] = [rating.pi, rating.tau]
            c = s["counts"].get(label)
            if c is None:
                c = s["counts"][label] = {"games": 0, "wins": 0, "draws": 0, "losses": 0, "faults": 0}
            c["games"] += 1
            c[{"win": "wins", "draw": "draws", "loss": "losses"}[result]] += 1
            c["faults"] += label in faulty
            self._sample(label, c["games"], rating)

    def _rating(self, label):
        """The agent's TrueSkill rating, rebuilt from its exact (pi, tau) (mu and sigma are rounded)."""
        known = self.s["ratings"].get(label)
        if known is not None:
            return ratings.from_bits(*known)
        r = self._env.create_rating()
        self.s["ratings"][label] = [r.pi, r.tau]
        return r

    def _sample(self, label, games, rating):
        """Keeps every stride-th point of the agent's rating history; when there are more than
        MAX_HISTORY, the stride doubles and every other point goes (the last point, the current
        rating, is added by the views)."""
        h = self.s["history"].get(label)
        if h is None:
            prior = self._env.create_rating()
            h = self.s["history"][label] = {"stride": 1, "points": [[0, prior.mu, prior.sigma]]}
        if games % h["stride"] == 0:
            h["points"].append([games, rating.mu, rating.sigma])
            if len(h["points"]) > MAX_HISTORY:
                h["stride"] *= 2
                h["points"] = [p for p in h["points"] if p[0] % h["stride"] == 0]

    def _close_deal(self):
        s, deal = self.s, self.s["open"]
        s["open"] = None
        for a, (total, n) in deal["share"].items():
            _add_moment(s["share"], a, total / n)
        for a, (total, n) in deal["place"].items():
            _add_moment(s["place"], a, total / n)
        for a, row in deal["pairs"].items():
            for b, (total, n) in row.items():
                _add_moment(s["h2h"].setdefault(a, {}), b, total / n)
        # A complete duplicate group (every rotation of the line-up) without faults: each agent's
        # mean return minus the table's, the luck of the deal and the seat cancelled out.
        for lineup in deal["lineups"].values():
            if len(lineup["seatings"]) != _rotation_count(lineup["labels"]) or lineup["faulty"]:
                continue
            for label, (total, n) in lineup["sums"].items():
                _bump(s["duplicate"], label, total / n - lineup["total"] / lineup["n"])

    def closed(self) -> "GroupTally":
        """A copy with the last deal closed, as views read it."""
        out = GroupTally(self.game_id, self.params, json.loads(json.dumps(self.s)))
        if out.s["open"] is not None:
            out._close_deal()
        return out

    # ---- views (of a closed tally) ----
    def standings(self) -> list[Standing]:
        s = self.s
        current = {a: self._rating(a) for a in s["counts"]}
        ranks = separated_ranks(self.head_to_head(), [a for a, c in s["counts"].items() if c["faults"] == c["games"]])
        order = sorted(current, key=lambda a: (ranks.get(a, 1), -(current[a].mu - 3 * current[a].sigma), a))
        span_top = float(max(s["players"], 2))
        rows = []
        for a in order:
            rank, r, c = ranks.get(a, 1), current[a], s["counts"][a]
            ret, dup = s["returns"].get(a), s["duplicate"].get(a)
            rows.append(Standing(
                self.game_id, self.params, rank, a, r.mu, r.sigma, r.mu - 3 * r.sigma, c["games"], c["wins"],
                c["draws"], c["losses"], c["faults"],
                moments_interval(_moments(s["share"], a), c["games"]),
                moments_interval(_moments(s["place"], a), c["games"], 1.0, span_top),
                ret[0] / ret[1], dup[0] / dup[1] if dup else None,
                {k: _free_interval(Moments(*v)) for k, v in sorted(s["metrics"].get(a, {}).items())}))
        return rows

    def head_to_head(self, confidence: float = 0.95) -> dict[str, dict[str, Interval | None]]:
        """{a: {b: Interval of a's score against b}}: 1 per match where a placed above b, 1/2 per tie."""
        games = self.s["h2h_games"]
        return {a: {b: moments_interval(Moments(*mo), games[a][b], confidence=confidence)
                    for b, mo in sorted(row.items())}
                for a, row in sorted(self.s["h2h"].items())}

    def rating_history(self) -> dict[str, list[tuple]]:
        """{label: [(games played, mu, sigma)]}, sampled, from the prior at 0 games to the rating
        in the standings."""
        out = {}
        for label, h in sorted(self.s["history"].items()):
            points = [tuple(p) for p in h["points"]]
            r, games = self._rating(label), self.s["counts"][label]["games"]
            if points[-1][0] != games:
                points.append((games, r.mu, r.sigma))
            out[label] = points
        return out

    def duplicate_scores(self) -> dict[str, float]:
        return {label: total / n for label, (total, n) in self.s["duplicate"].items()}

    def fault_summary(self) -> list[dict[str, Any]]:
        """[{"label", "kind", "count", "first"}]: how often each agent faulted in each way, with its
        first fault (a dict as `Store.faults` gives it), in order of first occurrence."""
        rows = [{"label": label, "kind": kind, "count": v["count"], "first": v["first"]}
                for label, kinds in self.s["fault_kinds"].items() for kind, v in kinds.items()]
        return sorted(rows, key=lambda r: (r["first"]["match_id"], r["label"], r["kind"]))

    def summary(self) -> dict[str, Any]:
        """Everything the views show about the group: leaderboard (Standings), head to head,
        dominance graph, cycles, rating history, fault summary; `order` lists the agents best first;
        `matches`, `deals`, `seeds` ([lowest, highest]), `first_match` and `agents` say what they are
        made of."""
        t = self.closed()
        board, h2h = t.standings(), t.head_to_head()
        g = dominance_graph(h2h)
        return {"leaderboard": board, "order": [r.label for r in board], "head_to_head": h2h,
                "graph": g, "cycles": graph_cycles(g), "rating_history": t.rating_history(),
                "matches": t.s["matches"], "deals": t.s["deals"], "seeds": t.s["seeds"],
                "first_match": t.s["first"], "agents": t.s["agents"], "faults": t.fault_summary()}


def fold(matches: Iterable[dict[str, Any]]) -> dict[tuple[str, str], GroupTally]:
    """{group_key: GroupTally} of a list of match dicts, folded in match-id order."""
    out = {}
    for m in sorted(matches, key=lambda m: m["match_id"]):
        key = group_key(m)
        if key not in out:
            out[key] = GroupTally(m["game_id"], m["game_params"])
        out[key].add(m)
    return out


def _one_group(matches):
    """The closed tally of one group's matches."""
    tallies = list(fold(matches).values())
    return tallies[0].closed() if tallies else GroupTally("", {})


# ---- of a list of matches (one group unless said) -----------------------------------------------

def agents(matches: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{label: {"label", "source", "params"}} for every agent seated in the matches."""
    out: dict[str, dict[str, Any]] = {}
    for m in matches:
        for s in m["seats"]:
            out.setdefault(s["label"], s)
    return dict(sorted(out.items()))


def head_to_head(matches: Iterable[dict[str, Any]]) -> dict[str, dict[str, Interval | None]]:
    return _one_group(matches).head_to_head()


def standings(matches: Iterable[dict[str, Any]]) -> list[Standing]:
    """The Standings of one group (a game with one set of parameters), best first: by rank, then by
    mu - 3 sigma."""
    return _one_group(matches).standings()


def leaderboard(matches: Iterable[dict[str, Any]]) -> list[Standing]:
    """The Standings of every group in the matches, group after group, each best first."""
    return [row for t in fold(matches).values() for row in t.closed().standings()]


def rating_history(matches: Iterable[dict[str, Any]]) -> dict[str, list[tuple]]:
    return _one_group(matches).rating_history()


def duplicate_scores(matches: Iterable[dict[str, Any]]) -> dict[str, float]:
    """{label: duplicate score}: how much more an agent scores than its table on the same deals.

    Matches that share a deal (seed) and a line-up form a duplicate group, one match per seat
    rotation. In each complete group without faults, an agent's score is the mean of its seats'
    returns over the group minus the mean of every seat's returns; the luck of the deal (and of
    the seat) cancels out. An agent's duplicate score is the mean over its groups (None without any).
    """
    return _one_group(matches).duplicate_scores()


def summary(matches: Iterable[dict[str, Any]]) -> dict[str, Any]:
    return _one_group(matches).summary()


# ---- dominance and cycles -----------------------------------------------------------------------

def dominance_graph(h2h: dict[str, dict[str, Any]]) -> "nx.DiGraph":
    """nx.DiGraph with an edge a -> b wherever a scores above 1/2 against b.

    Edge attributes: win_rate, low, high, games and `confident` (the whole 95% interval lies above
    1/2). Every agent of the matrix is a node, even one that beats nobody.
    """
    import networkx as nx
    g = nx.DiGraph()
    for a, row in h2h.items():
        g.add_node(a)
        for b, cell in row.items():
            g.add_node(b)
            if cell.mean > 0.5:
                g.add_edge(a, b, win_rate=cell.mean, low=cell.low, high=cell.high,
                           games=cell.games, confident=cell.low > 0.5)
    return g


def separated_ranks(h2h: dict[str, dict[str, Interval | None]],
                    never_finished: Iterable[str] = ()) -> dict[str, int]:
    """{label: rank}: 1 + the number of agents surely above it. An agent is surely above another
    when it beats it with 95% confidence (its head-to-head score's interval lies above 1/2, or the
    other's score against it lies below 1/2: with faults the two differ, see arena.results.outcome),
    or beats one that is surely above it; agents in a cycle of such wins are level with each other.
    Agents in `never_finished` (each lost every match it played to its own fault) are surely below
    every other agent: they have no result but their faults, however few the deals. Agents that no
    result separates share a rank, and an agent surely above another always ranks higher."""
    import networkx as nx
    sure = nx.DiGraph()
    sure.add_nodes_from(a for row in h2h.values() for a in row)
    sure.add_nodes_from(h2h)
    sure.add_edges_from((a, b) for a, row in h2h.items() for b, cell in row.items()
                          if cell is not None and cell.low > 0.5)
    sure.add_edges_from((b, a) for a, row in h2h.items() for b, cell in row.items()
                          if cell is not None and cell.high < 0.5)
    never_finished = set(never_finished)
    sure.add_edges_from((a, b) for a in list(sure) if a not in never_finished for b in never_finished if b in sure)
    blocks = nx.condensation(sure)   # each cycle of sure wins becomes one block
    above = {k: sum(len(blocks.nodes[j]["members"]) for j in nx.ancestors(blocks, k)) for k in blocks}
    return {a: 1 + above[k] for a, k in blocks.graph["mapping"].items()}


def graph_cycles(g: "nx.DiGraph", limit: int = MAX_CYCLES) -> list[list[str]]:
    """Cycles of confident edges (a beats b beats c beats a), each starting at its smallest label."""
    import networkx as nx
    strong = nx.DiGraph((a, b) for a, b, d in g.edges(data=True) if d["confident"])
    found = []
    for c in itertools.islice(nx.simple_cycles(strong), limit):
        k = c.index(min(c))
        found.append(c[k:] + c[:k])
    return sorted(found, key=lambda c: (len(c), c))


def cycles(matches: Iterable[dict[str, Any]], limit: int = MAX_CYCLES) -> list[dict[str, Any]]:
    """Every cycle of confident wins in the matches, per game and parameter set.

    [{"game_id", "game_params", "cycle": [a, b, c]}] where a beats b, b beats c and c beats a, each
    with its whole 95% interval above 1/2. A single rating cannot show these, so leaderboards list them.
    """
    out = []
    for t in fold(matches).values():
        for c in graph_cycles(dominance_graph(t.closed().head_to_head()), limit):
            out.append({"game_id": t.game_id, "game_params": t.params, "cycle": c})
    return out


def format_cycle(cycle: list[str]) -> str:
    return " > ".join(cycle + cycle[:1])
