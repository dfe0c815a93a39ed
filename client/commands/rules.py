"""`cafe rules [TOPIC]`: the rules of the game, the notation of turns with examples, in
the terminal; the same text as the web page `/rules` (`cafe.rulebook`)."""

from typing import Annotated

import typer

from cafe.i18n import gettext as _
from client.errors import UsageError
from client.output import say, stdout_is_terminal, terminal_width


def rules(
    topic: Annotated[
        str | None,
        typer.Argument(
            help=_("Only one section: its number or its word (`notation`, `scoring`, `bar`, …)."),
            metavar="TOPIC",
            show_default=False,
        ),
    ] = None,
    pager: Annotated[
        bool,
        typer.Option(
            "--pager/--no-pager",
            help=_(
                "Page the whole rules on a terminal ($PAGER, or less); piped, they are "
                "printed as they are."
            ),
        ),
    ] = True,
) -> None:
    """The rules of the game, and how to write a turn.

    Everything from the components to the end of the game, the variants, the fair bag and
    the notation with examples (`cafe rules notation`). The same text is at /rules on the
    service's web pages.
    """
    import pydoc  # noqa: PLC0415 (only this command pages)

    from cafe.rulebook import load  # noqa: PLC0415 (`cafe --help` loads no engine)
    from client import rulesview  # noqa: PLC0415

    book, width = load(), terminal_width()
    if topic is None:
        text = rulesview.book_text(book, width)
    else:
        section = book.find(topic)
        if section is None:
            words = ", ".join(s.word for s in book.sections)
            raise UsageError(
                _(
                    "the rules have no section %(topic)s; their sections: %(words)s",
                    topic=repr(topic),
                    words=words,
                )
            )
        text = rulesview.section_text(section, width)
    if pager and topic is None and stdout_is_terminal():
        pydoc.pager(text)
    else:
        say(text, fit=False)
