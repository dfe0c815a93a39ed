"""Rendering every email from its facts: both parts of each message, the text within 100
columns, HTML that parses and shows the position, and nothing secret in any of it."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta
from importlib import resources

import pytest
from jinja2 import PackageLoader
from mail_support import assert_text_fits, board_in_html, read_html, sample_emails

from cafe import Game, render
from cafe.bots import GreedyBot
from cafe.endings import Departure
from cafe.render.common import NATION_COLOURS
from cafe.render.palette import INK, JOKER
from cafe.render.quantities import points
from server.games.store import standing_json
from server.games.talk import Said
from server.mail import board, messages, templates
from server.mail.facts import DigestGame, GameFacts, LoggedTurn, OfferedTurn
from server.mail.templates import render as render_pair
from server.postbox.facts import Links, Recipient, VacationGame

LINKS = Links(
    base_url="http://cafe.test/",
    reply_to="play+g7-v9-p1-aaaaaaaaaaaaaaaa@cafe.test",
    unsubscribe="http://cafe.test/unsubscribe/token",
)
SEED = "0f" * 32
#: Every kind of email but the league's, by the name of its template pair: the one list of
#: sample emails (`.ci/render_every_email.py`) names them.
KINDS = sorted(kind for kind in sample_emails().builders() if not kind.startswith("league_"))
DEADLINE = datetime(2026, 3, 5, 9, 0, tzinfo=UTC)
VACATION_GAMES = [
    VacationGame(7, ["ann", "bob"], paused=True, deadline=DEADLINE + timedelta(days=3)),
    VacationGame(9, ["cid"], paused=False),
]
CLOCK = {"days_per_turn": 3, "timeout": "autoplay", "max_timeouts": 2, "vacation": True}
#: Table talk that is markup, and longer than a line: shown as text everywhere.
TALK = [
    Said(1, "bob", "<script>alert(1)</script> & <b>hi</b>\n" + "word " * 40, DEADLINE, 3),
    Said(2, "cid", "https://example.org/" + "x" * 100, DEADLINE, 3),
]


def played_game(turns: int | None = None) -> tuple[Game, list[LoggedTurn]]:
    """A greedy three-player game after `turns` turns (None: to its end), with its log."""
    game = Game.new(["ann", "bob", "cid"], seed="mail")
    bot, log = GreedyBot(), []
    while not game.is_over and (turns is None or len(log) < turns):
        result = game.play(bot.choose(game))
        detail = {
            "tables": [dataclasses.asdict(t) for t in result.tables],
            "drawn": list(result.drawn),
            "eliminated": result.eliminated,
        }
        log.append(
            LoggedTurn(len(log) + 1, result.player, "turn", result.notation, result.points, detail)
        )
    return game, log


def facts(game: Game, log: list[LoggedTurn]) -> GameFacts:
    standings = [
        {k: getattr(s, k) for k in ("place", "player", "score", "penalty", "final", "eliminated")}
        for s in game.standings()
    ]
    return GameFacts(
        id=7,
        version=len(log) + 2,
        state=game.to_position(),
        commitment="ab" * 32,
        seed_hex=SEED if game.is_over else None,
        standings=standings if game.is_over else (),
        recent=log[-8:],
        turn_count=len(log),
    )


def hints_of(game: Game) -> list[OfferedTurn]:
    return [OfferedTurn(str(h.turn), h.points) for h in game.hints(3)]


def every_message() -> dict[str, messages.Rendered]:
    game, log = played_game(10)
    me = Recipient(1, game.player_to_move, "me@example.com", timezone="Europe/Prague")
    away = {name: DEADLINE + timedelta(days=2) for name in game.players if name != me.name}
    running = dataclasses.replace(
        facts(game, log), deadline=DEADLINE, away=away, clock=CLOCK, timeouts={me.name: 1}
    )
    finished = facts(*played_game())
    timeout = dataclasses.replace(log[-1], player=me.name, kind="timeout")
    removal = LoggedTurn(11, me.name, "timeout", detail={"removed": True})
    return {
        "signin_code": messages.signin_code(
            me, code="1234567890", link="https://cafe.test/signin/link/x", minutes=15, links=LINKS
        ),
        "invite": messages.invite(
            me, creator="ann", game_id=7, seats=3, options={"birthday": 30}, links=LINKS
        ),
        "join_answer": messages.join_answer(me, game_id=7, refusal="x" * 200, links=LINKS),
        "player_joined": messages.player_joined(
            me, game_id=7, joined="bob", players=["ann", "bob"], seats=3, started=False, links=LINKS
        ),
        "table_full": messages.table_full(
            me,
            game_id=7,
            joined="cid",
            players=["ann", "bob", "cid"],
            seats=3,
            started=True,
            auto_start=True,
            links=LINKS,
        ),
        "game_started": messages.game_started(running, me, LINKS),
        "your_turn": messages.your_turn(running, me, hints_of(game), LINKS, TALK),
        "turn_played": messages.turn_played(running, me, LINKS),
        "turn_confirmed": messages.turn_confirmed(running, me, log[-1], LINKS),
        "turn_refused": messages.turn_refused(
            running,
            me,
            problem="illegal",
            reason="US1 has no free private chair " * 5,
            read="USm@US1 " * 30,
            hints=hints_of(game),
            links=LINKS,
        ),
        "game_over": messages.game_over(finished, me, LINKS),
        "digest": messages.digest(
            me,
            [DigestGame(running, True, hints_of(game)[0], log[-3:])],
            LINKS,
            DEADLINE - timedelta(days=1, hours=2, minutes=5),
        ),
        "reply_unrecognised": messages.reply_unrecognised(address="x" * 300, links=LINKS),
        "game_expired": messages.game_expired(game_id=17, seats=4, days=30, links=LINKS),
        "reminder": messages.reminder(
            running, me, hints_of(game), DEADLINE - timedelta(days=2, hours=4), LINKS
        ),
        "reminders": messages.reminders(
            me,
            [
                DigestGame(running, True, hints_of(game)[0]),
                DigestGame(dataclasses.replace(running, id=8), True, None),
            ],
            LINKS,
            DEADLINE - timedelta(hours=5),
        ),
        "timed_out": messages.timed_out(running, me, timeout, LINKS),
        "removed": messages.removed(running, me, removal, LINKS),
        "auto_vacation": messages.auto_vacation(running, me, 3.5, LINKS),
        "table_talk": messages.table_talk(
            me, game_id=7, players=["ann", "bob", "cid"], talk=TALK, links=LINKS
        ),
        "talk_refused": messages.talk_refused(
            me, game_id=7, reason="x" * 200, text="<script>" + "y " * 100, links=LINKS
        ),
        "channel_disabled": messages.channel_disabled(
            name=me.name,
            channel=3,
            service="discord",
            host="discord.com",
            error="HTTP 503: Service Unavailable " + "z" * 120,
            links=LINKS,
        ),
        "vacation_started": messages.vacation_started(
            me, until=DEADLINE, games=VACATION_GAMES, bank_days=9.5, links=LINKS
        ),
        "vacation_ended": messages.vacation_ended(
            me, ended=DEADLINE, early=True, games=VACATION_GAMES, bank_days=11, links=LINKS
        ),
    }


@pytest.fixture(scope="module")
def rendered() -> dict[str, messages.Rendered]:
    return every_message()


@pytest.mark.parametrize("kind", KINDS)
def test_every_message_has_both_parts_in_the_shared_layout(rendered, kind):
    message = rendered[kind]
    assert message.subject and "\n" not in message.subject
    assert_text_fits(message.text)
    assert "\n-- \nCafé International" in message.text  # base.txt's footer
    parsed = read_html(message.html)
    assert message.html.startswith("<!DOCTYPE html>")
    assert f"<title>{message.subject}" in message.html.replace("&#39;", "'")
    assert "<script" not in message.html.lower() and "<img" not in message.html.lower()
    assert "http://cafe.test" in "".join(parsed.text)


def test_clock_emails_speak_in_the_readers_zone(rendered):
    reminder = rendered["reminder"]
    assert "2 days 4 hours left in game 7" in reminder.text
    assert "Thu, 5 Mar 2026, 10:00 CET" in reminder.text  # 09:00 UTC in Prague
    assert "your best turn is" in reminder.html.lower() or "reply 1" in reminder.html
    assert "reply 1 to play it" in reminder.text
    your_turn = rendered["your_turn"]
    assert "Deadline: Thu, 5 Mar 2026, 10:00 CET." in your_turn.text
    assert "is on vacation until Sat, 7 Mar 2026, 10:00 CET." in your_turn.text
    timed_out = rendered["timed_out"]
    assert "played your best turn for you" in timed_out.text
    assert (
        "1 time-out in a row" in timed_out.text and "1 more and you are removed" in timed_out.text
    )
    assert "cafe vacation start DAYS" in timed_out.text
    assert "you were removed from the game" in rendered["removed"].text
    vacation = rendered["auto_vacation"].text
    assert "Your new deadline: Thu, 5 Mar 2026, 10:00 CET." in vacation
    assert "holds 3 days 12 hours now" in vacation


def test_vacation_emails_say_until_when_which_games_and_the_bank(rendered):
    started = rendered["vacation_started"]
    assert "until Thu, 5 Mar 2026, 10:00 CET" in started.subject
    assert "game 7 with ann, bob; your deadline is now Sun, 8 Mar 2026, 10:00 CET" in started.text
    assert "do not allow vacation" in started.text and "game 9 with cid" in started.text
    assert "holds 9 days 12 hours now" in started.text and "cafe vacation end" in started.html
    ended = rendered["vacation_ended"]
    assert "you ended your vacation early on Thu, 5 Mar 2026, 10:00 CET" in ended.text
    assert "game 7 with ann, bob; your turn, deadline Sun, 8 Mar 2026, 10:00 CET" in ended.text
    assert "holds 11 days now, with the unused whole hours given back" in ended.text


def test_your_turn_holds_everything_a_player_needs(rendered):
    game, log = played_game(10)
    message = rendered["your_turn"]
    picture = render.text(game, layout=messages.PICTURE).rstrip("\n")
    assert picture in message.text
    me = game.player_to_move
    hand = " ".join(game.hands[game.to_move])
    assert f"Your hand: {hand}" in message.text
    for entry in log[-2:]:  # the two turns since the recipient's own
        line = f"{entry.player} played {entry.notation} for {points(entry.points)}"
        assert line in message.text and line in message.html
    assert f"{me} played" not in message.text.split("Since your last turn:")[1].split("Café")[0]
    for number, hint in enumerate(game.hints(3), start=1):
        command = f'cafe move 7 "{hint.turn}"'
        assert f"  {number}. {hint.turn}   ({hint.points:+d} points)" in message.text
        assert command in message.text
        assert command.replace('"', "&#34;") in message.html
    assert "reply to this email with your turn on the first line" in message.text
    chairs, bar = board_in_html(message.html)
    assert chairs == {str(k): v for k, v in game.chair_tiles.items()}
    assert bar == game.bar
    cells = read_html(message.html).cells
    assert all(f"player {name}" in cells for name in game.players)


@pytest.mark.parametrize("turns", [0, 1, 5, 20, 40, None])
def test_the_pictures_show_the_position_at_every_stage(turns):
    game, log = played_game(turns)
    me = Recipient(1, game.players[0], "me@example.com")
    if game.is_over:
        message = messages.game_over(facts(game, log), me, LINKS)
    else:
        message = messages.your_turn(facts(game, log), me, hints_of(game), LINKS)
    assert render.text(game, layout=messages.PICTURE).rstrip("\n") in message.text
    assert_text_fits(message.text)
    chairs, bar = board_in_html(message.html)
    assert chairs == {str(k): v for k, v in game.chair_tiles.items()}
    assert bar == game.bar


def test_the_html_board_is_email_safe():
    game, _ = played_game(30)
    html = str(board.board(game))
    lowered = html.lower()
    for unsafe in ("<script", "<img", "<style", "class=", "url(", "<svg", "http"):
        assert unsafe not in lowered
    assert html.count("<tr") == 13 + 1 + 4  # the grid's rows, then the bar's title and 4 rows
    cells = read_html(html).cells
    assert {f"table {t}" for t in ("DE1", "US2", "CN1")} <= set(cells)
    assert sum(title.startswith("chair ") for title in cells) == 68


def test_game_over_reveals_the_seed_and_how_to_verify(rendered):
    message = rendered["game_over"]
    assert SEED in message.text and SEED in message.html
    assert "cafe verify game-7.txt" in message.text
    assert "cafe record 7 > game-7.txt" in message.text
    assert "penalty" in message.text
    assert "standing 1" in read_html(message.html).cells


def test_running_games_never_show_a_seed_or_the_bag(rendered):
    game, _ = played_game(10)
    upcoming = " ".join(game.to_position()["bag"][:6])
    for kind, message in rendered.items():
        if kind == "game_over":
            continue
        for part in (message.text, message.html):
            assert SEED not in part and upcoming not in part and '"bag"' not in part


def test_text_parts_stay_narrow_for_long_input(rendered):
    refused = rendered["turn_refused"]
    assert "US1 has no free private chair" in refused.text
    assert "USm@US1 USm@US1" in refused.text  # the turn as read, cut to fit
    assert_text_fits(rendered["reply_unrecognised"].text)


def test_html_is_escaped():
    me = Recipient(1, "ann", "ann@example.com")
    message = messages.reply_unrecognised(address="<b>x</b>@evil.test", links=LINKS)
    assert "<b>x</b>" not in message.html and "&lt;b&gt;x&lt;/b&gt;" in message.html
    invite = messages.invite(
        me, creator="<i>", game_id=1, seats=2, options={"birthday": None}, links=LINKS
    )
    assert "<i>" not in invite.html


def test_a_template_without_a_subject_is_refused(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="no subject block"):
        render_pair("base", {})


def test_the_pairs_are_package_data_of_server(monkeypatch, tmp_path):
    """Found through the installed `server` package (so in a wheel too), whatever the current
    directory; and every pair there is one of the kinds tested above, or one of the league's
    (tested with a season in `tests/server/league/test_league_emails.py`)."""
    monkeypatch.chdir(tmp_path)
    assert isinstance(templates._environment().loader, PackageLoader)
    shipped = resources.files("server").joinpath("templates", "email")
    names = [entry.name for entry in shipped.iterdir()]
    pairs = {name.removesuffix(".txt") for name in names if name.endswith(".txt")} - {"base"}
    kinds = {name for name in pairs if not name.startswith("_")}  # `_talk`: a piece of them
    league = {kind for kind in kinds if kind.startswith("league_")}
    assert kinds - league == set(KINDS)
    assert all(f"{kind}.html" in names for kind in kinds)


@pytest.mark.parametrize(
    "kind",
    ["invite", "game_started", "your_turn", "turn_played", "turn_confirmed", "turn_refused",
     "game_over"],
)  # fmt: skip
def test_every_game_email_links_to_the_games_page(rendered, kind):
    message = rendered[kind]
    game_id = 7 if kind == "invite" else re.search(r"game (\d+)", message.subject).group(1)
    page = f"http://cafe.test/games/{game_id}"
    assert page in message.text
    assert f'href="{page}"' in message.html
    assert "/api/" not in message.html.replace("http://cafe.test/api/games/7/join", "")


@pytest.mark.parametrize(
    "kind",
    ["game_started", "your_turn", "turn_played", "turn_confirmed", "turn_refused", "game_over",
     "reminder", "timed_out", "removed", "auto_vacation"],
)  # fmt: skip
def test_subjects_name_the_game_and_the_opponents_never_a_version(rendered, kind):
    me = played_game(10)[0].player_to_move
    others = " and ".join(name for name in ("ann", "bob", "cid") if name != me)
    message = rendered[kind]
    assert message.subject.startswith(f"Café · game 7 with {others}: ")
    assert "version" not in message.subject + message.text + message.html


def test_your_turn_says_which_turn_it_is(rendered):
    assert "it is your turn in game 7 (turn 11)." in rendered["your_turn"].text
    assert "(turn 11)" in rendered["digest"].text


def test_names_and_lists_players_as_people_write_them():
    assert [messages.names_and(n) for n in (["a"], ["a", "b"], ["a", "b", "c"])] == [
        "a",
        "a and b",
        "a, b and c",
    ]


def test_game_over_says_why_the_game_ended_and_links_its_page(rendered):
    game, log = played_game()
    why = messages.why_over(facts(game, log))
    message = rendered["game_over"]
    assert f"game 7 has ended: {why}. Final standings:" in message.text
    assert f"<b>{why}</b>" in message.html
    assert "one-click turns):\n  http://cafe.test/games/7\n" in message.text
    assert '/record"' not in message.html and "/api/" not in message.html
    assert why != "the game is over"


def test_every_way_a_game_ends_is_worded():
    assert messages.why_over(facts(*played_game(3))) == "the game is not over"
    game, log = played_game(3)
    state = game.to_position()
    state["eliminated"], state["elimination_order"] = [True, False, True], [0, 2]
    out = dataclasses.replace(facts(game, log), state=state)
    winner, last = state["players"][1], state["players"][2]
    assert messages.why_over(out) == (
        f"only {winner} was still in the game (the others were eliminated at the bar)"
    )
    left = [{"player": last, "left": "timed_out"}, {"player": winner, "left": None}]
    removed = dataclasses.replace(out, ending="others_left", standings=left)
    assert messages.why_over(removed) == (
        f"{last} was removed on time, and only {winner} was still in the game"
    )
    judged = dataclasses.replace(out, ending="adjudicated")
    assert "organiser adjudicated it" in messages.why_over(judged)


def test_the_creator_hears_who_joined_and_when_the_table_is_full(rendered):
    joined, full = rendered["player_joined"], rendered["table_full"]
    assert joined.subject == "Café · game 7: bob joined"
    assert "bob took a seat in your game 7. At the table: ann and bob." in joined.text
    assert "1 of 3 seats is still free" in joined.text and "cafe start 7" in joined.text
    assert full.subject == "Café · game 7: the table is full, the game has started"
    assert "cid took the last seat in your game 7: ann, bob and cid are at the table." in full.text
    assert "started on its own" in full.text and "http://cafe.test/games/7" in full.html


def birthday_game(first: bool) -> tuple[GameFacts, str]:
    """A running birthday-variant game (threshold 30) and the player to move, who reached
    30 points first (`first`) or has not yet, with nobody else there."""
    game, log = played_game(10)
    state = game.to_position()
    state["options"] = {"birthday": 30, "coffee_klatsch": False}
    mover = state["to_move"]
    state["birthday_player"] = mover if first else None
    state["scores"] = [
        (31 if first else 12) if seat == mover else 5 for seat in range(len(state["scores"]))
    ]
    return facts(Game.from_position(state), log), state["players"][mover]


@pytest.mark.parametrize("first", [True, False])
def test_the_turn_email_says_when_and_how_to_name_the_birthday_nation(first):
    game, mover = birthday_game(first)
    me = Recipient(1, mover, "me@example.com")
    hints = hints_of(game.engine)
    message = messages.your_turn(game, me, hints, LINKS)
    example = f"e.g. {hints[0].turn} birthday=IT"
    assert example in " ".join(message.text.split()) and example in message.html
    said = "You reached 30 points first" if first else "If this turn takes you to 30"
    assert said in message.text and said in message.html
    assert_text_fits(message.text)


def test_no_birthday_word_without_the_right():
    game, mover = birthday_game(True)
    other = next(name for name in game.state["players"] if name != mover)
    assert messages.birthday_right(game, other, None) is None  # not their turn
    plain, _ = played_game(10)
    assert messages.birthday_right(facts(plain, []), plain.player_to_move, None) is None


def test_a_joker_chip_is_silver_not_a_nations_colour():
    assert board.tile_colours("Jm") == (JOKER, INK)
    assert {board.tile_colours(f"{nation}f")[0] for nation in NATION_COLOURS} == set(
        NATION_COLOURS.values()
    )
    assert JOKER not in NATION_COLOURS.values()
    assert f"background:{JOKER}" in str(board.chip("Jf"))


def removal_of(names: list[str]) -> tuple[GameFacts, Recipient]:
    """A game right after the player to move was removed on time-out, and that player."""
    game = Game.new(names, seed="mail")
    removed = game.player_to_move
    game.resign(removed, timeout=True)
    log = [LoggedTurn(1, removed, "timeout", detail={"removed": True})]
    shown = facts(game, log)
    if game.is_over:  # as the service stores them: the ending, and who left how
        left = {removed: Departure.TIMED_OUT}
        standings = [standing_json(s, left.get(s.player)) for s in game.standings()]
        shown = dataclasses.replace(shown, standings=standings, ending=game.ending)
    return shown, Recipient(1, removed, f"{removed}@example.com")


@pytest.mark.parametrize("names", [["ann", "bob", "cid"], ["ann", "bob"]])
def test_a_removal_email_says_one_thing_the_game_goes_on_or_it_ended(names):
    game, me = removal_of(names)
    message = messages.removed(game, me, game.recent[-1], LINKS)
    text = " ".join(message.text.split())
    html = " ".join("".join(read_html(message.html).text).split())
    goes_on = f"The game goes on without you: {game.engine.player_to_move} is to move now."
    for said in (text, html):
        assert "you were removed from the game" in said
        if len(names) == 3:
            assert goes_on in said and "ended" not in said and "game is over" not in said
        else:
            left = next(name for name in names if name != me.name)
            why = messages.why_over(game)  # how the game's end is worded (cafe.endings)
            assert f"Your removal ended the game: {why}." in said and f"only {left}" in why
            assert "goes on" not in said and "to move" not in said


def test_the_digest_gives_each_waiting_game_its_deadline_time_left_and_page(rendered):
    digest = rendered["digest"]
    told = "Deadline: Thu, 5 Mar 2026, 10:00 CET, 1 day 2 hours left"
    assert told in " ".join(digest.text.split())
    assert "\n  http://cafe.test/games/7\n" in digest.text
    assert told in " ".join("".join(read_html(digest.html).text).split())
    assert 'href="http://cafe.test/games/7"' in digest.html


def test_a_digest_game_without_a_clock_says_it_has_no_deadline():
    game, log = played_game(4)
    me = Recipient(1, game.player_to_move, "me@example.com")
    digest = messages.digest(me, [DigestGame(facts(game, log), True, None)], LINKS, DEADLINE)
    assert "No deadline: the game has no clock" in digest.text
    assert "left" not in digest.text


def test_a_league_channels_disabled_email_names_the_league_and_its_command():
    message = messages.channel_disabled(
        name="ann",
        channel=3,
        service="discord",
        host="discord.com",
        error="HTTP 410: gone",
        links=LINKS,
        league='<Café "Tuesday">',
        slug="tuesday",
    )
    assert (
        message.subject == 'Café International: the channel 3 of <Café "Tuesday"> is switched off'
    )
    assert "discord channel 3 of your league <Café" in " ".join(message.text.split())
    assert "cafe league notify test tuesday 3" in message.text
    assert "cafe league notify test tuesday 3" in message.html
    assert "<Café" not in message.html and "&lt;Café" in message.html
    assert_text_fits(message.text)
