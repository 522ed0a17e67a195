"""Research runs, not part of the installed arena: head-to-heads against OpenSpiel's bots
(`openspiel_h2h`, `ismcts_strength`), the tuning and thread measurements of ismcts
(`ismcts_strength`), and how large an edge the leaderboard's ratings separate
(`rating_separation`). Each runs from the checkout, as `python -m experiments.NAME` or `python
experiments/NAME.py`, on the installed engines, agents and arena; the figures they gave are on the
docs page of their subject, with the command."""
