"""Everything a results file brings is text wherever the arena writes it. A hostile export (script
tags, a <meta http-equiv=refresh>, quotes and terminal escapes in every string field a file may
carry) is imported, then written into every page (`arena report`, `arena replay RUN --html`: the
run's index and each match's replay) and every terminal listing; in chromium no page holds an
element the file wrote, runs a script of its or goes anywhere. A store an older arena filled from a
file (a deal that is text) is written safely too, or refused in one line."""
import json
import sqlite3

import pytest

from browser import headless_browser
from cli import invoke, ok

HOSTILE = ('"\'><script>document.title="owned"</script><meta http-equiv="refresh" content="0;url=https://'
           'example.invalid/"><img src=x onerror=alert(1)>\x1b[31m')


def hostile(text):
    """`text` with HOSTILE around it (different per field, so each can be told apart)."""
    return f"{text}{HOSTILE}"


def rename(rows):
    """The export with a hostile string in every field a file may fill with text."""
    names = {"random": hostile("r"), "greedy": hostile("g")}
    head = rows[0]
    config = head["config"]
    for agent in config["agents"]:
        agent["label"] = names[agent["label"]]
        agent["source"] = agent["target"] = hostile("source")
    config["agent_defaults"] = {hostile("defaults"): {}}
    config["book"] = {"name": hostile("book"), "digest": hostile("digest"), "phrase": hostile("phrase")}
    head["agent_code"] = {names[k]: v for k, v in head["agent_code"].items()}
    for row in rows[1:]:
        for seat in row["seats"]:
            seat["label"] = names[seat["label"]]
            seat["source"] = seat["target"] = hostile("source")
            seat["params"] = {hostile("param"): hostile("value")}
    # the first match: greedy's seat faulted at its first move (the file's word, an imported run takes it)
    row = rows[1]
    [seat] = [s["seat"] for s in row["seats"] if s["label"] == names["greedy"]]
    first = next(i for i, m in enumerate(row["moves"]) if m["mover"] == seat)
    row["faults"] = [{"seat": seat, "label": names["greedy"], "kind": '"\'><script>document.title="owned"</script>', "message": hostile("message"),
                      "move": first}]
    row["placements"] = [1 + sum(r > mine for r in row["returns"]) for mine in row["returns"]]   # as played out
    row["metrics"] = {}
    return rows


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile")
    source, target = folder / "s.sqlite", folder / "t.sqlite"
    ok("run", "--game", "insert", "--agents", "random, greedy", "--games", 2, "-j", 1, "--store", source)
    ok("export", "--store", source, "--out", folder / "run.jsonl")
    rows = rename([json.loads(x) for x in (folder / "run.jsonl").read_text().splitlines()])
    (folder / "hostile.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    ok("import", folder / "hostile.jsonl", "--store", target)
    run_id = rows[0]["run_id"]
    # what an older arena's import let into a store: a deal that is text
    with sqlite3.connect(target) as db:
        db.execute("UPDATE matches SET deal = ? WHERE match_id = 1", (hostile("deal"),))
        db.execute("DELETE FROM tallies")   # folded again from the matches as they now are
    return folder, target, run_id


def test_the_terminal_shows_no_escape_the_file_wrote(imported):
    _, store, run_id = imported
    for command in (("runs",), ("leaderboard", run_id), ("matchups", run_id), ("matches", run_id),
                    ("faults", run_id), ("replay", run_id, 0, "--to-end")):
        out = ok(*command, "--store", store)
        assert "\x1b" not in out, (command, out)
    assert "owned" in ok("leaderboard", run_id, "--store", store)   # the labels are there, as text


def test_a_match_id_that_is_text_names_no_file(imported, tmp_path):
    _, store, run_id = imported
    with sqlite3.connect(store) as db:
        db.execute("UPDATE matches SET match_id = ? WHERE match_id = 3", ("../../escape",))
    try:
        result = invoke("replay", run_id, "--html", tmp_path / "run.html", "--store", store)
        assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
        assert not (tmp_path.parent / "escape.html").exists()
    finally:
        with sqlite3.connect(store) as db:
            db.execute("UPDATE matches SET match_id = 3 WHERE match_id = ?", ("../../escape",))


sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def pages(imported):
    """Every page written of the imported run: the report, the run's index, each match's replay."""
    folder, store, run_id = imported
    ok("report", run_id, "--out", folder / "report.html", "--store", store)
    ok("replay", run_id, "--html", folder / "run.html", "--store", store)
    return [folder / "report.html", folder / "run.html"] + sorted((folder / "run_files").glob("match-*.html"))


@pytest.fixture(scope="module")
def browser():
    with headless_browser() as b:
        yield b


@pytest.mark.slow
def test_no_page_runs_or_holds_what_the_file_wrote(pages, browser):
    assert len(pages) == 2 + 4
    for path in pages:
        page = browser.new_page()
        problems, requests = [], []
        # bound now: a late event of an earlier page must not land in this page's lists
        page.on("dialog", lambda d, problems=problems: (problems.append(d.message), d.dismiss()))
        page.on("request", lambda r, requests=requests: requests.append(r.url))
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        assert page.locator("meta[http-equiv=refresh]").count() == 0, path
        assert page.locator("img[src=x]").count() == 0, path
        scripts = [page.locator("script").nth(k).inner_text() for k in range(page.locator("script").count())]
        assert not any("owned" in s for s in scripts), path
        assert page.title() != "owned", path
        assert page.locator("meta[http-equiv=Content-Security-Policy]").count() == 1, path
        assert not problems and requests == [path.as_uri()], (path, problems, requests)
        if path.name in ("report.html", "run.html"):
            assert 'document.title="owned"' in page.locator("body").inner_text(), path   # shown, as text
        page.close()
