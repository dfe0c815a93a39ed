"""Render one email of every kind with the *installed* package (`.ci/wheel-check` runs it
with a fresh virtual environment's Python, outside the checkout).

Every template pair the package ships must be rendered here, with a subject, a text part
and an HTML part; the script exits 1 naming what is missing, empty or failing, and 0 after
printing one line per kind.

`builders()` is also the tests' list of sample emails (`tests/server/mail_support.py`):
each kind is built with the longest names, league name, slug and links the service allows,
so that the tests of the text parts' width cover every kind, also one added later.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from importlib import resources
from pathlib import Path

import server
from cafe import Game
from cafe.bots import GreedyBot
from cafe.i18n import lazy_gettext
from cafe.league.table import Move, TableRow
from server import config
from server.games.store import standing_json
from server.games.talk import Said
from server.games.turns import result_detail
from server.league import messages as league
from server.league.labels import LeagueLabel
from server.league.ratings import DEFAULT, Skill
from server.mail import messages
from server.mail.facts import DigestGame, GameFacts, LoggedTurn, OfferedTurn
from server.postbox import addresses
from server.postbox.addresses import ReplyAddress
from server.postbox.facts import Recipient, VacationGame

#: Players with names as long as they may be (`server.models.NAME_LENGTH`, 24).
ANN, BOB, CID, DAN = (f"{name}_has_a_very_long_name" for name in ("ann", "bob", "cid", "dan"))
#: The links of a real installation, as long as its ids get (a player, a game, a version).
CONFIG = config.load(
    "instance",
    environ={},
    overrides={
        "BASE_URL": "https://cafe.example.org",
        "SECRET_KEY": "k" * 64,
        "MAIL_DOMAIN": "cafe.example.org",
    },
)
LINKS = addresses.links(CONFIG, player_id=123456, reply=ReplyAddress(123456, 12345, 123456))
GAME = 123456
EMAIL = "someone.with.a.long.address@mail.example.org"
DEADLINE = datetime(2026, 3, 5, 9, 0, tzinfo=UTC)
CLOCK = {"days_per_turn": 3, "timeout": "autoplay", "max_timeouts": 2, "vacation": True}
#: A league with the longest name (64) and slug (32), in the last season there can be (its
#: number the largest the database holds).
SEASON = league.SeasonFacts(
    "The Tuesday Evening Correspondence Club of Café International Lt",
    "tuesday-evening-correspondence-c",
    2**31 - 1,
    4,
    CLOCK,
)
TABLE = [
    TableRow(ANN, Fraction(7, 2), 81, 2, 3),
    TableRow(BOB, Fraction(3), 70, 1, 3),
    TableRow(CID, Fraction(1), 52, 0, 2, left="withdrew"),
]
LEAGUE_GAMES = [
    league.LeagueGame(123456, [ANN, BOB, CID], ANN, DEADLINE),
    league.LeagueGame(123457, [ANN, BOB, DAN], BOB),
]


def play(turns: int | None) -> tuple[Game, list[LoggedTurn]]:
    """A greedy three-player game after `turns` turns (None: to its end), with its log."""
    game, bot, log = Game.new([ANN, BOB, CID], seed="ci"), GreedyBot(), []
    while not game.is_over and (turns is None or len(log) < turns):
        result = game.play(bot.choose(game))
        detail = result_detail(result)
        log.append(
            LoggedTurn(len(log) + 1, result.player, "turn", result.notation, result.points, detail)
        )
    return game, log


def facts(game: Game, log: list[LoggedTurn]) -> GameFacts:
    """What the service gathers for a game's emails; seed and standings once it is over."""
    over = game.is_over
    return GameFacts(
        id=GAME,
        version=len(log) + 2,
        state=game.to_position(),
        commitment="ab" * 32,
        seed_hex="0f" * 32 if over else None,
        standings=[standing_json(s) for s in game.standings()] if over else (),
        recent=log[-8:],
        turn_count=len(log),
    )


def removed(game: Game, shown: GameFacts) -> GameFacts:
    """`shown` once the player to move in `game` was removed on time-out."""
    after = Game.from_position(game.to_position())
    after.resign(after.to_move, timeout=True)
    return dataclasses.replace(shown, state=after.to_position(), version=shown.version + 1)


#: Table talk as long as it gets: a message of the most characters, an address longer than
#: a line in it, and the writer's line breaks (and a message that is markup, shown as text).
TALK = [
    Said(
        1,
        BOB,
        ("<b>Good luck</b> & <script>alert(1)</script>\nSee https://example.org/"
         + "x" * 90 + "\n\n" + "a long message that wraps " * 20)[:500],
        DEADLINE - timedelta(hours=3),
        4,
    ),
    Said(2, CID, "Thanks!", DEADLINE - timedelta(hours=2), 4),
]  # fmt: skip


def builders(ones: bool = False) -> dict[str, Callable[[], messages.Rendered]]:
    """One way to build each kind of email, by the name of its template pair; `ones`: with
    1 for every count the samples choose (points, minutes, days, seats, games), for the
    tests of the singular."""
    game, log = play(10)
    if ones:
        log = [dataclasses.replace(turn, points=1) for turn in log]
    clocked = dataclasses.replace(
        facts(game, log),
        deadline=DEADLINE,
        clock=CLOCK,
        timeouts={game.player_to_move: 1},
        league=LeagueLabel(SEASON.league, SEASON.slug, SEASON.number, 2),
    )
    running, finished = facts(game, log), facts(*play(None))
    me = Recipient(1, game.player_to_move, EMAIL, timezone="America/Argentina/ComodRivadavia")
    hints = [OfferedTurn(str(hint.turn), 1 if ones else hint.points) for hint in game.hints(3)]
    seats, days = (1, 1) if ones else (3, 30)
    timed_out = dataclasses.replace(log[-1], player=me.name, kind="timeout")
    removal = LoggedTurn(11, me.name, "timeout", detail={"removed": True})
    away = [
        VacationGame(GAME, [ANN, BOB], paused=True, deadline=DEADLINE + timedelta(days=3)),
        VacationGame(GAME + 1, [CID, DAN], paused=False),
    ]
    return {
        "signin_code": lambda: messages.signin_code(
            me,
            code="1234567890",
            link="https://cafe.test/signin/link/x",
            minutes=1 if ones else 15,
            links=LINKS,
        ),
        "invite": lambda: messages.invite(
            me, creator=ANN, game_id=GAME, seats=seats, options={"birthday": 30}, links=LINKS
        ),
        "join_answer": lambda: messages.join_answer(me, game_id=GAME, refusal=None, links=LINKS),
        "player_joined": lambda: messages.player_joined(
            me,
            game_id=GAME,
            joined=BOB,
            players=[ANN, BOB],
            seats=3,
            started=False,
            links=LINKS,
        ),
        "table_full": lambda: messages.table_full(
            me,
            game_id=GAME,
            joined=CID,
            players=[ANN, BOB, CID],
            seats=3,
            started=True,
            auto_start=True,
            links=LINKS,
        ),
        "game_started": lambda: messages.game_started(running, me, LINKS),
        "your_turn": lambda: messages.your_turn(running, me, hints, LINKS, TALK),
        "turn_played": lambda: messages.turn_played(running, me, LINKS),
        "turn_confirmed": lambda: messages.turn_confirmed(running, me, log[-1], LINKS),
        "turn_refused": lambda: messages.turn_refused(
            running,
            me,
            problem="illegal",
            # the engine's refusal of the turn, said in the reader's language
            reason=lazy_gettext("%(chair)s has no free private chair", chair="US1"),
            read="USm@US1",
            hints=hints,
            links=LINKS,
        ),
        "game_over": lambda: messages.game_over(finished, me, LINKS),
        "digest": lambda: messages.digest(
            me,
            [
                DigestGame(clocked, True, hints[0], log[-3:]),
                DigestGame(dataclasses.replace(running, id=GAME + 1), False, None, log[-1:]),
            ],
            LINKS,
            DEADLINE - timedelta(hours=30),
        ),
        "reply_unrecognised": lambda: messages.reply_unrecognised(address="x@y", links=LINKS),
        "game_expired": lambda: messages.game_expired(
            game_id=GAME, seats=seats, days=days, links=LINKS
        ),
        "channel_disabled": lambda: messages.channel_disabled(
            name="Zoë",
            channel=3,
            service="discord",
            host="discord.com",
            error="HTTP 503: Service Unavailable",
            links=LINKS,
        ),
        "reminder": lambda: messages.reminder(
            clocked, me, hints, DEADLINE - timedelta(days=1), LINKS
        ),
        "reminders": lambda: messages.reminders(
            me,
            [
                DigestGame(clocked, True, hints[0]),
                DigestGame(dataclasses.replace(clocked, id=GAME + 1), True, None),
            ][: 1 if ones else 2],
            LINKS,
            DEADLINE - timedelta(hours=23, minutes=59),
        ),
        "timed_out": lambda: messages.timed_out(clocked, me, timed_out, LINKS),
        "removed": lambda: messages.removed(removed(game, clocked), me, removal, LINKS),
        "auto_vacation": lambda: messages.auto_vacation(clocked, me, 1 if ones else 3.5, LINKS),
        "table_talk": lambda: messages.table_talk(
            me, game_id=GAME, players=[ANN, BOB, CID], talk=TALK[: 1 if ones else 2], links=LINKS
        ),
        "talk_refused": lambda: messages.talk_refused(
            me,
            game_id=GAME,
            reason=lazy_gettext(
                "the message has %(length)s characters; a message has at most %(most)s",
                length=612,
                most=500,
            ),
            text="a message that was too long " * 8,
            links=LINKS,
        ),
        "vacation_started": lambda: messages.vacation_started(
            me, until=DEADLINE, games=away, bank_days=1 if ones else 9.5, links=LINKS
        ),
        "vacation_ended": lambda: messages.vacation_ended(
            me, ended=DEADLINE, early=True, games=away, bank_days=1 if ones else 11, links=LINKS
        ),
        **league_builders(ones),
    }


def league_builders(ones: bool = False) -> dict[str, Callable[[], messages.Rendered]]:
    """One way to build each of the league's emails (`ones`: as `builders`)."""
    games = LEAGUE_GAMES[:1] if ones else LEAGUE_GAMES
    ann = Recipient(1, ANN, EMAIL, timezone="America/Argentina/ComodRivadavia")
    moves = [Move(ANN, 2, 1), Move(CID, 2, 3)]
    rating = league.RatingChange(DEFAULT, Skill(27.1, 7.2))
    return {
        "league_registration": lambda: league.registration(
            ann, SEASON, registered=False, links=LINKS
        ),
        "league_season_started": lambda: league.season_started(
            ann,
            SEASON,
            division=2,
            placed="down",
            placed_from=1,
            players=[ANN, BOB, CID, DAN],
            games=games,
            links=LINKS,
        ),
        "league_digest": lambda: league.digest(
            ann, SEASON, division=2, rows=TABLE, waiting=LEAGUE_GAMES[:1], links=LINKS
        ),
        "league_season_finished": lambda: league.season_finished(
            ann, SEASON, division=2, rows=TABLE, moves=moves, rating=rating, links=LINKS
        ),
        "league_joined": lambda: league.joined(ann, SEASON, links=LINKS),
        "league_join_refused": lambda: league.join_refused(
            ann,
            SEASON,
            reason=lazy_gettext(
                "you are registered for season %(season)s of %(league)s",
                season=SEASON.number,
                league=SEASON.slug,
            ),
            links=LINKS,
        ),
        "league_turns_refused": lambda: league.turns_refused(
            ann,
            SEASON,
            reason=[
                lazy_gettext(
                    "game %(game)s is not a game of season %(season)s", game=123999, season=12
                ),
                lazy_gettext("you do not play in game %(game)s", game=123458),
            ],
            example="123456: ESm@ES1",
            links=LINKS,
        ),
        "league_removed": lambda: league.removed(
            ann,
            SEASON,
            reason="two months without a turn; the division waited for you long enough",
            running=True,
            resigned=[123456, 123457][: 1 if ones else 2],
            links=LINKS,
        ),
        "league_paused": lambda: league.paused(
            ann, SEASON, reason="the club's summer break, until the 1st of September", links=LINKS
        ),
        "league_resumed": lambda: league.resumed(
            ann,
            SEASON,
            paused_for=timedelta(days=1, hours=1) if ones else timedelta(days=12, hours=5),
            waiting=LEAGUE_GAMES[:1],
            links=LINKS,
        ),
    }


def shipped_kinds() -> set[str]:
    """The email pairs in the installed package (`base` is the layout and `_…` are the
    pieces the pairs include, not emails)."""
    folder = resources.files("server").joinpath("templates", "email")
    pairs = {entry.name.removesuffix(".txt") for entry in folder.iterdir()}
    emails = {name for name in pairs if (folder / f"{name}.txt").is_file()} - {"base"}
    return {name for name in emails if not name.startswith("_")}


def check(kind: str, build: Callable[[], messages.Rendered]) -> str | None:
    """What is wrong with the email of `kind`, or None when it renders fully."""
    try:
        message = build()
    except Exception as error:  # report every kind, not just the first failure
        return f"{kind}: {type(error).__name__}: {error}"
    empty = [part for part in ("subject", "text", "html") if not getattr(message, part).strip()]
    return f"{kind}: empty {', '.join(empty)}" if empty else None


def main() -> int:
    """Render every kind, printing one line each, then the problems found, if any."""
    home = Path(server.__file__).resolve().parent
    print(f"rendering with {home}")
    installed = Path(sys.prefix).resolve() in home.parents
    problems = [] if installed else [f"`server` is not the package installed in {sys.prefix}"]
    kinds, shipped = builders(), shipped_kinds()
    problems += [f"{kind}: no template pair shipped" for kind in sorted(set(kinds) - shipped)]
    problems += [f"{kind}: shipped, not rendered here" for kind in sorted(shipped - set(kinds))]
    for kind, build in kinds.items():
        problem = check(kind, build)
        print(f"  {kind:<24} {'FAILED' if problem else 'ok'}")
        problems += [problem] if problem else []
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
