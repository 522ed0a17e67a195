"""Learned models that agents play with: the model file, its checks, and Wizard's learned bidder.

A model file is JSON (no pickle: loading one runs no code), written by `arena train` (arena/learn/):

    {"format": 1, "kind": "wizard-bid", "game": "wizard", "params": {...every game parameter...},
     "features": {"name": "wizard-bid", "version": 1, "names": [...]},
     "teacher": "pimc[bid_samples=100]", "data": {...}, "validation": {...}, "seed": 0,
     "command": "arena train ...", "model": {...the trees or network...}, "digest": "sha256 of the rest"}

`load` refuses, in one line (`BadModel`, a ValueError), a file that is missing, not JSON, not a
model, of another format, whose digest does not match its content (changed by hand or damaged), or
whose feature set is not the one this code computes, or whose trees or network do not fit together;
`check_for` refuses a model built for another game or other parameters (but for those that only set
the rounds' hand sizes). The model (`model`) is
either gradient-boosted trees (`"kind": "trees"`: scikit-learn's GradientBoostingClassifier as flat
arrays, walked in C by agents/forest.pyx, which checks them first) or a network (a standardisation
of the features, dense layers with ReLU between them: scikit-learn's LogisticRegression and
MLPClassifier export to it, evaluated with numpy); either gives logits, and a softmax over
`classes` their probabilities. A playout policy's model (features `move-patterns`) is a logit per
move pattern of its game's engine (`"kind": "logits"`, agents/move_policy.pyx).

Wizard's bidder (`WizardBidder`): from the bidder's own view (`state.observation(seat)`: its hand,
the trump, the bids it can see, its place in the bidding) the model gives the distribution of the
tricks the hand takes (beyond its Wizards: `beyond_wizards`); the bid is the legal one of highest expected round score under the rules
(RULES.md: 20 + 10 x tricks when met, -10 per trick off otherwise).
"""
import hashlib
import json
import os
import stat
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

import numpy as np

from engines.wizard import round_score  # RULES.md 1.5, as the engine scores a round

FORMAT = 1
BID_FEATURES = "wizard-bid"
BID_GAME = "wizard"   # the game whose bids these features read
BID_FEATURES_VERSION = 1
A_BID = 54   # engines/wizard.pyx: "bid N" is action A_BID + N
MAX_BYTES = 64 << 20   # read of a model file at most: /dev/zero is no model
SHIPPED = "wizard-bid-4p.json"   # the model agents play with when given none (agents/models/)
SHIPPED_ISMCTS = "wizard-bid-ismcts-4p.json"   # ismcts's: learned from ismcts's own play
LEAF_FEATURES = "leaf"           # agents/leaf.pyx: a learned leaf value's features, every game
LEAF_FEATURES_VERSION = 2        # equal to agents.leaf.LEAF_FEATURES_VERSION (tests/agents/test_leaf_value.py)
MOVE_PATTERNS = "move-patterns"  # engines' c_move_patterns: a learned playout policy's, per game
MOVE_PATTERNS_VERSION = 1        # a change to any engine's move patterns is a new version


class BadModel(ValueError):
    """A model file that cannot be used: the message is one line, naming the file."""


def digest(body: dict[str, Any]) -> str:
    """The sha256 of a model's content: every key but "digest", as canonical JSON."""
    content = {k: v for k, v in body.items() if k != "digest"}
    return hashlib.sha256(json.dumps(content, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def dumps(body: dict[str, Any]) -> str:
    """A model as the text of its file, its digest set: the same model is always the same bytes (a
    line per key, so that the trees' long arrays take no line per number)."""
    body = dict(body, digest=digest(body))
    return "{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(body[k], sort_keys=True, separators=(',', ':'))}"
                               for k in sorted(body)) + "\n}\n"


def shipped_path(name: str = SHIPPED) -> str:
    return str(resources.files("agents") / "models" / name)


def value_model_name(game_id: str, players: int) -> str:
    """The file name of a shipped leaf value for `game_id` at `players` (agents/models/)."""
    return f"value-{game_id}-{players}p.json"


def playout_model_name(game_id: str, players: int) -> str:
    """The file name of a shipped playout policy for `game_id` at `players` (agents/models/)."""
    return f"playout-{game_id}-{players}p.json"


def feature_count(body: dict[str, Any]) -> int:
    """The number of features the model of a checked `body` reads."""
    if body["features"]["name"] == LEAF_FEATURES:
        return 2 + 4 * int(body["params"]["players"])
    return len(bid_feature_names())


def read_bytes(path: str) -> bytes:
    """The content of the model file at `path`, at most MAX_BYTES of it.
    :raises OSError: it cannot be read. :raises BadModel: it is no regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)   # a FIFO opens at once, to be refused, not waited on
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise BadModel(f"model {path}: not a model file (not a regular file)")
    with os.fdopen(fd, "rb") as f:
        return f.read(MAX_BYTES)


def load(path: str, features_name: str | None = None) -> dict[str, Any]:
    """The checked model at `path` ("" for the shipped one), built on `features_name` when given
    (a Wizard bidder's `wizard-bid`, a leaf value's `leaf`). :raises BadModel: see the module."""
    path = path or shipped_path()
    try:
        body = json.loads(read_bytes(path))
    except FileNotFoundError:
        raise BadModel(f"model {path}: no such file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:   # nested too deep: the decoder's stack
        raise BadModel(f"model {path}: not a model file ({type(e).__name__})") from None
    if not isinstance(body, dict) or "format" not in body or "digest" not in body or "model" not in body:
        raise BadModel(f"model {path}: not a model file (no format, model and digest)")
    if body["format"] != FORMAT:
        raise BadModel(f"model {path}: format {body['format']!r}, this arena reads format {FORMAT}")
    if body["digest"] != digest(body):
        raise BadModel(f"model {path}: its digest does not match its content (changed or damaged): retrain it")
    features = body.get("features")
    name = features.get("name") if isinstance(features, dict) else None
    version = features.get("version") if isinstance(features, dict) else None
    versions = {BID_FEATURES: BID_FEATURES_VERSION, LEAF_FEATURES: LEAF_FEATURES_VERSION,
                MOVE_PATTERNS: MOVE_PATTERNS_VERSION}
    if name not in versions or version != versions[name]:
        known = f"{name!r} version {versions[name]}" if name in versions else \
            " or ".join(f"{k!r} version {v}" for k, v in versions.items())
        raise BadModel(f"model {path}: built on features {name!r} version {version!r}; this arena computes "
                       f"{known}: retrain it")
    if features_name is not None and name != features_name:
        raise BadModel(f"model {path}: a model of features {name!r}, not of {features_name!r}")
    for key, kind in (("game", str), ("params", dict), ("data", dict), ("validation", dict), ("model", dict)):
        if not isinstance(body.get(key), kind):
            raise BadModel(f"model {path}: not a model file ({key!r} is missing or not a {kind.__name__})")
    if name in (LEAF_FEATURES, MOVE_PATTERNS):
        problem = value_problem(body) if name == LEAF_FEATURES else playout_problem(body)
        if problem:
            raise BadModel(f"model {path}: not a model file ({problem})")
        return body
    problem = net_problem(body["model"], len(bid_feature_names()))
    if not problem and body.get("given_bid") is not None:
        given = body["given_bid"]
        problem = net_problem(given, len(bid_feature_names()) + 1) if isinstance(given, dict) else "given_bid"
    if problem:
        raise BadModel(f"model {path}: not a model file ({problem})")
    return body


def value_problem(body: dict[str, Any]) -> str | None:
    """What is wrong with a leaf value's trees (one output, the leaf features of its player count), or None."""
    from agents.forest import Forest
    players = body["params"].get("players")
    if not isinstance(players, int) or not 1 <= players <= 16:
        return "its players are not a count of 1 to 16"
    if body["model"].get("kind") != "trees":
        return "a leaf value is trees"
    try:
        if Forest(body["model"], feature_count(body)).columns != 1:
            return "a leaf value has one output"
    except ValueError as e:
        return str(e)
    return None


def value_forest(path: str, game_id: str, players: int) -> tuple[dict[str, Any], Any]:
    """(the checked model file with its "path", its Forest: agents/forest.pyx) of the leaf value at `path` ("shipped": the one in
    agents/models/ for the game and player count), checked: its features, its digest, its trees
    and its player count. :raises BadModel: see the module (check_for at the table checks the rest)."""
    from agents.forest import Forest
    path = shipped_path(value_model_name(game_id, players)) if path == "shipped" else path
    body = load(path, LEAF_FEATURES)
    return dict(body, path=path), Forest(body["model"], feature_count(body))


def playout_problem(body: dict[str, Any]) -> str | None:
    """What is wrong with a playout policy's logits (one per move pattern), or None."""
    from agents.move_policy import MovePolicy
    if body["model"].get("kind") != "logits":
        return "a playout policy is logits"
    try:
        policy = MovePolicy(body["model"].get("logits"))
    except ValueError as e:
        return str(e)
    if policy.patterns != body["features"].get("patterns"):
        return "its logits do not fit its move patterns"
    return None


def move_policy(path: str, game_id: str, players: int) -> tuple[dict[str, Any], Any]:
    """(the checked model file with its "path", its MovePolicy: agents/move_policy.pyx) of the
    playout policy at `path` ("shipped": the one in agents/models/ for the game and player count),
    checked: its features, its digest and its logits. :raises BadModel: see the module (check_for
    at the table, and MovePolicy.check against the engine, check the rest)."""
    from agents.move_policy import MovePolicy
    path = shipped_path(playout_model_name(game_id, players)) if path == "shipped" else path
    body = load(path, MOVE_PATTERNS)
    return dict(body, path=path), MovePolicy(body["model"]["logits"])


def net_problem(net: dict[str, Any], inputs: int) -> str | None:
    """What is wrong with a network or trees of `inputs` features, or None."""
    try:
        if net.get("kind") == "trees":
            from agents.forest import Forest
            width = Forest(net, inputs).columns
        else:
            width = inputs
            if np.asarray(net["mean"], dtype=float).shape != (width,) or \
                    np.asarray(net["scale"], dtype=float).shape != (width,):
                return "its standardisation does not fit the features"
            if not net["layers"]:
                return "it has no layers"
            for layer in net["layers"]:
                w = np.asarray(layer["weights"], dtype=float)
                if w.ndim != 2 or w.shape[0] != width or np.asarray(layer["bias"], dtype=float).shape != (w.shape[1],):
                    return "its layers do not fit together"
                width = w.shape[1]
        classes = [int(c) for c in net["classes"]]
    except ValueError as e:
        return str(e) if net.get("kind") == "trees" else "its network is malformed"
    except (AttributeError, KeyError, TypeError):
        return "its network is malformed"
    if width != (1 if len(classes) == 2 else len(classes)) or len(classes) < 2:
        return "its outputs do not fit its classes"
    return None


def as_json(params: dict[str, Any]) -> Any:
    """Game parameters as a model file keeps them (tuples become lists)."""
    return json.loads(json.dumps(params, sort_keys=True))


def check_for(body: dict[str, Any], game_id: str, params: dict[str, Any], path: str = "") -> None:
    """:raises BadModel: `body` was built for another game or other parameters."""
    where = f"model {path or shipped_path()}"
    if body.get("game") != game_id:
        raise BadModel(f"{where}: built for {body.get('game')}, not {game_id}")
    mine, wanted = body.get("params") or {}, as_json(params)
    # the rounds' hand sizes change no bid: the features hold the hand size
    differ = sorted(k for k in set(mine) | set(wanted) if mine.get(k) != wanted.get(k) and k not in SCHEDULE_PARAMS)
    if differ:
        raise BadModel(f"{where}: built for {game_id} with " + ", ".join(f"{k}={mine.get(k)}" for k in differ)
                       + ", not " + ", ".join(f"{k}={wanted.get(k)}" for k in differ))


# ------------------------------------------------------------------ Wizard's bid features

def bid_feature_names() -> list[str]:
    names = ["players", "cards", "bid_place", "bids_seen", "bids_seen_sum", "bids_hidden", "tricks_left_by_bids",
             "wizards", "jesters", "has_trump", "trump_count", "trump_high", "trump_top"]
    for k in range(4):
        names += [f"side{k}_count", f"side{k}_top", f"side{k}_high"]
    return names + ["side_13s", "side_12s"]


def bid_features(obs: dict[str, Any]) -> list[float]:
    """The features of the bidder's view (`state.observation(seat)` in the bidding): what it holds,
    the trump, its place in the bidding and the bids it can see ("?" for a hidden one). Side suits
    are ordered by length, then top card, so that the four suits' names carry no information."""
    n = len(obs["bids"])
    cards = obs["cards"]
    me, dealer = obs["player"], obs["dealer"]
    seen = [b for b in obs["bids"] if isinstance(b, int)]
    hidden = sum(1 for q, b in enumerate(obs["bids"]) if b == "?" and q != me)
    trump = obs["trump"]
    suits: dict[str, list[int]] = {s: [] for s in "degh"}
    wizards = jesters = 0
    for card in obs["hand"]:
        if card == "W":
            wizards += 1
        elif card == "J":
            jesters += 1
        else:
            suits[card[-1]].append(int(card[:-1]))
    trumps = suits.pop(trump) if trump else []
    sides = sorted(suits.values(), key=lambda r: (len(r), max(r, default=0)), reverse=True) + [[]] * 3
    row = [n, cards, (me - dealer - 1) % n, len(seen), sum(seen), hidden, cards - sum(seen),
           wizards, jesters, int(trump is not None), len(trumps), sum(r >= 10 for r in trumps), max(trumps, default=0)]
    for ranks in sides[:4]:
        row += [len(ranks), max(ranks, default=0), sum(r >= 11 for r in ranks)]
    side = [r for ranks in suits.values() for r in ranks]
    return [float(x) for x in row + [side.count(13), side.count(12)]]


# ------------------------------------------------------------------ the model: trees or network

def logits(net: dict[str, Any], inputs: int) -> Callable[[Any], np.ndarray]:
    """The function from rows of `inputs` features to the model's logits (rows x outputs): trees
    walked in C (agents/forest.pyx), or the network with numpy. `net` must be checked (`net_problem`)."""
    if net.get("kind") == "trees":
        from agents.forest import Forest
        return Forest(net, inputs).raw
    mean, scale = np.asarray(net["mean"]), np.asarray(net["scale"])
    layers = [(np.asarray(layer["weights"]), np.asarray(layer["bias"])) for layer in net["layers"]]

    def network(rows: Any) -> np.ndarray:
        x = (np.asarray(rows, dtype=float) - mean) / scale
        for k, (w, b) in enumerate(layers):
            x = x @ w + b
            if k < len(layers) - 1:
                x = np.maximum(x, 0.0)
        return x
    return network


def softmax(x: np.ndarray) -> np.ndarray:
    """Class probabilities from logits (a binary classifier's one logit is the second class's)."""
    if x.shape[1] == 1:
        x = np.hstack([np.zeros_like(x), x])
    x = np.exp(x - x.max(axis=1, keepdims=True))
    return x / x.sum(axis=1, keepdims=True)


def probabilities(net: dict[str, Any], rows: Any) -> np.ndarray:
    """The model's class probabilities for each row of features (rows x classes)."""
    x = np.asarray(rows, dtype=float)
    return softmax(logits(net, x.shape[1])(x))


def beyond_wizards(obs: dict[str, Any], tricks: int) -> int:
    """What the networks learn: the tricks a hand takes beyond its Wizards (each Wizard takes a
    trick unless another was played before it in that trick), so that hands with more Wizards than
    the data held are still counted right."""
    return tricks - obs["hand"].count("W")


def _spread(predict: Callable[[Any], np.ndarray], classes: Sequence[int], row: list[float],
            obs: dict[str, Any]) -> list[float]:
    """P(tricks = t) for t = 0..cards from the model's probabilities for `row` (its classes are
    tricks beyond the Wizards held)."""
    wizards = np.asarray([obs["hand"].count("W")])
    return [float(q) for q in trick_distributions(softmax(predict([row])), classes, wizards, obs["cards"])[0]]


def expected_score(bid: int, dist: Sequence[float]) -> float:
    return sum(q * round_score(bid, t) for t, q in enumerate(dist))


class WizardBidder:
    """Bids from a checked model: the legal bid of highest expected score under the distribution of
    the tricks the hand takes (`model`; those above the hand size have no weight). A model with a
    `given_bid` network (the distribution given the bid as well: a player steers its play to its
    bid) then moves that bid by at most one, to the neighbour of highest expected score under the
    distribution given that bid: the teacher rarely made bids further off, so the network's
    answers for them are guesses."""

    def __init__(self, body: dict[str, Any]):
        self.body = body
        self.net = body["model"]
        self.given_bid = body.get("given_bid")
        width = len(bid_feature_names())
        self._predict = logits(self.net, width)
        self._predict_given = logits(self.given_bid, width + 1) if self.given_bid is not None else None

    def distribution(self, obs: dict[str, Any], bid: int | None = None) -> list[float]:
        """P(tricks = t) for t = 0..cards; with `bid`, given that bid (the `given_bid` network)."""
        if bid is None:
            return _spread(self._predict, self.net["classes"], bid_features(obs), obs)
        if self._predict_given is None or self.given_bid is None:
            raise ValueError("this model has no given_bid network (arena train --given-bid)")
        return _spread(self._predict_given, self.given_bid["classes"], bid_features(obs) + [float(bid)], obs)

    def bid(self, obs: dict[str, Any], legal: Sequence[int]) -> int:
        """The action of the best legal bid for the view `obs` (its legal actions `legal`)."""
        dist = self.distribution(obs)
        first = max(sorted(legal), key=lambda a: expected_score(a - A_BID, dist))
        if self.given_bid is None:
            return first
        near = [a for a in sorted(legal) if abs(a - first) <= 1]
        return max(near, key=lambda a: expected_score(a - A_BID, self.distribution(obs, a - A_BID)))


def bidder(path: str = "", game_id: str | None = None, params: dict[str, Any] | None = None) -> WizardBidder:
    """The bidder of the model at `path` ("": the shipped one), checked for the game when given."""
    body = load(path, BID_FEATURES)
    if game_id is not None:
        check_for(body, game_id, params or {}, path)
    return WizardBidder(body)


def model_files(folder: str) -> list[str]:
    """The .json files in `folder`, sorted (the candidates `arena models` lists)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names if n.endswith(".json")]


# ------------------------------------------------------------------ how likely a seat's bid is

SCHEDULE_PARAMS = ("hands", "five_rounds", "amigo_tournament")   # set the rounds' hand sizes only


def trick_distributions(probs: np.ndarray, classes: Sequence[int], wizards: np.ndarray, cards: int) -> np.ndarray:
    """P(tricks = t), t = 0..cards, of each row (rows x cards + 1) from the model's class
    probabilities (classes: tricks beyond the Wizards held), renormalised over 0..cards (uniform
    where none is left)."""
    out = np.zeros((len(probs), cards + 1))
    rows = np.arange(len(probs))
    for j, c in enumerate(classes):
        t = int(c) + wizards
        ok = (t >= 0) & (t <= cards)
        out[rows[ok], t[ok]] += probs[ok, j]
    total = out.sum(axis=1, keepdims=True)
    return np.where(total > 0, out / np.where(total > 0, total, 1.0), 1.0 / (cards + 1))


def bid_scores(dists: np.ndarray) -> np.ndarray:
    """Each row's expected round score of every bid 0..cards (rows x cards + 1)."""
    cards = dists.shape[1] - 1
    table = np.array([[round_score(b, t) for t in range(cards + 1)] for b in range(cards + 1)], dtype=float)
    return dists @ table.T


def view_scores(net: dict[str, Any], views: Sequence[dict[str, Any]]) -> np.ndarray:
    """Each bidder's view's expected round score of every bid 0..cards under the model `net`'s
    distribution of its tricks (views x cards + 1; the views' hand sizes all alike): what a bid's
    likelihood is a softmax of (agents/world_weights.pyx, which works it out in C for a search)."""
    cards = views[0]["cards"]
    probs = softmax(logits(net, len(bid_feature_names()))(np.asarray([bid_features(v) for v in views], dtype=float)))
    wizards = np.asarray([v["hand"].count("W") for v in views])
    return bid_scores(trick_distributions(probs, net["classes"], wizards, cards))


def bid_probabilities(scores: np.ndarray, temperature: float) -> np.ndarray:
    """softmax(scores / temperature) per row: P(bid | view) of the views `view_scores` scored."""
    x = scores / temperature
    x = np.exp(x - x.max(axis=1, keepdims=True))
    return x / x.sum(axis=1, keepdims=True)


def fit_temperature(net: dict[str, Any], rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The temperature of highest likelihood of the bids made in `rows` (each {"obs": the view when
    it bid, "bid": the bid}), searched on log T over 0.1 to 1000 points, and the mean log loss of
    those bids at it (`log_loss`) and under a uniform choice among the bids (`uniform_log_loss`)."""
    from scipy.optimize import minimize_scalar
    groups: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(row["obs"]["cards"], []).append(row)
    parts = [(view_scores(net, [r["obs"] for r in g]), np.asarray([r["bid"] for r in g])) for g in groups.values()]

    def loss(log_t: float) -> float:
        return -sum(float(np.log(bid_probabilities(s, float(np.exp(log_t)))[np.arange(len(b)), b]).sum())
                    for s, b in parts) / len(rows)

    best = minimize_scalar(loss, bounds=(np.log(0.1), np.log(1000.0)), method="bounded", options={"xatol": 1e-4})
    uniform = sum(len(b) * np.log(s.shape[1]) for s, b in parts) / len(rows)
    return {"temperature": round(float(np.exp(best.x)), 3), "rows": len(rows), "log_loss": round(float(best.fun), 4),
            "uniform_log_loss": round(float(uniform), 4)}
