"""The games under other libraries' APIs where the arena's agents play the other seats: the
Gymnasium environment (`arena.interop.gymnasium`). The engines' own faces, which need nothing of
the arena, are engines.openspiel and engines.pettingzoo."""
