"""What a bot author reads when their bot does not load: the file and line, in their own names."""
import pytest

from arena import agent_list
from arena.match import AgentSpec
from arena.sandbox import make_policy, validate


def _problem(path, cls):
    return validate(agent_list.parse_agent(f"{path}:{cls}"), make_policy("none"))


def test_a_syntax_error_names_the_file_and_the_line(tmp_path):
    bot = tmp_path / "mybot.py"
    bot.write_text("from agents import Agent\n\nclass Bot(Agent)\n    pass\n")
    assert _problem(bot, "Bot") == "SyntaxError: mybot.py, line 3: expected ':'"


def test_a_missing_class_is_named_in_the_file_the_author_gave(tmp_path):
    bot = tmp_path / "mybot.py"
    bot.write_text("from agents import Agent\n\nclass Bot(Agent):\n    pass\n")
    with pytest.raises(agent_list.ScheduleError, match="mybot.py has no class NoSuch; its Agent classes: Bot"):
        _problem(bot, "NoSuch")   # the agent list reads the file first
    # the sandbox, loading a spec made otherwise (a file changed since), names it the same way
    problem = validate(AgentSpec("NoSuch", f"{bot}:NoSuch", (), "file", f"{bot}:NoSuch"), make_policy("none"))
    assert problem == "AttributeError: mybot.py has no NoSuch"
    assert "arena_submitted" not in problem
