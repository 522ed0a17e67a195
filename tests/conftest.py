import os
import shutil

from hypothesis import settings

settings.register_profile("ci", max_examples=40, deadline=None)
settings.register_profile("dev", max_examples=15, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Every test tournament plays the same deals in every store, as a user gets with --deal-key (tests
# of fresh keys unset it); staged bot code goes to a private cache, not the user's.
os.environ["ARENA_DEAL_KEY"] = "00112233445566778899aabbccddeeff"
# Every leaderboard, report and graph of a stored run also replays every match and fails when the
# store's checkpointed tallies (arena.results.tallies) differ from that replay in any bit.
os.environ["ARENA_CHECK_TALLIES"] = "1"
# Without bubblewrap (a machine where nobody installed it), the tournaments of the tests run their
# submitted bots unconfined; the tests of the sandbox itself are skipped there, never weakened.
if shutil.which("bwrap") is None:
    os.environ["ARENA_SANDBOX"] = "none"
os.environ.setdefault("XDG_CACHE_HOME", os.path.join(os.environ.get("TMPDIR", "/tmp"), f"arena-test-cache-{os.getuid()}"))
