"""HTML replays (`arena replay RUN MATCH --html FILE`, `arena replay RUN --html FILE`): a file holds
what the server would answer for its match, a seat's file only that seat's view, the run's index
links every match, labels a bot chose stay text, bad input is one line; in chromium the file steps
to the end with its game's drawing and loads nothing but itself."""
import base64
import gzip
import hashlib
import json
import os
import re
from html.parser import HTMLParser

import pytest
from starlette.testclient import TestClient

import engines
from arena.human_game import replay_states
from arena.serve.app import create_app
from arena.store import Store
from arena.text import jsonable
from browser import headless_browser
from cli import invoke, ok

# Labels are any text without spaces or commas: these two try to run script in a page that shows them.
HOSTILE = ("<script>alert(1)</script>", "<img/src=x/onerror=alert(2)>")


def stored_run(path, *args):
    ok("run", *args, "--games", "1", "-j", "1", "--store", path)
    reader = Store(str(path), readonly=True)
    run_id = reader.run().run_id
    reader.close()
    return str(path), run_id


@pytest.fixture(scope="module")
def insert_run(tmp_path_factory):
    """(store, run id): two Insert matches between agents labelled HOSTILE."""
    return stored_run(tmp_path_factory.mktemp("replay-html") / "insert.sqlite", "--game", "insert",
                      "--agents", f"random as {HOSTILE[0]},greedy as {HOSTILE[1]}")


HOSTILE_FAULT = "<img/src=x/onerror=alert(3)>"
FAULTY_BOT = f"""
from agents import Agent


class Hostile(Agent):
    name = "hostile"
    moves = 0

    def act(self, state):
        self.moves += 1
        if self.moves == 3:
            raise RuntimeError({HOSTILE_FAULT!r})
        return state.legal_actions()[0]
"""


@pytest.fixture(scope="module")
def fault_run(tmp_path_factory):
    """(store, run id): Insert matches ended by a bot's fault whose message tries to run script."""
    folder = tmp_path_factory.mktemp("replay-html-fault")
    (folder / "hostile.py").write_text(FAULTY_BOT)
    return stored_run(folder / "fault.sqlite", "--game", "insert", "--agents",
                      f"{folder / 'hostile.py'}:Hostile,random", "--sandbox", "none")


@pytest.fixture(scope="module")
def wizard_run(tmp_path_factory):
    """(store, run id): three-player Wizard matches of three rounds."""
    return stored_run(tmp_path_factory.mktemp("replay-html") / "wizard.sqlite", "--game", "wizard",
                      "--players", "3", "--param", "hands=3", "--agents", "random,greedy")


def stored_match(store, run_id, match_id):
    reader = Store(store, readonly=True)
    try:
        return reader.match(run_id, match_id)
    finally:
        reader.close()


def embedded(page):
    """(head, data) a replay file holds: the match's ids, views offered and run link; its views."""
    head = re.search(r'<script type="application/json" id="replay-head">(.*?)</script>', page, re.S)[1]
    data = re.search(r'<script type="application/gzip\+base64" id="replay-data">(.*?)</script>', page, re.S)[1]
    return json.loads(head), json.loads(gzip.decompress(base64.b64decode(data)))


def write_match(tmp_path, store, run_id, match_id, *options):
    out = tmp_path / f"match-{match_id}.html"
    ok("replay", run_id, match_id, "--html", out, "--store", store, *options)
    return out


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, and its text."""

    def __init__(self, page):
        super().__init__()
        self.tags, self.text = [], []
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


def test_the_file_holds_what_the_server_answers_for_every_view(tmp_path, insert_run):
    store, run_id = insert_run
    head, data = embedded(write_match(tmp_path, store, run_id, 1).read_text())
    assert head["viewers"] == ["all", "0", "1"] and set(data["views"]) == set(head["viewers"])
    client = TestClient(create_app(store))
    base = f"/api/runs/{run_id}/matches/1"
    for viewer, view in data["views"].items():
        assert view["match"] == client.get(f"{base}?viewer={viewer}").json()
        assert len(view["steps"]) == view["match"]["steps"] + 1
        for k, step in enumerate(view["steps"]):
            assert step == client.get(f"{base}/steps/{k}?viewer={viewer}").json()


def test_the_policy_runs_the_pages_one_script_by_its_hash_and_loads_nothing(tmp_path, insert_run):
    store, run_id = insert_run
    page = write_match(tmp_path, store, run_id, 0).read_text()
    tags = Tags(page).tags
    policy = [a["content"] for tag, a in tags if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    script = re.search(r'<script type="module">(.*?)</script>', page, re.S)[1]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert policy == [f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; "
                      f"base-uri 'none'; form-action 'none'"]
    assert not [a for tag, a in tags if {"src", "href"} & set(a) and tag != "a"]   # nothing to load


def test_a_seats_file_holds_that_seats_view_alone(tmp_path, wizard_run):
    store, run_id = wizard_run
    match = stored_match(store, run_id, 0)
    states = replay_states(match)
    head, data = embedded(write_match(tmp_path, store, run_id, 0, "--seat", "1").read_text())
    assert head["viewers"] == ["1"] and list(data["views"]) == ["1"]
    steps = data["views"]["1"]["steps"]
    assert [s["observation"] for s in steps] == [jsonable(state.observation(1)) for state in states]
    assert all(s["observations"] is None and s["viewer"] == 1 for s in steps)
    others = {card for state in states for p in (0, 2) for card in state.hand(p)} - \
        {card for state in states for card in state.hand(1)}
    assert others and not any(card in json.dumps(s["observation"]["hand"]) for s in steps for card in others)


def test_the_run_index_links_every_match_and_each_links_back(tmp_path, insert_run):
    store, run_id = insert_run
    out = tmp_path / "run.html"
    ok("replay", run_id, "--html", out, "--store", store)
    links = [a["href"] for tag, a in Tags(out.read_text()).tags if tag == "a"]
    reader = Store(store, readonly=True)
    ids = sorted(reader.finished_ids(run_id))
    reader.close()
    assert links == [f"run_files/match-{i}.html" for i in ids]
    for i in ids:
        head, data = embedded((tmp_path / "run_files" / f"match-{i}.html").read_text())
        assert (head["run_id"], head["match_id"], head["run_href"]) == (run_id, i, "../run.html")
        assert data["views"]["all"]["match"]["match_id"] == i


def test_labels_a_bot_chose_are_text_in_the_index_and_the_replay(tmp_path, insert_run):
    store, run_id = insert_run
    out = tmp_path / "run.html"
    ok("replay", run_id, "--html", out, "--store", store)
    for page in (out.read_text(), (tmp_path / "run_files" / "match-0.html").read_text()):
        tags = Tags(page)
        assert not any(tag == "img" for tag, _ in tags.tags)
        assert [a for tag, a in tags.tags if tag == "script"] in ([], [
            {"type": "module"}, {"type": "application/json", "id": "replay-head"},
            {"type": "application/gzip+base64", "id": "replay-data"}])
        assert not any(label in page for label in HOSTILE)
    assert all(label in "".join(Tags(out.read_text()).text) for label in HOSTILE)


def test_a_fault_message_a_bot_chose_is_text_in_the_index(tmp_path, fault_run):
    store, run_id = fault_run
    out = tmp_path / "run.html"
    ok("replay", run_id, "--html", out, "--store", store)
    page = out.read_text()
    assert HOSTILE_FAULT not in page and not any(tag == "img" for tag, _ in Tags(page).tags)
    assert f"exception: RuntimeError: {HOSTILE_FAULT}" in "".join(Tags(page).text)


def test_bad_input_is_one_line_and_exit_2(tmp_path, insert_run):
    store, run_id = insert_run
    out = str(tmp_path / "x.html")
    for args, says in ((["nosuchrun", "0", "--html", out], "no run 'nosuchrun'"),
                       ([run_id, "99", "--html", out], "has no finished match 99"),
                       (["nosuchrun", "--html", out], "no run 'nosuchrun'"),
                       ([run_id, "0", "--html", "/proc/nowhere.html"], "cannot write /proc/nowhere.html"),
                       ([run_id, "--html", "/proc/nowhere.html"], "cannot write /proc/nowhere.html"),
                       ([run_id, "0", "--html", str(tmp_path / "no" / "x.html")], "no folder"),
                       ([run_id, "0", "--html", out, "--seat", "2"], "--seat must be between 0 and 1"),
                       ([run_id, "--html", out, "--seat", "0"], "for one match, not a whole run")):
        result = invoke("replay", *args, "--store", store)
        assert result.exit_code == 2, (args, result.output)
        assert says in result.output and "Traceback" not in result.output, (args, result.output)
        assert len(result.output.strip().splitlines()) == 1, (args, result.output)
    assert not os.path.exists(out)


# ---------------------------------------------------------------- in chromium

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser():
    with headless_browser() as b:
        yield b


@pytest.fixture
def page(browser):
    """A page that records every URL it requests (`page.requests`); it must raise no script error
    and open no dialog (an alert would be a label run as script)."""
    p = browser.new_page(viewport={"width": 1200, "height": 900})
    p.requests, problems = [], []
    p.on("request", lambda r: p.requests.append(r.url))
    p.on("pageerror", lambda e: problems.append(f"script error: {e}"))
    p.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
    p.set_default_timeout(30_000)
    yield p
    p.close()
    assert not problems, problems


def attributes(locator, name):
    """The attribute of every element found (through locators: the page's policy forbids evaluating
    a test's script in it)."""
    return [locator.nth(k).get_attribute(name) for k in range(locator.count())]


def at(page, step, steps):
    sync_api.expect(page.locator("#board")).to_have_attribute("data-step", str(step))
    assert page.locator("#step").inner_text() == f"move {step} of {steps}"


@pytest.mark.slow
def test_a_replay_file_steps_to_the_final_scores_and_loads_nothing_but_itself(tmp_path, insert_run, page):
    store, run_id = insert_run
    match = stored_match(store, run_id, 0)
    steps = len(match["actions"])
    url = write_match(tmp_path, store, run_id, 0).as_uri()
    page.goto(url)
    at(page, steps, steps)   # it opens on the end: the final position and the result
    page.keyboard.press("Home")
    at(page, 0, steps)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    at(page, 2, steps)
    page.locator("#slider").fill(str(steps))
    at(page, steps, steps)
    scores = page.locator("#result .final").inner_text()
    names = [f"seat {p} ({s['label']})" for p, s in enumerate(match["seats"])]
    for p, name in enumerate(names):
        assert f"{name}: {match['returns'][p]:g}, place {match['placements'][p]}" in scores
    assert all(label in page.locator("#moves").inner_text() for label in HOSTILE)
    assert page.locator("#board img, #moves img").count() == 0
    assert page.requests == [url]


@pytest.mark.slow
def test_a_seats_replay_file_draws_only_that_seats_hand(tmp_path, wizard_run, page):
    store, run_id = wizard_run
    states = replay_states(stored_match(store, run_id, 0))
    page.goto(write_match(tmp_path, store, run_id, 0, "--seat", "1").as_uri() + "?step=4")
    at(page, 4, len(states) - 1)
    seats = page.locator(".wizard-seat")
    drawn = [attributes(seats.nth(p).locator(".wizard-cards [data-card]"), "data-card") for p in range(3)]
    assert drawn == [[], states[4].hand(1), []]
    assert [seats.nth(p).locator(".wizard-back").count() for p in range(3)] == \
        [len(states[4].hand(0)), 0, len(states[4].hand(2))]
    assert page.locator("#viewer option").all_inner_texts() == ["seat 1 (greedy)"]


@pytest.mark.slow
def test_every_games_replay_file_has_its_drawing(tmp_path, page):
    store, run_id = stored_run(tmp_path / "all.sqlite", "--agents", "random,greedy")
    out = tmp_path / "all.html"
    ok("replay", run_id, "--html", out, "--store", store)
    reader = Store(store, readonly=True)
    first = {}
    for m in reader.listing(run_id, 0, 1000):
        first.setdefault(m["game_id"], m)
    reader.close()
    assert set(first) == set(engines.game_ids())
    for game_id, m in first.items():
        url = (tmp_path / "all_files" / f"match-{m['match_id']}.html").as_uri()
        page.requests.clear()
        page.goto(url)
        at(page, m["moves"], m["moves"])   # it opens on the end
        page.keyboard.press("Home")
        at(page, 0, m["moves"])
        page.keyboard.press("End")
        at(page, m["moves"], m["moves"])
        assert page.locator("#board .fallback").count() == 0, game_id   # the game's own drawing, not the text
        assert page.locator("#board *").count() > 10, game_id
        assert page.requests == [url], game_id

