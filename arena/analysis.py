"""What a tournament's stored matches say: head-to-head scores, standings, cycles, rating history.

Everything here takes the match dicts of `Store.matches` and works per group, a game with one set of
parameters (players included): scores from different games or rule variants never mix.

Statistics are over *deals*, not matches. The matches of one duplicate group share a deal id and a
seed and replay one deal with the agents rotated through the seats, so their average is one
observation with the luck of the deal cancelled out (and the seat advantage with it); so the
intervals below count deals, and narrow as fast as the deals agree.
"""
import itertools
import json
import math
from collections import defaultdict
from dataclasses import dataclass, field

import networkx as nx

from arena.text import jsonable

from arena import ratings

Z95 = 1.959963984540054
# Student t 97.5% quantiles for 1..30 degrees of freedom; beyond, a Cornish-Fisher expansion.
_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
MAX_CYCLES = 50


def t975(df):
    if df <= len(_T975):
        return _T975[df - 1]
    z = Z95
    return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% interval, over `n` deals made of `games` matches."""
    mean: float
    low: float
    high: float
    n: int
    games: int

    @property
    def width(self):
        return self.high - self.low

    def as_dict(self):
        return {"mean": self.mean, "low": self.low, "high": self.high, "deals": self.n,
                "games": self.games}


def interval(values, games=None, lo=0.0, hi=1.0):
    """95% interval for the mean of independent observations bounded by [lo, hi]; None if empty.

    A Student t interval over the observations plus two pseudo-observations at lo and hi (what the
    "plus four" interval does for proportions): a few wins in a row, or deals with no spread, then
    give a wide interval rather than a certain one, and large samples are left as they are.
    """
    n = len(values)
    if n == 0:
        return None
    span = hi - lo
    xs = [(v - lo) / span for v in values]
    m = sum(xs) / n
    aug = xs + [0.0, 1.0]
    k = n + 2
    centre = sum(aug) / k
    half = t975(k - 1) * math.sqrt(sum((x - centre) ** 2 for x in aug) / (k - 1) / k)
    low, high = min(m, max(0.0, centre - half)), max(m, min(1.0, centre + half))
    return Interval(lo + m * span, lo + low * span, lo + high * span, n, n if games is None else games)


def t_interval(values, games=None):
    """Mean with a Student t 95% interval, for values with no known bounds; None if empty. One value
    has no spread to measure: its interval's ends are None."""
    n = len(values)
    if n == 0:
        return None
    m = sum(values) / n
    games = n if games is None else games
    if n < 2:
        return Interval(m, None, None, n, games)  # type: ignore[arg-type]
    half = t975(n - 1) * math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1) / n)
    return Interval(m, m - half, m + half, n, games)


def _free_interval(values):
    """The t interval of per-game metrics on a leaderboard; one value reads as its own interval."""
    iv = t_interval(values)
    return iv if iv.low is not None else Interval(iv.mean, iv.mean, iv.mean, iv.n, iv.games)


def deals_to_settle(m, low, high, n):
    """How many deals in all would likely put the 95% interval (low, high) of a score with mean `m`
    over `n` deals (see `interval`) wholly on the side of 0.50 its mean is on, if further deals
    spread as these did; None if that is out of reach."""
    n = int(n)
    if m < 0.5:
        m, low, high = 1 - m, 1 - high, 1 - low
    if m - 0.5 < 0.005:
        return None
    k = n + 2
    c = (n * m + 1) / k
    # The spread of the deals, read back from the interval the same formula gave (see
    # analysis.interval); when both ends are clipped, the widest spread a mean of m allows.
    half = c - low if 0 < low < m else high - c if m < high < 1 else None
    if half is None or half <= 0:
        var = m * (1 - m)
    else:
        total = half ** 2 * k * (k - 1) / t975(k - 1) ** 2
        var = max(0.0, (total - n * (m - c) ** 2 - c ** 2 - (1 - c) ** 2) / n)

    def settled(n2):
        k2 = n2 + 2
        c2 = (n2 * m + 1) / k2
        ss = n2 * var + n2 * (m - c2) ** 2 + c2 ** 2 + (1 - c2) ** 2
        return c2 - t975(k2 - 1) * (ss / (k2 - 1) / k2) ** 0.5 > 0.5

    limit = max(1000, 100 * n)
    hi = n + 1
    while not settled(hi):
        if hi > limit:
            return None
        hi *= 2
    lo = max(n, hi // 2)
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if settled(mid) else (mid, hi)
    return hi


# ---- groups -------------------------------------------------------------------------------------

def group_key(match):
    """(game_id, canonical JSON of its parameters): one leaderboard per key."""
    return match["game_id"], json.dumps(match["game_params"], sort_keys=True)


def groups(matches):
    """[(game_id, game_params, matches)] per game and parameter set, in order of first appearance."""
    out = {}
    for m in matches:
        out.setdefault(group_key(m), (m["game_id"], m["game_params"], []))[2].append(m)
    return list(out.values())


def seat_metrics(match):
    """(seat, name, value) for every number a match's metrics give per seat."""
    seats = len(match["seats"])
    for name, values in (match.get("metrics") or {}).items():
        if isinstance(values, list) and len(values) == seats:
            for seat, v in enumerate(values):
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    yield seat, name, v


def _deal(match):
    return match["deal"], match["seed"]


def _labels(match):
    return [s["label"] for s in match["seats"]]


def agents(matches):
    """{label: {"label", "source", "params"}} for every agent seated in the matches."""
    out = {}
    for m in matches:
        for s in m["seats"]:
            out.setdefault(s["label"], s)
    return dict(sorted(out.items()))


def pair_score(p_a, p_b):
    """A seat's score against another from their placements: 1 above it, 1/2 level, 0 below."""
    return 1.0 if p_a < p_b else 0.5 if p_a == p_b else 0.0


# ---- head to head and standings (one group) -----------------------------------------------------

def head_to_head(matches):
    """{a: {b: Interval of a's score against b}}: 1 per match where a placed above b, 1/2 per tie."""
    by_deal = defaultdict(lambda: defaultdict(list))
    games = defaultdict(int)
    for m in matches:
        labels, places = _labels(m), m["placements"]
        met = set()
        for i, j in itertools.permutations(range(len(labels)), 2):
            a, b = labels[i], labels[j]
            if a == b:
                continue
            by_deal[a, b][_deal(m)].append(pair_score(places[i], places[j]))
            met.add((a, b))
        for pair in met:
            games[pair] += 1
    cells = defaultdict(dict)
    for (a, b), deals in by_deal.items():
        cells[a][b] = interval([sum(v) / len(v) for v in deals.values()], games[a, b])
    return {a: dict(sorted(row.items())) for a, row in sorted(cells.items())}


@dataclass
class Standing:
    """One agent's row of one game's leaderboard: every view (terminal, --json, report) shows these.

    mu, sigma and conservative (mu - 3 sigma) are its TrueSkill rating after the matches in match-id
    order; wins, draws and losses count its matches (a win is first place alone, a draw a shared first
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
    placement: Interval
    mean_return: float
    duplicate_score: "float | None"
    metrics: dict = field(default_factory=dict)

    def as_dict(self):
        return jsonable(dict(self.__dict__))


def _replay(matches):
    """One pass over one group's matches in match-id order: (standings, rating history)."""
    matches = sorted(matches, key=lambda m: m["match_id"])
    prior = ratings.environment().create_rating()
    history, count = {}, defaultdict(lambda: {"games": 0, "wins": 0, "draws": 0, "losses": 0, "faults": 0})
    share, place, metric = (defaultdict(lambda: defaultdict(list)) for _ in range(3))
    returns = defaultdict(list)
    players, current = 1, {}
    for m, ranked, current in ratings.replay(matches):
        labels, places = _labels(m), m["placements"]
        players = max(players, len(labels))
        firsts = sum(1 for _, r in ranked if r == 1)
        faulty = {f["label"] for f in m["faults"]}
        for label, r in ranked:
            c = count[label]
            c["games"] += 1
            c["wins" if r == 1 and firsts == 1 else "draws" if r == 1 else "losses"] += 1
            c["faults"] += label in faulty
            points = history.setdefault(label, [(0, prior.mu, prior.sigma)])
            points.append((len(points), current[label].mu, current[label].sigma))
        # One observation per agent and match (an agent may hold several seats), so that with two
        # agents the two score shares of a match, and of a deal, add up to 1.
        for a in set(labels):
            mine = [i for i, b in enumerate(labels) if b == a]
            pairs = [pair_score(places[i], places[j]) for i in mine for j, b in enumerate(labels) if b != a]
            if pairs:
                share[a][_deal(m)].append(sum(pairs) / len(pairs))
            place[a][_deal(m)].append(sum(places[i] for i in mine) / len(mine))
            returns[a] += [m["returns"][i] for i in mine]
        for seat, key, v in seat_metrics(m):
            metric[labels[seat]][key].append(float(v))
    duplicate = duplicate_scores(matches)
    game_id, params = (matches[0]["game_id"], matches[0]["game_params"]) if matches else ("", {})
    order = sorted(current, key=lambda a: (-(current[a].mu - 3 * current[a].sigma), a))
    rows = []
    for rank, a in enumerate(order, 1):
        r, c = current[a], count[a]
        rows.append(Standing(
            game_id, params, rank, a, r.mu, r.sigma, r.mu - 3 * r.sigma, c["games"], c["wins"], c["draws"],
            c["losses"], c["faults"],
            interval([sum(v) / len(v) for v in share[a].values()], c["games"]),
            interval([sum(v) / len(v) for v in place[a].values()], c["games"], 1.0, float(max(players, 2))),
            sum(returns[a]) / len(returns[a]), duplicate.get(a),
            {k: _free_interval(v) for k, v in sorted(metric[a].items())}))
    return rows, dict(sorted(history.items()))


def standings(matches):
    """The Standings of one group (a game with one set of parameters), best first by mu - 3 sigma."""
    return _replay(matches)[0]


def leaderboard(matches):
    """The Standings of every group in the matches, group after group, each best first."""
    return [row for _, _, ms in groups(matches) for row in standings(ms)]


# ---- dominance and cycles -----------------------------------------------------------------------

def dominance_graph(h2h):
    """nx.DiGraph with an edge a -> b wherever a scores above 1/2 against b.

    Edge attributes: win_rate, low, high, games and `confident` (the whole 95% interval lies above
    1/2). Every agent of the matrix is a node, even one that beats nobody.
    """
    g = nx.DiGraph()
    for a, row in h2h.items():
        g.add_node(a)
        for b, cell in row.items():
            g.add_node(b)
            if cell.mean > 0.5:
                g.add_edge(a, b, win_rate=cell.mean, low=cell.low, high=cell.high,
                           games=cell.games, confident=cell.low > 0.5)
    return g


def graph_cycles(g, limit=MAX_CYCLES):
    """Cycles of confident edges (a beats b beats c beats a), each starting at its smallest label."""
    strong = nx.DiGraph((a, b) for a, b, d in g.edges(data=True) if d["confident"])
    found = []
    for c in itertools.islice(nx.simple_cycles(strong), limit):
        k = c.index(min(c))
        found.append(c[k:] + c[:k])
    return sorted(found, key=lambda c: (len(c), c))


def cycles(matches, limit=MAX_CYCLES):
    """Every cycle of confident wins in the matches, per game and parameter set.

    [{"game_id", "game_params", "cycle": [a, b, c]}] where a beats b, b beats c and c beats a, each
    with its whole 95% interval above 1/2. A single rating cannot show these, so leaderboards list them.
    """
    out = []
    for game_id, params, ms in groups(matches):
        for c in graph_cycles(dominance_graph(head_to_head(ms)), limit):
            out.append({"game_id": game_id, "game_params": params, "cycle": c})
    return out


def format_cycle(cycle):
    return " > ".join(cycle + cycle[:1])


# ---- everything about one group ----------------------------------------------------------------

def rating_history(matches):
    """{label: [(games played, mu, sigma)]} for one group, starting from the prior at 0 games; each
    agent's last point is its rating in `standings`."""
    return _replay(matches)[1]


def summary(matches):
    """Everything the views show about one group: leaderboard (Standings), head to head, dominance
    graph, cycles, rating history; `order` lists the agents best first."""
    board, history = _replay(matches)
    h2h = head_to_head(matches)
    g = dominance_graph(h2h)
    return {"leaderboard": board, "order": [r.label for r in board], "head_to_head": h2h,
            "graph": g, "cycles": graph_cycles(g), "rating_history": history}


# ---- duplicate scores and faults ----------------------------------------------------------------

def _rotation_count(labels):
    return len({tuple(labels[r:] + labels[:r]) for r in range(len(labels))})


def duplicate_scores(matches):
    """{label: duplicate score}: how much more an agent scores than its table on the same deals.

    Matches that share a deal (seed) and a line-up form a duplicate group, one match per seat
    rotation. In each complete group without faults, an agent's score is the mean of its seats'
    returns over the group minus the mean of every seat's returns; the luck of the deal (and of
    the seat) cancels out. An agent's duplicate score is the mean over its groups (None without any).
    """
    groups = defaultdict(list)
    for m in matches:
        labels = [seat["label"] for seat in m["seats"]]
        groups[(m.get("seed"), m.get("deal"), tuple(sorted(labels)))].append(m)
    per_agent = defaultdict(list)
    for group in groups.values():
        labels = [seat["label"] for seat in group[0]["seats"]]
        seatings = {tuple(seat["label"] for seat in m["seats"]) for m in group}
        if len(seatings) != _rotation_count(labels) or any(m["faults"] for m in group):
            continue
        sums, counts, total, n = defaultdict(float), defaultdict(int), 0.0, 0
        for m in group:
            for seat, ret in zip(m["seats"], m["returns"]):
                sums[seat["label"]] += ret
                counts[seat["label"]] += 1
                total += ret
                n += 1
        for label in sums:
            per_agent[label].append(sums[label] / counts[label] - total / n)
    return {label: sum(v) / len(v) for label, v in per_agent.items()}


def faults(matches):
    """Every recorded fault: [{match_id, game_id, seat, label, kind, message, move}] in match order."""
    out = []
    for m in sorted(matches, key=lambda m: m["match_id"]):
        for f in m["faults"]:
            out.append({"match_id": m["match_id"], "game_id": m["game_id"], **f})
    return out
