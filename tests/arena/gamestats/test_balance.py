"""Component balance on synthetic records with known answers: the pairing over duplicate deals, the
unpaired fallback, the margin test and Holm's correction."""
import json
import random

import pytest
from click.testing import CliRunner

import engines
from arena.cli import main
from arena.gamestats import balance as bal
from arena.gamestats import components, replay
from arena.gamestats.balance import Component, Record
from arena.store import Store

CARD = Component("card", "X", "played")
OTHER = Component("card", "Y", "played")


def rotations(deals, seats, assign, share_of, rng=None):
    """Records of `deals` deals, each played in `seats` rotations: assign(deal, rotation, seat) gives a
    seat's components, share_of(deal, rotation, seat, components) its score share."""
    out = []
    for d in range(deals):
        for r in range(seats):
            comps = [set(assign(d, r, s)) for s in range(seats)]
            out.append(Record(len(out), d, [share_of(d, r, s, comps[s]) for s in range(seats)], comps))
    return out


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def row(rows, component):
    return next(r for r in rows if (r["family"], r["item"], r["how"]) == tuple(component))


def test_a_component_that_always_wins_is_flagged_over_with_a_paired_effect():
    # Seat 0 plays X in rotation 0 only; with it the seat wins (share 1), without it shares 1/2.
    records = rotations(20, 2, lambda d, r, s: [CARD] if (r, s) == (0, 0) else [],
                        lambda d, r, s, comps: 1.0 if CARD in comps else 0.5 if s == 0 else 0.5)
    x = row(bal.effects(records), CARD)
    assert x["paired"] and x["deals"] == 20 and x["games"] == 40 and x["seat_games"] == 20
    assert x["mean"] == pytest.approx(0.5) and x["low"] == pytest.approx(0.5) and x["high"] == pytest.approx(0.5)
    assert x["p_adjusted"] == 0.0 and x["flag"] == "over"


def test_a_component_that_never_matters_covers_zero_and_is_not_flagged():
    rng = random.Random(7)
    records = rotations(60, 3, lambda d, r, s: [CARD] if rng.random() < 0.5 else [],
                        lambda d, r, s, comps: rng.choice([0.0, 0.5, 1.0]))
    x = row(bal.effects(records), CARD)
    assert x["low"] < 0 < x["high"]
    assert x["flag"] == "" and x["p_adjusted"] > bal.ALPHA


def test_two_identical_variants_show_no_difference():
    # X on the even deals and Y on the odd ones, with the same effect: the same figures.
    def assign(d, r, s):
        return [CARD if d % 2 == 0 else OTHER] if (r, s) == (1, 1) else []

    def share(d, r, s, comps):
        return 0.25 + 0.1 * (d // 2 % 3) + (0.2 if comps else 0.0)

    rows = bal.effects(rotations(30, 2, assign, share))
    x, y = row(rows, CARD), row(rows, OTHER)
    for key in ("mean", "low", "high", "deals", "games", "p", "flag"):
        assert x[key] == pytest.approx(y[key]), key
    assert x["mean"] == pytest.approx(0.2)


def test_a_component_fixed_by_the_deal_falls_back_to_unpaired():
    # Seat d % 2 moves first on deal d in every rotation and scores 0.7 against 0.3.
    first = Component("rule", "first player", "held")
    records = rotations(10, 2, lambda d, r, s: [first] if s == d % 2 else [],
                        lambda d, r, s, comps: 0.7 if comps else 0.3)
    x = row(bal.effects(records), first)
    assert not x["paired"] and x["deals"] == 10 and x["games"] == 20
    assert x["mean"] == pytest.approx(0.4) and x["flag"] == "over"


def test_an_expected_component_never_seen_has_a_row_without_an_estimate():
    records = rotations(3, 2, lambda d, r, s: [], lambda d, r, s, comps: 0.5)
    x = row(bal.effects(records, expected=[CARD]), CARD)
    assert x["mean"] is None and x["deals"] == 0 and x["flag"] == "" and x["p_adjusted"] is None


def test_holm_on_known_p_values():
    # Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.04 -> kept non-decreasing.
    adjusted = bal.holm([0.01, 0.04, 0.03, 0.005, None])
    assert adjusted[:4] == pytest.approx([0.03, 0.06, 0.06, 0.02]) and adjusted[4] is None
    assert bal.holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])


def test_the_margin_test_agrees_with_the_interval():
    # Mean 0.1 with a known spread: significant beyond a 0.05 margin, not beyond 0.2.
    values = [0.08, 0.12] * 20
    assert bal.margin_p(values, 0.05) < 1e-6
    assert bal.margin_p(values, 0.2) > 0.99
    assert bal.margin_p([0.3]) is None


def test_score_shares_count_ties_half():
    assert bal.score_shares([1, 2, 2]) == pytest.approx([1.0, 0.25, 0.25])


# ---- the components of real games -------------------------------------------------------------------

GAMES = [("belle_of_the_ball", []), ("royal_ball", ["--param", "match=single_round"]), ("belladone_bluff", []),
         ("insert", []), ("wizard", ["--param", "hands=3,2", "--param", "players=3"])]


@pytest.mark.parametrize("game, extra", GAMES, ids=[g for g, _ in GAMES])
def test_analyze_names_every_component_of_every_game(tmp_path, game, extra):
    args = ["analyze", game, *extra, "--games", 1, "--jobs", 1, "--store", tmp_path / "s.sqlite"]
    result = invoke(*args, "--json", "--out", tmp_path / "a.html")
    assert result.exit_code == 0, result.output
    (g,) = json.loads(result.output)["groups"]
    section = g["components"]
    assert section["correction"] == "Holm" and section["duplicate"]
    named = {(r["family"], r["item"], r["how"]) for r in section["rows"]}
    assert named >= set(components.expected(game, g["game_params"]))
    for r in section["rows"]:
        assert r["mean"] is None or r["low"] is None or r["low"] - 1e-9 <= r["mean"] <= r["high"] + 1e-9
        assert r["flag"] in ("", "over", "under") and r["games"] <= g["matches"]
    assert any(r["mean"] is not None for r in section["rows"])
    if game == "belle_of_the_ball":
        belles = {r["item"] for r in section["rows"] if r["family"] == "Belle"}
        assert len(belles) == 27
    if game == "wizard":
        assert 0.0 <= section["bid_total_equals_tricks"]["mean"] <= 1.0
    page = (tmp_path / "a.html").read_text()
    assert "<h3>Components</h3>" in page and page.count("<svg") >= 3
    shown = invoke(*args)
    assert shown.exit_code == 0 and "components: effect on the seat's score share" in shown.output


def test_the_components_are_what_the_seats_did(tmp_path):
    # Belle of the Ball: the Belles each seat played are its "play" actions, those it holds its hand.
    result = invoke("analyze", "belle_of_the_ball", "--games", 1, "--jobs", 1, "--store", tmp_path / "s.sqlite",
                    "--json")
    store = Store(str(tmp_path / "s.sqlite"), readonly=True)
    for m in store.matches(json.loads(result.output)["runs"][0]):
        state = engines.make(m["game_id"], seed=m["seed"], **m["game_params"])
        played = [set() for _ in range(state.num_players)]
        for a in m["actions"]:
            text = state.action_to_string(a)
            if text.startswith("play "):
                played[state.current_player()].add(Component("Belle", text[5:], "played"))
            state.apply_action(a)
        got = replay.trace(m).components
        for seat in range(state.num_players):
            assert {c for c in got[seat] if c.how == "played"} == played[seat]
            assert {c.item for c in got[seat] if c.family == "Belle" and c.how == "held at the end"} \
                == set(state.hand(seat))


def test_insert_s_first_player_and_layout_are_the_engine_s():
    from engines import insert
    state = engines.make("insert", seed=11)
    first = state.current_player()
    collector = components.Collector(state)
    rng = random.Random(3)
    while not state.is_terminal():
        collector.before(state)
        collector.add(state.apply_with_events(rng.choice(state.legal_actions())))
    got = collector.result(state)
    assert Component("rule", "first player", "seat") in got[first] and not any(c.family == "rule" for c in got[1 - first])
    tiles = {c.item.split(" at ")[1]: c.item.split(" at ")[0] for c in got[first] if c.how == "first player"
             and c.family == "tile"}
    order = [tiles[p] for p in components.INSERT_POSITIONS]
    assert insert.layout_from_tiles(order) == state.layout()
    board = "".join(state.observation(0)["board"])
    edge_centre = {"R": 0, "W": 0}
    for k, ch in enumerate(board):   # rank 6 first: row k // 6 from the top, file k % 6
        r, f = divmod(k, 6)
        if ch != "." and 1 <= r <= 4 and 1 <= f <= 4:
            edge_centre[ch] += 1
    a, b = edge_centre["R"], edge_centre["W"]
    centre = Component("squares", "centre", "majority at the end")
    assert (centre in got[0]) == (a > b) and (centre in got[1]) == (b > a)
