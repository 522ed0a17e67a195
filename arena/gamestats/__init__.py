"""`arena analyze`: what the games themselves are like, from a run's stored matches (`analyze`)."""
