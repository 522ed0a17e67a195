"""Ladders in a real browser (Playwright on Debian's chromium) against a real server: a bot uploaded
through the form enters the ladder and plays, its page draws its rating, and a recent match's link
opens its replay."""
import os
import re
import shutil
import tarfile

import pytest
import test_serve_browser as served

from arena import edge
from arena.ladder import play, tokens
from arena.ladder import store as ladders
from arena.store import Store
from paths import ROOT

browser, page, Server = served.browser, served.page, served.Server   # its chromium and real server
# a browser, a server and sandboxed bots (uploads enter only with the sandbox)
pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("bwrap") is None, reason="no bwrap")]


@pytest.fixture
def ladder(tmp_path):
    path = str(tmp_path / "arena.sqlite")
    store = Store(path)
    ladders.create(store, "club", game=edge.game("insert", None), seed=1)
    for agent in ("random", "greedy"):
        ladders.add(store, "club", edge.agent(agent))
    token = tokens.issue(store, "club", "alice")
    store.close()
    archive = str(tmp_path / "kit.tar.gz")
    with tarfile.open(archive, "w:gz") as f:
        f.add(os.path.join(ROOT, "examples", "bots", "python"), "python",
              filter=lambda info: None if "__pycache__" in info.name else info)
    server = Server(path)
    yield path, token, archive, server
    server.stop()


def test_a_bot_uploaded_through_the_form_enters_the_ladder_and_plays(ladder, page):
    path, token, archive, server = ladder
    page.goto(server.url + "/")
    page.click("#ladders a[href='/ladders/club/upload']")
    page.fill("#token", token[:-1] + ("x" if token[-1] != "x" else "y"))
    page.set_input_files("#file", archive)
    page.click("#send")
    page.wait_for_selector("#result .error")
    assert page.inner_text("#result").startswith("401:")

    page.fill("#token", token)
    page.fill("#label", "kit<b>")
    page.click("#send")
    page.wait_for_selector("#result .error")
    assert page.inner_text("#result").startswith("422:") and "label" in page.inner_text("#result")

    page.fill("#label", "kit")
    page.click("#send")
    page.wait_for_selector("#entered")
    assert page.inner_text("#entered") == "kit"

    store = Store(path)
    try:
        assert play.run(store, "club", matches=4, jobs=1)["status"] == "finished"
        kit = ladders.entry(store, "club", "kit")
        assert kit.entrant == "alice" and kit.games > 0 and kit.faults == 0
        ladder_played = store.count("ladder-club")
    finally:
        store.close()

    page.goto(server.url + "/")
    # the home page lists the ladder once, under Ladders: its page, its matches (its run) and its status
    page.wait_for_selector("#ladders table a[href='/runs/ladder-club']")
    page.wait_for_selector("#runs table, #runs p")
    assert page.locator("a[href='/runs/ladder-club']").count() == 1
    assert page.locator("a[href='/ladders/club']").count() == 1
    cells = page.eval_on_selector("#ladders table a[href='/runs/ladder-club']",
                                  "a => [...a.closest('tr').cells].map(c => c.innerText)")
    assert cells[1:5] == ["insert", "idle", "3", str(ladder_played)], cells   # a ladder has no planned total

    page.goto(server.url + "/ladders/club")
    page.wait_for_selector("table.standings a[href='/ladders/club/entries/kit']")
    rows = page.eval_on_selector_all("table.standings tbody tr", "trs => trs.map(tr => tr.cells[1].innerText)")
    assert sorted(rows) == ["greedy", "kit", "random"]
    # each rating written as every view writes an interval, "mean [low-high]"
    ratings = page.eval_on_selector_all("table.standings tbody tr", "trs => trs.map(tr => tr.cells[4].innerText)")
    assert all(re.fullmatch(r"-?\d+\.\d \[-?\d+\.\d--?\d+\.\d\]", r) for r in ratings), ratings
    page.click("table.recent a")
    page.wait_for_selector("#board [data-square]")
    assert "/runs/ladder-club/matches/" in page.url

    page.goto(server.url + "/ladders/club/entries/kit")
    page.wait_for_selector("#plot svg polyline.mu")
    assert re.search(r"; rating \(95%\) -?\d+\.\d \[-?\d+\.\d--?\d+\.\d\];", page.inner_text("#about"))
    assert page.locator("#plot polyline.mu").get_attribute("points").count(",") == kit.deals + 1
    opponents = page.eval_on_selector_all("table.head-to-head tbody tr", "trs => trs.map(tr => tr.cells[0].innerText)")
    assert set(opponents) <= {"random", "greedy"} and opponents
