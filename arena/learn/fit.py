"""The fit: scikit-learn (the optional extra `[learn]`) on the teacher's rows, validated on held-out
deals, exported to the model of agents/learned.py and written as a model file.

`fit_trees` fits gradient-boosted trees (GradientBoostingClassifier), exported to the flat arrays
agents/forest.pyx walks in C (`export_trees`); `fit` a network: `hidden` is the hidden layers'
sizes, () a multinomial LogisticRegression, anything else an MLPClassifier with ReLU. All are
seeded, so the same rows and seed give the same file. `fit_value_trees` fits a leaf value
(GradientBoostingRegressor) to `value_table`'s positions and score shares; `fit_move_policy` a
playout policy, a logit per move pattern, to `move_table`'s moves (scipy's L-BFGS).
"""
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from agents import learned
from arena.extras import require


def check_installed() -> None:
    """:raises ValueError: scikit-learn is missing (one line saying how to install it)."""
    require("arena train", "sklearn")


def fit(x: np.ndarray, y: np.ndarray, seed: int, hidden: Sequence[int] = (32,)) -> dict[str, Any]:
    """The network (agents/learned.py's `model`) fitted to rows `x` and classes `y`."""
    check_installed()
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.preprocessing import StandardScaler
    scaler = StandardScaler().fit(x)
    z = scaler.transform(x)
    if hidden:
        clf = MLPClassifier(hidden_layer_sizes=tuple(hidden), alpha=1e-3, max_iter=400, early_stopping=True,
                            n_iter_no_change=15, random_state=seed).fit(z, y)
        layers = [{"weights": w.tolist(), "bias": b.tolist()} for w, b in zip(clf.coefs_, clf.intercepts_)]
    else:
        clf = LogisticRegression(max_iter=2000, random_state=seed).fit(z, y)
        layers = [{"weights": clf.coef_.T.tolist(), "bias": clf.intercept_.tolist()}]
    return {"mean": scaler.mean_.tolist(), "scale": scaler.scale_.tolist(), "layers": layers,
            "classes": [int(c) for c in clf.classes_]}


TREE_DEPTH = 3
LEARNING_RATE = 0.1
MIN_LEAF = 100   # rows in a leaf at least: smaller leaves overfit the rare trick counts (held-out log loss 1.67 at 30)


def fit_trees(x: np.ndarray, y: np.ndarray, seed: int, stages: int = 60) -> dict[str, Any]:
    """Gradient-boosted trees (agents/learned.py's `model`, kind "trees") fitted to rows `x` and classes `y`."""
    check_installed()
    from sklearn.ensemble import GradientBoostingClassifier
    clf = GradientBoostingClassifier(n_estimators=stages, max_depth=TREE_DEPTH, learning_rate=LEARNING_RATE,
                                     subsample=0.8, min_samples_leaf=MIN_LEAF,
                                     random_state=seed).fit(x, y)
    return export_trees(clf)


def export_trees(clf: Any) -> dict[str, Any]:
    """A fitted GradientBoostingClassifier or GradientBoostingRegressor as flat arrays
    (agents/forest.pyx): its trees' nodes in stage order, a stage's trees in column order, child
    indices made absolute. A regressor's one column is its prediction; it has no classes."""
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    value: list[float] = []
    roots: list[int] = []
    for stage in clf.estimators_:
        for regressor in stage:
            tree = regressor.tree_
            base = len(feature)
            roots.append(base)
            leaf = tree.children_left < 0
            feature += np.where(leaf, 0, tree.feature).tolist()
            threshold += np.where(leaf, 0.0, tree.threshold).tolist()
            left += np.where(leaf, -1, tree.children_left + base).tolist()
            right += np.where(leaf, -1, tree.children_right + base).tolist()
            value += tree.value[:, 0, 0].tolist()
    # the starting logits (the class prior's): what the decision function holds beyond the trees
    row = np.zeros((1, clf.n_features_in_))
    trees = np.zeros(clf.estimators_.shape[1])
    for stage in clf.estimators_:
        trees += clf.learning_rate * np.array([est.predict(row)[0] for est in stage])
    raw = clf.decision_function(row) if hasattr(clf, "classes_") else clf.predict(row)
    init = np.asarray(raw, dtype=float).reshape(-1) - trees
    out = {"kind": "trees", "columns": int(clf.estimators_.shape[1]),
           "scale": float(clf.learning_rate), "init": init.tolist(), "roots": roots, "feature": feature,
           "threshold": threshold, "left": left, "right": right, "value": value}
    if hasattr(clf, "classes_"):
        out["classes"] = [int(c) for c in clf.classes_]
    return out


VALUE_MIN_LEAF = 50   # rows in a leaf at least: a game's positions are many and alike


def fit_value_trees(x: np.ndarray, y: np.ndarray, seed: int, stages: int = 60) -> dict[str, Any]:
    """Gradient-boosted regression trees (a leaf value: agents/learned.py `value_forest`) fitted to
    rows `x` of leaf features and the score shares `y`."""
    check_installed()
    from sklearn.ensemble import GradientBoostingRegressor
    reg = GradientBoostingRegressor(n_estimators=stages, max_depth=TREE_DEPTH, learning_rate=LEARNING_RATE,
                                    subsample=0.8, min_samples_leaf=VALUE_MIN_LEAF, random_state=seed).fit(x, y)
    return export_trees(reg)


def score_shares(returns: list[float]) -> list[float]:
    """Each seat's score share: 1 for each other seat it ends above, 1/2 level, averaged over them."""
    n = len(returns)
    if n < 2:
        return [0.5] * n
    return [sum(1.0 if r > q else 0.5 if r == q else 0.0 for j, q in enumerate(returns) if j != i) / (n - 1)
            for i, r in enumerate(returns)]


def value_table(game_id: str, params: dict[str, Any], games: Iterable[dict[str, Any]]
                ) -> tuple[np.ndarray, np.ndarray]:
    """(leaf features, final score share) of every seat at every position short of the
    end of each game (a data row of target `value`: its seed and actions), the game replayed whole
    (every position is a determinized one: nothing is hidden in it)."""
    from agents.leaf import leaf_features

    import engines
    x: list[list[float]] = []
    y: list[float] = []
    for game in games:
        state = engines.make(game_id, seed=game["seed"], **params)
        n = state.num_players
        start = len(x)
        for action in game["actions"]:
            x += [leaf_features(state, p) for p in range(n)]
            state.apply_action(action)
        if not state.is_terminal():
            raise ValueError(f"training game {game.get('deal')} does not reach the end of the game")
        shares = score_shares(state.returns())
        y += [shares[i % n] for i in range(len(x) - start)]   # the rows of a position are seats 0..n-1
    return np.asarray(x, dtype=float), np.asarray(y, dtype=float)


def move_table(game_id: str, params: dict[str, Any], games: Iterable[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    """(patterns, chosen) of every move of each game (a data row of whole games: its seed and
    actions) among two or more legal ones, the game replayed whole: a row of `patterns` holds the
    legal moves' patterns (`state.move_patterns()`), padded with -1, and `chosen` the index of the
    move the teacher made."""
    import engines
    rows: list[list[int]] = []
    chosen: list[int] = []
    for game in games:
        state = engines.make(game_id, seed=game["seed"], **params)
        for action in game["actions"]:
            legal = state.legal_actions()
            if len(legal) > 1:
                rows.append(state.move_patterns())
                chosen.append(legal.index(action))
            state.apply_action(action)
    width = max((len(r) for r in rows), default=1)
    patterns = np.full((len(rows), width), -1, dtype=np.int64)
    for i, r in enumerate(rows):
        patterns[i, :len(r)] = r
    return patterns, np.asarray(chosen, dtype=np.int64)


PATTERN_L2 = 1e-5   # a Gaussian prior on each logit, per move: unseen patterns stay near 0, none goes to -inf


def _move_loss(logits: np.ndarray, patterns: np.ndarray, chosen: np.ndarray) -> tuple[float, np.ndarray]:
    """The mean negative log-likelihood of the chosen moves under the softmax over each move's legal
    patterns' logits, and its gradient."""
    padded = np.append(logits, -np.inf)[patterns]          # pattern -1 (padding) reads -inf
    top = padded.max(axis=1, keepdims=True)
    e = np.exp(padded - top)
    total = e.sum(axis=1)
    rows = np.arange(len(chosen))
    loss = -(padded[rows, chosen] - top[:, 0] - np.log(total)).mean()
    grad = np.zeros(len(logits) + 1)
    np.add.at(grad, patterns, e / total[:, None])
    np.add.at(grad, patterns[rows, chosen], -1.0)
    return float(loss), grad[:-1] / len(chosen)


def fit_move_policy(patterns: np.ndarray, chosen: np.ndarray, count: int) -> list[float]:
    """A logit per move pattern (`count` of them) of highest likelihood of the teacher's moves
    (conditional logit, Coulom's move patterns), fitted from zeros by scipy's L-BFGS and clipped to
    the range a policy accepts: the same moves give the same logits."""
    from agents.move_policy import MAX_LOGIT
    from scipy.optimize import minimize

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        loss, grad = _move_loss(w, patterns, chosen)
        return loss + PATTERN_L2 * float(w @ w), grad + 2 * PATTERN_L2 * w
    result = minimize(objective, np.zeros(count), jac=True, method="L-BFGS-B")
    return [round(float(w), 6) for w in np.clip(result.x, -MAX_LOGIT, MAX_LOGIT)]


def validate_move_policy(logits: list[float], patterns: np.ndarray, chosen: np.ndarray) -> dict[str, Any]:
    """Held-out figures of a playout policy: moves, the mean log loss of the teacher's moves under it
    and under a uniform choice among the legal moves, and how often its likeliest move is the teacher's."""
    if not len(chosen):
        return {"moves": 0}
    w = np.asarray(logits)
    uniform = float(np.log((patterns >= 0).sum(axis=1)).mean())
    likeliest = np.append(w, -np.inf)[patterns].argmax(axis=1)
    return {"moves": int(len(chosen)), "log_loss": round(_move_loss(w, patterns, chosen)[0], 4),
            "log_loss_uniform": round(uniform, 4), "top_move": round(float(np.mean(likeliest == chosen)), 4)}


def validate_value(trees: dict[str, Any], x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Held-out figures of a leaf value: rows, mean squared error of the trees (walked in C) and of
    the constant mean share, and the share of the variance explained."""
    if not len(y):
        return {"rows": 0}
    from agents.forest import Forest
    predicted = np.clip(Forest(trees, x.shape[1]).raw(x)[:, 0], 0.0, 1.0)
    mse = float(np.mean((predicted - y) ** 2))
    base = float(np.mean((y - y.mean()) ** 2))
    return {"rows": int(len(y)), "mse": round(mse, 5), "mse_constant": round(base, 5),
            "r2": round(1.0 - mse / base, 4) if base > 0 else 0.0}


def bid_table(rows: Iterable[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, what the networks learn: tricks beyond the Wizards, teacher's bids) of the rows."""
    x, target, bids = [], [], []
    for row in rows:
        x.append(learned.bid_features(row["obs"]))
        target.append(learned.beyond_wizards(row["obs"], row["tricks"]))
        bids.append(row["bid"])
    return np.asarray(x, dtype=float), np.asarray(target), np.asarray(bids)


def validate(net: dict[str, Any], rows: list[dict[str, Any]], given_bid: dict[str, Any] | None = None
             ) -> dict[str, Any]:
    """Held-out figures: log loss of the tricks, the share of hands whose bid from the model equals
    the tricks the teacher's hand took (`model_bid_met`), the teacher's own (`teacher_bid_met`), and
    the temperature of highest likelihood of the teacher's bids (`bid_likelihood`: learned.fit_temperature).
    The teacher played to its own bid, so `model_bid_met` is a proxy, not the agent's accuracy."""
    if not rows:
        return {"rows": 0}
    tricks = np.asarray([row["tricks"] for row in rows])
    bids = np.asarray([row["bid"] for row in rows])
    bidder = learned.WizardBidder({"model": net, "given_bid": given_bid})
    met = 0
    loss = given_loss = 0.0
    for row, t in zip(rows, tricks):
        obs = row["obs"]
        loss -= float(np.log(max(bidder.distribution(obs)[t], 1e-12)))
        if given_bid is not None:
            given_loss -= float(np.log(max(bidder.distribution(obs, row["bid"])[t], 1e-12)))
        met += int(bidder.bid(obs, [learned.A_BID + b for b in range(obs["cards"] + 1)]) - learned.A_BID == t)
    out: dict[str, Any] = {"rows": len(rows), "log_loss": round(loss / len(rows), 4), "model_bid_met": round(met / len(rows), 4),
           "teacher_bid_met": round(float(np.mean(bids == tricks)), 4)}
    if given_bid is not None:
        out["log_loss_given_bid"] = round(given_loss / len(rows), 4)
    out["bid_likelihood"] = learned.fit_temperature(net, rows)
    return out


def model_file(net: dict[str, Any], *, game_id: str, params: dict[str, Any], teacher: str, data: dict[str, Any],
               validation: dict[str, Any], seed: int, shape: dict[str, Any], command: str,
               given_bid: dict[str, Any] | None = None, target: str = "bid") -> str:
    """The model file's text, its digest set: a Wizard bidder (`target` bid), a leaf value (`value`)
    or a playout policy (`playout`, `net` its logits)."""
    if target == "playout":
        import scipy
        kind, features = "ismcts-playout", {"name": learned.MOVE_PATTERNS, "version": learned.MOVE_PATTERNS_VERSION,
                                            "patterns": len(net["logits"])}
        fitted_with = f"scipy {scipy.__version__}"
    else:
        import sklearn
        fitted_with = f"scikit-learn {sklearn.__version__}"
        if target == "value":
            from agents.leaf import leaf_feature_names
            kind, features = "ismcts-value", {"name": learned.LEAF_FEATURES, "version": learned.LEAF_FEATURES_VERSION,
                                              "names": leaf_feature_names(int(params["players"]))}
        else:
            kind, features = learned.BID_FEATURES, {"name": learned.BID_FEATURES,
                                                    "version": learned.BID_FEATURES_VERSION,
                                                    "names": learned.bid_feature_names()}
    body = {"format": learned.FORMAT, "kind": kind, "game": game_id, "params": learned.as_json(params),
            "features": features,
            "teacher": teacher, "data": data, "validation": validation, "seed": seed, **shape,
            "fitted_with": fitted_with, "command": command, "model": net}
    if given_bid is not None:
        body["given_bid"] = given_bid
    if "bid_likelihood" in validation:   # the temperature of the other seats' bids (agents/world_weights.pyx)
        body["bid_temperature"] = validation["bid_likelihood"]["temperature"]
    return learned.dumps(body)
