"""The league's pure rules (README: League): the schedule of a season's games, league points,
the tables, promotion and relegation. Standard library and the engine only, no I/O: the
service stores what these compute.

`schedule` and `division_seed` are the public recipe of a season's games: anyone holding a
finished season's revealed seed recomputes division d's games with the engine alone, as
``cafe.league.schedule(players, game_size, seed=cafe.league.division_seed(seed, d))``.
"""

from cafe.league.scheduling import division_seed, schedule

__all__ = ["division_seed", "schedule"]
