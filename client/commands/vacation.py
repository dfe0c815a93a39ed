"""Vacation: see the bank, take days off, come back early (docs/league.md)."""

# ruff: noqa: PLC0415 (commands import what they need when they run: fast `cafe --help`)

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any

import typer

from client import timeview
from client.errors import UsageError
from client.gameview import player_zone
from client.output import say


class Action(StrEnum):
    """What `cafe vacation` does."""

    SHOW = "show"
    START = "start"
    END = "end"


def vacation(
    ctx: typer.Context,
    action: Annotated[
        Action, typer.Argument(help="show (the default), start DAYS, or end.")
    ] = Action.SHOW,
    days: Annotated[
        int | None,
        typer.Argument(help="Whole days away (with start).", min=1, show_default=False),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="DATE",
            help="Start later: a date (2027-07-01, midnight in your zone) or a time "
            "(2027-07-01T18:00).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Your vacation bank, or start or end a vacation.

    While you are away your clock is paused in every game that allows vacation. The bank
    starts at 14 days and earns a day for every 8 days you are not away, up to 30; the days
    are taken when the vacation starts, and ending it early gives back the whole hours left.
    """
    from cafe.render import quantities

    if action is not Action.START and (days is not None or start is not None):
        raise UsageError(f"`cafe vacation {action}` takes no days or --from")
    api = ctx.obj.api()
    where = player_zone(api)
    if action is Action.SHOW:
        status = api.vacation()
    elif action is Action.END:
        status = api.end_vacation()
        say("Your vacation is over: welcome back.")
    else:
        if days is None:
            raise UsageError("say how many days: cafe vacation start DAYS [--from DATE]")
        status = api.declare_vacation(days, None if start is None else _moment(start, where))
        say(f"Vacation declared: {quantities.count(days, 'day')}.")
    say(status_text(status, where, api.now()))


def _moment(text: str, where: Any) -> str:
    """`--from` as ISO 8601 UTC: a date or a time without a zone is in the player's zone."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(
            f"--from {text!r}: write a date like 2027-07-01 or 2027-07-01T18:00"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=where)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def status_text(status: dict[str, Any], where: Any, now: datetime) -> str:
    """The bank, the vacation under way or to come (at the server's time `now`), and the
    next day earned."""
    from cafe.render import quantities

    lines = [f"Vacation bank: {quantities.bank(quantities.bank_hours(status['bank_days']))}."]
    current = status.get("current")
    if current:
        start, end = timeview.parse(current["start"]), timeview.parse(current["end"])
        when = "Away" if start <= now else f"Away from {timeview.local(start, where)}"
        lines.append(f"{when} until {timeview.local(end, where)}; end it early: cafe vacation end")
    else:
        lines.append("Not on vacation; take some days: cafe vacation start DAYS [--from DATE]")
    if status.get("next_accrual"):
        lines.append(
            f"Next hour earned: {timeview.local(timeview.parse(status['next_accrual']), where)}."
        )
    return "\n".join(lines)
