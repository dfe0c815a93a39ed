"""The correspondence league (docs/league.md): leagues, seasons, divisions, the schedule,
standings, promotion and relegation, and ratings, as stored and served.

The pure rules (the schedule from a season's seed, league points, the tables) are the
engine's, in `cafe.league`: anyone can recompute a finished season's schedule from its
revealed seed with `cafe.league.schedule` and `cafe.league.division_seed`.
"""
