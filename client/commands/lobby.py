"""The lobby: your games, and opening, joining and starting one."""

# ruff: noqa: PLC0415 (commands import what they need when they run: fast `cafe --help`)

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cafe.i18n import gettext as _
from cafe.i18n import ngettext
from client import timeview
from client.errors import UsageError
from client.gameview import clock_text, me_in, options_text, player_zone, status_word
from client.output import command, say, table, terminal_width

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from client.session import Session

GameId = Annotated[
    int, typer.Argument(help=_("The game's number (see `cafe games`)."), min=1, metavar="ID")
]
#: `--level`, of `cafe new --computer` and `cafe start --fill-computer` alike.
Level = Annotated[
    int | None,
    typer.Option(
        min=1,
        max=3,
        metavar="L",
        help=_("How strongly the computer players play, 1 to 3 [default: 3]"),
        show_default=False,
    ),
]


class Timeout(StrEnum):
    """What happens to a player whose time runs out."""

    AUTOPLAY = "autoplay"
    RESIGN = "resign"


#: How `cafe games` orders games after those waiting for you.
ORDER = {"active": 0, "open": 1, "finished": 2}


def games(
    ctx: typer.Context,
    finished: Annotated[
        bool, typer.Option("--finished", help=_("Include finished games."))
    ] = False,
    lobby: Annotated[
        bool, typer.Option("--lobby", help=_("List the open games of others that you can join."))
    ] = False,
) -> None:
    """Your games, the ones waiting for you first (▶).

    Then the other running games, then the open ones; finished ones with --finished.
    """
    session: Session = ctx.obj
    api = session.api()
    me = session.player_name(api)
    if lobby:
        found = api.games(status="open", mine=False)  # the server lists the joinable ones
        if not found:
            say(_("No open games to join; open one with `%(command)s`.", command="cafe new"))
            return
        rows: list[tuple[str, ...]] = [
            (str(g["id"]), f"{len(g['players'])}/{g['seats']}", " ".join(g["players"]),
             options_text(g.get("options")))
            for g in found
        ]  # fmt: skip
        headers = (_("id"), _("seats"), _("players"), _("variants"))
        say(table(headers, rows, right={0}, cut={2, 3}))
        say(_("Join one: %(command)s", command="cafe join ID"))
        return
    every = api.games()
    mine = [g for g in every if finished or g["status"] != "finished"]
    invitations = [
        g
        for g in api.games(status="open", mine=False)
        if me in (g.get("invited") or []) and me not in g["players"]
    ]
    if not mine:
        if any(g["status"] == "finished" for g in every):
            say(
                _(
                    "You have no running games; your finished ones: %(command)s",
                    command="cafe games --finished",
                )
            )
        else:
            say(
                _(
                    "You are in no games: open one with `%(new)s`, or find one with `%(lobby)s`.",
                    new="cafe new",
                    lobby="cafe games --lobby",
                )
            )
        _say_invitations(invitations)
        return
    mine.sort(key=lambda g: (g["to_move"] != me, ORDER[g["status"]], -g["id"]))
    where = player_zone(api) if any(g.get("deadline") for g in mine) else timeview.zone(None)
    now = api.now()
    rows = [_row(_with_final(api, g), me, where, now, place=finished) for g in mine]
    place = (_("place"),) if finished else ()
    headers = ("", _("id"), _("status"), _("players"), _("to move"), _("score"), *place,
               _("time left"), _("deadline"))  # fmt: skip
    say(table(headers, rows, right={1, 5, 6}, cut={3, 4}, drop=(len(headers) - 1,)))
    _say_leagues(mine, terminal_width())
    waiting = [str(g["id"]) for g in mine if g["to_move"] == me]
    if len(waiting) == 1:
        say(
            _(
                "▶ your turn in game %(game)s: %(command)s",
                game=waiting[0],
                command=command("show", waiting[0]),
            )
        )
    elif waiting:
        say(
            _(
                "▶ your turn in games %(games)s: %(command)s",
                games=", ".join(waiting),
                command="cafe show ID",
            )
        )
    _say_invitations(invitations)
    ended = any(g["status"] == "finished" for g in every)
    if not finished and ended and not any(g["status"] == "active" for g in mine):
        say(_("Your finished games: %(command)s", command="cafe games --finished"))


def _say_invitations(invitations: list[dict[str, Any]]) -> None:
    """The invitations the player has not answered, each with the command that accepts it."""
    for game in invitations:
        say(
            ngettext(
                "✉ invited to game %(game)s with %(players)s (%(taken)s of %(num)s seat "
                "taken): %(command)s",
                "✉ invited to game %(game)s with %(players)s (%(taken)s of %(num)s seats "
                "taken): %(command)s",
                game["seats"],
                game=game["id"],
                players=", ".join(game["players"]) or _("nobody yet"),
                taken=len(game["players"]),
                command=command("join", game["id"]),
            )
        )


def _with_final(api: Any, game: dict[str, Any]) -> dict[str, Any]:
    """A finished game's summary with the caller's place and final score (after the
    penalties for tiles left in hand), from its state's standings."""
    if game["status"] != "finished":
        return game
    state, _etag = api.game(game["id"])
    seat = (state or {}).get("your_seat")
    standings = (state or {}).get("standings") or []
    mine = [s for s in standings if seat is not None and s["player"] == state["players"][seat]]
    return {**game, "final": mine[0]} if mine else game


def _say_leagues(games: list[dict[str, Any]], width: int) -> None:
    """Which of the listed games are league games, one line (at most `width` columns, wrapped)
    per league, season and division: `League games 4, 7: Spring League, season 2, division 1
    (cafe league standings spring)`."""
    import textwrap

    from cafe.render.quantities import season_place

    by_place: dict[tuple[str, str, int, int], list[str]] = {}
    for game in games:
        if league := game.get("league"):
            key = (league["name"], league["slug"], league["season"], league["division"])
            by_place.setdefault(key, []).append(str(game["id"]))
    for (name, slug, number, division), ids in by_place.items():
        line = ngettext(
            "League game %(games)s: %(place)s (%(command)s)",
            "League games %(games)s: %(place)s (%(command)s)",
            len(ids),
            games=", ".join(ids),
            place=season_place(name, number, division),
            command=command("league", "standings", slug),
        )
        say(textwrap.fill(line, width, break_long_words=False, break_on_hyphens=False))


def _row(
    game: dict[str, Any], me: str, where: "ZoneInfo", now: datetime, *, place: bool
) -> tuple[str, ...]:
    """One line of `cafe games`, from the game's summary alone (it carries the scores and
    the deadline, shown as the time left at the server's time `now` and, where the terminal
    has room, the moment in the player's zone); with `place`, a finished game's place."""
    scores = game.get("scores")
    score = str(scores[game["players"].index(me)]) if scores and me in game["players"] else "-"
    final = game.get("final")
    if final:
        score = str(final["final"])
    left, moment = timeview.deadline_parts(game.get("deadline"), where, now)
    players = " ".join(game["players"])
    if game["status"] == "open":
        players = _(
            "%(players)s (%(taken)s of %(seats)s)",
            players=players,
            taken=len(game["players"]),
            seats=game["seats"],
        )
    mover = _("you") if game["to_move"] == me else game["to_move"] or "-"
    marker = "▶" if game["to_move"] == me else ""
    places = (str(final["place"]) if final else "",) if place else ()
    status = status_word(game["status"])
    return (marker, str(game["id"]), status, players, mover, score, *places, left, moment)


def new(
    ctx: typer.Context,
    seats: Annotated[
        int | None,
        typer.Option(
            min=2,
            max=4,
            metavar="N",
            help=_("Players in the game, 2 to 4 [default: 2, or enough for the invited]"),
        ),
    ] = None,
    birthday: Annotated[
        int | None,
        typer.Option(
            min=1, help=_("Play with the birthday table, reached at T points."), metavar="T"
        ),
    ] = None,
    coffee_klatsch: Annotated[
        bool,
        typer.Option("--coffee-klatsch", help=_("Play with coffee klatsch and regulars' table.")),
    ] = False,
    invite: Annotated[
        list[str] | None,
        typer.Option(
            help=_("Only these players may join (repeat it, or separate names by commas)."),
            metavar="NAME",
            show_default=False,
        ),
    ] = None,
    days_per_turn: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=30,
            metavar="N",
            help=_("Days each player has for a turn, 1 to 30 [default: 3]"),
            show_default=False,
        ),
    ] = None,
    timeout: Annotated[
        Timeout | None,
        typer.Option(
            help=_(
                "When a player runs out of time: the server plays for them (autoplay) or "
                "they leave the game (resign) [default: autoplay]"
            ),
            show_default=False,
        ),
    ] = None,
    no_clock: Annotated[
        bool, typer.Option("--no-clock", help=_("A casual game without deadlines."))
    ] = False,
    rated: Annotated[
        bool,
        typer.Option("--rated", help=_("The result updates the players' ratings (cafe rating).")),
    ] = False,
    private: Annotated[
        bool,
        typer.Option(
            "--private",
            help=_("Only its players and the invited see the game (needs --invite)."),
        ),
    ] = False,
    auto_start: Annotated[
        bool,
        typer.Option("--auto-start", help=_("Start the game as soon as its last seat is taken.")),
    ] = False,
    computer: Annotated[
        int,
        typer.Option(
            min=0,
            max=3,
            metavar="N",
            help=_("Seat N computer players (a practice game starts at once)."),
            show_default=False,
        ),
    ] = 0,
    level: Level = None,
) -> None:
    """Open a new game with you seated.

    Others join it with `cafe join ID`; you start it with `cafe start ID`, or it starts by
    itself when full with --auto-start. Each turn has a deadline (3 days unless you choose)
    unless you open it with --no-clock. A --rated game updates its players' ratings when it
    ends, as league games do.
    """
    invited = [name.strip() for value in invite or [] for name in value.split(",") if name.strip()]
    wanted = seats if seats is not None else max(2, len(invited) + 1 + computer)
    if level is not None and not computer:
        raise UsageError(_("--level is the computer players' strength: add --computer N"))
    if len(invited) > wanted - 1:
        raise UsageError(
            ngettext(
                "%(invited)s invited players do not fit into %(num)s free seat",
                "%(invited)s invited players do not fit into %(num)s free seats",
                wanted - 1,
                invited=len(invited),
            )
        )
    if private and not invited:
        raise UsageError(_("a private game needs --invite: only the invited may join it"))
    if no_clock and (days_per_turn is not None or timeout is not None):
        raise UsageError(_("--no-clock leaves no deadline: drop --days-per-turn and --timeout"))
    clock: dict[str, Any] = {}
    if days_per_turn is not None:
        clock["days_per_turn"] = days_per_turn
    if timeout is not None:
        clock["timeout"] = timeout.value
    options = {"birthday": birthday, "coffee_klatsch": coffee_klatsch}
    state = ctx.obj.api().create_game(
        wanted,
        options,
        invited,
        clock,
        timed=not no_clock,
        rated=rated,
        private=private,
        auto_start=auto_start,
        computer={"seats": computer, "level": level or 3} if computer else None,
    )
    game_id = state["id"]
    if state["status"] == "active":  # computer players took the free seats
        say(
            _(
                "Game %(game)s has started: %(players)s. Seat order and bag come from a "
                "secret seed.",
                game=game_id,
                players=", ".join(state["players"]),
            )
        )
        say(_("Play it: %(command)s", command=command("show", game_id)))
        return
    what = [
        ngettext("%(num)s seat", "%(num)s seats", wanted),
        options_text(state.get("options")),
        clock_text(state.get("clock")),
        *([_("rated")] if state.get("rated") else []),
    ]
    opened = (
        _("Game %(game)s is open (private): %(what)s.", game=game_id, what=", ".join(what))
        if private
        else _("Game %(game)s is open: %(what)s.", game=game_id, what=", ".join(what))
    )
    say(opened)
    if invited:
        say(_("Invited (by email): %(names)s.", names=", ".join(invited)))
    start = (
        _("It starts by itself when the last seat is taken.")
        if auto_start
        else _("Start it when they are in: %(command)s", command=command("start", game_id))
    )
    say(_("Others join with: %(command)s", command=command("join", game_id)) + "\n" + start)


def join(ctx: typer.Context, game_id: GameId) -> None:
    """Take a seat in an open game."""
    state = ctx.obj.api().join(game_id)
    players = state["players"]
    full = len(players) == state["seats"]
    if state["status"] != "open":  # an auto-start game: the last seat started it
        say(
            _(
                "You joined game %(game)s: %(players)s. The table is full and the game has "
                "started: %(command)s",
                game=game_id,
                players=", ".join(players),
                command=command("show", game_id),
            )
        )
        return
    joined_text = ngettext(
        "You joined game %(game)s: %(players)s (%(taken)s of %(num)s seat).",
        "You joined game %(game)s: %(players)s (%(taken)s of %(num)s seats).",
        state["seats"],
        game=game_id,
        players=", ".join(players),
        taken=len(players),
    )
    starts = (
        _("The table is full; %(creator)s starts it.", creator=state["creator"])
        if full
        else _("%(creator)s starts it.", creator=state["creator"])
    )
    say(f"{joined_text} {starts}")


def start(
    ctx: typer.Context,
    game_id: GameId,
    fill_computer: Annotated[
        bool,
        typer.Option(
            "--fill-computer", help=_("Seat computer players in the free seats, then start.")
        ),
    ] = False,
    level: Level = None,
) -> None:
    """Deal and begin a game you opened.

    The seat order and the bag come from the game's secret seed, whose commitment (its
    SHA-256) is published now and checked by `cafe verify` once the game is over.
    """
    if level is not None and not fill_computer:
        raise UsageError(_("--level is the computer players' strength: add --fill-computer"))
    api = ctx.obj.api()
    state = api.fill_with_computers(game_id, level) if fill_computer else api.start(game_id)
    say(
        _(
            "Game %(game)s has started. Seat order: %(players)s; %(first)s moves first.",
            game=game_id,
            players=", ".join(state["players"]),
            first=state["to_move"],
        )
    )
    say(_("Bag commitment (SHA-256 of the secret seed, revealed when the game ends):"))
    say(f"  {state['commitment']}")
    if state["to_move"] == me_in(state):
        say(_("Your turn: %(command)s", command=command("show", game_id)))
