"""The `cafe` commands, one module per area. Each command parses its arguments, calls the
`ApiClient` (or the engine) and prints; the modules import requests and the engine inside
the commands, so that registering them all costs no more than Typer itself.

For the same reason these modules do without `from __future__ import annotations`: Typer
reads every command's annotations at each start, and string annotations would have to be
compiled and evaluated there (about half of the time it takes to register the commands).
"""
