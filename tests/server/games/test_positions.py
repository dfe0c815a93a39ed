"""The engine a process keeps for the games it stored (`server.games.positions`): used only
for the very version and position it was kept with, and always as a copy."""

from __future__ import annotations

from cafe import Game
from server.games import positions


def _played(turns: int) -> Game:
    game = Game.new(["ann", "bob"], seed=7)
    for _ in range(turns):
        game.play(game.legal_turns()[0])
    return game


def test_a_kept_game_is_handed_out_for_its_version_and_position_as_a_copy():
    game = _played(3)
    stored = game.to_position()
    positions.keep(901, 8, stored, game)  # handed over: the caller plays it no more
    first = positions.engine_at(901, 8, stored)
    assert first is not game
    first.play(first.legal_turns()[0])  # a copy handed out does not change the kept one
    second = positions.engine_at(901, 8, stored)
    assert second.to_position() == stored
    assert second.history == []  # the kept engine's own history (3 turns) is not in a copy


def test_another_version_or_position_is_read_from_the_position():
    kept, other = _played(2), _played(4)
    positions.keep(902, 6, kept.to_position(), kept)
    assert positions.engine_at(902, 7, other.to_position()).to_position() == other.to_position()
    # the same version with another snapshot (written behind this process's back)
    assert positions.engine_at(902, 6, other.to_position()).to_position() == other.to_position()


def test_only_the_most_recent_games_are_kept(monkeypatch):
    monkeypatch.setattr(positions, "CAPACITY", 2)
    game = _played(1)
    for game_id in (911, 912, 913):
        positions.keep(game_id, 1, game.to_position(), game)
    assert 911 not in positions._KEPT
    assert {912, 913} <= positions._KEPT.keys()
