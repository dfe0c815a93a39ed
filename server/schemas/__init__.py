"""The API's shapes: one pydantic model per request and response body (the model
families: `GameCreate`, `GamePublic`, `GameSummary`, `TurnCreate`, `TurnPublic`, …).

The constraints are written here once. `server.apispec` validates requests with these
models and generates `/api/openapi.json` from them; the JSON builders (`server.games.public`,
`server.league.public`) fill them.
"""
