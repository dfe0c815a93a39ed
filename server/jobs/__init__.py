"""What runs in the worker (`cafe-server worker`): its round (`worker`), the outbox's life
cycle and sender (`outbox`), the deadline sweep (`sweep`), the daily turn digest
(`digest`), the league's weekly digest (`league_digest`) and retention (`retention`).

Jobs sit above the domain and the mail (docs/architecture.md): they call the rules of
`server.games`, `server.league` and `server.clock` and the mail's renderers and sender,
and nothing below imports them.
"""
