"""Model files for the tests: copies of the shipped ones."""
import json

from agents import learned


def model_copy(game_id, players, path, note=""):
    """The shipped value model of `game_id` written to `path`, its command changed by `note`: a
    model file of its own, as valid as the shipped one. Returns the path as text."""
    with open(learned.shipped_path(f"value-{game_id}-{players}p.json")) as f:
        body = json.load(f)
    body["command"] += note
    body["digest"] = learned.digest(body)
    path.write_text(json.dumps(body))
    return str(path)
