"""The `cafe` commands, one module per area. Each command parses its arguments, calls the
`ApiClient` (or the engine) and prints; the modules import requests and the engine inside
the commands, so that registering them all costs no more than Typer itself."""
