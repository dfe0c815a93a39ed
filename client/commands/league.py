"""`cafe league …`: leagues, their seasons, tables and schedules (docs/league.md).

Players list and read leagues, join and leave seasons; the organiser creates a league,
opens each season's registration, invites players (to a league by invitation) and starts
the season. `join` and `leave` act on the league's newest season, the only one that can
be open or running. Refusals are the server's own words, one line on stderr.
"""

from typing import TYPE_CHECKING, Annotated, Any

import typer

from cafe.i18n import N_, ngettext
from cafe.i18n import gettext as _
from client import leagueview as view
from client.commands import league_notify
from client.commands.lobby import Timeout
from client.errors import CliError
from client.output import (
    NARROW,
    color_wanted,
    command,
    confirm,
    display_width,
    joined,
    padded,
    say,
)

if TYPE_CHECKING:
    from client.api import ApiClient
    from client.session import Session

app = typer.Typer(
    name="league",
    help=_("Leagues: seasons in divisions, standings, schedules, promotion and relegation."),
    short_help=_("Leagues: seasons, divisions, standings and schedules."),
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)

Slug = Annotated[
    str,
    typer.Argument(help=_("The league's short name (see `cafe league list`)."), metavar="SLUG"),
]
SeasonOption = Annotated[
    int | None,
    typer.Option(
        "--season",
        min=1,
        metavar="N",
        help=_("Which season [default: the newest that has begun]"),
    ),
]
DivisionOption = Annotated[
    int | None,
    typer.Option("--division", min=1, metavar="D", help=_("Only this division (1 is the top).")),
]


def reader(session: "Session") -> tuple["ApiClient", str | None]:
    """A client for reading (signed in if the profile is) and the reader's name, whose
    rows are marked; anyone may read leagues, signed in or not."""
    if not session.token:
        return session.client(), None
    api = session.api()
    return api, session.player_name(api)


#: What a command that needs a season says of a league without one, by what it would do.
NO_SEASON = {
    "show": N_("%(league)s has no season to show yet; its organiser opens one with `%(command)s`"),
    "join": N_("%(league)s has no season to join yet; its organiser opens one with `%(command)s`"),
    "leave": N_(
        "%(league)s has no season to leave yet; its organiser opens one with `%(command)s`"
    ),
    "start": N_(
        "%(league)s has no season to start yet; its organiser opens one with `%(command)s`"
    ),
    "remove": N_(
        "%(league)s has no season to remove anyone from yet; its organiser opens one with "
        "`%(command)s`"
    ),
    "pause": N_(
        "%(league)s has no season to pause yet; its organiser opens one with `%(command)s`"
    ),
    "resume": N_(
        "%(league)s has no season to resume yet; its organiser opens one with `%(command)s`"
    ),
}


def newest_season(league: dict[str, Any], doing: str) -> dict[str, Any]:
    """The league's newest season; a `CliError` saying how to open one if there is none
    (`doing`: what the command would do with it, a key of `NO_SEASON`)."""
    if not league["seasons"]:
        raise CliError(
            _(
                NO_SEASON[doing],
                league=league["slug"],
                command=command("league", "open", league["slug"]),
            )
        )
    newest: dict[str, Any] = league["seasons"][-1]
    return newest


def begun_season(league: dict[str, Any], number: int | None) -> int:
    """Season `number`, or else the newest that has begun (has divisions)."""
    if number is not None:
        return number
    newest = newest_season(league, "show")
    begun = [s for s in league["seasons"] if s["status"] != "registration"]
    if not begun:
        raise CliError(
            ngettext(
                "season %(season)s of %(league)s has not begun: %(num)s player registered so "
                "far; its organiser starts it with `%(command)s`",
                "season %(season)s of %(league)s has not begun: %(num)s players registered so "
                "far; its organiser starts it with `%(command)s`",
                newest["players"],
                season=newest["number"],
                league=league["slug"],
                command=command("league", "start", league["slug"]),
            )
        )
    return int(begun[-1]["number"])


def next_season(league: dict[str, Any], finished: dict[str, Any], me: str | None) -> str:
    """After a season ends: how its organiser opens the next one (and what others await)."""
    slug, number = league["slug"], finished["number"] + 1
    over = _("Season %(season)s is over: its standings are final.", season=finished["number"])
    if me == league["organiser"]:
        return "\n".join(
            (
                over,
                _(
                    "Open season %(season)s for registration: %(command)s",
                    season=number,
                    command=command("league", "open", slug),
                ),
                _("Its members are registered again and told by email; start it with:"),
                f"  cafe league start {slug}",
            )
        )
    return "\n".join(
        (
            over,
            _(
                "Its organiser, %(player)s, opens season %(season)s with:",
                player=league["organiser"],
                season=number,
            ),
            f"  cafe league open {slug}",
            _(
                "The members of season %(season)s are then registered again and told by email.",
                season=finished["number"],
            ),
        )
    )


def next_reads(slug: str) -> str:
    """Where to read a running season: its standings and its games."""
    standings, games = _("The standings:"), _("The games:")
    width = max(display_width(standings), display_width(games))
    return (
        f"{padded(standings, width)} cafe league standings {slug}\n"
        f"{padded(games, width)} cafe league schedule {slug}"
    )


@app.command("list")
def list_leagues(ctx: typer.Context) -> None:
    """Every league with its newest season (→ marks those you organise)."""
    api, me = reader(ctx.obj)
    leagues = api.leagues()
    if not leagues:
        say(
            _(
                "No leagues yet; create one with `%(command)s`.",
                command="cafe league create SLUG --name NAME",
            )
        )
        return
    color = color_wanted()
    say(view.league_rows(leagues, me, color=color), color=color)
    say(_("More about one: %(command)s", command="cafe league show SLUG"))


@app.command()
def show(ctx: typer.Context, slug: Slug) -> None:
    """A league's settings and seasons, and what you can do next."""
    api, me = reader(ctx.obj)
    league = api.league(slug)
    say(view.settings_text(league))
    if not league["seasons"]:
        say(_("No season yet; to open one: %(command)s", command=command("league", "open", slug)))
        return
    say()
    say(view.seasons_table(league["seasons"]))
    newest = league["seasons"][-1]
    if newest["status"] == "registration":
        say(
            _(
                "Join season %(season)s: %(command)s",
                season=newest["number"],
                command=command("league", "join", slug),
            )
        )
    elif newest["status"] == "finished":
        say(next_season(league, newest, me))
    else:
        if newest.get("paused_since"):
            say(
                _(
                    "Season %(season)s is paused by the organiser: every clock is stopped.",
                    season=newest["number"],
                )
            )
            say(_("Why: %(command)s", command=command("league", "log", slug)))
        say(next_reads(slug))


@app.command()
def create(
    ctx: typer.Context,
    slug: Annotated[
        str,
        typer.Argument(
            help=_("A short unique name: 2 to 32 lowercase letters, digits or '-'."),
            metavar="SLUG",
        ),
    ],
    name: Annotated[
        str | None,
        typer.Option(
            help=_("The league's full name [default: SLUG]"), show_default=False, metavar="NAME"
        ),
    ] = None,
    invitation: Annotated[
        bool,
        typer.Option(
            "--invitation-only",
            help=_("Only players you invite (cafe league invite) may join."),
        ),
    ] = False,
    game_size: Annotated[
        int, typer.Option(min=2, max=4, metavar="N", help=_("Players in each game, 2 to 4."))
    ] = 4,
    division_size: Annotated[
        int, typer.Option(min=4, max=12, metavar="N", help=_("Players in a division, 4 to 12."))
    ] = 8,
    promote: Annotated[
        int, typer.Option(min=0, max=4, metavar="N", help=_("Players moving up each season."))
    ] = 2,
    relegate: Annotated[
        int, typer.Option(min=0, max=4, metavar="N", help=_("Players moving down each season."))
    ] = 2,
    days_per_turn: Annotated[
        int,
        typer.Option(min=1, max=30, metavar="N", help=_("Days each player has for a turn.")),
    ] = 3,
    timeout: Annotated[
        Timeout,
        typer.Option(
            help=_(
                "When a player runs out of time: the server plays for them (autoplay) or "
                "they leave the game (resign)."
            )
        ),
    ] = Timeout.AUTOPLAY,
    max_timeouts: Annotated[
        int,
        typer.Option(
            min=1,
            max=5,
            metavar="N",
            help=_("Time-outs in a row that remove a player (autoplay)."),
        ),
    ] = 2,
    no_vacation: Annotated[
        bool,
        typer.Option("--no-vacation", help=_("Vacations do not pause the league's clocks.")),
    ] = False,
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
) -> None:
    """Create a league that you organise.

    Its settings apply to every game of every season. Then open its first season with
    `cafe league open SLUG`.
    """
    settings = {
        "name": name or slug,
        "slug": slug,
        "open": not invitation,
        "game_size": game_size,
        "division_size": division_size,
        "promote": promote,
        "relegate": relegate,
        "clock": {
            "days_per_turn": days_per_turn,
            "timeout": timeout.value,
            "max_timeouts": max_timeouts,
            "vacation": not no_vacation,
        },
        "options": {"birthday": birthday, "coffee_klatsch": coffee_klatsch},
    }
    league = ctx.obj.api().create_league(settings)
    say(_("League %(league)s is created.", league=league["slug"]))
    say(view.settings_text(league))
    if not league["open"]:
        say(
            _(
                "Invite players: %(command)s",
                command=command("league", "invite", league["slug"], "NAME…"),
            )
        )
    say(_("Open its first season: %(command)s", command=command("league", "open", league["slug"])))


@app.command("open")
def open_season(ctx: typer.Context, slug: Slug) -> None:
    """Open registration for the league's next season (the organiser).

    The members of the last season are registered unless they leave; everyone registered
    or invited hears of it by email.
    """
    season = ctx.obj.api().open_season(slug)
    registered = season["registered"]
    say(
        _(
            "Season %(season)s of %(league)s is open for registration.",
            season=season["number"],
            league=slug,
        )
    )
    if registered:
        say(view.names_line(N_("Registered already: %(players)s"), registered) + ".")
    say(_("Players join with: %(command)s", command=command("league", "join", slug)))
    say(_("Start it when they are in: %(command)s", command=command("league", "start", slug)))


@app.command()
def join(ctx: typer.Context, slug: Slug) -> None:
    """Register for the league's season open for registration."""
    api = ctx.obj.api()
    number = newest_season(api.league(slug), "join")["number"]
    season = api.season_action(slug, number, "register")
    say(
        _(
            "You are registered for season %(season)s of %(league)s.",
            season=number,
            league=slug,
        )
    )
    say(
        ngettext(
            "%(num)s player so far; your division and games come by email at the start.",
            "%(num)s players so far; your division and games come by email at the start.",
            len(season["registered"]),
        )
    )


@app.command()
def leave(
    ctx: typer.Context,
    slug: Slug,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help=_("Do not ask for confirmation."))
    ] = False,
) -> None:
    """Withdraw from the league's newest season.

    During a running season this resigns your running games of it (they finish without
    you; your finished results stand, and you place last in the games you resigned), and
    you are not registered for the next season.
    """
    api = ctx.obj.api()
    newest = newest_season(api.league(slug), "leave")
    number = newest["number"]
    if newest["status"] == "running" and not yes:
        confirm(
            _(
                "Withdraw from season %(season)s of %(league)s? Your running games of it are "
                "resigned",
                season=number,
                league=slug,
            )
        )
    api.season_action(slug, number, "withdraw")
    say(_("You withdrew from season %(season)s of %(league)s.", season=number, league=slug))
    if newest["status"] == "running":
        say(_("Your running games of it are resigned; your finished results stand."))
    else:
        say(_("To join again: %(command)s", command=command("league", "join", slug)))


@app.command()
def start(ctx: typer.Context, slug: Slug) -> None:
    """Start the season open for registration (the organiser).

    The registered players are placed in divisions, and every game of the season begins
    at once with the league's clock. The schedule comes from the season's secret seed,
    whose commitment (its SHA-256) is published now and the seed itself at the end.
    """
    api = ctx.obj.api()
    number = newest_season(api.league(slug), "start")["number"]
    season = api.season_action(slug, number, "start")
    divisions = season["divisions"]
    sizes = _(" or ").join(str(n) for n in sorted({len(d["players"]) for d in divisions})[::-1])
    games = sum(len(d["games"]) for d in divisions)
    say(_("Season %(season)s of %(league)s has started.", season=number, league=slug))
    say(
        ngettext(
            "%(players)s in %(num)s division of %(sizes)s; %(games)s begun with the league's "
            "clock.",
            "%(players)s in %(num)s divisions of %(sizes)s; %(games)s begun with the league's "
            "clock.",
            len(divisions),
            players=view.players_text(len(season["registered"])),
            sizes=sizes,
            games=view.games_text(games),
        )
    )
    say(_("Schedule commitment (SHA-256 of the season's seed, revealed when it ends):"))
    say(f"  {season['seed_commitment']}\n{next_reads(slug)}")


@app.command()
def invite(
    ctx: typer.Context,
    slug: Slug,
    names: Annotated[
        list[str],
        typer.Argument(
            help=_("Players to invite (or names separated by commas)."), metavar="NAME…"
        ),
    ],
) -> None:
    """Invite players to a league by invitation (the organiser)."""
    wanted = [name.strip() for value in names for name in value.split(",") if name.strip()]
    invited = ctx.obj.api().invite_to_league(slug, wanted)
    say(view.names_line(N_("Invited to %(league)s now: %(players)s"), invited, league=slug) + ".")
    say(_("They join with: %(command)s", command=command("league", "join", slug)))


@app.command()
def standings(
    ctx: typer.Context, slug: Slug, season: SeasonOption = None, division: DivisionOption = None
) -> None:
    """The standings of a season's divisions (→ marks you).

    Ordered by league points (the opponents each outplaced, scaled so that a short game
    counts as a full one), then the sum of final scores, then games won. Once the season
    is over, `next` says who moves up (↑) or down (↓) to which division.
    """
    api, me = reader(ctx.obj)
    league = api.league(slug)
    found = api.season(slug, begun_season(league, season), division)
    say(view.season_heading(league, found))
    if not found["divisions"]:
        say(view.names_line(N_("Registered: %(players)s"), found["registered"]))
        return
    color = color_wanted()
    for shown in found["divisions"]:
        say(f"\n{view.division_heading(shown)}")
        say(view.standings_table(shown, found["moves"], me, color=color), color=color)


@app.command()
def schedule(
    ctx: typer.Context, slug: Slug, season: SeasonOption = None, division: DivisionOption = None
) -> None:
    """A season's games by division, with scores and winners (→ marks yours).

    A running game shows the scores so far and who is to move; a finished one the final
    scores in place order and the winner.
    """
    session: Session = ctx.obj
    api = session.api()  # the games are read through the games API, which needs a sign-in
    me = session.player_name(api)
    league = api.league(slug)
    found = api.season(slug, begun_season(league, season), division)
    say(view.season_heading(league, found))
    if not found["divisions"]:
        say(_("The schedule is drawn when the organiser starts the season."))
        return
    games = read_games(api, [g for d in found["divisions"] for g in d["games"]], found["status"])
    color = color_wanted()
    for shown in found["divisions"]:
        say(f"\n{view.division_heading(shown)}")
        say(view.schedule_table(shown, games, me, api.now(), color=color), color=color)
    waiting = [str(i) for i, g in games.items() if g["status"] == "active" and g["to_move"] == me]
    if waiting:
        say()
        say(
            ngettext(
                "Your turn (cafe show ID) in game %(games)s",
                "Your turn (cafe show ID) in games %(games)s",
                len(waiting),
                games=", ".join(waiting),
            )
        )


def read_games(api: "ApiClient", ids: list[int], status: str) -> dict[int, dict[str, Any]]:
    """The games `ids` in as few requests as the games API allows: one listing of the
    newest games gives the running ones (scores, who is to move); a finished game (whose
    standings a listing lacks) or one too old to be listed is read on its own. A finished
    season skips the listing."""
    listed: dict[int, dict[str, Any]] = {}
    if status != "finished" and ids:
        wanted = set(ids)
        listed = {g["id"]: g for g in api.games(mine=False) if g["id"] in wanted}
    games = {}
    for game_id in ids:
        summary = listed.get(game_id)
        if summary is not None and summary["status"] != "finished":
            games[game_id] = summary
        else:
            state, _etag = api.game(game_id)
            assert state is not None  # no ETag was sent, so the answer has the state
            games[game_id] = state
    return games


# --- the organiser's tools --------------------------------------------------------------

Reason = Annotated[
    str,
    typer.Option(
        "--reason",
        metavar="TEXT",
        help=_("Why (required): the players concerned are told, and the season's log keeps it."),
    ),
]


def organised_season(api: "ApiClient", slug: str, doing: str) -> dict[str, Any]:
    """The league's newest season, which the organiser's tools act on."""
    return newest_season(api.league(slug), doing)


@app.command()
def remove(ctx: typer.Context, slug: Slug, name: Annotated[
    str, typer.Argument(help=_("The member to remove."), metavar="NAME")
], reason: Reason) -> None:  # fmt: skip
    """Remove a member from the league's newest season (the organiser).

    From a running season it is a withdrawal: their running games of it are resigned,
    their finished results stand. From a season open for registration they are not placed
    when it starts. They are told why, and the season's log records it.
    """
    api = ctx.obj.api()
    number = organised_season(api, slug, "remove")["number"]
    season = api.organise(slug, number, "remove", {"player": name, "reason": reason})
    say(_("%(player)s is removed from season %(season)s.", player=name, season=number))
    if season["status"] == "running":
        say(_("Their running games of it are resigned; their finished results stand."))
    else:
        say(_("They will not be placed in it when it starts."))
    say(_("The season's log: %(command)s", command=command("league", "log", slug)))


@app.command()
def pause(ctx: typer.Context, slug: Slug, reason: Reason) -> None:
    """Pause every clock of the league's running season (the organiser; a holiday).

    No deadline passes and no reminder comes until you resume it; each deadline then moves
    back by the pause. Players may still play meanwhile. Every member is told why.
    """
    api = ctx.obj.api()
    number = organised_season(api, slug, "pause")["number"]
    api.organise(slug, number, "pause", {"reason": reason})
    say(_("Season %(season)s is paused: every clock of its games is stopped.", season=number))
    say(_("Resume it with: %(command)s", command=command("league", "resume", slug)))


@app.command()
def resume(
    ctx: typer.Context,
    slug: Slug,
    reason: Annotated[
        str, typer.Option("--reason", metavar="TEXT", help=_("A note for the season's log."))
    ] = "",
) -> None:
    """Resume the paused season's clocks (the organiser).

    The clocks run again from now; each deadline moves back by the pause. Every member is
    told, with their new deadlines.
    """
    api = ctx.obj.api()
    number = organised_season(api, slug, "resume")["number"]
    api.organise(slug, number, "resume", {"reason": reason})
    say(
        _(
            "Season %(season)s is resumed: its clocks run again, each deadline moved back by "
            "the pause.",
            season=number,
        )
    )


@app.command()
def adjudicate(
    ctx: typer.Context,
    game: Annotated[int, typer.Argument(min=1, help=_("The league game's id."), metavar="GAME")],
    reason: Reason,
) -> None:
    """End a running league game now with its standings as they are (its league's
    organiser), for a reason outside the rules: a player unreachable, a dispute.

    The tiles in hand cost what they cost at any end; the game counts for the standings and
    the ratings like any finished game, and its page, record and emails say why it ended.
    """
    state = ctx.obj.api().adjudicate(game, reason)
    say(_("Game %(game)s is adjudicated: it ended with the standings as they were.", game=game))
    for line in state.get("standings", []):
        say(f"  {line['place']}. {line['player']} {line['final']}")
    say(_("Its record, which `cafe verify` checks: %(command)s", command=command("record", game)))


@app.command()
def log(ctx: typer.Context, slug: Slug, season: SeasonOption = None) -> None:
    """What the organiser did in a season: removals, pauses, adjudications, with who,
    when (UTC) and why."""
    api, _reader = reader(ctx.obj)
    league = api.league(slug)
    number = season if season is not None else newest_season(league, "show")["number"]
    shown = api.season_log(slug, number)
    parts = [view.title(league), _("season %(number)s", number=number), _("the organiser's log")]
    say(joined(parts, width=NARROW))
    if shown["paused_since"]:
        say(
            _(
                "Paused since %(moment)s UTC: every clock is stopped.",
                moment=shown["paused_since"][:16].replace("T", " "),
            )
        )
    say(view.log_text(shown))


app.add_typer(league_notify.app)
