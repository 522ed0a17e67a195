"""Boosted decision trees evaluated in C: the learned models' trees (agents/learned.py), walked from
flat arrays with no Python call per node or tree.

A forest is what `arena train` exports from scikit-learn's GradientBoostingClassifier or
GradientBoostingRegressor (arena/learn/fit.py): every tree's nodes concatenated into five arrays, `feature`, `threshold`,
`left`, `right` (absolute node indices; -1 in both at a leaf) and `value`; `roots`, the first node
of each tree; tree t adds `scale` x its leaf's value to the logit of column t % `columns`, which
starts at `init`. A node sends a row left when the feature, as a float32, is at most the threshold:
scikit-learn's own test, so the logits are those of its `decision_function`.

`Forest(model, features)` checks the arrays before any walk: equal lengths, finite numbers, feature
indices within the row, and children after their parent within the arrays, so every walk ends
inside them. A model file changed to point anywhere else is refused (ValueError, one line).
"""
import numpy as np

from libc.math cimport isfinite

INT_LIMIT = 2 ** 31 - 1


cdef class Forest:
    def __init__(self, dict model, int features):
        try:
            ints = {k: np.asarray(model[k], dtype=np.int64) for k in ("feature", "left", "right", "roots")}
            floats = {k: np.asarray(model[k], dtype=np.float64) for k in ("threshold", "value", "init")}
            scale = float(model["scale"])
            columns = int(model["columns"])
        except (KeyError, TypeError, ValueError, OverflowError):
            raise ValueError("its trees are malformed") from None
        n = len(ints["feature"])
        if any(a.ndim != 1 for a in list(ints.values()) + list(floats.values())):
            raise ValueError("its trees are malformed")
        if not (len(ints["left"]) == len(ints["right"]) == len(floats["threshold"]) == len(floats["value"]) == n):
            raise ValueError("its tree arrays differ in length")
        trees = len(ints["roots"])
        if n < 1 or n > INT_LIMIT or columns < 1 or trees < 1 or trees % columns or len(floats["init"]) != columns:
            raise ValueError("its trees do not fit its columns")
        if not (np.all(np.isfinite(floats["threshold"])) and np.all(np.isfinite(floats["value"]))
                and np.all(np.isfinite(floats["init"])) and isfinite(scale)):
            raise ValueError("its trees hold a number that is not finite")
        index = np.arange(n)
        left, right, feature, roots = ints["left"], ints["right"], ints["feature"], ints["roots"]
        leaf = left == -1
        inner = ~leaf
        if np.any(right[leaf] != -1) or np.any((roots < 0) | (roots >= n)) or \
                np.any((left[inner] <= index[inner]) | (left[inner] >= n)) or \
                np.any((right[inner] <= index[inner]) | (right[inner] >= n)) or \
                np.any((feature[inner] < 0) | (feature[inner] >= features)):
            raise ValueError("its trees point outside themselves")
        self.features, self.columns, self.trees, self.nodes, self.scale = features, columns, trees, n, scale
        self.feature = np.where(leaf, 0, feature).astype(np.intc)
        self.left = left.astype(np.intc)
        self.right = right.astype(np.intc)
        self.roots = roots.astype(np.intc)
        self.threshold = floats["threshold"]
        self.value = floats["value"]
        self.init = floats["init"]

    cdef inline int _leaf(self, const double* x, int t) noexcept nogil:
        """The leaf of tree `t` that row `x` falls in."""
        cdef int node = self.roots[t]
        while self.left[node] != -1:
            if <float>x[self.feature[node]] <= self.threshold[node]:
                node = self.left[node]
            else:
                node = self.right[node]
        return node

    cdef void c_logits(self, const double* x, double* out) noexcept nogil:
        """The logits of one row `x` into `out` (columns), from raw pointers."""
        cdef int t, k
        for k in range(self.columns):
            out[k] = self.init[k]
        for t in range(self.trees):
            out[t % self.columns] += self.scale * self.value[self._leaf(x, t)]

    cdef double c_value(self, const double* x) noexcept nogil:
        """The first column's output for one row `x` (a regression forest's prediction), from raw
        pointers: what a search calls per leaf (agents/ismcts.pyx)."""
        cdef int t = 0
        cdef double out = self.init[0]
        while t < self.trees:
            out += self.scale * self.value[self._leaf(x, t)]
            t += self.columns
        return out

    def raw(self, rows):
        """The logits of each row of features (rows x columns)."""
        x = np.ascontiguousarray(rows, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.features:
            raise ValueError(f"the trees read rows of {self.features} features, not shape {x.shape}")
        out = np.empty((x.shape[0], self.columns), dtype=np.float64)
        cdef const double[:, ::1] xs = x
        cdef double[:, ::1] os = out
        cdef Py_ssize_t i
        with nogil:
            for i in range(xs.shape[0]):
                self.c_logits(&xs[i, 0], &os[i, 0])
        return out
