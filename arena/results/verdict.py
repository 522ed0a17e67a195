"""The verdict: one line on who is stronger in one game, from its standings and head-to-head
scores, when the 95% intervals allow it, or how many more deals would likely settle it."""
from typing import Any

from arena.results.intervals import Interval, deals_to_settle
from arena.results.settle import Look, StoppingRule, pair_state
from arena.text import interval_part, interval_text, plural


def _round_up(x):
    """A count people read at a glance: 7, 30, 150, 1,200."""
    step = 1 if x < 10 else 5 if x < 100 else 50 if x < 1000 else 500
    return -(-x // step) * step


def _deals(n) -> str:
    return "1 deal" if int(n) == 1 else f"{n} deals"


def verdict(rows: list[dict[str, Any]], h2h: dict[str, dict[str, Any]], cycles: list[list[str]]) -> str | None:
    """One line on who is stronger in one game, from its Standing rows and head-to-head matrix (plain
    data), when the 95% intervals allow it; otherwise how many more deals would likely settle it.
    None for a game with fewer than two agents."""
    labels = [r["label"] for r in rows]
    if len(labels) < 2:
        return None

    def cell(a, b):
        return h2h.get(a, {}).get(b)

    def said(a, b):
        iv = cell(a, b)
        return f"{a} scores {interval_text(iv)} against {b} over {_deals(interval_part(iv, 'deals'))}"

    if cycles:
        return ("no single strongest agent: " + "; ".join(" > ".join(c + c[:1]) for c in cycles)
                + ", each beating the next with 95% confidence")
    for a in labels:
        others = [b for b in labels if b != a and cell(a, b) is not None]
        if not others or not all(interval_part(cell(a, b), "low") > 0.5 for b in others):
            continue
        closest = min(others, key=lambda b: interval_part(cell(a, b), "low"))
        if len(labels) == 2:
            return f"{a} is stronger than {closest}: {said(a, closest)} (95% interval above 0.50)"
        rest = [b for b in labels if b != a]
        if all(cell(x, y) is not None and interval_part(cell(x, y), "low") > 0.5
               for i, x in enumerate(rest) for y in rest[i + 1:]):
            return (f"{' > '.join([a] + rest)}: each beats every agent after it with 95% confidence "
                    f"(closest at the top: {said(a, closest)})")
        return (f"{a} is the strongest: it beats every other agent with 95% confidence (closest: "
                f"{said(a, closest)}); the order below it is not settled")
    top = labels[0]
    pending = []
    for b in labels[1:]:
        iv = cell(top, b)
        if iv is not None and not interval_part(iv, "low") > 0.5:
            m, low, high = (float(interval_part(iv, k)) for k in ("mean", "low", "high"))
            pending.append((b, iv, deals_to_settle(m, low, high, int(interval_part(iv, "deals")))))
    if not pending:
        return None
    b, iv, total = max(pending, key=lambda p: float("inf") if p[2] is None else p[2])
    a, o = (top, b) if interval_part(iv, "mean") >= 0.5 else (b, top)
    text = f"not settled: {said(a, o)}"
    n = int(interval_part(iv, "deals"))
    if total is None:
        return text + "; they look even, and more deals may never separate them"
    games = _round_up(total)
    return text + f"; about {games - n} more deals would likely settle it (--games {games})"


def settle_verdict(now: Look, rule: StoppingRule, agents: int) -> str:
    """One line on a game of a run played until settled (arena.results.settle): what its last look
    says, at the rule's corrected confidence, and why it stopped or where it stands."""
    if not now.looked:
        return (f"no look yet: {now.deals} of the {rule.looks()[0]} deals before the first look are complete "
                f"(the same command plays on)")
    conf = f"{rule.confidence(agents):.1%}".replace(".0%", "%")
    pairs = len(now.pairs) + 1 if agents > 2 else 1
    why = (f"decided at {conf} confidence, corrected for {plural(len(rule.looks()), 'look')}"
           + (f" and {agents * (agents - 1) // 2} pairs" if pairs > 1 else "")
           + f": a settled verdict is wrong at most {rule.alpha:.0%} of the time")

    def said(a, b, iv):
        # The score alone: its interval here is the corrected one, wider than the table's 95% interval
        # of the same score above it, and one score shows one interval on a screen.
        return f"{a} scores {interval_part(iv, 'mean'):.2f} against {b} over {_deals(interval_part(iv, 'deals'))}"

    def claim(a, b, iv):
        state = pair_state(iv, rule.level)
        if state == "<":
            a, b, iv = b, a, None if iv is None else Interval(1 - iv.mean, 1 - iv.high, 1 - iv.low, iv.n, iv.games)
        if state == "=":
            return f"{a} and {b} are level (within {0.5 - rule.level:.2f}-{0.5 + rule.level:.2f}): {said(a, b, iv)}"
        if state is None:
            return f"{a} against {b} is open: {said(a, b, iv)}" if iv is not None else f"{a} never met {b}"
        return f"{a} is stronger than {b}: {said(a, b, iv)}"

    text = "; ".join(claim(*p) for p in now.pairs)
    if now.settled:
        return f"settled after {now.looked} deals: {text} ({why})"
    if now.next_look is None:
        return (f"not settled at the cap of {rule.max_deals} deals: {text} ({why}); "
                f"a higher --max-deals plays on from here")
    return f"not settled yet at the look after {now.looked} deals (next at {now.next_look}; the same command plays on): {text}"
