"""The fault rule on hand-made matches: a fault may only lower the faulter's own result. The faulter
is last for itself; every other agent's result is the played-out game's, the faulter's seats where
that game put them (arena.results.outcome), in every figure the fold makes."""
from arena.results import ratings, standings
from arena.results.outcome import faulty_seats, placements_seen_by


def match(labels, placements, faulty=(), match_id=0, deal=0):
    """A stored match as the fold reads it: `placements` the played-out game's, `faulty` the labels
    that faulted."""
    return {"match_id": match_id, "game_id": "g", "game_params": {}, "seed": deal, "deal": deal,
            "seats": [{"label": a, "source": a, "params": {}, "kind": "builtin", "target": ""} for a in labels],
            "returns": [float(-p) for p in placements], "placements": list(placements),
            "faults": [{"seat": labels.index(a), "label": a, "kind": "exception", "message": "on purpose", "move": 5}
                       for a in faulty], "metrics": {}}


def test_the_faulter_is_last_for_itself_and_nobody_else_moves():
    m = match(["faulter", "accomplice", "rival"], [1, 2, 3], faulty=["faulter"])
    assert faulty_seats(m) == [0]
    assert placements_seen_by(m, "faulter") == [3, 1, 2]
    assert placements_seen_by(m, "accomplice") == placements_seen_by(m, "rival") == [1, 2, 3]


def test_every_seat_of_a_faulty_agent_is_last_for_it_and_a_second_faulter_keeps_its_played_out_place():
    m = match(["f", "a", "f"], [1, 3, 2], faulty=["f"])
    assert faulty_seats(m) == [0, 2]
    assert placements_seen_by(m, "f") == [2, 1, 2]
    assert placements_seen_by(m, "a") == [1, 3, 2]
    two = match(["f", "g", "a"], [1, 2, 3], faulty=["f", "g"])
    assert placements_seen_by(two, "f") == [3, 1, 2]
    assert placements_seen_by(two, "g") == [1, 3, 2]
    assert placements_seen_by(two, "a") == [1, 2, 3]


def test_a_match_without_faults_reads_the_same_for_everyone():
    m = match(["a", "b", "c"], [2, 1, 2])
    assert all(placements_seen_by(m, x) == [2, 1, 2] for x in "abc") and faulty_seats(m) == []


def board(matches):
    return {row.label: row for row in standings.standings(matches)}


def test_the_fold_gives_the_accomplice_what_the_played_out_game_gave_it():
    faulty = board([match(["faulter", "accomplice", "rival"], [1, 2, 3], faulty=["faulter"])])
    honest = board([match(["faulter", "accomplice", "rival"], [1, 2, 3])])
    for label in ("accomplice", "rival"):
        for figure in ("mu", "sigma", "wins", "draws", "losses"):
            assert getattr(faulty[label], figure) == getattr(honest[label], figure), (label, figure)
        assert faulty[label].score_share.mean == honest[label].score_share.mean
        assert faulty[label].placement.mean == honest[label].placement.mean
    assert faulty["accomplice"].score_share.mean == 0.5 and faulty["rival"].score_share.mean == 0.0
    # Nobody takes the faulter's win: the accomplice was second in the played-out game.
    assert (faulty["accomplice"].wins, faulty["accomplice"].losses) == (0, 1)
    # The faulter: last, a loss, and rated as last.
    f = faulty["faulter"]
    assert (f.score_share.mean, f.placement.mean, f.wins, f.losses, f.faults) == (0.0, 3.0, 0, 1, 1)
    last = board([match(["faulter", "accomplice", "rival"], [3, 1, 2])])["faulter"]
    assert (f.mu, f.sigma) == (last.mu, last.sigma) and f.mu < honest["faulter"].mu


def test_head_to_head_is_read_from_each_side():
    h2h = standings.head_to_head([match(["faulter", "accomplice", "rival"], [1, 2, 3], faulty=["faulter"])])
    assert h2h["accomplice"]["faulter"].mean == 0.0      # the played-out game put the faulter above it
    assert h2h["faulter"]["accomplice"].mean == 0.0      # and the faulter lost by its fault
    assert h2h["accomplice"]["rival"].mean == 1.0 and h2h["rival"]["accomplice"].mean == 0.0


def test_each_agent_takes_its_rating_update_from_its_own_reading():
    env = ratings.environment()
    m = match(["faulter", "accomplice", "rival"], [1, 2, 3], faulty=["faulter"])
    prior = env.create_rating()
    rated = ratings.rate_match(env, m, lambda label: prior)
    played = ratings.rate(env, [prior] * 3, [1, 2, 3])
    as_faulter = ratings.rate(env, [prior] * 3, [3, 1, 2])
    assert rated["accomplice"] == (played[1], "loss") and rated["rival"] == (played[2], "loss")
    assert rated["faulter"] == (as_faulter[0], "loss")
