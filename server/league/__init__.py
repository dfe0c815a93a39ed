"""The correspondence league (docs/league.md): leagues, seasons, divisions, the schedule,
standings, promotion and relegation, and ratings.

`schedule` and `division_seed` are the public recipe of a season's games: anyone can
recompute a finished season's schedule from its revealed seed.
"""

from server.league.scheduling import division_seed, schedule

__all__ = ["division_seed", "schedule"]
