"""One score, one interval on one screen: the verdict of a run played until settled decides on wider
(corrected) intervals than the table's 95% ones, so it gives the score and the confidence it decided
at, never a second bracketed interval beside the table's."""
import re

from arena.results.intervals import Interval
from arena.results.settle import Look, StoppingRule
from arena.results.verdict import settle_verdict


def look(iv, settled, looked=12):
    return Look("insert", {}, deals=looked, looked=looked, settled=settled, next_look=None,
                pairs=[("ismcts", "greedy", iv)])


def test_a_settled_verdict_gives_the_score_and_its_confidence_without_a_second_interval():
    rule = StoppingRule(max_deals=100)
    text = settle_verdict(look(Interval(0.94, 0.75, 1.0, 12, 24), True), rule, 2)
    assert not re.search(r"\[\d", text), text
    assert text == ("settled after 12 deals: ismcts is stronger than greedy: ismcts scores 0.94 against greedy "
                    "over 12 deals (decided at 99.4% confidence, corrected for 8 looks: a settled verdict is wrong "
                    "at most 5% of the time)")


def test_one_look_is_singular():
    rule = StoppingRule(max_deals=4)
    assert len(rule.looks()) == 1
    text = settle_verdict(look(Interval(0.75, 0.3, 1.0, 4, 8), False, looked=4), rule, 2)
    assert "corrected for 1 look:" in text and not re.search(r"\[\d", text), text
    assert text.startswith("not settled at the cap of 4 deals: ismcts against greedy is open: ismcts scores 0.75 "
                           "against greedy over 4 deals"), text
