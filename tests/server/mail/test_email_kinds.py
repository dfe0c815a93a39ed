"""The kinds of email are one list (`server.postbox.kinds.EmailKind`): each has its rules, its
template pair and, when the worker renders it, its renderer; whether a player wants one is
decided by one function, as the table in `server.games.notify` says."""

from __future__ import annotations

import pytest
from mail_support import sample_emails

from server.games.notify import change_events
from server.mail.batch import RENDERERS
from server.models import Player, TurnEmails
from server.postbox.kinds import CREATOR_KINDS, SIGNIN_KINDS, EmailKind, kinds, wants

#: The kinds whose email is rendered with another pair, and the pair no kind is named for.
SHARED_PAIRS = {"signin_again": "signin_code"}
MORE_GAMES_PAIR = "reminders"  # a reminder about several games


def test_every_kind_has_its_template_pair_and_every_pair_is_a_kind():
    shipped = sample_emails().shipped_kinds()
    named = {kind.value for kind in EmailKind}
    assert named - shipped == set(SHARED_PAIRS) and set(SHARED_PAIRS.values()) <= shipped
    assert shipped - named == {MORE_GAMES_PAIR}


def test_every_event_a_game_change_queues_has_a_renderer():
    state = {"players": ["ann", "bob", "cid"], "to_move": 1}
    queued = {
        event.kind
        for finished in (False, True)
        for mover in (None, 0)
        for timed_out in (None, "timed_out", "removed", "auto_vacation")
        for event in change_events(
            game_id=1,
            version=2,
            state=state,
            finished=finished,
            mover=mover,
            turn=3,
            timed_out=timed_out,
        )
    }
    assert queued | CREATOR_KINDS | {EmailKind.REMINDER} <= set(RENDERERS)


def test_a_kind_is_its_outbox_string():
    assert EmailKind("your_turn") is EmailKind.YOUR_TURN and EmailKind.YOUR_TURN == "your_turn"
    assert f"{EmailKind.LEAGUE_DIGEST}" == "league_digest"


def test_the_flags_name_the_kinds_they_did_before():
    assert kinds(current_only=True) == {"your_turn", "turn_played", "reminder"}
    assert kinds(creator=True) == CREATOR_KINDS == {"player_joined", "table_full"}
    assert kinds(names_turn=True) == {"turn_confirmed", "timed_out", "removed"}
    assert kinds(signin=True) == SIGNIN_KINDS == {"signin_code", "signin_again"}


def player(turn_emails: str, *, others: bool = False, reminders: bool = True) -> Player:
    return Player(
        id=1,
        name="ann",
        email="ann@example.com",
        turn_emails=turn_emails,
        others_turns=others,
        reminders=reminders,
    )


@pytest.mark.parametrize(
    ("kind", "each", "digest", "none"),
    [
        ("invite", True, True, False),
        ("game_started", True, True, False),
        ("game_over", True, True, False),
        ("player_joined", True, True, False),
        ("your_turn", True, False, False),
        ("turn_confirmed", True, True, True),
        ("turn_refused", True, True, True),
        ("timed_out", True, True, True),
        ("digest", False, True, False),
        ("league_season_started", True, True, False),
        ("league_joined", True, True, True),
        ("signin_code", True, True, True),
    ],
)
def test_who_wants_which_kind(kind, each, digest, none):
    said = [wants(player(choice), kind) for choice in TurnEmails]
    assert said == [each, digest, none]


def test_another_players_turn_needs_others_turns_and_each():
    assert wants(player("each", others=True), "turn_played")
    assert not wants(player("each"), "turn_played")
    assert not wants(player("digest", others=True), "turn_played")


def test_a_reminder_follows_the_reminders_preference_alone():
    assert wants(player("none"), "reminder")
    assert not wants(player("each", reminders=False), "reminder")
