"""`arena analyze`: what the games themselves are like, from a run's stored matches: `figures` (each
figure with its interval, variants compared), `replay` (a stored match replayed), `variants` (the
seeded runs it plays) and `page` (its HTML page); `balance` and `components` (its components
section), `events` (a stored match's events, replayed)."""
