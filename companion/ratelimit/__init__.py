"""Rate limits per bucket: the window arithmetic, counts in memory or in the database (leased
by each worker), and the middleware that answers 429."""
