"""Every kind of email the service sends, what each one is, and who wants it.

`EmailKind` is the outbox's `kind` (a StrEnum: its values are the strings stored in the
outbox rows and the names of the template pairs, so old rows keep working). What used to be
spread over sets in four modules each member says once, in its rules (`KindRules`):

- `audience`: which preference decides whether a player gets it (`wants`, the one
  function that decides it, and `why_unwanted`, the reason a skipped row records);
- `current_only`: an event that is out of date once its game moved on (superseded);
- `creator`: an event about an open game for its creator (the row's `seat` is the join
  order of the player who joined, not the recipient's seat);
- `names_turn`: the row's `turn` names the log entry the email tells of (a confirmed turn,
  a turn played or a removal on time-out);
- `signin`: a sign-in email (its code is made when rendered; its body is not kept once sent);
- `talk`: an email about a game that quotes the game's table talk its reader has not been
  emailed yet (`server.games.talk`).

Adding a kind of email: a template pair `templates/email/<kind>.txt|html`, a member here
(with its rules), and a renderer: `server.mail.batch.RENDERERS` for an event about a game,
`server.mail.notices.BUILDERS` for a notice (the facts of a moment); the worker renders
either when it sends it. docs/email.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, overload

from server.models import Player, TalkEmails, TurnEmails


class Audience(StrEnum):
    """Which of a player's preferences decides whether an email goes to them."""

    #: sent whatever the preferences say: sign-in codes, answers to the player's own
    #: emails, the notices of what the service did on their time-out or vacation
    ALWAYS = "always"
    #: game and league mail: not to a player who chose `turn_emails = none`
    GAME_MAIL = "game_mail"
    #: "your turn": only with `turn_emails = each` (a digest player reads it in the digest)
    EACH = "each"
    #: another player's turn: `turn_emails = each` and `others_turns`
    OTHERS = "others"
    #: the daily digest: `turn_emails = digest`
    DIGEST = "digest"
    #: a deadline reminder: the `reminders` preference alone
    REMINDERS = "reminders"
    #: the table talk of a game: `talk_emails` not `off`, and game mail (not
    #: `turn_emails = none`, which the one-click unsubscribe sets)
    TALK = "talk"


@dataclass(frozen=True, slots=True)
class KindRules:
    """What one kind of email is (see the module's docstring)."""

    audience: Audience
    current_only: bool = False
    creator: bool = False
    names_turn: bool = False
    signin: bool = False
    talk: bool = False


_ALWAYS = KindRules(Audience.ALWAYS)
_GAME_MAIL = KindRules(Audience.GAME_MAIL)
_GAME_TALK = KindRules(Audience.GAME_MAIL, talk=True)
_ALWAYS_TALK = KindRules(Audience.ALWAYS, talk=True)


class EmailKind(StrEnum):
    """The kinds of email, by outbox `kind` and template pair, each with its rules."""

    rules: KindRules

    # Two ways of calling the class: once the class is made, `EmailKind("digest")` looks a
    # member up by its value (Enum's metaclass answers it); while it is made, each member's
    # `value, rules` pair comes here. Both are spelt out, or mypy would read every lookup as
    # a call missing its `rules`.
    @overload
    def __new__(cls, value: str) -> EmailKind: ...
    @overload
    def __new__(cls, value: str, rules: KindRules) -> EmailKind: ...
    def __new__(cls, value: str, rules: KindRules | None = None) -> EmailKind:
        assert rules is not None, "only a member's definition is made here"
        kind = str.__new__(cls, value)
        kind._value_ = value
        kind.rules = rules
        return kind

    SIGNIN_CODE = "signin_code", KindRules(Audience.ALWAYS, signin=True)
    #: the answer to a registration of an address that has an account: the pair `signin_code`
    SIGNIN_AGAIN = "signin_again", KindRules(Audience.ALWAYS, signin=True)
    INVITE = "invite", _GAME_MAIL
    JOIN_ANSWER = "join_answer", _ALWAYS
    PLAYER_JOINED = "player_joined", KindRules(Audience.GAME_MAIL, creator=True)
    TABLE_FULL = "table_full", KindRules(Audience.GAME_MAIL, creator=True)
    GAME_STARTED = "game_started", _GAME_TALK
    YOUR_TURN = "your_turn", KindRules(Audience.EACH, current_only=True, talk=True)
    TURN_PLAYED = "turn_played", KindRules(Audience.OTHERS, current_only=True, talk=True)
    TURN_CONFIRMED = "turn_confirmed", KindRules(Audience.ALWAYS, names_turn=True, talk=True)
    TURN_REFUSED = "turn_refused", _ALWAYS_TALK
    GAME_OVER = "game_over", _GAME_TALK
    #: about one game; about several (`more_games`), the pair `reminders`
    REMINDER = "reminder", KindRules(Audience.REMINDERS, current_only=True, talk=True)
    TIMED_OUT = "timed_out", KindRules(Audience.ALWAYS, names_turn=True, talk=True)
    REMOVED = "removed", KindRules(Audience.ALWAYS, names_turn=True, talk=True)
    AUTO_VACATION = "auto_vacation", _ALWAYS_TALK
    #: the messages of a game's table talk its reader was not emailed with another email
    #: (queued by `server.jobs.talk_mail` when they are due alone)
    TABLE_TALK = "table_talk", KindRules(Audience.TALK, talk=True)
    #: the answer to an emailed message of table talk that was not posted
    TALK_REFUSED = "talk_refused", _ALWAYS
    VACATION_STARTED = "vacation_started", _ALWAYS
    VACATION_ENDED = "vacation_ended", _ALWAYS
    DIGEST = "digest", KindRules(Audience.DIGEST)
    REPLY_UNRECOGNISED = "reply_unrecognised", _ALWAYS
    GAME_EXPIRED = "game_expired", _ALWAYS
    #: to a channel's owner: the worker disabled it (issue 26)
    CHANNEL_DISABLED = "channel_disabled", _ALWAYS
    LEAGUE_REGISTRATION = "league_registration", _GAME_MAIL
    LEAGUE_SEASON_STARTED = "league_season_started", _GAME_MAIL
    LEAGUE_DIGEST = "league_digest", _GAME_MAIL
    LEAGUE_SEASON_FINISHED = "league_season_finished", _GAME_MAIL
    LEAGUE_REMOVED = "league_removed", _GAME_MAIL
    LEAGUE_PAUSED = "league_paused", _GAME_MAIL
    LEAGUE_RESUMED = "league_resumed", _GAME_MAIL
    LEAGUE_JOINED = "league_joined", _ALWAYS
    LEAGUE_JOIN_REFUSED = "league_join_refused", _ALWAYS
    #: the answer to a reply to a season's start email whose `GAME: TURN` lines it could not play
    LEAGUE_TURNS_REFUSED = "league_turns_refused", _ALWAYS


def kinds(**rules: bool) -> frozenset[EmailKind]:
    """The kinds whose rules have these flags, as in `kinds(creator=True)`."""
    return frozenset(
        kind
        for kind in EmailKind
        if all(getattr(kind.rules, name) == value for name, value in rules.items())
    )


#: The kinds of email about an open game, for its creator.
CREATOR_KINDS = kinds(creator=True)
#: The kinds of sign-in email.
SIGNIN_KINDS = kinds(signin=True)


class Preferences(Protocol):
    """What `wants` reads of a player: a `Player`, or a change's reader
    (`server.postbox.recipients.Reader`)."""

    @property
    def turn_emails(self) -> TurnEmails: ...
    @property
    def others_turns(self) -> bool: ...
    @property
    def reminders(self) -> bool: ...
    @property
    def talk_emails(self) -> TalkEmails: ...


def wants(player: Preferences, kind: str) -> bool:
    """Whether `player`'s preferences want an email of `kind` (the one place this is said)."""
    audience = EmailKind(kind).rules.audience
    if audience is Audience.REMINDERS:
        return player.reminders
    if audience is Audience.DIGEST:
        return player.turn_emails == TurnEmails.DIGEST
    if audience is Audience.EACH:
        return player.turn_emails == TurnEmails.EACH
    if audience is Audience.OTHERS:
        return player.turn_emails == TurnEmails.EACH and player.others_turns
    if audience is Audience.GAME_MAIL:
        return player.turn_emails != TurnEmails.NONE
    if audience is Audience.TALK:
        return player.talk_emails != TalkEmails.OFF and player.turn_emails != TurnEmails.NONE
    return True


def why_unwanted(player: Player, kind: str) -> str | None:
    """Why `player` is not sent an email of `kind` (a skipped row's reason), or None."""
    if wants(player, kind):
        return None
    if EmailKind(kind).rules.audience is Audience.REMINDERS:
        return f"{player.name} turned reminders off"
    if EmailKind(kind).rules.audience is Audience.TALK and player.talk_emails == TalkEmails.OFF:
        return f"{player.name} chose talk_emails={player.talk_emails}"
    return f"{player.name} chose turn_emails={player.turn_emails}"
