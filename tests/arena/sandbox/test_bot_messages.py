"""What a bot author reads when their bot does not load: the file and line, in their own names."""
from arena import agent_list
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
    problem = _problem(bot, "NoSuch")
    assert problem == "AttributeError: mybot.py has no NoSuch"
    assert "arena_submitted" not in problem
