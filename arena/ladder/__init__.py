"""Ladders: persistent leagues in the store that bots join, version after version (`arena ladder`).

store (the API every face uses; its tables are the store's, arena.store_ladders), standing (ratings kept per deal), matchmaking
(which line-ups play next), play (batches played and resumed), tokens (entrants' upload tokens,
only their hashes kept), uploads (a bot sent over HTTP, unpacked safely and checked before it
enters). docs/ladder.md and docs/ladder-web.md describe them."""
