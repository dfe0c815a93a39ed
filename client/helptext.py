"""The help of every command, in the language in use: its docstring, translated.

A command's docstring is its help (Typer's rule) and a message of the catalogs: `translate`
gives each command of an app its docstring in the language in use when the app is built,
and `extract`, the Babel extractor `babel.cfg` names for `client/app.py`, adds the
docstrings of the commands that app registers to what `make catalogs` extracts.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import IO, Any

import typer

from cafe.i18n import DEFAULT, current, gettext


def commands(app: typer.Typer) -> Iterator[typer.models.CommandInfo]:
    """The commands of `app` and of the apps added to it (`cafe league …`)."""
    yield from app.registered_commands
    for group in app.registered_groups:
        if group.typer_instance is not None:
            yield from commands(group.typer_instance)


def text(command: typer.models.CommandInfo) -> str:
    """A command's docstring as Typer shows it (and the catalogs hold it): indent removed."""
    return inspect.getdoc(command.callback) or ""


def translate(app: typer.Typer) -> None:
    """Give each command of `app` its help in the language in use (in English, Typer's own
    reading of the docstring is it)."""
    if current() == DEFAULT:
        return
    for command in commands(app):
        if command.help is None and text(command):
            command.help = gettext(text(command))


def extract(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, Any, Any, Any]]:
    """Babel's extraction of `client/app.py`, and the help of every command it registers."""
    from babel.messages.extract import extract_python  # noqa: PLC0415 (`make catalogs` only)

    from client.app import app  # noqa: PLC0415 (this module is part of it)

    yield from extract_python(fileobj, keywords, comment_tags, options)
    for command in commands(app):
        if command.callback is not None and text(command):
            yield command.callback.__code__.co_firstlineno, "gettext", text(command), []
