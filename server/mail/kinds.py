"""Every kind of email the service sends, what each one is, and who wants it.

`EmailKind` is the outbox's `kind` (a StrEnum: its values are the strings stored in the
outbox rows and the names of the template pairs, so old rows keep working). What used to be
spread over sets in four modules is said once here, per kind (`KindRules`):

- `audience`: which preference decides whether a player gets it (`wants`, the one
  function that decides it, and `why_unwanted`, the reason a skipped row records);
- `current_only`: an event that is out of date once its game moved on (superseded);
- `creator`: an event about an open game for its creator (the row's `seat` is the join
  order of the player who joined, not the recipient's seat);
- `names_turn`: the row's `turn` names the log entry the email tells of (a confirmed turn,
  a turn played or a removal on time-out);
- `signin`: a sign-in email (its code is made when rendered; its body is not kept once sent).

Adding a kind of email: a template pair `templates/email/<kind>.txt|html`, a member here
(with its rules), and a renderer (`server.mail.batch.RENDERERS` for an event rendered by the
worker; a builder in `server.mail.messages` for an email rendered when queued). docs/email.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from server.models import Player, TurnEmails


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


@dataclass(frozen=True, slots=True)
class KindRules:
    """What one kind of email is (see the module's docstring)."""

    audience: Audience
    current_only: bool = False
    creator: bool = False
    names_turn: bool = False
    signin: bool = False


class EmailKind(StrEnum):
    """The kinds of email, by outbox `kind` and template pair."""

    SIGNIN_CODE = "signin_code"
    SIGNIN_AGAIN = "signin_again"  # rendered with the pair `signin_code`
    INVITE = "invite"
    JOIN_ANSWER = "join_answer"
    PLAYER_JOINED = "player_joined"
    TABLE_FULL = "table_full"
    GAME_STARTED = "game_started"
    YOUR_TURN = "your_turn"
    TURN_PLAYED = "turn_played"
    TURN_CONFIRMED = "turn_confirmed"
    TURN_REFUSED = "turn_refused"
    GAME_OVER = "game_over"
    REMINDER = "reminder"  # about several games: the pair `reminders`
    TIMED_OUT = "timed_out"
    REMOVED = "removed"
    AUTO_VACATION = "auto_vacation"
    VACATION_STARTED = "vacation_started"
    VACATION_ENDED = "vacation_ended"
    DIGEST = "digest"
    REPLY_UNRECOGNISED = "reply_unrecognised"
    GAME_EXPIRED = "game_expired"
    LEAGUE_REGISTRATION = "league_registration"
    LEAGUE_SEASON_STARTED = "league_season_started"
    LEAGUE_DIGEST = "league_digest"
    LEAGUE_SEASON_FINISHED = "league_season_finished"
    LEAGUE_REMOVED = "league_removed"
    LEAGUE_PAUSED = "league_paused"
    LEAGUE_RESUMED = "league_resumed"
    LEAGUE_JOINED = "league_joined"
    LEAGUE_JOIN_REFUSED = "league_join_refused"

    @property
    def rules(self) -> KindRules:
        """What this kind is: who wants it, when it is out of date, whom it is for."""
        return RULES[self]


_ALWAYS = KindRules(Audience.ALWAYS)
_GAME_MAIL = KindRules(Audience.GAME_MAIL)

#: The rules of every kind, in one table.
RULES: dict[EmailKind, KindRules] = {
    EmailKind.SIGNIN_CODE: KindRules(Audience.ALWAYS, signin=True),
    EmailKind.SIGNIN_AGAIN: KindRules(Audience.ALWAYS, signin=True),
    EmailKind.INVITE: _GAME_MAIL,
    EmailKind.JOIN_ANSWER: _ALWAYS,
    EmailKind.PLAYER_JOINED: KindRules(Audience.GAME_MAIL, creator=True),
    EmailKind.TABLE_FULL: KindRules(Audience.GAME_MAIL, creator=True),
    EmailKind.GAME_STARTED: _GAME_MAIL,
    EmailKind.YOUR_TURN: KindRules(Audience.EACH, current_only=True),
    EmailKind.TURN_PLAYED: KindRules(Audience.OTHERS, current_only=True),
    EmailKind.TURN_CONFIRMED: KindRules(Audience.ALWAYS, names_turn=True),
    EmailKind.TURN_REFUSED: _ALWAYS,
    EmailKind.GAME_OVER: _GAME_MAIL,
    EmailKind.REMINDER: KindRules(Audience.REMINDERS, current_only=True),
    EmailKind.TIMED_OUT: KindRules(Audience.ALWAYS, names_turn=True),
    EmailKind.REMOVED: KindRules(Audience.ALWAYS, names_turn=True),
    EmailKind.AUTO_VACATION: _ALWAYS,
    EmailKind.VACATION_STARTED: _ALWAYS,
    EmailKind.VACATION_ENDED: _ALWAYS,
    EmailKind.DIGEST: KindRules(Audience.DIGEST),
    EmailKind.REPLY_UNRECOGNISED: _ALWAYS,
    EmailKind.GAME_EXPIRED: _ALWAYS,
    EmailKind.LEAGUE_REGISTRATION: _GAME_MAIL,
    EmailKind.LEAGUE_SEASON_STARTED: _GAME_MAIL,
    EmailKind.LEAGUE_DIGEST: _GAME_MAIL,
    EmailKind.LEAGUE_SEASON_FINISHED: _GAME_MAIL,
    EmailKind.LEAGUE_REMOVED: _GAME_MAIL,
    EmailKind.LEAGUE_PAUSED: _GAME_MAIL,
    EmailKind.LEAGUE_RESUMED: _GAME_MAIL,
    EmailKind.LEAGUE_JOINED: _ALWAYS,
    EmailKind.LEAGUE_JOIN_REFUSED: _ALWAYS,
}


def kinds(**rules: bool) -> frozenset[EmailKind]:
    """The kinds whose rules have these flags, as in `kinds(creator=True)`."""
    return frozenset(
        kind
        for kind, said in RULES.items()
        if all(getattr(said, name) == value for name, value in rules.items())
    )


#: The kinds of email about an open game, for its creator.
CREATOR_KINDS = kinds(creator=True)
#: The kinds of sign-in email.
SIGNIN_KINDS = kinds(signin=True)


def wants(player: Player, kind: str) -> bool:
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
    return True


def why_unwanted(player: Player, kind: str) -> str | None:
    """Why `player` is not sent an email of `kind` (a skipped row's reason), or None."""
    if wants(player, kind):
        return None
    if EmailKind(kind).rules.audience is Audience.REMINDERS:
        return f"{player.name} turned reminders off"
    return f"{player.name} chose turn_emails={player.turn_emails}"
