# The boosted trees' arrays (agents/forest.pyx), declared here so that a search can walk them in C.

cdef class Forest:
    cdef readonly int features, columns, trees, nodes
    cdef double scale
    cdef int[::1] feature, left, right, roots
    cdef double[::1] threshold, value, init

    cdef int _leaf(self, const double* x, int t) noexcept nogil
    cdef void c_logits(self, const double* x, double* out) noexcept nogil
    cdef double c_value(self, const double* x) noexcept nogil
