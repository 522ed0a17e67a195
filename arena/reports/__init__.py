"""What people read of the results: `sections` (what every view shows of a run, per game),
`tables` (the leaderboard's columns and legend, shared by every
view), `report` (the self-contained HTML page), `html_parts` (the parts every HTML page is made
of) and `graphs` (the matchup graph, heat maps and
rating plots)."""
