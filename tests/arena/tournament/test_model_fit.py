"""An agent whose model was built for another game or other rules than one it would play is refused
in one line before anything is played (Agent.unfit, schedule.check_fit), where it used to fault in
every match; an agent whose models fit plays."""
import os

import pytest
from click.testing import CliRunner

import agents
import engines
from arena.agent_list import ScheduleError, parse_agent
from arena.cli import main as cli
from arena.tournament import schedule as sched
from model_files import model_copy


def refused(args, tmp_path):
    """The one-line error of an `arena` command that must refuse, and that it left no store."""
    store = tmp_path / "s.sqlite"
    result = CliRunner().invoke(cli, [*args, "--store", str(store)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert not os.path.exists(store)
    return result.output


def test_a_run_with_a_bidder_at_a_game_without_bids_is_refused_before_it_starts(tmp_path):
    out = refused(["run", "--game", "insert", "--agents", "ismcts[bidding=learned,iterations=20],greedy",
                   "--games", "1", "-j", "1"], tmp_path)
    assert "ismcts[bidding=learned,iterations=20] cannot play insert with 2 players: parameter 'bid_model'" in out
    assert "built for wizard, not insert" in out


def test_a_run_at_other_players_than_the_model_s_is_refused(tmp_path):
    out = refused(["run", "--game", "wizard", "--players", "5", "--agents", "pimc[bidding=learned],greedy",
                   "--games", "1", "-j", "1"], tmp_path)
    assert "pimc[bidding=learned] cannot play wizard with 5 players" in out and "players=4, not players=5" in out


def test_a_compare_with_a_value_for_other_rules_is_refused(tmp_path):
    out = refused(["compare", "ismcts[value=shipped,iterations=20]", "ismcts[iterations=20]",
                   "--game", "belle_of_the_ball", "--param", "score_on_final_turn=true", "-j", "1"], tmp_path)
    assert "cannot play belle_of_the_ball with 3 players: parameter 'value'" in out
    assert "score_on_final_turn=False, not score_on_final_turn=True" in out


def test_where_a_person_chose_the_agents_a_misfit_is_refused():
    """`arena serve`, a ladder, `arena play` and `arena check-agent` check their agents here."""
    spec = parse_agent("ismcts[bidding=learned]")
    with pytest.raises(ScheduleError, match="cannot play wizard with 3 players: parameter 'bid_model'"):
        sched.check_can_play([spec], "wizard", engines.registry.resolve("wizard", players=3))
    sched.check_can_play([spec], "wizard", engines.registry.resolve("wizard", players=4, hands=[5]))


def test_models_that_fit_every_game_play_them_all():
    games = sched.resolve_games(None, None, ())
    sched.check_fit([parse_agent("ismcts[value=shipped]"), parse_agent("ismcts"), parse_agent("greedy")], games)
    assert agents.agent_class("greedy").unfit({}, "insert", engines.registry.resolve("insert")) is None


def test_the_bidder_s_file_is_a_file_unless_it_is_the_shipped_one():
    """`none` and `default` are spellings of `value`, not of the bidder: as a bidder they name a file."""
    for spelling in ("none", "default"):
        with pytest.raises(ScheduleError, match=f"parameter 'bid_model' of agent ismcts: model {spelling}: no such file"):
            parse_agent(f"ismcts[bidding=learned,bid_model={spelling}]")
    for spelling in ("", "shipped"):
        agents.make("ismcts", bidding="learned", bid_model=spelling)


def test_a_bad_bidder_file_names_the_parameter_for_pimc_as_for_ismcts(tmp_path):
    path = tmp_path / "passwd"
    path.write_text("root:x:0:0")
    for agent in ("pimc", "ismcts"):
        with pytest.raises(ScheduleError, match=f"^parameter 'bid_model' of agent {agent}: model {path}: not a model file"):
            parse_agent(f"{agent}[bidding=learned,bid_model={path}]")


def test_a_model_changed_since_a_run_started_makes_a_new_run_and_the_old_is_not_resumed(tmp_path):
    from arena.store import Store
    model = model_copy("belladone_bluff", 2, tmp_path / "m.json")
    store = str(tmp_path / "s.sqlite")
    args = ["run", "--game", "belladone_bluff", "--agents", f"ismcts[iterations=5,value={model}] as valued,greedy",
            "--games", "1", "-j", "1", "--store", store]
    assert CliRunner().invoke(cli, args).exit_code == 0
    run = Store(store).run()
    pinned = {a.label: a.code for a in run.config.agents}
    assert pinned["valued"] and not pinned["greedy"]   # only the agent that reads a file is pinned
    model_copy("belladone_bluff", 2, tmp_path / "m.json", " (retrained)")
    resumed = CliRunner().invoke(cli, ["run", "--resume", run.run_id, "--store", store])
    assert resumed.exit_code == 2 and len(resumed.output.strip().splitlines()) == 1, resumed.output
    assert "agent valued: its model file changed since the run started; start a new run" in resumed.output
    again = CliRunner().invoke(cli, args)   # the same command: a new run, with the new model
    assert again.exit_code == 0, again.output
    runs = Store(store).runs()
    assert len(runs) == 2 and {r.config.agents[0].code for r in runs} == {pinned["valued"], sched_code(model)}
    os.remove(model)
    gone = CliRunner().invoke(cli, ["run", "--resume", run.run_id, "--store", store])
    assert gone.exit_code == 2 and "agent valued: cannot read the model it read when the run started (No such file" \
        in gone.output, gone.output


@pytest.mark.parametrize("endless", ["/dev/zero", "fifo"])
def test_a_run_whose_model_became_a_file_that_never_ends_is_not_resumed(tmp_path, endless):
    """/dev/zero read whole takes every byte of memory; a FIFO waits for a writer for ever."""
    from arena.store import Store
    model = tmp_path / "m.json"
    model.symlink_to(model_copy("belladone_bluff", 2, tmp_path / "real.json"))
    store = str(tmp_path / "s.sqlite")
    args = ["run", "--game", "belladone_bluff", "--agents", f"ismcts[iterations=5,value={model}] as valued,greedy",
            "--games", "1", "-j", "1", "--store", store]
    assert CliRunner().invoke(cli, args).exit_code == 0
    model.unlink()
    if endless == "fifo":
        os.mkfifo(model)
    else:
        model.symlink_to(endless)
    resumed = CliRunner().invoke(cli, ["run", "--resume", Store(store).run().run_id, "--store", store])
    assert resumed.exit_code == 2, resumed.output
    assert "agent valued: cannot read the model it read when the run started (model " in resumed.output
    assert "not a model file (not a regular file)); start a new run" in resumed.output


def sched_code(model):
    """The digest a run pins for an agent reading `model` as its value."""
    from arena.sandbox.staging import stage
    return stage(parse_agent(f"ismcts[value={model}]")).code


def test_the_code_of_a_run_covers_the_models_the_agents_ship():
    """A retrained shipped model changes how `ismcts` plays (the default at Belle of the Ball), so
    it makes new runs as a change of the code does."""
    read = {os.path.basename(path) for _, path in sched.code_files()}
    shipped = os.listdir(os.path.join(os.path.dirname(agents.__file__), "models"))
    assert shipped and set(shipped) <= read
