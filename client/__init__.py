"""`cafe`, the command-line client players use: Typer commands over an `ApiClient`.

Importing this package costs nothing: `client.cli` imports only Typer and the command
modules, and each command imports requests and the engine when it runs, so that
`cafe --help` starts as fast as Typer itself.
"""
