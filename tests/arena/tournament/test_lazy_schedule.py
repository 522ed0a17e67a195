"""The schedule is made match by match as it is read: planning a big run holds no list of its
matches, and the matches read are those of the full list, in order and by match id."""
import tracemalloc

from arena import edge
from arena.agent_list import parse_agents
from arena.sandbox import DEFAULT_POLICY
from arena.store import Store
from arena.tournament import coordinator as tournament
from arena.tournament import schedule as sched

KEY = "5eed" * 8


def test_a_big_run_is_planned_without_its_matches_in_memory(tmp_path):
    store = Store(str(tmp_path / "s.sqlite"))
    tracemalloc.start()
    plan = tournament.plan(store, games=edge.games("insert", None), agents=edge.agents("greedy, random"), deals=50_000, deal_key=KEY)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(plan.schedule) == len(plan.todo) == 100_000
    assert peak < 5_000_000, f"planning 100,000 matches took {peak:,} bytes at its peak"
    store.close()


def test_the_lazy_schedule_is_the_list_of_its_matches():
    games = sched.resolve_games("insert", None, {}) + sched.resolve_games("belladone_bluff", 3, {})
    config = sched.tournament_config(games, parse_agents("greedy, random, ismcts"), 4, 7, 10.0, DEFAULT_POLICY)
    schedule = sched.schedule_from_config("r", config, KEY)
    full, first = [], 0
    for g in config.games:
        full += sched.game_schedule("r", g.game_id, g.params, config.agents, 4, 7, 10.0, first_id=first,
                                    deal_key=KEY, sandbox=config.sandbox)
        first = len(full)
    assert list(schedule) == full and len(schedule) == len(full) and schedule == full
    assert [m.match_id for m in full] == list(range(len(full)))
    assert [schedule[i] for i in (0, 5, len(full) - 1, -1)] == [full[0], full[5], full[-1], full[-1]]
    unplayed = tournament.Unplayed(schedule, {0, 3, 4})
    assert list(unplayed) == [m for m in full if m.match_id not in {0, 3, 4}] and len(unplayed) == len(full) - 3
