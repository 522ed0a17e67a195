"""A bot file named as a new user names it: the file alone when it has one Agent class, a class name
off by a letter, a parameter of the wrong type; each mistake is one line saying what would be right,
exit 2, found by reading the file (never by running it)."""
import pytest
from click.testing import CliRunner

from arena.agent_list import ScheduleError, parse_agent
from arena.cli import main

BOT = '''from agents import Agent


class MyBot(Agent):
    name = "mybot"
    PARAMS = {"depth": 2, "style": "fast"}
    CHOICES = {"style": ("fast", "slow")}

    def act(self, state):
        return state.legal_actions()[0]
'''
SECOND = '''

class OtherBot(MyBot):
    pass
'''


@pytest.fixture
def bot(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.py").write_text(BOT)
    return tmp_path / "bot.py"


def check_agent(item):
    return CliRunner().invoke(main, ["check-agent", item, "--game", "insert", "--games", "1"])


def test_a_file_with_one_agent_class_is_that_class(bot):
    spec = parse_agent("./bot.py")
    assert (spec.label, spec.source, spec.kind, spec.target) == ("MyBot", "./bot.py:MyBot", "file", f"{bot}:MyBot")
    assert parse_agent("./bot.py[depth=3]").label == "MyBot[depth=3]"


def test_a_file_with_several_agent_classes_says_what_to_write(bot):
    bot.write_text(BOT + SECOND)
    result = check_agent("./bot.py")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "several Agent classes (MyBot, OtherBot): give ./bot.py:MyBot" in result.output, result.output


def test_a_file_with_no_agent_class_says_so(bot):
    bot.write_text("class Helper:\n    pass\n")
    with pytest.raises(ScheduleError, match=r"bot.py has no Agent class \(class MyBot\(Agent\) at its top level\)"):
        parse_agent("./bot.py")


def test_a_file_that_cannot_be_parsed_says_where(bot):
    bot.write_text("from agents import Agent\n\nclass MyBot(Agent)\n    pass\n")
    with pytest.raises(ScheduleError, match=r"SyntaxError: bot.py, line 3: expected ':'$"):
        parse_agent("./bot.py")


def test_a_class_name_off_by_a_letter_gets_the_closest(bot):
    result = check_agent("./bot.py:Mybot")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert "bot.py has no class Mybot; did you mean ./bot.py:MyBot?" in result.output, result.output


def test_a_name_the_file_binds_otherwise_is_left_to_the_sandbox(bot):
    bot.write_text(BOT + "\nAlias = MyBot\nfrom json import JSONDecoder as Imported\n")
    assert parse_agent("./bot.py:Alias").target.endswith(":Alias")
    assert parse_agent("./bot.py:Imported").target.endswith(":Imported")


@pytest.mark.parametrize("params, words", [
    ("depth=x", "parameter 'depth' of agent mybot must be an integer, not 'x'"),
    ("style=medium", "parameter 'style' of agent mybot must be one of fast, slow, not 'medium'"),
    ("dept=3", "unknown parameter 'dept' for agent mybot; valid: depth, style"),
])
def test_a_bad_parameter_is_one_line_with_no_traceback(bot, params, words):
    result = check_agent(f"./bot.py:MyBot[{params}]")
    assert result.exit_code == 2 and result.output.count("\n") == 1, result.output
    assert words in result.output and "Traceback" not in result.output, result.output


def test_parameters_of_an_inherited_class_are_read_through_the_file(bot):
    bot.write_text(BOT + SECOND)
    with pytest.raises(ScheduleError, match="parameter 'depth' of agent mybot must be an integer"):
        parse_agent("./bot.py:OtherBot[depth=x]")
    assert parse_agent("./bot.py:OtherBot[depth=4]").label == "OtherBot[depth=4]"
