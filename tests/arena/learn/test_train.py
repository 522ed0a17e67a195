"""`arena train` and `arena models` (arena/learn, arena/cli/learn.py): the fit recovers a known
relation, the same seed gives the same model file, an interrupted run resumes without mixing two
configs' data, and bad input is one line with exit 2."""
import json
import os
import sys

import numpy as np
import pytest
from click.testing import CliRunner

from agents import learned
from arena.cli import main
from arena.learn import data


def arena(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_the_fit_recovers_a_known_relation():
    pytest.importorskip("sklearn")
    from arena.learn import fit
    rng = np.random.default_rng(0)

    def sample(n):
        x = rng.integers(0, 5, size=(n, 6)).astype(float)
        return x, np.minimum(x[:, 0] + (x[:, 3] >= 3), 5).astype(int)   # the tricks a hand "takes"
    x, y = sample(3000)
    test_x, test_y = sample(500)
    for name, model in (("logistic", fit.fit(x, y, seed=1, hidden=())), ("network", fit.fit(x, y, seed=1, hidden=(32,))),
                        ("trees", fit.fit_trees(x, y, seed=1))):
        predicted = np.asarray(model["classes"])[learned.probabilities(model, test_x).argmax(axis=1)]
        assert (predicted == test_y).mean() >= 0.95, name


def train(tmp_path, out, *extra, seed=3, games=10):
    return arena("train", "--teacher", "greedy", "--games", games, "--seed", seed, "-j", 1, "--quiet",
                 "--stages", "10", "--store", tmp_path / "arena.sqlite", "--out", tmp_path / out, *extra)


def test_the_same_seed_gives_the_same_model_file_and_a_resumed_run_the_same_data(tmp_path):
    pytest.importorskip("sklearn")
    first = train(tmp_path, "a.json")
    assert first.exit_code == 0, first.output
    body = learned.load(str(tmp_path / "a.json"))
    assert body["data"]["games"] == 10 and body["validation"]["rows"] > 0 and body["teacher"] == "greedy"
    [folder] = (tmp_path / "training").iterdir()
    chunks = sorted(p.name for p in folder.glob("chunk-*.json"))
    assert len(chunks) == data.chunks_for(10)

    # interrupted: a chunk lost and one half written; the rerun plays just those again
    kept = (folder / chunks[0]).stat().st_mtime_ns
    os.remove(folder / chunks[1])
    (folder / chunks[2]).write_text('{"config": "')
    again = train(tmp_path, "b.json")
    assert again.exit_code == 0, again.output
    assert (folder / chunks[0]).stat().st_mtime_ns == kept
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "a.json").read_bytes()

    # another seed is another config: its own folder, another model
    other = train(tmp_path, "c.json", seed=4)
    assert other.exit_code == 0, other.output
    assert len(list((tmp_path / "training").iterdir())) == 2
    assert (tmp_path / "c.json").read_bytes() != (tmp_path / "a.json").read_bytes()

    listed = arena("models", tmp_path / "a.json", tmp_path / "c.json")
    assert listed.exit_code == 0 and listed.output.count("wizard 4 players; teacher greedy; 10 games") == 2


def test_a_chunk_of_another_config_is_played_again(tmp_path):
    """A chunk file that names another config (copied in by hand) is never read as this one's."""
    import engines
    from arena.agent_list import parse_agent
    full = engines.registry.resolve("wizard", players=4)
    config = data.DataConfig("wizard", tuple(sorted(full.items())), parse_agent("greedy"), 0)
    folder = data.prepare(str(tmp_path / "s.sqlite"), config)
    chunk = {"config": "0" * 16, "chunk": 0, "games": data.CHUNK_GAMES, "rows": []}
    data.write_chunk(folder, chunk)
    assert data.missing_chunks(folder, config, data.CHUNK_GAMES) == [0]
    with open(data.chunk_path(folder, 0), "w") as f:   # nested deeper than the decoder's stack
        f.write("[" * 100_000)
    assert data.missing_chunks(folder, config, data.CHUNK_GAMES) == [0]


@pytest.mark.parametrize("target,damage", [
    ("bid", lambda row: row.pop("obs")),
    ("bid", lambda row: row["obs"].update(hand=["99x"])),
    ("bid", lambda row: row.update(tricks=40)),
    ("value", lambda row: row["actions"].__setitem__(0, 9999)),
    ("value", lambda row: row["actions"].pop()),
    ("value", lambda row: row.update(seed="1")),
], ids=["no-view", "no-card", "tricks-beyond-the-hand", "illegal-action", "game-cut-short", "seed-as-text"])
def test_a_chunk_whose_rows_the_fit_cannot_read_is_played_again(tmp_path, target, damage):
    """A chunk of this config damaged or written by hand (its config digest is no secret) used to
    stop the fit with an internal error; it is played again, as a lost one is, and the model is the
    one the teacher's own play gives."""
    pytest.importorskip("sklearn")
    game = "wizard" if target == "bid" else "insert"
    args = ("--target", target, "--game", game)
    assert train(tmp_path, "a.json", *args).exit_code == 0
    [folder] = (tmp_path / "training").iterdir()
    chunk = json.loads((folder / "chunk-00000.json").read_text())
    played = json.dumps(chunk)
    damage(chunk["rows"][0])
    (folder / "chunk-00000.json").write_text(json.dumps(chunk))
    again = train(tmp_path, "b.json", *args)
    assert again.exit_code == 0, again.output
    assert json.dumps(json.loads((folder / "chunk-00000.json").read_text())) == played
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_a_model_that_cannot_be_written_whole_leaves_the_one_it_would_replace(tmp_path):
    """The file is written beside its place and renamed over it once whole, so a tournament's
    workers reading the model never see part of one; here the disk refuses the write half-way
    (a file size limit: EFBIG, as a full disk gives ENOSPC)."""
    pytest.importorskip("sklearn")
    import resource
    import subprocess
    assert train(tmp_path, "a.json").exit_code == 0
    model = (tmp_path / "a.json").read_bytes()
    limit = len(model) // 2

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    again = subprocess.run([sys.executable, "-m", "arena", "train", "--teacher", "greedy", "--games", "10", "--seed",
                            "3", "-j", "1", "--quiet", "--stages", "10", "--store", str(tmp_path / "arena.sqlite"),
                            "--out", str(tmp_path / "a.json")], preexec_fn=small_files, capture_output=True, text=True)
    assert again.returncode == 2, again.stderr
    assert again.stderr.splitlines()[-1] == f"Error: cannot write {tmp_path / 'a.json'}: File too large"
    assert (tmp_path / "a.json").read_bytes() == model
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "training"]


def test_an_interrupted_generation_keeps_every_chunk_played_before_it(tmp_path, monkeypatch):
    """Ctrl-C while the third chunk plays with -j 1 (each chunk played in this process as it is
    submitted): the chunks played before it are written."""
    import engines
    from arena.agent_list import parse_agent
    full = engines.registry.resolve("wizard", players=4)
    config = data.DataConfig("wizard", tuple(sorted(full.items())), parse_agent("greedy"), 0)
    played: list[int] = []
    written: list[int] = []

    def play_chunk(config, k):
        if k == 2:
            raise KeyboardInterrupt
        played.append(k)
        return {"chunk": k}
    monkeypatch.setattr(data, "play_chunk", play_chunk)
    monkeypatch.setattr(data, "write_chunk", lambda folder, chunk: written.append(chunk["chunk"]))
    with pytest.raises(KeyboardInterrupt):
        data.generate(str(tmp_path), config, [0, 1, 2, 3], jobs=1)
    assert written == played == [0, 1]


def test_without_scikit_learn_train_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn", None)
    result = train(tmp_path, "m.json")
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        'Error: arena train needs scikit-learn, which is not installed: pip install "tabletop-arena[learn]" '
        '(in a checkout: pip install -e ".[learn]")']
    assert not (tmp_path / "training").exists()


@pytest.mark.parametrize("content", [None, "hello", json.dumps({"format": 1, "model": {}, "digest": "x"})])
def test_models_refuses_a_missing_path_or_a_file_that_is_no_model(tmp_path, content):
    path = tmp_path / "m.json"
    if content is not None:
        path.write_text(content)
    result = arena("models", path)
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, result.output
    assert str(path) in result.output


def test_models_lists_a_tampered_file_beside_the_store_as_refused(tmp_path):
    (tmp_path / "models").mkdir()
    body = json.loads(learned.dumps(learned.load("")))
    body["seed"] = 12345
    (tmp_path / "models" / "x.json").write_text(json.dumps(body))
    result = arena("models", "--store", tmp_path / "arena.sqlite")
    assert result.exit_code == 0
    assert "x.json: refused:" in result.output and "digest does not match" in result.output
    assert learned.SHIPPED in result.output


def test_train_refuses_another_game_and_bad_layers(tmp_path):
    pytest.importorskip("sklearn")
    result = arena("train", "--game", "insert", "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 2 and "Wizard's bidder only" in result.output
    result = arena("train", "--fit", "network", "--hidden", "a,b", "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 2 and "--hidden must be sizes" in result.output
    result = arena("train", "--hidden", "8", "--store", tmp_path / "s.sqlite")   # trees, the default, have no layers
    assert result.exit_code == 2 and result.output.strip() == "Error: --hidden shapes a network: give it with --fit network"


def test_fit_network_writes_a_network_and_the_default_writes_trees(tmp_path):
    pytest.importorskip("sklearn")
    for out, extra, shape in (("n.json", ("--fit", "network", "--hidden", "8"), "layers"), ("t.json", (), "roots")):
        result = train(tmp_path, out, *extra)
        assert result.exit_code == 0, result.output
        body = learned.load(str(tmp_path / out))
        assert shape in body["model"] and body["command"].endswith(" ".join(extra) or "--fit trees --stages 10")


def train_value(tmp_path, out, seed=3, game="insert"):
    return arena("train", "--target", "value", "--game", game, "--teacher", "greedy", "--games", 10, "--seed", seed,
                 "-j", 1, "--quiet", "--stages", "10", "--store", tmp_path / "arena.sqlite", "--out", tmp_path / out)


def test_target_value_writes_a_leaf_value_and_the_same_seed_the_same_file(tmp_path):
    pytest.importorskip("sklearn")
    first = train_value(tmp_path, "a.json")
    assert first.exit_code == 0, first.output
    body = learned.load(str(tmp_path / "a.json"), learned.LEAF_FEATURES)
    assert body["game"] == "insert" and body["kind"] == "ismcts-value" and body["model"]["columns"] == 1
    assert body["validation"]["rows"] > 0 and body["validation"]["mse"] >= 0
    assert body["command"].startswith("arena train --target value --game insert")
    again = train_value(tmp_path, "b.json")
    assert again.exit_code == 0, again.output
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "a.json").read_bytes()
    other = train_value(tmp_path, "c.json", seed=4)
    assert other.exit_code == 0 and (tmp_path / "c.json").read_bytes() != (tmp_path / "a.json").read_bytes()
    # another seed is another config: its own folder
    assert len(list((tmp_path / "training").iterdir())) == 2
    listed = arena("models", tmp_path / "a.json")
    assert listed.exit_code == 0 and "insert 2 players; teacher greedy" in listed.output and "mean squared error" in listed.output


def test_target_value_refuses_a_network_and_given_bid(tmp_path):
    pytest.importorskip("sklearn")
    result = arena("train", "--target", "value", "--game", "insert", "--fit", "network", "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 2 and "--target value takes no --fit network or --given-bid" in result.output


def train_playout(tmp_path, out, seed=3, game="royal_ball"):
    return arena("train", "--target", "playout", "--game", game, "--teacher", "random", "--games", 10, "--seed", seed,
                 "-j", 1, "--quiet", "--store", tmp_path / "arena.sqlite", "--out", tmp_path / out)


def test_target_playout_writes_a_playout_policy_and_the_same_seed_the_same_file(tmp_path):
    first = train_playout(tmp_path, "a.json")
    assert first.exit_code == 0, first.output
    body = learned.load(str(tmp_path / "a.json"), learned.MOVE_PATTERNS)
    assert body["game"] == "royal_ball" and body["kind"] == "ismcts-playout"
    assert len(body["model"]["logits"]) == body["features"]["patterns"] == 601
    v = body["validation"]
    assert v["moves"] > 0 and 0 < v["log_loss"] and 0 <= v["top_move"] <= 1
    assert body["command"] == "arena train --target playout --game royal_ball --players 4 --teacher random --games 10 --seed 3"
    again = train_playout(tmp_path, "b.json")
    assert again.exit_code == 0, again.output
    assert (tmp_path / "b.json").read_bytes() == (tmp_path / "a.json").read_bytes()
    listed = arena("models", tmp_path / "a.json")
    assert listed.exit_code == 0 and "royal_ball 4 players; teacher random" in listed.output and "log loss" in listed.output
    assert f"10 games, {body['data']['train_rows']} moves; held out {v['moves']} moves" in listed.output


def test_the_leaf_value_and_the_playout_policy_learn_from_the_same_games(tmp_path):
    """Both read whole games, so the second target plays none: one data folder."""
    pytest.importorskip("sklearn")
    assert train_playout(tmp_path, "p.json").exit_code == 0
    value = arena("train", "--target", "value", "--game", "royal_ball", "--teacher", "random", "--games", 10,
                  "--seed", 3, "-j", 1, "--quiet", "--stages", "5", "--store", tmp_path / "arena.sqlite",
                  "--out", tmp_path / "v.json")
    assert value.exit_code == 0, value.output
    assert "(10 of 10 games there)" in value.output
    assert len(list((tmp_path / "training").iterdir())) == 1


def test_target_playout_refuses_an_engine_without_patterns_and_bids_options(tmp_path):
    result = train_playout(tmp_path, "i.json", game="insert")
    assert result.exit_code == 2 and "insert's does not (royal_ball's does)" in result.output
    assert len(result.output.strip().splitlines()) == 1
    result = arena("train", "--target", "playout", "--game", "royal_ball", "--given-bid", "--store", tmp_path / "s.sqlite")
    assert result.exit_code == 2 and "--target playout takes no --fit network or --given-bid" in result.output
