"""The defaults the command line shows in its help, kept apart from the modules that use them (the
coordinator, the settling rule, `arena compare`, `arena analyze`), which import numpy, scipy and
the sandbox: `arena --help` and every command's options then load none of those."""

TIME_LIMIT = 10.0          # seconds per move for submitted agents (arena.tournament.coordinator)
RUN_MAX_DEALS = 100        # deals per line-up at most of a run played until settled (arena.results.settle)
COMPARE_MAX_DEALS = 1000   # deals at most of `arena compare` before it stops undecided (arena.compare.compare)
ANALYZE_DEALS = 10         # deals per line-up and variant of `arena analyze` (arena.gamestats.variants)
IDENTICAL_DEALS = 10       # deals all played alike that end `arena compare` with "identical play" (arena.compare.compare)
PLAY_MAX_TIME = 2.0        # seconds a move a built-in agent of a game in the browser may take (arena.serve.sessions)
PLAY_MAX_THREADS = 1       # threads it may use
PLAY_GAMES = 4             # games in the browser whose bots may think at once
UPLOAD_QUOTA = 64 << 20    # bytes of uploaded bots one entrant may keep in a ladder (arena.ladder.uploads)
