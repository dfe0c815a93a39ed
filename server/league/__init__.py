"""The correspondence league (LEAGUE.md §3–§4): leagues, seasons, divisions, the schedule,
standings, promotion and relegation, and ratings."""
