"""The arena: tournaments between agents, their storage, ratings and reports.

It may import `engines` and `agents`; neither imports it. Inside it, only `arena.cli` imports click,
and no module imports `arena.cli`. docs/architecture.md ("Layout") lists the subpackages by role."""
