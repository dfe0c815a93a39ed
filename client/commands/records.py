"""What happened: a game's `history`, its text `record`, and `verify` of a finished record."""

# ruff: noqa: PLC0415 (commands import what they need when they run: fast `cafe --help`)

import sys
import textwrap
from pathlib import Path
from typing import Annotated

import typer

from cafe.i18n import gettext as _
from cafe.i18n import ngettext
from client.commands.lobby import GameId
from client.errors import CliError
from client.output import NARROW, say
from client.turnview import detail_lines, draw_line


def history(
    ctx: typer.Context,
    game_id: GameId,
    detail: Annotated[
        bool,
        typer.Option("--detail", "-d", help=_("Also the points per table and the draws.")),
    ] = False,
) -> None:
    """Every turn played so far, with its points.

    A turn the server played for its player on time-out is marked so, and a player leaving
    the game (resigned, removed on time, withdrew from the season) is said as such.
    """
    from cafe.endings import TIMEOUT_MARK, Departure
    from cafe.render.quantities import signed

    turns = ctx.obj.api().turns(game_id)
    if not turns:
        say(_("No turns played in game %(game)s yet.", game=game_id))
    for entry in turns:
        left = Departure(entry["left"]) if entry.get("left") else None
        if left is not None and left is not Departure.ELIMINATED:
            say(f"{entry['number']:>3}. {left.sentence(entry['player'])}")
            continue
        if entry["kind"] == "end":
            said = _(
                "adjudicated by %(player)s: %(reason)s", player=entry["by"], reason=entry["reason"]
            )
            say(f"{entry['number']:>3}. {said}")
            continue
        marks = [_(TIMEOUT_MARK)] if entry["kind"] == "timeout" else []
        marks += [left.words] if left is not None else []
        shown = f" ({', '.join(marks)})" if marks else ""
        points = signed(entry["points"])
        say(f"{entry['number']:>3}. {entry['player']}: {entry['turn']}  {points}{shown}")
        if detail:
            drew = draw_line(entry)
            say("\n".join([*detail_lines(entry, mine=False), *([drew] if drew else [])]))


def record(ctx: typer.Context, game_id: GameId) -> None:
    """The game record as text, to keep or verify.

    The record holds the seed only once the game is over; save it for `cafe verify`.
    """
    say(ctx.obj.api().record(game_id).rstrip("\n"), fit=False)


def verify(
    file: Annotated[
        Path,
        typer.Argument(
            help=_("A game record, as `cafe record ID` prints it; - reads stdin."),
            dir_okay=False,
            metavar="FILE",
        ),
    ],
) -> None:
    """Check a finished game's record offline.

    The revealed seed against its commitment, the seat order, the deal, every draw, every
    turn's points, and the result (for a game ended by adjudication: the standings of the
    position where it was ended).
    """
    from cafe import CafeError
    from cafe.record import RecordError
    from cafe.record import verify as verify_record

    name = _("stdin") if str(file) == "-" else str(file)
    try:
        text = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise CliError(
            _(
                "cannot read %(file)s: %(error)s",
                file=name,
                error=getattr(error, "strerror", None) or error,
            )
        ) from None
    try:
        report = verify_record(text)
    except RecordError as error:
        raise CliError(
            _(
                "%(file)s: NOT verified: line %(line)s: %(reason)s",
                file=name,
                line=error.line,
                reason=error.reason,
            )
        ) from None
    except CafeError as error:
        raise CliError(_("%(file)s: NOT verified: %(error)s", file=name, error=error)) from None
    say(
        ngettext(
            "Verified: %(num)s turn by %(players)s.",
            "Verified: %(num)s turns by %(players)s.",
            report.turns,
            players=", ".join(report.players),
        )
    )
    if report.event:
        say("  " + _("Played in %(event)s.", event=report.event))
    say("  " + _("The revealed seed matches the commitment, and so do the deal and every draw:"))
    say("  " + _("commitment %(commitment)s", commitment=report.commitment))
    if report.adjudication is not None:
        say(
            textwrap.fill(
                _(
                    "Ended by adjudication (%(reason)s): the standings as they were, with the "
                    "penalties for the tiles in hand.",
                    reason=report.adjudication,
                ),
                NARROW,
                initial_indent="  ",
                subsequent_indent="  ",
            )
        )
    for standing in report.standings:
        result = (
            f"{standing.score} ({report.left.get(standing.player, _('eliminated'))})"
            if standing.eliminated
            else _(
                "%(final)s (score %(score)s, penalty %(penalty)s)",
                final=standing.final,
                score=standing.score,
                penalty=standing.penalty,
            )
        )
        say(f"  {standing.place}. {standing.player} {result}")
