"""What stored matches say, as data: `standings` (the one fold: standings, head to head, cycles,
rating history), `intervals` (means with 95% intervals over deals), `tallies` (that fold
checkpointed in the store), `ratings` (TrueSkill only) and `verdict` (who is stronger, when the
intervals allow it). Nothing here draws or prints."""
