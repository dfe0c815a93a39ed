"""Every email the service sends, each a pure function of its facts and its recipient.

A builder turns the facts (`server.mail.facts`) into the template context and renders the
pair `templates/email/<kind>.txt|html`; it reads no database, clock or configuration, so
the same facts always give the same message (which the tests and the benchmark rely on).
The text part carries the engine's text picture (`cafe.render.text`, the 80-column compact
board without its blank left margin: `PICTURE`, 78 columns like every text line), the HTML
part the email-safe table board (`server.mail.board`).
"""

from __future__ import annotations

import dataclasses
import textwrap
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from cafe import Options, render
from cafe.endings import Departure
from cafe.i18n import N_, gettext, ngettext
from cafe.render import quantities
from cafe.render.board_text import COMPACT
from server.games.talk import Said
from server.mail import board, times
from server.mail.facts import DigestGame, EarlierTurn, GameFacts, LoggedTurn, OfferedTurn
from server.mail.templates import TEXT_WIDTH, Rendered
from server.mail.templates import render as render_pair
from server.models import why_over as stored_why_over
from server.postbox.facts import Links, Recipient, VacationGame, Words, say

#: The board of a text part: the compact one, without the left margin a terminal keeps.
PICTURE = dataclasses.replace(COMPACT, margin=0)
#: Why an emailed turn was not played; the templates word each one.
REFUSALS = frozenset(
    {
        "no_turn",  # nothing readable above the quoted text
        "unreadable",  # the engine could not read the turn
        "illegal",  # readable, but against a rule
        "no_such_hint",  # a number the email being answered did not offer
        "not_your_turn",
        "moved_on",  # the reply is about an older version of the game
        "already_played",  # a turn was played at the reply's version: by email, cafe, the web…
        "finished",
        "too_large",
        "refused",  # any other refusal of the service (its message says why)
    }
)


def move_command(game_id: int, turn: str) -> str:
    """The client command that plays `turn`."""
    return f'cafe move {game_id} "{turn}"'


def _base(recipient_name: str | None, links: Links, **context: Any) -> dict[str, Any]:
    return {
        "name": recipient_name,
        "base_url": links.base_url.rstrip("/"),
        "reply_to": links.reply_to,
        "unsubscribe": links.unsubscribe,
        "game_id": None,
        "preheader": "",
        **context,
    }


def names_and(names: Sequence[str]) -> str:
    """`bob`, `bob and cid`, `bob, cid and dan` (in the language in use)."""
    if len(names) < 2:
        return "".join(names)
    return gettext("%(names)s and %(last)s", names=", ".join(names[:-1]), last=names[-1])


def title(game_id: int, players: Sequence[str], reader: str | None) -> str:
    """What a game's subjects start with: `Café · game 12 with bob and cid` (the reader's
    opponents; every player for someone not in the game)."""
    others = [name for name in players if name != reader]
    if not others:
        return gettext("Café · game %(id)s", id=game_id)
    return gettext("Café · game %(id)s with %(players)s", id=game_id, players=names_and(others))


def variants(options: Options) -> str:
    """A game's variants as its invitation and its start say them: `birthday table at 30
    points, coffee klatsch`, `no birthday table`."""
    birthday = (
        ngettext(
            "birthday table at %(num)s point", "birthday table at %(num)s points", options.birthday
        )
        if options.birthday
        else gettext("no birthday table")
    )
    if not options.coffee_klatsch:
        return birthday
    return gettext("%(birthday)s, coffee klatsch", birthday=birthday)


#: How far the text part indents the lines of a message of table talk.
TALK_INDENT = "    "


def _talk_text_lines(text: str) -> list[str]:
    """A message's text as the text part shows it: its own lines, each broken to fit the
    78 columns with `TALK_INDENT` — a word longer than that too, an address among them:
    in a message it is words, not a link of ours."""
    room = TEXT_WIDTH - len(TALK_INDENT)
    return [
        part
        for line in text.split("\n")
        for part in (textwrap.wrap(line, room, break_on_hyphens=False) or [""])
    ]


def talk_lines(talk: Sequence[Said], zone: str) -> list[dict[str, Any]]:
    """Messages of table talk as an email quotes them: who, when (in the reader's zone) and
    the text, as written (the HTML part escapes it; no link in it is made one) and in
    lines for the text part."""
    return [
        {
            "player": said.player,
            "at": times.local(said.at, zone),
            "text": said.text,
            "lines": _talk_text_lines(said.text),
        }
        for said in talk
    ]


def _game(
    game: GameFacts,
    recipient: Recipient,
    links: Links,
    talk: Sequence[Said] = (),
    **context: Any,
) -> dict[str, Any]:
    """The context every game email shares: the pictures, the players, the recipient's
    seat, and the table talk it quotes (`talk`: what the reader was not emailed yet)."""
    engine = game.engine
    names = list(engine.players)
    seat = names.index(recipient.name) if recipient.name in names else None
    players = [
        {
            "name": name,
            "score": engine.scores[s],
            "hand_chips": board.hand(engine.hands[s]),
            "hand_limit": engine.hand_limits[s],
            "eliminated": engine.eliminated[s],
            "to_move": not engine.is_over and s == engine.to_move,
            "you": s == seat,
        }
        for s, name in enumerate(names)
    ]
    zone = recipient.timezone
    return _base(
        recipient.name,
        links,
        game=game,
        game_id=game.id,
        league=game.league,
        title=title(game.id, names, recipient.name),
        deadline=None if game.deadline is None else times.local(game.deadline, zone),
        away=[
            {"name": name, "until": times.local(until, zone)}
            for name, until in game.away.items()
            if name != recipient.name
        ],
        picture=render.text(engine, layout=PICTURE).rstrip("\n"),
        board=board.board(engine),
        players=players,
        to_move=None if engine.is_over else engine.player_to_move,
        scores=" · ".join(f"{p['name']} {p['score']}" for p in players),
        hand=engine.hands[seat] if seat is not None else [],
        hand_chips=board.hand(engine.hands[seat] if seat is not None else []),
        options=engine.options,
        variants=variants(engine.options),
        talk=talk_lines(talk, zone),
        **context,
    )


def _hints(game_id: int, hints: Sequence[OfferedTurn]) -> list[dict[str, Any]]:
    return [
        {"number": n, "turn": h.turn, "points": h.points, "command": move_command(game_id, h.turn)}
        for n, h in enumerate(hints, start=1)
    ]


def signin_code(
    recipient: Recipient,
    *,
    code: str,
    link: str,
    minutes: int,
    links: Links,
    again: bool = False,
) -> Rendered:
    """The one-time sign-in code and sign-in link (sent whatever the player's preferences
    say); `again`: an answer to a registration of an address that already has an account.
    The greeting names no one: the name was typed by whoever registered, perhaps to look
    like a link."""
    context = _base(
        None, links, email=recipient.email, code=code, link=link, minutes=minutes, again=again
    )
    return render_pair("signin_code", context)


def invite(
    recipient: Recipient,
    *,
    creator: str,
    game_id: int,
    seats: int,
    options: Mapping[str, Any],
    links: Links,
) -> Rendered:
    """An invitation to an open game, with the `cafe join` command."""
    context = _base(
        recipient.name,
        links,
        creator=creator,
        game_id=game_id,
        seats=seats,
        variants=variants(Options(**options)),
    )
    return render_pair("invite", context)


def join_answer(
    recipient: Recipient, *, game_id: int, refusal: Words | None, links: Links
) -> Rendered:
    """The answer to a reply of `join` to an invitation: the seat is taken, or why not."""
    said = None if refusal is None else say(refusal)
    context = _base(recipient.name, links, game_id=game_id, refusal=said)
    return render_pair("join_answer", context)


def player_joined(
    recipient: Recipient,
    *,
    game_id: int,
    joined: str,
    players: Sequence[str],
    seats: int,
    started: bool,
    links: Links,
) -> Rendered:
    """To a game's creator: `joined` took a seat; who sits there now, how many are free."""
    context = _base(
        recipient.name,
        links,
        game_id=game_id,
        joined=joined,
        players=names_and(players),
        free=seats - len(players),
        seats=seats,
        started=started,
        preheader=ngettext(
            "%(player)s joined game %(id)s: %(num)s of %(seats)s seats taken",
            "%(player)s joined game %(id)s: %(num)s of %(seats)s seats taken",
            len(players),
            player=joined,
            id=game_id,
            seats=seats,
        ),
    )
    return render_pair("player_joined", context)


def table_full(
    recipient: Recipient,
    *,
    game_id: int,
    joined: str,
    players: Sequence[str],
    seats: int,
    started: bool,
    links: Links,
    auto_start: bool = False,
) -> Rendered:
    """To a game's creator: the last seat was taken (by `joined`); the game `started`
    since (on its own if `auto_start`), or the creator may start it now."""
    start = f"cafe start {game_id}"
    context = _base(
        recipient.name,
        links,
        game_id=game_id,
        auto_start=auto_start,
        joined=joined,
        players=names_and(players),
        seats=seats,
        started=started,
        preheader=gettext("Game %(id)s is full: it has started", id=game_id)
        if started
        else gettext("Game %(id)s is full: start it with %(command)s", id=game_id, command=start),
    )
    return render_pair("table_full", context)


def game_started(
    game: GameFacts, recipient: Recipient, links: Links, talk: Sequence[Said] = ()
) -> Rendered:
    """The deal: seat order, who begins, the bag's commitment, the recipient's hand (and
    the table talk before the start)."""
    return render_pair("game_started", _game(game, recipient, links, talk))


def birthday_right(game: GameFacts, name: str, example: str | None) -> str | None:
    """When `name`, to move, may name the birthday nation (rulebook §11), what to write:
    they were first to reach the threshold, or this turn may take them there; else None."""
    engine = game.engine
    threshold = engine.options.birthday
    if threshold is None or engine.birthday_nation is not None or engine.is_over:
        return None
    seat = engine.players.index(name) if name in engine.players else None
    if seat is None or seat != engine.to_move:
        return None
    turn = f"{example or 'USm@US1'} birthday=IT"
    if engine.birthday_player == seat:
        return ngettext(
            "You reached %(num)s point first: name the birthday nation on this turn or a later "
            "one by adding %(word)s (a nation) to your turn, e.g. %(turn)s; from then on, "
            "points at both of its tables count double.",
            "You reached %(num)s points first: name the birthday nation on this turn or a "
            "later one by adding %(word)s (a nation) to your turn, e.g. %(turn)s; from then "
            "on, points at both of its tables count double.",
            threshold,
            word="birthday=XX",
            turn=turn,
        )
    if engine.birthday_player is None:
        return ngettext(
            "Birthday table at %(num)s point: you have %(score)s. If this turn takes you to "
            "%(num)s, you may name the birthday nation with it: add %(word)s (a nation), e.g. "
            "%(turn)s.",
            "Birthday table at %(num)s points: you have %(score)s. If this turn takes you to "
            "%(num)s, you may name the birthday nation with it: add %(word)s (a nation), e.g. "
            "%(turn)s.",
            threshold,
            score=engine.scores[seat],
            word="birthday=XX",
            turn=turn,
        )
    return None


def your_turn(
    game: GameFacts,
    recipient: Recipient,
    hints: Sequence[OfferedTurn],
    links: Links,
    talk: Sequence[Said] = (),
) -> Rendered:
    """It is the recipient's turn: the board, what happened since (the table talk since
    their last email too), the best turns to reply, and the birthday right if the
    recipient may use it."""
    preheader = (
        gettext(
            "Your turn %(turn)s in game %(id)s; best turn %(best)s (%(points)s): reply 1 to "
            "play it",
            turn=game.turn,
            id=game.id,
            best=hints[0].turn,
            points=quantities.signed(hints[0].points),
        )
        if hints
        else gettext("Your turn %(turn)s in game %(id)s", turn=game.turn, id=game.id)
    )
    context = _game(
        game,
        recipient,
        links,
        talk,
        since=game.since_last_turn(recipient.name),
        hints=_hints(game.id, hints),
        birthday=birthday_right(game, recipient.name, hints[0].turn if hints else None),
        preheader=preheader,
    )
    return render_pair("your_turn", context)


def reminder(
    game: GameFacts,
    recipient: Recipient,
    hints: Sequence[OfferedTurn],
    now: datetime,
    links: Links,
    talk: Sequence[Said] = (),
) -> Rendered:
    """Time is running out for the recipient's turn: how much is left, the best turns."""
    assert game.deadline is not None
    left = quantities.duration(game.deadline - now)
    preheader = (
        gettext(
            "%(left)s left in game %(id)s — your best turn is %(best)s (%(points)s): reply 1",
            left=left,
            id=game.id,
            best=hints[0].turn,
            points=quantities.signed(hints[0].points),
        )
        if hints
        else gettext("%(left)s left in game %(id)s", left=left, id=game.id)
    )
    context = _game(
        game,
        recipient,
        links,
        talk,
        left=left,
        hints=_hints(game.id, hints),
        since=game.since_last_turn(recipient.name),
        preheader=preheader,
    )
    return render_pair("reminder", context)


def reminders(
    recipient: Recipient, games: Sequence[DigestGame], links: Links, now: datetime
) -> Rendered:
    """Time is running out for the recipient's turn in several games at once (their
    reminders were due within the hour): each game, soonest deadline first, with the time
    left, its deadline, the best turn and its page."""
    base, zone = links.base_url.rstrip("/"), recipient.timezone
    due = sorted(games, key=lambda item: item.game.deadline or now)
    items = [
        {
            "id": item.game.id,
            "turn": item.game.turn,
            "opponents": names_and([n for n in item.game.state["players"] if n != recipient.name]),
            "left": quantities.time_left((item.game.deadline or now) - now),
            "deadline": times.local(item.game.deadline or now, zone),
            "best": item.best,
            "command": move_command(item.game.id, item.best.turn) if item.best else None,
            "url": f"{base}/games/{item.game.id}",
        }
        for item in due
    ]
    context = _base(
        recipient.name,
        links,
        games=items,
        preheader=ngettext(
            "%(num)s game waits for your turn; %(left)s in the first",
            "%(num)s games wait for your turn; %(left)s in the first",
            len(items),
            left=items[0]["left"],
        ),
    )
    return render_pair("reminders", context)


def _timeouts_left(game: GameFacts, name: str) -> int | None:
    """How many more time-outs in a row the player may have before the next one removes
    them (None: the game's rule removes at the first)."""
    clock = game.clock or {}
    if clock.get("timeout") != "autoplay":
        return None
    return max(0, clock["max_timeouts"] - game.timeouts.get(name, 0))


def timed_out(
    game: GameFacts,
    recipient: Recipient,
    played: LoggedTurn,
    links: Links,
    talk: Sequence[Said] = (),
) -> Rendered:
    """The recipient's time ran out and the service played for them: what, for how many
    points, how many more time-outs before removal, and how to avoid them."""
    context = _game(
        game,
        recipient,
        links,
        talk,
        played=played,
        count=game.timeouts.get(recipient.name, 0),
        remaining=_timeouts_left(game, recipient.name),
        preheader=gettext(
            "Played for you on time-out: %(turn)s (%(points)s)",
            turn=played.notation,
            points=quantities.signed(played.points),
        ),
    )
    return render_pair("timed_out", context)


def removed(
    game: GameFacts,
    recipient: Recipient,
    played: LoggedTurn,
    links: Links,
    talk: Sequence[Said] = (),
) -> Rendered:
    """The recipient was removed from the game on time-out: the game goes on without them,
    or their removal ended it (and why)."""
    context = _game(
        game,
        recipient,
        links,
        talk,
        played=played,
        count=game.timeouts.get(recipient.name, 0),
        why=why_over(game) if game.engine.is_over else None,
        preheader=gettext("You were removed from game %(id)s: your time ran out", id=game.id),
    )
    return render_pair("removed", context)


def auto_vacation(
    game: GameFacts,
    recipient: Recipient,
    bank_days: float,
    links: Links,
    talk: Sequence[Said] = (),
) -> Rendered:
    """The recipient's time ran out and a day of their vacation bank moved the deadline."""
    clock = game.clock or {}
    context = _game(
        game,
        recipient,
        links,
        talk,
        bank=quantities.bank(quantities.bank_hours(bank_days)),
        policy=clock.get("timeout"),
        preheader=gettext(
            "One vacation day taken in game %(id)s; new deadline %(deadline)s",
            id=game.id,
            deadline=times.local(game.deadline, recipient.timezone),
        )
        if game.deadline
        else gettext("One vacation day taken in game %(id)s; no deadline", id=game.id),
    )
    return render_pair("auto_vacation", context)


def _vacation_games(games: Sequence[VacationGame], zone: str) -> dict[str, Any]:
    """The games of a vacation email, those it pauses apart from those it does not, each
    with the reader's deadline there (in their zone) if it is their turn."""
    shown = [
        {
            "id": game.id,
            "opponents": ", ".join(game.opponents),
            "deadline": None if game.deadline is None else times.local(game.deadline, zone),
        }
        for game in games
    ]
    return {
        "paused": [item for item, game in zip(shown, games, strict=True) if game.paused],
        "running": [item for item, game in zip(shown, games, strict=True) if not game.paused],
    }


def vacation_started(
    recipient: Recipient,
    *,
    until: datetime,
    games: Sequence[VacationGame],
    bank_days: float,
    links: Links,
) -> Rendered:
    """The recipient's declared vacation began: until when, the games whose clocks it
    pauses (and those that do not allow vacation), and the bank left."""
    zone = recipient.timezone
    ends = times.local(until, zone)
    context = _base(
        recipient.name,
        links,
        until=ends,
        bank=quantities.bank(quantities.bank_hours(bank_days)),
        **_vacation_games(games, zone),
        preheader=gettext("Your clocks are paused until %(date)s", date=ends),
    )
    return render_pair("vacation_started", context)


def vacation_ended(
    recipient: Recipient,
    *,
    ended: datetime,
    early: bool,
    games: Sequence[VacationGame],
    bank_days: float,
    links: Links,
) -> Rendered:
    """The recipient's declared vacation ended (at its end, or `early` when they ended it):
    the games whose clocks run again with their deadlines, and the bank left."""
    zone = recipient.timezone
    context = _base(
        recipient.name,
        links,
        ended=times.local(ended, zone),
        early=early,
        bank=quantities.bank(quantities.bank_hours(bank_days)),
        **_vacation_games(games, zone),
        preheader=gettext("Your vacation is over: your clocks run again"),
    )
    return render_pair("vacation_ended", context)


def turn_played(
    game: GameFacts, recipient: Recipient, links: Links, talk: Sequence[Said] = ()
) -> Rendered:
    """Another player moved (for players who asked to hear of others' turns)."""
    last = game.recent[-1] if game.recent else None
    return render_pair("turn_played", _game(game, recipient, links, talk, last=last))


def turn_confirmed(
    game: GameFacts,
    recipient: Recipient,
    played: LoggedTurn,
    links: Links,
    talk: Sequence[Said] = (),
) -> Rendered:
    """The answer to an emailed turn that was played: its points, per table, and the draw."""
    preheader = gettext(
        "%(turn)s: %(points)s", turn=played.notation, points=quantities.points(played.points)
    )
    context = _game(game, recipient, links, talk, played=played, preheader=preheader)
    return render_pair("turn_confirmed", context)


def turn_refused(
    game: GameFacts,
    recipient: Recipient,
    *,
    problem: str,
    reason: Words | None,
    read: str | None,
    hints: Sequence[OfferedTurn],
    links: Links,
    earlier: EarlierTurn | None = None,
    talk: Sequence[Said] = (),
) -> Rendered:
    """The answer to an emailed turn that was not played: why, the game now, the hints again.

    `read` is what was taken from the reply (None when nothing was); `hints` are offered
    only when it is the recipient's turn now. `earlier` (for `already_played`) is the turn
    that was played at that version, said with how and when it came in.
    """
    if problem not in REFUSALS:
        raise ValueError(f"unknown refusal {problem!r}")
    if (problem == "already_played") != (earlier is not None):
        raise ValueError("an already played turn, and only that, comes with the earlier turn")
    context = _game(
        game,
        recipient,
        links,
        talk,
        problem=problem,
        reason=None if reason is None else say(reason),
        read=read,
        hints=_hints(game.id, hints),
        earlier=None if earlier is None else earlier_turn(earlier, recipient.timezone),
    )
    return render_pair("turn_refused", context)


#: How a turn came in, as the answer to a late reply says it (`server.models.TurnSource`):
#: the sentence after "already played:", with the turn, its number, points and time.
_SOURCES = {
    "api": N_(
        "you played %(turn)s in turn %(number)s for %(points)s with `cafe` (or the API) on %(at)s."
    ),
    "web": N_(
        "you played %(turn)s in turn %(number)s for %(points)s on the game's page on %(at)s."
    ),
    "email": N_(
        "you played %(turn)s in turn %(number)s for %(points)s. You had answered that email before."
    ),
}


def earlier_turn(earlier: EarlierTurn, zone: str) -> str:
    """How and when the turn a reply came too late for was played, after "already played:";
    a reply that came twice (the turn was played by email) is told so."""
    turn, at = earlier.turn, times.local(earlier.at, zone)
    if turn.kind == "timeout" and turn.removed:
        return gettext("your time ran out, and on %(at)s you were removed from the game.", at=at)
    facts = {
        "turn": turn.notation,
        "number": turn.number,
        "at": at,
        "points": ngettext(
            "%(points)s point", "%(points)s points", abs(turn.points), points=turn.points
        ),
    }
    if turn.kind == "timeout":
        return gettext(
            "your time ran out, and on %(at)s the service played %(turn)s for you in turn "
            "%(number)s (%(points)s).",
            **facts,
        )
    sentence = _SOURCES.get(
        earlier.source or "", N_("you played %(turn)s in turn %(number)s for %(points)s on %(at)s.")
    )
    return gettext(sentence, **facts)


def why_over(game: GameFacts) -> str:
    """Why the game ended, in the players' words (`server.models.why_over`)."""
    return stored_why_over(game.engine, game.ending, game.standings)


def game_over(
    game: GameFacts, recipient: Recipient, links: Links, talk: Sequence[Said] = ()
) -> Rendered:
    """Why the game ended, the final standings with penalties, the revealed seed and how to
    verify the game; the game's page shows it all."""
    standings = [{**line, "how": _how_left(line)} for line in game.standings]
    context = _game(game, recipient, links, talk, why=why_over(game), standings=standings)
    return render_pair("game_over", context)


def _how_left(line: Mapping[str, Any]) -> str:
    """How the player of a standings line left before the end (`resigned`, `removed on
    time`, …), `out` for a line stored before that was kept, or `` for a player still in."""
    if line.get("left"):
        return Departure(line["left"]).words
    return gettext("out") if line["eliminated"] else ""


def digest(
    recipient: Recipient, games: Sequence[DigestGame], links: Links, now: datetime
) -> Rendered:
    """The daily digest: the games waiting for the recipient, each with its deadline, the
    time left at `now` and its page, and (if wanted) others' turns."""
    base = links.base_url.rstrip("/")
    items = [
        {
            "game": item.game,
            "url": f"{base}/games/{item.game.id}",
            "deadline": None
            if item.game.deadline is None
            else times.local(item.game.deadline, recipient.timezone),
            "left": None
            if item.game.deadline is None
            else quantities.time_left(item.game.deadline - now),
            "to_move": item.game.state["players"][item.game.state["to_move"]],
            "your_turn": item.your_turn,
            "best": item.best,
            "command": move_command(item.game.id, item.best.turn) if item.best else None,
            "played": item.played,
            "scores": _scores(item.game),
        }
        for item in games
    ]
    waiting = sum(1 for item in games if item.your_turn)
    return render_pair("digest", _base(recipient.name, links, items=items, waiting=waiting))


def table_talk(
    recipient: Recipient,
    *,
    game_id: int,
    players: Sequence[str],
    talk: Sequence[Said],
    links: Links,
) -> Rendered:
    """The messages of a game's table talk the recipient was not emailed with another email
    of the game (`talk`, oldest first): who wrote what and when, and how to answer by
    replying."""
    zone = recipient.timezone
    context = _base(
        recipient.name,
        links,
        game_id=game_id,
        title=title(game_id, players, recipient.name),
        messages=talk_lines(talk, zone),
        preheader=gettext("%(player)s: %(text)s", player=talk[-1].player, text=talk[-1].text[:80]),
    )
    return render_pair("table_talk", context)


def talk_refused(
    recipient: Recipient, *, game_id: int, reason: Words, text: str, links: Links
) -> Rendered:
    """The answer to an emailed message of table talk that was not posted: why, and the
    beginning of what was read."""
    context = _base(
        recipient.name,
        links,
        game_id=game_id,
        reason=say(reason),
        text=text,
    )
    return render_pair("talk_refused", context)


def reply_unrecognised(*, address: str, links: Links) -> Rendered:
    """The answer to a reply that names no game we can trust: it says nothing of any game."""
    return render_pair("reply_unrecognised", _base(None, links, address=address))


def game_expired(*, game_id: int, seats: int, days: int, links: Links) -> Rendered:
    """To the creator of an open game that expired because nobody joined it."""
    context = _base(None, links, expired_id=game_id, seats=seats, days=days)
    return render_pair("game_expired", context)


def channel_disabled(
    *,
    name: str,
    channel: int,
    service: str,
    host: str,
    error: str,
    links: Links,
    league: str | None = None,
    slug: str | None = None,
) -> Rendered:
    """To a channel's owner: the worker stopped sending to it (its receiver answered 410,
    or failed for three days); `error` is what it last answered. A league's channel
    (`league`, its name, and `slug`): to its organiser, naming the league."""
    context = _base(
        name,
        links,
        channel=channel,
        service=service,
        host=host,
        error=error,
        league_name=league,
        slug=slug,
    )
    return render_pair("channel_disabled", context)


def _scores(game: GameFacts) -> str:
    state = game.state
    return " · ".join(f"{p} {s}" for p, s in zip(state["players"], state["scores"], strict=True))
