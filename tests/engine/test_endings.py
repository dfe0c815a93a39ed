"""Why a game ended (`cafe.endings`): the §10 conditions are tested where they happen
(`test_rules_refill_end`); here the correspondence endings, the words of each, and how a
player who left is named (never "eliminated", which is the bar's rule)."""

from __future__ import annotations

import pytest

from cafe import Game
from cafe.endings import Departure, Ending, departures_in, end_condition
from cafe.i18n import gettext, speaking
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
    assert ("eliminated" in how.said("ann")) == (how is Departure.ELIMINATED)


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


def test_in_german_the_reason_keeps_its_word_order_after_because() -> None:
    """Why a game ended is a main clause in every language (the emails put it after a
    colon), so German joins it to "The game ended" with `denn`, which keeps a main clause's
    order; `weil` would need the verb last ("weil die Bar ist voll" is wrong)."""
    game = Game.new(["ann", "bob"], seed="endings")
    game.resign("ann")
    with speaking("de"):
        said = gettext("The game ended because %(why)s.", why=game.why_over())
        full = gettext("The game ended because %(why)s.", why=game.why_over(Ending.BAR_FULL))
    assert said == "Das Spiel endete, denn ann hat aufgegeben, und nur bob war noch im Spiel."
    assert full == "Das Spiel endete, denn die Bar ist voll (alle 20 Plätze sind besetzt)."
