"""`arena serve`: the local web app to watch tournaments, replay matches and play against bots."""
