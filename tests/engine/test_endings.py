"""Why a game ended (`cafe.endings`): the §10 conditions are tested where they happen
(`test_rules_refill_end`); here the correspondence endings, the words of each, and how a
player who left is named (never "eliminated", which is the bar's rule)."""

from __future__ import annotations

import re

import pytest

from cafe import Game
from cafe.endings import Departure, Ending, departures_in, end_condition
from cafe.i18n import speaking
from cafe.position import load


def test_the_last_opponent_leaving_ends_the_game_as_others_left() -> None:
    game = Game.new(["ann", "bob", "cid"], seed="endings")
    game.resign("bob")
    assert not game.is_over and game.ending is None
    game.resign("cid", timeout=True)
    assert game.ending is Ending.OTHERS_LEFT
    assert game.why_over(departures={"cid": Departure.TIMED_OUT}) == (
        "cid was removed on time, and only ann was still in the game"
    )
    assert game.why_over(departures={"cid": Departure.WITHDREW}) == (
        "cid withdrew from the season, and only ann was still in the game"
    )


def test_a_position_without_its_history_reads_the_rules_and_a_stored_ending_wins() -> None:
    game = Game.new(["ann", "bob"], seed="endings")
    game.resign("bob")
    reloaded = Game.from_position(game.to_position())
    assert reloaded.ending is Ending.LAST_IN_GAME  # it cannot know bob resigned
    assert end_condition(load(game.to_position())) is Ending.LAST_IN_GAME
    assert reloaded.why_over(Ending.OTHERS_LEFT, {"bob": Departure.RESIGNED}) == (
        "bob resigned, and only ann was still in the game"
    )
    assert reloaded.why_over(Ending.ADJUDICATED) == (
        "the league's organiser adjudicated it, ending it with the standings as they were"
    )


def test_a_running_game_has_no_ending() -> None:
    game = Game.new(["ann", "bob"], seed="endings")
    assert game.ending is None and end_condition(load(game.to_position())) is None
    assert game.why_over() == "the game is not over"


@pytest.mark.parametrize("how", list(Departure))
def test_only_the_bar_eliminates(how: Departure) -> None:
    assert ("eliminated" in how.words) == (how is Departure.ELIMINATED)
    assert ("eliminated" in how.sentence("ann")) == (how is Departure.ELIMINATED)


def test_every_ending_has_its_words() -> None:
    game = Game.new(["ann", "bob"], seed="endings")
    game.resign("bob")
    texts = {ending: game.why_over(ending, {"bob": Departure.RESIGNED}) for ending in Ending}
    assert len(set(texts.values())) == len(Ending)
    assert texts[Ending.BAR_FULL] == "the bar is full (all 20 stools are taken)"
    assert texts[Ending.CHAIRS_FULL] == "there is no free chair left (all 68 are taken)"
    assert texts[Ending.BAG_LOW] == "the bag is nearly empty (4 tiles or fewer are left)"


def test_departures_are_read_from_stored_standings() -> None:
    lines = [
        {"player": "ann", "left": None},
        {"player": "bob", "left": "withdrew"},
        {"player": "cid"},  # a line stored before `left` was kept
    ]
    assert departures_in(lines) == {"bob": Departure.WITHDREW}


def test_how_a_player_left_is_one_sentence_in_each_language() -> None:
    """`Departure.sentence` says the whole sentence, the player's name inside it, in the
    language in use: nothing English is glued to a translated word."""
    english = {how: how.sentence("ann") for how in Departure}
    assert english[Departure.TIMED_OUT] == "ann was removed on time"
    assert english[Departure.WITHDREW] == "ann withdrew from the season"
    for language in ("cs", "de", "ru"):
        with speaking(language):
            said = {how: how.sentence("ann") for how in Departure}
            marks = {how: how.words for how in Departure}
        for how in Departure:
            assert "ann" in said[how] and said[how] != english[how], (language, said[how])
            assert marks[how] != how.words, (language, marks[how])


@pytest.mark.parametrize("language", ["cs", "de", "ru"])
def test_why_a_game_ended_is_said_in_the_language_in_use(language: str) -> None:
    game = Game.new(["ann", "bob", "cid"], seed="endings")
    game.resign("bob")
    game.resign("cid", timeout=True)
    departures = {"bob": Departure.RESIGNED, "cid": Departure.TIMED_OUT}
    english = {ending: game.why_over(ending, departures) for ending in Ending}
    with speaking(language):
        said = {ending: game.why_over(ending, departures) for ending in Ending}
        running = Game.new(["ann", "bob"], seed="endings").why_over()
    assert running != "the game is not over"
    for ending in Ending:
        assert said[ending] != english[ending], (ending, said[ending])
        assert not re.search(r"\b(the|was|and|left|still)\b", said[ending]), said[ending]
    assert "cid" in said[Ending.OTHERS_LEFT] and "ann" in said[Ending.OTHERS_LEFT]
