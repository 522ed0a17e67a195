"""The options every command shares mean the same and are read once (arena.edge): a malformed value
is refused with the same one line naming the option, whichever command it came through."""
import json

import pytest

from arena import edge
from arena.store import Store
from tests.support.cli import invoke, ok

# Each command that plays submitted bots, as it would otherwise play them; "STORE" is the store's place.
COMMANDS = {
    "run": ["run", "--game", "insert", "--agents", "greedy,random", "--games", "1", "--store", "STORE"],
    "compare": ["compare", "greedy", "random", "--game", "insert", "--max-deals", "1", "--store", "STORE"],
    "check-agent": ["check-agent", "greedy", "--game", "insert"],
    "ladder new": ["ladder", "new", "club", "--game", "insert", "--store", "STORE"],
}
MALFORMED = ["memory=abc", "memory=0", "nosuch=1", "memory", "=512"]


@pytest.mark.parametrize("bad", MALFORMED)
@pytest.mark.parametrize("command", COMMANDS)
def test_a_malformed_bot_limit_is_refused_with_the_same_line_by_every_command(tmp_path, command, bad):
    with pytest.raises(ValueError) as refused:
        edge.sandbox_policy("bwrap", [bad])
    store = tmp_path / "s.sqlite"
    args = [str(store) if a == "STORE" else a for a in COMMANDS[command]]
    result = invoke(*args, "--bot-limit", bad)
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [f"Error: {refused.value}"]
    assert "--bot-limit" in str(refused.value)
    assert not store.exists() or Store(str(store), readonly=True).runs() == []   # refused before a run is stored


def test_compare_confines_its_bots_by_its_bot_limits_and_its_command_repeats_them(tmp_path):
    store = tmp_path / "s.sqlite"
    out = json.loads(ok("compare", "greedy", "random", "--game", "insert", "--max-deals", "1", "--bot-limit",
                        "memory=512", "--store", store, "-j", "1", "--json"))
    reader = Store(str(store), readonly=True)
    config = reader.run(out["run_id"]).config
    reader.close()
    assert config.sandbox.limits_dict()["memory"] == 512
    assert "--bot-limit memory=512" in out["command"]
