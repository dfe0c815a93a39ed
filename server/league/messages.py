"""The league's emails (issue 12 §3), each a pure function of its facts and its recipient,
like the game emails of `server.mail.messages`: registration opened, season started, the
weekly league digest, season finished, and the answers to a `join` reply.

A division's table is drawn here once for both parts: as text lines that fit the text
width (the reader's row marked `>`), and as rows for a simple HTML table of `width:100%`
that fits a phone. `server.league.emails` gathers the facts (`server.league.facts`) and
queues the messages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from cafe.i18n import N_, gettext, ngettext
from cafe.league.table import Move, Placement, TableRow
from cafe.render import quantities
from server.league.facts import LeagueGame, RatingChange, SeasonFacts
from server.league.reasons import (
    AS_THINGS_STAND,
    AS_THINGS_STAND_YOU,
    left_text,
    left_you,
    placement_text,
)
from server.mail import times
from server.mail.templates import Rendered
from server.mail.templates import render as render_pair
from server.postbox.facts import Links, Recipient, Words, say


def join_command(slug: str) -> str:
    """The client command that registers for the league's open season."""
    return f"cafe league join {slug}"


def leave_command(slug: str) -> str:
    """The client command that withdraws from the league's season."""
    return f"cafe league leave {slug}"


def season_url(base_url: str, season: SeasonFacts) -> str:
    """The season's page: its divisions, tables and games."""
    return base_url.rstrip("/") + quantities.season_path(season.slug, season.number)


def season_link(base_url: str, season: SeasonFacts) -> str:
    """The short link to the season's page, for plain text (`quantities.season_short_path`:
    it fits 78 columns with the longest slug and season number)."""
    return base_url.rstrip("/") + quantities.season_short_path(season.slug, season.number)


def clock_text(clock: Mapping[str, Any]) -> str:
    """The league's clock in words: days per turn, what a time-out does, vacations."""
    days = ngettext("%(num)s day a turn", "%(num)s days a turn", clock["days_per_turn"])
    out = (
        ngettext(
            "when time runs out your best turn is played for you, and after %(num)s time-out "
            "in a row you are removed from the game",
            "when time runs out your best turn is played for you, and after %(num)s time-outs "
            "in a row you are removed from the game",
            clock["max_timeouts"],
        )
        if clock["timeout"] == "autoplay"
        else gettext("when time runs out you are removed from the game")
    )
    pause = (
        gettext("vacations pause your clock")
        if clock["vacation"]
        else gettext("vacations do not pause it")
    )
    return gettext("%(days)s; %(out)s; %(pause)s", days=days, out=out, pause=pause)


def _placed(placed: str | None, placed_from: int | None, division: int) -> str:
    """Why the reader plays in `division`, in words; `placed` is a `Placement`, but in a row
    queued before the codes were stored it is the words themselves (English), kept."""
    if placed is None or placed in {reason.value for reason in Placement}:
        return placement_text(placed, placed_from, division)
    return placed


def _arrow(move: Move | None) -> str:
    if move is None:
        return ""
    return "up" if move.to_division < move.from_division else "down"


def table_rows(
    rows: Sequence[TableRow], reader: str, moves: Sequence[Move] = ()
) -> list[dict[str, Any]]:
    """A division's ordered table as the templates show it: place (None for a player who
    left, listed last), points in words, whether the row is the reader's, how the player
    left (`withdrew`, …, or ``) and where they move (`up`, `down` or ``)."""
    moving = {move.player: move for move in moves}
    return [
        {
            "place": None if row.withdrawn else place,
            "player": row.player,
            "points": quantities.league_points(row.points),
            "score_sum": row.score_sum,
            "wins": row.wins,
            "played": row.played,
            "you": row.player == reader,
            "withdrawn": row.withdrawn,
            "left": left_text(row.left),
            "how": row.left,
            "move": _arrow(moving.get(row.player)),
        }
        for place, row in enumerate(rows, 1)
    ]


#: The text table's columns before its note, and the width a line may reach.
_TABLE_WIDTH = 78


#: The text table's column heads and their narrowest widths (a longer head widens its column).
_COLUMNS = (
    (N_("player"), 24),
    (N_("points"), 6),
    (N_("score"), 6),
    (N_("won"), 4),
    (N_("games"), 6),
)


def _moves() -> dict[str, str]:
    """The note of a player who moves to another division next season."""
    return {"up": gettext("moves up"), "down": gettext("moves down")}


def table_text(shown: Sequence[Mapping[str, Any]]) -> list[str]:
    """The text part's table: a header and one line per row (names are at most 24
    characters); the reader's row starts with `>`, a player who left has `-` for a place
    and how they left as a note, on a line of its own where it would pass 78 columns. No
    head is cut: a column is as wide as its head in the reader's language."""
    heads = [gettext(word) for word, _width in _COLUMNS]
    player_w, points_w, score_w, won_w, games_w = (
        max(width, len(head)) for head, (_word, width) in zip(heads, _COLUMNS, strict=True)
    )
    player, points, score, won, games = heads
    lines = [
        f"    {'#':>2}  {player:<{player_w}} {points:>{points_w}} {score:>{score_w}} "
        f"{won:>{won_w}} {games:>{games_w}}"
    ]
    for row in shown:
        note = row["left"] or _moves().get(row["move"], "")
        place = "-" if row["place"] is None else row["place"]
        line = (
            f"  {'>' if row['you'] else ' '} {place:>2}  {row['player']:<{player_w}} "
            f"{row['points']:>{points_w}} {row['score_sum']:>{score_w}} {row['wins']:>{won_w}} "
            f"{row['played']:>{games_w}}"
        )
        if len(line) + 2 + len(note) <= _TABLE_WIDTH:
            lines.append(f"{line}  {note}".rstrip())
        else:
            lines += [line, f"{' ' * 8}({note})"]
    return lines


def _base(
    recipient: Recipient, season: SeasonFacts, links: Links, **context: Any
) -> dict[str, Any]:
    base_url = links.base_url.rstrip("/")
    return {
        "name": recipient.name,
        "base_url": base_url,
        "reply_to": links.reply_to,
        "unsubscribe": links.unsubscribe,
        "game_id": None,
        "preheader": "",
        "season": season,
        "season_url": season_url(base_url, season),
        "season_link": season_link(base_url, season),
        "join": join_command(season.slug),
        "leave": leave_command(season.slug),
        "clock": clock_text(season.clock),
        **context,
    }


def _games(games: Sequence[LeagueGame], reader: str, zone: str) -> list[dict[str, Any]]:
    return [
        {
            "id": game.id,
            "opponents": ", ".join(name for name in game.players if name != reader),
            "to_move": game.to_move,
            "your_move": game.to_move == reader,
            "deadline": None if game.deadline is None else times.local(game.deadline, zone),
        }
        for game in games
    ]


def registration(
    recipient: Recipient, season: SeasonFacts, *, registered: bool, links: Links
) -> Rendered:
    """Registration for the season is open: a returning member is told they are registered
    and how to withdraw; anyone else how to join (the command, or a reply of `join`)."""
    context = _base(
        recipient,
        season,
        links,
        registered=registered,
        preheader=gettext(
            "You are registered for season %(season)s; to withdraw: %(command)s",
            season=season.number,
            command=leave_command(season.slug),
        )
        if registered
        else gettext(
            "Reply %(word)s, or run %(command)s", word="join", command=join_command(season.slug)
        ),
    )
    return render_pair("league_registration", context)


#: A turn in the notation, as the examples of a reply's `GAME: TURN` lines show it.
TURN_EXAMPLE = "ESm@ES1"


def season_started(
    recipient: Recipient,
    season: SeasonFacts,
    *,
    division: int,
    placed: str | None,
    placed_from: int | None = None,
    refilled: bool = False,
    players: Sequence[str],
    games: Sequence[LeagueGame],
    links: Links,
) -> Rendered:
    """The season has started — the one email a member gets for it, not one per game:
    their division and why they are in it (`placed`, a `Placement`, from division
    `placed_from`, said by `reasons.placement_text`; `refilled`: the refilling of the
    divisions placed them elsewhere than announced), their opponents, their games (with
    links, who moves first, their first deadline where they do) and the clock."""
    zone = recipient.timezone
    shown = _games(games, recipient.name, zone)
    context = _base(
        recipient,
        season,
        links,
        division=division,
        placed=_placed(placed, placed_from, division),
        refilled=refilled,
        opponents=[name for name in players if name != recipient.name],
        games=shown,
        first=[game for game in shown if game["your_move"]],
        turn_example=TURN_EXAMPLE,
        preheader=ngettext(
            "Division %(division)s: %(num)s game, starting now",
            "Division %(division)s: %(num)s games, all starting now",
            len(shown),
            division=division,
        ),
    )
    return render_pair("league_season_started", context)


def digest(
    recipient: Recipient,
    season: SeasonFacts,
    *,
    division: int,
    rows: Sequence[TableRow],
    waiting: Sequence[LeagueGame],
    links: Links,
) -> Rendered:
    """The weekly league digest: the division's table now and the recipient's games that
    wait for their move, with the deadlines in their zone."""
    shown = table_rows(rows, recipient.name)
    games = _games(waiting, recipient.name, recipient.timezone)
    context = _base(
        recipient,
        season,
        links,
        division=division,
        table=shown,
        table_text=table_text(shown),
        waiting=games,
        preheader=ngettext(
            "%(num)s league game waits for you", "%(num)s league games wait for you", len(games)
        )
        if games
        else gettext("No league game waits for you"),
    )
    return render_pair("league_digest", context)


def _rating(change: RatingChange) -> dict[str, str]:
    before, after = change.before, change.after
    return {
        "mu": quantities.rating(after.mu),
        "sigma": quantities.rating(after.sigma),
        "ordinal": quantities.rating(after.ordinal),
        "change": quantities.rating_change(after.ordinal - before.ordinal),
        "before": quantities.rating(before.ordinal),
    }


def season_finished(
    recipient: Recipient,
    season: SeasonFacts,
    *,
    division: int,
    rows: Sequence[TableRow],
    moves: Sequence[Move],
    rating: RatingChange,
    links: Links,
) -> Rendered:
    """The season is over: the final table of the recipient's division, who moves up and
    down (all divisions) as things stand — refilling the divisions at the next start can
    change it — and the recipient's new rating with its change over the season. A member
    who left the season gets it too, told how they left instead of a place."""
    shown = table_rows(rows, recipient.name, [m for m in moves if m.from_division == division])
    me = next(row for row in shown if row["you"])
    gone = left_you(me["how"]) if me["how"] else ""
    mine = next((m for m in moves if m.player == recipient.name), None)
    context = _base(
        recipient,
        season,
        links,
        division=division,
        table=shown,
        table_text=table_text(shown),
        place=me["place"],
        left=me["left"],
        left_you=gone,
        up=[m for m in moves if m.to_division < m.from_division],
        down=[m for m in moves if m.to_division > m.from_division],
        mine=mine,
        moving=_arrow(mine),
        as_things_stand=gettext(AS_THINGS_STAND),
        as_things_stand_you=gettext(AS_THINGS_STAND_YOU),
        rating=_rating(rating),
        preheader=gettext(
            "Final table of division %(division)s: %(how)s", division=division, how=gone
        )
        if me["left"]
        else gettext(
            "Final table: you placed %(place)s in division %(division)s",
            place=me["place"],
            division=division,
        ),
    )
    return render_pair("league_season_finished", context)


def joined(recipient: Recipient, season: SeasonFacts, *, links: Links) -> Rendered:
    """The answer to a `join` reply that registered the recipient."""
    context = _base(
        recipient,
        season,
        links,
        preheader=gettext("To withdraw: %(command)s", command=leave_command(season.slug)),
    )
    return render_pair("league_joined", context)


def join_refused(
    recipient: Recipient, season: SeasonFacts, *, reason: Words, links: Links
) -> Rendered:
    """The answer to a reply to a registration email that registered no one: why."""
    said = say(reason)
    context = _base(recipient, season, links, reason=said, preheader=said)
    return render_pair("league_join_refused", context)


def turns_refused(
    recipient: Recipient, season: SeasonFacts, *, reason: Words, example: str, links: Links
) -> Rendered:
    """The answer to a reply to the season's start email about what it could not play (a
    game not the recipient's in the season, or no `GAME: TURN` line): why (each game's
    reason), and the form."""
    said = say(reason)
    context = _base(recipient, season, links, reason=said, example=example, preheader=said)
    return render_pair("league_turns_refused", context)


def removed(
    recipient: Recipient,
    season: SeasonFacts,
    *,
    reason: str,
    running: bool,
    resigned: Sequence[int],
    links: Links,
) -> Rendered:
    """The organiser removed the recipient from the season (`running`: from a season under
    way, their running games of it `resigned`; else from its registration), and why."""
    context = _base(
        recipient,
        season,
        links,
        reason=reason,
        running=running,
        resigned=list(resigned),
        preheader=gettext("The organiser removed you: %(reason)s", reason=reason),
    )
    return render_pair("league_removed", context)


def paused(recipient: Recipient, season: SeasonFacts, *, reason: str, links: Links) -> Rendered:
    """The organiser paused every clock of the season's games, and why."""
    context = _base(
        recipient,
        season,
        links,
        reason=reason,
        preheader=gettext("Every clock is stopped: %(reason)s", reason=reason),
    )
    return render_pair("league_paused", context)


def resumed(
    recipient: Recipient,
    season: SeasonFacts,
    *,
    paused_for: timedelta,
    waiting: Sequence[LeagueGame],
    links: Links,
) -> Rendered:
    """The season's clocks run again: how long they were stopped (every deadline moved back
    by it) and the recipient's games waiting for their move, with their new deadlines."""
    shown = _games(waiting, recipient.name, recipient.timezone)
    context = _base(
        recipient,
        season,
        links,
        paused_for=quantities.duration(paused_for),
        games=shown,
        preheader=gettext(
            "Deadlines moved back by %(duration)s", duration=quantities.duration(paused_for)
        ),
    )
    return render_pair("league_resumed", context)
