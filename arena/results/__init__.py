"""What stored matches say, as data: `analysis` (the one fold: standings, head to head, cycles,
rating history), `tallies` (that fold checkpointed in the store), `ratings` (TrueSkill only) and
`verdict` (who is stronger, when the intervals allow it). Nothing here draws or prints."""
