"""The plain-C yardstick of Wizard's playouts (arena/bench/yardstick): it compiles, plays hands
that obey the rules' arithmetic, and `arena bench` times it beside `wizard/rollouts`."""
import statistics

import pytest

from arena.bench import bench_state, engine_rows, yardstick, yardstick_rows

pytestmark = pytest.mark.skipif(yardstick.compiler() is None, reason="no C compiler")


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    return yardstick.compile_yardstick(str(tmp_path_factory.mktemp("yardstick")))


def test_it_plays_plausible_hands(program):
    played = yardstick.run(program, 300, 5, show=True)
    assert played["hands"] == len(played["deals"]) == 300
    assert isinstance(played["seconds"], float) and isinstance(played["cpu_seconds"], float)
    for deal in played["deals"]:
        assert sum(deal["tricks"]) == 10
        for bid, tricks, score in zip(deal["bids"], deal["tricks"], deal["scores"]):
            assert 0 <= bid <= 10
            assert score == (20 + 10 * tricks if bid == tricks else -10 * abs(tricks - bid))
    assert played["checksum"] == sum(sum(d["scores"]) for d in played["deals"])
    # every bid from 0 to 10 comes up, and both exact and missed bids
    assert {b for d in played["deals"] for b in d["bids"]} == set(range(11))
    assert {s > 0 for d in played["deals"] for s in d["scores"]} == {True, False}


def test_the_same_seed_plays_the_same_hands(program):
    assert yardstick.run(program, 50, 9, show=True)["deals"] == yardstick.run(program, 50, 9, show=True)["deals"]
    assert yardstick.run(program, 50, 9)["checksum"] != yardstick.run(program, 50, 10)["checksum"]


def test_the_rows_beside_the_engine_in_interleaved_rounds():
    plain, engine = yardstick_rows(bench_state("wizard"), 3, 0.01)
    assert plain["case"] == "wizard/rollouts_plain_c" and plain["unit"] == engine["unit"] == "playouts/s"
    assert plain["rounds"] == engine["rounds"] == 3 == len(plain["rates"]) == len(engine["rates"])
    assert plain["clock"] == engine["clock"] == "cpu"
    assert engine["case"] == "wizard/rollouts" and engine["baseline"] == plain["case"] and len(engine["ratios"]) == 3
    assert engine["speedup"] == pytest.approx(statistics.median(engine["ratios"]), abs=1e-3)


def test_engine_rows_of_wizard_include_the_yardstick():
    cases = [r["case"] for r in engine_rows("wizard", repeats=1, seconds=0.01)]
    assert cases[:3] == ["wizard/rollouts_python", "wizard/rollouts_plain_c", "wizard/rollouts"]
    assert "insert/rollouts_plain_c" not in [r["case"] for r in engine_rows("insert", repeats=1, seconds=0.01)]
