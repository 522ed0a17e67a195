"""Trees evaluated in C (agents/forest.pyx): the same logits as scikit-learn's, and arrays that point
anywhere but into themselves refused, by the forest and by a model file whose digest was set anew."""
import numpy as np
import pytest
from agents.forest import Forest

from agents import learned

FEATURES = 6


@pytest.fixture(scope="module")
def fitted():
    pytest.importorskip("sklearn")
    from sklearn.ensemble import GradientBoostingClassifier

    from arena.learn import fit
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, size=(1500, FEATURES)).astype(float)
    y = np.minimum(x[:, 0] + (x[:, 3] >= 3) + rng.integers(0, 2, size=len(x)), 6).astype(int)
    clf = GradientBoostingClassifier(n_estimators=25, max_depth=3, subsample=0.8, random_state=2).fit(x, y)
    return clf, fit.export_trees(clf)


def test_the_c_walk_gives_scikit_learns_logits_and_probabilities(fitted):
    clf, trees = fitted
    rng = np.random.default_rng(1)
    rows = np.vstack([rng.normal(2.0, 3.0, size=(2000, FEATURES)),           # anywhere, thresholds crossed
                      rng.integers(0, 5, size=(500, FEATURES)).astype(float)])  # on the thresholds' grid
    assert np.allclose(Forest(trees, FEATURES).raw(rows), clf.decision_function(rows), rtol=0, atol=1e-12)
    assert np.allclose(learned.probabilities(trees, rows), clf.predict_proba(rows), rtol=0, atol=1e-12)
    assert (np.asarray(trees["classes"])[learned.probabilities(trees, rows).argmax(axis=1)]
            == clf.predict(rows)).all()


def test_a_binary_forest_gives_scikit_learns_probabilities():
    pytest.importorskip("sklearn")
    from sklearn.ensemble import GradientBoostingClassifier

    from arena.learn import fit
    rng = np.random.default_rng(3)
    x = rng.normal(size=(600, 3))
    clf = GradientBoostingClassifier(n_estimators=10, max_depth=2, random_state=0).fit(x, (x[:, 1] > 0.2).astype(int))
    trees = fit.export_trees(clf)
    assert trees["columns"] == 1
    assert np.allclose(learned.probabilities(trees, x), clf.predict_proba(x), rtol=0, atol=1e-12)


def changed(trees, key, index, value):
    out = {k: list(v) if isinstance(v, list) else v for k, v in trees.items()}
    out[key][index] = value
    return out


def inner_node(trees):
    return next(i for i, left in enumerate(trees["left"]) if left != -1)


@pytest.mark.parametrize("tamper,words", [
    (lambda t: changed(t, "left", inner_node(t), inner_node(t)), "point outside"),      # a loop
    (lambda t: changed(t, "right", inner_node(t), len(t["right"]) + 5), "point outside"),
    (lambda t: changed(t, "left", inner_node(t), -7), "point outside"),
    (lambda t: changed(t, "feature", inner_node(t), FEATURES), "point outside"),
    (lambda t: changed(t, "feature", inner_node(t), -1), "point outside"),
    (lambda t: changed(t, "roots", 3, 10 ** 9), "point outside"),
    (lambda t: changed(t, "right", t["left"].index(-1), 4), "point outside"),       # a leaf with a child
    (lambda t: changed(t, "threshold", 0, float("nan")), "not finite"),
    (lambda t: changed(t, "value", 0, float("inf")), "not finite"),
    (lambda t: dict(t, value=t["value"][:-1]), "differ in length"),
    (lambda t: dict(t, init=t["init"][:-1]), "do not fit its columns"),
    (lambda t: dict(t, roots=t["roots"][:-1]), "do not fit its columns"),
    (lambda t: dict(t, left="abc"), "malformed"),
    (lambda t: {k: v for k, v in t.items() if k != "scale"}, "malformed"),
])
def test_a_tampered_array_is_refused(fitted, tmp_path, tamper, words):
    trees = tamper(fitted[1])
    with pytest.raises(ValueError, match=words):
        Forest(trees, FEATURES)
    # a model file changed with its digest set anew: refused when loaded, in one line
    body = dict(learned.load(""), model=tamper(fitted[1]))
    n = len(learned.bid_feature_names())
    if words == "point outside" and trees["feature"][inner_node(trees)] == FEATURES:
        body["model"] = changed(fitted[1], "feature", inner_node(fitted[1]), n)
    path = tmp_path / "tampered.json"
    path.write_text(learned.dumps(body))
    with pytest.raises(learned.BadModel, match=words) as e:
        learned.load(str(path))
    assert "\n" not in str(e.value)


def test_rows_of_another_width_are_refused(fitted):
    with pytest.raises(ValueError, match="rows of 6 features"):
        Forest(fitted[1], FEATURES).raw(np.zeros((2, FEATURES + 1)))
