"""The arena: tournaments between agents, their storage, ratings and reports."""
