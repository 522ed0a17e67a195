"""The arena: tournaments between agents, their storage, ratings and reports.

It may import `engines` and `agents`; neither imports it. Inside it, only `arena.cli` and `arena.play`
(the terminal game and replay) import click,
and no module imports `arena.cli`. README.md ("Layout") lists the modules by layer."""
