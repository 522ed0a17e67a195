"""The drawings of Belladone Bluff, Royal Ball and Belle of the Ball (arena/serve/static/games/) in a
real browser, at real engine positions (start, middle, end, random ones; every seat's view and the
view of everything): no script error; the drawing shows what the observation holds (hands, face-down
cards, scores, the seat to move, the last move); a seat's view shows no card only others know."""
import json
import random

import pytest

import engines
from arena.serve import screenshots
from browser import launch

# Starts real processes, boxes, browsers or compilers: the full suite only (`pytest -m "not slow"` skips it).
pytestmark = pytest.mark.slow

sync_api = pytest.importorskip("playwright.sync_api")

# (moves played from the deal; None: to the end)
MOMENTS = (0, 25, None)

LOOK = """() => {
    const root = document.getElementById('root');
    const all = (selector) => [...root.querySelectorAll(selector)];
    return {
        text: root.innerText,
        html: root.innerHTML,
        cards: all('[data-card]').map((e) => e.dataset.card),
        backs: all('[data-back]').map((e) => e.dataset.back),
        toMove: all('[data-to-move="true"]').map((e) => Number(e.dataset.seat)),
        scores: all('[data-score]').map((e) => e.innerText),
    };
}"""


@pytest.fixture(scope="module")
def page():
    with sync_api.sync_playwright() as playwright:
        browser = launch(playwright)
        yield screenshots.open_page(browser)
        browser.close()


def positions(game_id, seeds=(1, 2)):
    """States at each of MOMENTS for every player count, and at a random moment."""
    spec = engines.spec(game_id)
    for players in range(spec.min_players, spec.max_players + 1):
        for seed in seeds:
            for moves in MOMENTS + (random.Random(seed).randrange(5, 120),):
                yield screenshots.played_position(game_id, seed, moves, players=players)


def views(state):
    """Every seat's view, and the view of everything."""
    for viewer in list(range(state.num_players)) + [None]:
        names = screenshots.seat_names(state.num_players, viewer)
        yield viewer, screenshots.view_of(state, viewer, names)


def drawn(page, view):
    """What the page shows after drawing `view`; fails on any script error."""
    errors = screenshots.render(page, view)
    assert not errors, errors
    shown = page.evaluate(LOOK)
    if view["terminal"]:
        assert shown["toMove"] == [] and "Game over" in shown["text"]
    else:
        assert shown["toMove"] == [view["to_move"]]
    if view["last_move"]:
        assert view["last_move"]["text"] in shown["text"]
    return shown


def test_belladone_bluff_drawing_shows_each_view_and_hides_the_rest(page):
    for state in positions("belladone_bluff"):
        truth = {q: set(state.hand(q)) for q in range(state.num_players)}
        for viewer, view in views(state):
            shown = drawn(page, view)
            obs = view["observation"]
            observations = view["observations"] or [obs]
            # the viewer's hand (every hand for everything) appears face up
            for q in (range(state.num_players) if viewer is None else [viewer]):
                assert truth[q] <= set(shown["cards"])
            # a back for every card whose value this view cannot know, plus the deck's
            unknown_in_rows = sum(all(o["preparations"][r][i]["card"].endswith("?") for o in observations)
                                  for r in range(3) for i in range(1, len(obs["preparations"][r]), 2))
            unknown_in_hands = 0 if viewer is None else sum(
                len(h["colours"]) - len(h["known"]) for q, h in enumerate(obs["hands"]) if q != viewer)
            assert len(shown["backs"]) == unknown_in_rows + unknown_in_hands + (obs["deck_size"] > 0)
            for q, score in enumerate(obs["scores"]):
                assert (f"{score:+d}" if score else "0") in shown["scores"][q]
            # no card face this view does not hold
            if viewer is not None:
                assert set(shown["cards"]) <= cards_named_in(state.observation(viewer))
                for q in range(state.num_players):
                    hidden = truth[q] - cards_named_in(obs)
                    assert not [name for name in hidden if f'"{name}"' in shown["html"]]


def cards_named_in(obs):
    """Every card name in an observation of Belladone Bluff."""
    text = json.dumps(obs)
    return {f"{c}{k}" for c in "RBGYP" for k in ("-6 -5 -4 -3 -2 -1 +1 +2 +3 +4 +5 +6 -rev -target -jar -eye".split())
            if f'"{c}{k}"' in text}


def royal_ball_cell(page, seat, row, card):
    cell = page.locator(f'[data-seat="{seat}"] tr[data-row="{row}"] td[data-card="{card}"]')
    return int(cell.get_attribute("data-count")) if cell.count() else None


def test_royal_ball_drawing_shows_each_view_and_hides_the_rest(page):
    for state in positions("royal_ball", seeds=(1,)):
        for viewer, view in views(state):
            shown = drawn(page, view)
            obs = view["observation"]
            for q, public in enumerate(obs["players"]):
                own = viewer is None or q == viewer
                hand = state.hand(q)
                for card in ("Cake", "Carrot", "Apple", "Salami", "Chicken", "Dog", "Horse"):
                    assert royal_ball_cell(page, q, "hand", card) == (hand.get(card, 0) if own else None)
                    assert royal_ball_cell(page, q, "face-up", card) == public["took_face_up"].get(card, 0)
                backs = page.locator(f'[data-seat="{q}"] tr[data-row="face-down"] [data-back]').count()
                assert backs == (0 if own else public["took_face_down"])
                favours = obs['favours'][q]
                assert f"{favours} favour{'' if favours == 1 else 's'}" in shown["scores"][q]
            # the King's pile: face-down draft cards and others' gifts as backs; a gift face up only for its giver
            king = page.locator("[data-king] .rb-pile > *")
            assert king.count() == len(obs["king"])
            gifts_seen = sum(e.endswith("(your gift)") for o in (view["observations"] or [obs]) for e in o["king"])
            assert page.locator("[data-king] .rb-gift").count() == gifts_seen
            backs = page.locator("[data-king] .rb-pile > [data-back]").count()
            others_gifts = 0 if viewer is None else sum(e.startswith("gift by") for e in obs["king"])
            assert backs == obs["king"].count("face-down") + others_gifts


def test_belle_of_the_ball_drawing_shows_the_table_and_no_unseen_guest(page):
    for state in positions("belle_of_the_ball", seeds=(1,)):
        unseen = [name for names in state.hidden_cards() for name in names]
        for _, view in views(state):
            shown = drawn(page, view)
            obs = view["observation"]
            lines = [name for name, _ in obs["guest_line"] + obs["belle_line"]]
            in_parties = [name for party in obs["parties"] for group in party for name in group]
            assert sorted(shown["cards"]) == sorted(lines + in_parties + [n for hand in obs["hands"] for n in hand])
            for q, party in enumerate(obs["parties"]):
                for g, group in enumerate(party):
                    drawn_group = page.locator(f'[data-seat="{q}"] [data-group="{g + 1}"] [data-card]')
                    assert drawn_group.evaluate_all("cards => cards.map((c) => c.dataset.card)") == group
                score = view["returns"][q] if view["terminal"] else obs["scores"][q]
                assert f"{score:g} points" in shown["scores"][q]
            # Regrets are face down, held or beside line cards; nobody sees their faces or the decks
            assert shown["backs"].count("regret") == sum(obs["regrets"])
            beside = page.locator("[data-regrets]").evaluate_all("r => r.map((e) => Number(e.dataset.regrets))")
            assert sum(beside) == sum(r for _, r in obs["guest_line"] + obs["belle_line"])
            assert not [name for name in unseen if f'"{name}"' in shown["html"] or f">{name}<" in shown["html"]]


def test_belle_card_facts_are_the_engines():
    """The Belle of the Ball drawing's guest interests and Belle texts (belle_of_the_ball.cards.json)
    are what `python -m arena.serve.screenshots` derives from the engine's card data."""
    assert json.loads(screenshots.BELLE_CARDS.read_text()) == screenshots.belle_cards()
