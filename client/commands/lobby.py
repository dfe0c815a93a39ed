"""The lobby: your games, and opening, joining and starting one."""

# ruff: noqa: PLC0415 (commands import what they need when they run: fast `cafe --help`)

from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from cafe.i18n import gettext as _
from client import timeview
from client.errors import UsageError
from client.gameview import clock_text, me_in, options_text, player_zone
from client.output import say, table, terminal_width

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from client.session import Session

GameId = Annotated[
    int, typer.Argument(help="The game's number (see `cafe games`).", min=1, metavar="ID")
]


class Timeout(StrEnum):
    """What happens to a player whose time runs out."""

    AUTOPLAY = "autoplay"
    RESIGN = "resign"


LOBBY = "`cafe games --lobby`"
#: How `cafe games` orders games after those waiting for you.
ORDER = {"active": 0, "open": 1, "finished": 2}


def games(
    ctx: typer.Context,
    finished: Annotated[bool, typer.Option("--finished", help="Include finished games.")] = False,
    lobby: Annotated[
        bool, typer.Option("--lobby", help="List the open games of others that you can join.")
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
            say("No open games to join; open one with `cafe new`.")
            return
        rows: list[tuple[str, ...]] = [
            (str(g["id"]), f"{len(g['players'])}/{g['seats']}", " ".join(g["players"]),
             options_text(g.get("options")))
            for g in found
        ]  # fmt: skip
        say(table(("id", "seats", "players", "variants"), rows, right={0}, cut={2, 3}))
        say("Join one: cafe join ID")
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
            say("You have no running games; your finished ones: cafe games --finished")
        else:
            say(f"You are in no games: open one with `cafe new`, or find one with {LOBBY}.")
        _say_invitations(invitations)
        return
    mine.sort(key=lambda g: (g["to_move"] != me, ORDER[g["status"]], -g["id"]))
    where = player_zone(api) if any(g.get("deadline") for g in mine) else timeview.zone(None)
    now = api.now()
    rows = [_row(_with_final(api, g), me, where, now, place=finished) for g in mine]
    place = ("place",) if finished else ()
    headers = ("", "id", "status", "players", "to move", "score", *place, "time left", "deadline")
    say(table(headers, rows, right={1, 5, 6}, cut={3, 4}, drop=(len(headers) - 1,)))
    _say_leagues(mine, terminal_width())
    waiting = [str(g["id"]) for g in mine if g["to_move"] == me]
    if len(waiting) == 1:
        say(f"▶ your turn in game {waiting[0]}: cafe show {waiting[0]}")
    elif waiting:
        say(f"▶ your turn in games {', '.join(waiting)}: cafe show ID")
    _say_invitations(invitations)
    ended = any(g["status"] == "finished" for g in every)
    if not finished and ended and not any(g["status"] == "active" for g in mine):
        say("Your finished games: cafe games --finished")


def _say_invitations(invitations: list[dict[str, Any]]) -> None:
    """The invitations the player has not answered, each with the command that accepts it."""
    for game in invitations:
        who = " and ".join(game["players"]) or "nobody yet"
        seats = f"{len(game['players'])} of {game['seats']} seats taken"
        say(f"✉ invited to game {game['id']} with {who} ({seats}): cafe join {game['id']}")


def _with_final(api: Any, game: dict[str, Any]) -> dict[str, Any]:
    """A finished game's summary with the caller's place and final score (after the
    penalties for tiles left in hand), from its state's standings."""
    if game["status"] != "finished":
        return game
    state, _ = api.game(game["id"])
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
        line = (
            f"League {'game' if len(ids) == 1 else 'games'} {', '.join(ids)}: "
            f"{season_place(name, number, division)} (cafe league standings {slug})"
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
        players += f" ({len(game['players'])} of {game['seats']})"
    mover = "you" if game["to_move"] == me else game["to_move"] or "-"
    marker = "▶" if game["to_move"] == me else ""
    places = (str(final["place"]) if final else "",) if place else ()
    return (marker, str(game["id"]), game["status"], players, mover, score, *places, left, moment)


def new(
    ctx: typer.Context,
    seats: Annotated[
        int | None,
        typer.Option(
            min=2,
            max=4,
            metavar="N",
            help="Players in the game, 2 to 4 [default: 2, or enough for the invited]",
        ),
    ] = None,
    birthday: Annotated[
        int | None,
        typer.Option(min=1, help="Play with the birthday table, reached at T points.", metavar="T"),
    ] = None,
    coffee_klatsch: Annotated[
        bool, typer.Option("--coffee-klatsch", help="Play with coffee klatsch and regulars' table.")
    ] = False,
    invite: Annotated[
        list[str] | None,
        typer.Option(
            help="Only these players may join (repeat it, or separate names by commas).",
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
            help="Days each player has for a turn, 1 to 30 [default: 3]",
            show_default=False,
        ),
    ] = None,
    timeout: Annotated[
        Timeout | None,
        typer.Option(
            help="When a player runs out of time: the server plays for them (autoplay) or "
            "they leave the game (resign) [default: autoplay]",
            show_default=False,
        ),
    ] = None,
    no_clock: Annotated[
        bool, typer.Option("--no-clock", help="A casual game without deadlines.")
    ] = False,
    rated: Annotated[
        bool,
        typer.Option("--rated", help="The result updates the players' ratings (cafe rating)."),
    ] = False,
    private: Annotated[
        bool,
        typer.Option(
            "--private", help="Only its players and the invited see the game (needs --invite)."
        ),
    ] = False,
    auto_start: Annotated[
        bool,
        typer.Option("--auto-start", help="Start the game as soon as its last seat is taken."),
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
    level: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=3,
            metavar="L",
            help=_("How strongly the computer players play, 1 to 3 [default: 3]"),
            show_default=False,
        ),
    ] = None,
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
        raise UsageError(f"{len(invited)} invited players do not fit into {wanted - 1} free seats")
    if private and not invited:
        raise UsageError("a private game needs --invite: only the invited may join it")
    if no_clock and (days_per_turn is not None or timeout is not None):
        raise UsageError("--no-clock leaves no deadline: drop --days-per-turn and --timeout")
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
        say(_("Play it: cafe show %(game)s", game=game_id))
        return
    say(
        f"Game {game_id} is open{' (private)' if private else ''}: {wanted} seats, "
        f"{options_text(state.get('options'))}, {clock_text(state.get('clock'))}"
        f"{', rated' if state.get('rated') else ''}."
    )
    if invited:
        say(f"Invited (by email): {', '.join(invited)}.")
    start = (
        "It starts by itself when the last seat is taken."
        if auto_start
        else f"Start it when they are in: cafe start {game_id}"
    )
    say(f"Others join with: cafe join {game_id}\n{start}")


def join(ctx: typer.Context, game_id: GameId) -> None:
    """Take a seat in an open game."""
    state = ctx.obj.api().join(game_id)
    players = state["players"]
    full = len(players) == state["seats"]
    if state["status"] != "open":  # an auto-start game: the last seat started it
        say(
            f"You joined game {game_id}: {', '.join(players)}. The table is full and the game "
            f"has started: cafe show {game_id}"
        )
        return
    say(
        f"You joined game {game_id}: {', '.join(players)} ({len(players)} of {state['seats']} "
        f"seats). {'The table is full; ' if full else ''}{state['creator']} starts it."
    )


def start(
    ctx: typer.Context,
    game_id: GameId,
    fill_computer: Annotated[
        bool,
        typer.Option(
            "--fill-computer", help=_("Seat computer players in the free seats, then start.")
        ),
    ] = False,
    level: Annotated[
        int | None,
        typer.Option(
            min=1,
            max=3,
            metavar="L",
            help=_("How strongly the computer players play, 1 to 3 [default: 3]"),
            show_default=False,
        ),
    ] = None,
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
        f"Game {game_id} has started. Seat order: {', '.join(state['players'])}; "
        f"{state['to_move']} moves first.\nBag commitment (SHA-256 of the secret seed, "
        f"revealed when the game ends):\n  {state['commitment']}"
    )
    if state["to_move"] == me_in(state):
        say(f"Your turn: cafe show {game_id}")
