"""Vacation: see the bank, take days off, come back early (docs/league.md)."""

# ruff: noqa: PLC0415 (commands import what they need when they run: fast `cafe --help`)

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

import typer

from cafe.i18n import gettext as _
from cafe.i18n import ngettext
from client import timeview
from client.errors import UsageError
from client.gameview import player_zone
from client.output import command, say


class Action(StrEnum):
    """What `cafe vacation` does."""

    SHOW = "show"
    START = "start"
    END = "end"


def vacation(
    ctx: typer.Context,
    action: Annotated[
        Action,
        typer.Argument(help=_("show (the default), start DAYS, or end."), metavar="ACTION"),
    ] = Action.SHOW,
    days: Annotated[
        int | None,
        typer.Argument(
            help=_("Whole days away (with start)."), min=1, metavar="DAYS", show_default=False
        ),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="DATE",
            help=_(
                "Start later: a date (2027-07-01, midnight in your zone) or a time "
                "(2027-07-01T18:00)."
            ),
            show_default=False,
        ),
    ] = None,
) -> None:
    """Your vacation bank, or start or end a vacation.

    While you are away your clock is paused in every game that allows vacation. The bank
    starts at 14 days and earns a day for every 8 days you are not away, up to 30; the days
    are taken when the vacation starts, and ending it early gives back the whole hours left.
    """
    if action is not Action.START and (days is not None or start is not None):
        raise UsageError(
            _("`%(command)s` takes no days or --from", command=command("vacation", action))
        )
    api = ctx.obj.api()
    where = player_zone(api)
    if action is Action.SHOW:
        status = api.vacation()
    elif action is Action.END:
        status = api.end_vacation()
        say(_("Your vacation is over: welcome back."))
    else:
        if days is None:
            raise UsageError(
                _(
                    "say how many days: %(command)s",
                    command="cafe vacation start DAYS [--from DATE]",
                )
            )
        status = api.declare_vacation(days, None if start is None else _moment(start, where))
        say(ngettext("Vacation declared: %(num)s day.", "Vacation declared: %(num)s days.", days))
    say(status_text(status, where, api.now()))


def _moment(text: str, where: Any) -> str:
    """`--from` as ISO 8601 UTC: a date or a time without a zone is in the player's zone."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(
            _(
                "--from %(text)s: write a date like 2027-07-01 or 2027-07-01T18:00",
                text=repr(text),
            )
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=where)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def status_text(status: dict[str, Any], where: Any, now: datetime) -> str:
    """The bank, the vacation under way or to come (at the server's time `now`), and the
    next day earned."""
    from cafe.render import quantities

    bank = quantities.bank(quantities.bank_hours(status["bank_days"]))
    lines = [_("Vacation bank: %(bank)s.", bank=bank)]
    current = status.get("current")
    if current:
        start, end = timeview.parse(current["start"]), timeview.parse(current["end"])
        until, end_it = timeview.local(end, where), command("vacation", "end")
        lines.append(
            _("Away until %(end)s; end it early: %(command)s", end=until, command=end_it)
            if start <= now
            else _(
                "Away from %(start)s until %(end)s; end it early: %(command)s",
                start=timeview.local(start, where),
                end=until,
                command=end_it,
            )
        )
    else:
        lines.append(
            _(
                "Not on vacation; take some days: %(command)s",
                command="cafe vacation start DAYS [--from DATE]",
            )
        )
    if status.get("next_accrual"):
        moment = timeview.local(timeview.parse(status["next_accrual"]), where)
        lines.append(_("Next hour earned: %(moment)s.", moment=moment))
    return "\n".join(lines)
