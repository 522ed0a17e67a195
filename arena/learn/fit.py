"""The fit: scikit-learn (the optional extra `[learn]`) on the teacher's rows, validated on held-out
deals, exported to the network of agents/learned.py and written as a model file.

`hidden` is the hidden layers' sizes: () fits a multinomial LogisticRegression, anything else an
MLPClassifier with ReLU; both are seeded, so the same rows and seed give the same file.
"""
from typing import Any, Iterable, Optional, Sequence

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


def bid_table(rows: Iterable[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, what the networks learn: tricks beyond the Wizards, teacher's bids) of the rows."""
    x, target, bids = [], [], []
    for row in rows:
        x.append(learned.bid_features(row["obs"]))
        target.append(learned.beyond_wizards(row["obs"], row["tricks"]))
        bids.append(row["bid"])
    return np.asarray(x, dtype=float), np.asarray(target), np.asarray(bids)


def validate(net: dict[str, Any], rows: list[dict[str, Any]], given_bid: Optional[dict[str, Any]] = None
             ) -> dict[str, Any]:
    """Held-out figures: log loss of the tricks, the share of hands whose bid from the model equals
    the tricks the teacher's hand took (`model_bid_met`), and the teacher's own (`teacher_bid_met`).
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
    out = {"rows": len(rows), "log_loss": round(loss / len(rows), 4), "model_bid_met": round(met / len(rows), 4),
           "teacher_bid_met": round(float(np.mean(bids == tricks)), 4)}
    if given_bid is not None:
        out["log_loss_given_bid"] = round(given_loss / len(rows), 4)
    return out


def model_file(net: dict[str, Any], *, game_id: str, params: dict[str, Any], teacher: str, data: dict[str, Any],
               validation: dict[str, Any], seed: int, hidden: Sequence[int], command: str,
               given_bid: Optional[dict[str, Any]] = None) -> str:
    """The model file's text, its digest set."""
    import sklearn
    body = {"format": learned.FORMAT, "kind": learned.BID_FEATURES, "game": game_id, "params": learned.as_json(params),
            "features": {"name": learned.BID_FEATURES, "version": learned.BID_FEATURES_VERSION,
                         "names": learned.bid_feature_names()},
            "teacher": teacher, "data": data, "validation": validation, "seed": seed, "hidden": list(hidden),
            "fitted_with": f"scikit-learn {sklearn.__version__}", "command": command, "model": net}
    if given_bid is not None:
        body["given_bid"] = given_bid
    return learned.dumps(body)
