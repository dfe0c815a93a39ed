"""Game records (``cafe.record``): write → replay → write is the identity, replay rebuilds the
game exactly (or, without the seed, its visible state), and ``verify`` refuses every kind of
tampering with the line it happened on."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import cache

import pytest

from cafe import CafeError, Game, Options, Turn, TurnKind
from cafe.board import PRIVATE_CHAIRS
from cafe.bots import GreedyBot, RandomBot, play_out
from cafe.notation import CHAIR_REFS
from cafe.record import RecordError, VerifyReport, replay, verify, write
from cafe.tiles import ALL_TILES

NAMES = ("ann", "bob", "cid", "dan")
VARIANTS = Options(birthday=20, coffee_klatsch=True)


def _seed_with_eliminations(wanted: int = 2) -> int:
    """The first seed whose random 4-player game sends ``wanted`` players out at the bar."""
    for seed in range(500):
        game = play_out(Game.new(list(NAMES), seed=seed), RandomBot(seed))
        if sum(game.eliminated) >= wanted:
            return seed
    raise AssertionError("no seed below 500 eliminates two players")


ELIMINATIONS = (_seed_with_eliminations(), 4, "random", Options())

# (seed, players, bot, options): 2–4 players, both bots, with and without the variants.
CASES = [
    (
        seed,
        2 + seed % 3,
        "random" if seed % 2 else "greedy",
        VARIANTS if seed % 4 >= 2 else Options(),
    )
    for seed in range(12)
] + [ELIMINATIONS]


def _case_id(case: tuple[int, int, str, Options]) -> str:
    seed, players, bot, options = case
    return f"seed{seed}-{players}p-{bot}{'-variants' if options != Options() else ''}"


@cache
def _finished(seed: int, players: int, bot: str, options: Options) -> Game:
    """A game played to its end; cached, so tests must not play on it."""
    game = Game.new(list(NAMES[:players]), seed=seed, options=options)
    return play_out(game, RandomBot(seed) if bot == "random" else GreedyBot())


def _partial(game: Game, turns: int) -> Game:
    """The same game (same seed) after its first ``turns`` turns."""
    again = Game.new(list(game.players), seed=game.seed, options=game.options)
    for result in game.history[:turns]:
        again.play(result.turn)
    return again


def _visible(game: Game) -> dict[str, object]:
    """The position without the secret order of the bag."""
    position = game.to_position()
    position["bag"] = sorted(position["bag"])
    return position


def _line_of(text: str, prefix: str) -> int:
    """The 1-based number of the first line starting with ``prefix``."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(prefix))


def _replace_line(text: str, number: int, new: str) -> str:
    lines = text.splitlines()
    lines[number - 1] = new
    return "\n".join(lines) + "\n"


def _insert_line(text: str, number: int, new: str) -> str:
    lines = text.splitlines()
    lines.insert(number - 1, new)
    return "\n".join(lines) + "\n"


def _refused(text: str, line: int, *words: str) -> RecordError:
    """``verify`` refuses the record at ``line`` with a reason containing ``words``."""
    with pytest.raises(RecordError) as caught:
        verify(text)
    error = caught.value
    assert error.line == line, str(error)
    assert str(error).startswith(f"line {line}: ")
    for word in words:
        assert word in error.reason, str(error)
    return error


# --- round trips ------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_finished_record_replays_to_the_same_game(case: tuple[int, int, str, Options]) -> None:
    game = _finished(*case)
    text = write(game, reveal_seed=True)
    again = replay(text)
    assert write(again, reveal_seed=True) == text
    assert again.to_position() == game.to_position()
    assert again.history == game.history
    assert again.deal == game.deal
    assert (again.seed, again.commitment) == (game.seed, game.commitment)
    assert again.standings() == game.standings()
    assert game.to_record() == text  # a finished game reveals its seed by default
    assert Game.from_record(text).to_position() == game.to_position()


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_record_in_progress_replays_to_the_same_visible_state(
    case: tuple[int, int, str, Options],
) -> None:
    original = _finished(*case)
    game = _partial(original, len(original.history) // 2)
    text = write(game, reveal_seed=False)
    assert "[Seed " not in text and "[Result " not in text
    assert game.to_record() == text  # a game in progress keeps its seed by default
    again = replay(text)
    assert _visible(again) == _visible(game)
    assert again.history == game.history
    assert again.seed is None and again.commitment == game.commitment
    assert write(again, reveal_seed=False) == text
    revealed = replay(write(game, reveal_seed=True))
    assert revealed.to_position() == game.to_position()


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_verify_accepts_a_finished_record(case: tuple[int, int, str, Options]) -> None:
    game = _finished(*case)
    report = verify(write(game, reveal_seed=True))
    assert report == VerifyReport(
        players=game.players,
        turns=len(game.history),
        commitment=game.commitment,
        standings=tuple(game.standings()),
    )
    assert f"{len(game.history)} turns" in str(report)


def test_the_format_reads_as_documented() -> None:
    game = _finished(*ELIMINATIONS)
    text = write(game, reveal_seed=True)
    lines = text.splitlines()
    assert lines[0] == f'[Players "{" ".join(game.players)}"]'
    assert lines[1] == '[Options "none"]'
    assert lines[2] == f'[Commitment "{game.commitment}"]'
    assert lines[3] == f'[Seed "{game.seed.hex()}"]'
    assert lines[4] == f'[Deal "{" / ".join(" ".join(hand) for hand in game.deal)}"]'
    assert lines[5].startswith('[Result "1. ') and "(eliminated)" in lines[5]
    assert lines[6] == ""
    first = game.history[0]
    assert lines[7] == f"1. {first.player}: {first.turn} | {first.points:+d} | drew " + " ".join(
        first.drawn
    )
    out = next(n for n, result in enumerate(game.history, 1) if result.eliminated)
    assert lines[6 + out].endswith(" | +0 | eliminated")
    assert write(_finished(2, 4, "greedy", VARIANTS), reveal_seed=False).splitlines()[1] == (
        '[Options "birthday=20 coffee_klatsch"]'
    )


class _ModifierBot:
    """Greedy, but seat 0 writes ``noshrink`` on its seatings that complete a table and the
    first player over the birthday threshold names Italy."""

    def choose(self, game: Game) -> Turn:
        turn = GreedyBot().choose(game)
        if game.to_move == 0 and turn.kind is TurnKind.SEAT and game.copy().play(turn).completed:
            turn = replace(turn, noshrink=True)
        if game.birthday_player == game.to_move and game.birthday_nation is None:
            turn = replace(turn, birthday="IT")
        return turn


@pytest.mark.parametrize(("seed", "players"), [(18, 2), (22, 3), (8, 4)])
def test_modifiers_and_coffee_klatsch_round_trip(seed: int, players: int) -> None:
    game = Game.new(list(NAMES[:players]), seed=seed, options=VARIANTS)
    play_out(game, _ModifierBot())
    assert any(len(result.turn.placements) > 2 for result in game.history)
    assert any(table.birthday for result in game.history for table in result.tables)
    text = write(game, reveal_seed=True)
    assert " noshrink |" in text and " birthday=IT |" in text
    assert replay(text).to_position() == game.to_position()
    assert write(replay(text), reveal_seed=True) == text


class _HighChairBot:
    """Greedy, but a single guest for a private chair takes the table's highest free one."""

    def choose(self, game: Game) -> Turn:
        turn = GreedyBot().choose(game)
        if turn.kind is not TurnKind.SEAT or len(turn.placements) != 1:
            return turn
        placement = turn.placements[0]
        if placement.chair.shared:
            return turn
        free = [c for c in PRIVATE_CHAIRS[placement.chair.tables[0]] if c not in game.chair_tiles]
        return replace(turn, placements=(replace(placement, chair=CHAIR_REFS[free[-1]]),))


def test_guests_on_other_private_chairs_keep_their_chairs() -> None:
    game = play_out(Game.new(["ann", "bob"], seed=3), _HighChairBot())
    text = write(game, reveal_seed=True)
    assert "@#" in text
    assert replay(text).to_position() == game.to_position()
    assert write(replay(text), reveal_seed=True) == text


# A game in progress written by hand: bob seats USf on chair 17 while 16 is free, and ann
# swaps the joker on chair 58, while "swap AFf@AF1" would mean the Jf on chair 57.
HANDWRITTEN = """\
# written by hand
[Players "ann bob"]
[Options "none"]
[Commitment "{zeros}"]
[Deal "Jf Jf AFm AFf CNf / USf USm DEf DEm ITf"]

1. ann: Jf@AF1 | +0 | drew CUf
2. bob: USf@#17 USm@US1 | +4 | drew CUm INf
3. ann: Jf@AF1 AFm@AF1-AF2 | +10 | drew ESf ESm
4. bob: DEf@DE2 DEm@DE2 | +4 | drew RUf RUm
5. ann: swap AFf@#58 | +0
""".format(zeros="0" * 64)


def test_handwritten_record_with_pinned_chairs() -> None:
    game = replay(HANDWRITTEN)
    assert game.chair_tiles == {
        56: "AFm",
        57: "Jf=AF",
        58: "AFf",
        16: "USm",
        17: "USf",
        13: "DEf",
        14: "DEm",
    }
    assert game.hands == [["CNf", "CUf", "ESf", "ESm", "Jf"], ["ITf", "CUm", "INf", "RUf", "RUm"]]
    assert game.bag_size == 100 - 10 - 7
    assert write(game, reveal_seed=False) == HANDWRITTEN.split("\n", 1)[1]
    unpinned = replay(HANDWRITTEN.replace("swap AFf@#58", "swap AFf@AF1"))
    assert unpinned.chair_tiles[57] == "AFf" and unpinned.chair_tiles[58] == "Jf=AF"


def test_comments_blank_lines_and_crlf_are_ignored() -> None:
    game = _finished(1, 3, "random", Options())
    text = write(game, reveal_seed=True)
    noisy = _insert_line(text, 9, "# a comment between turns")
    noisy = _insert_line(noisy, 3, "   ")
    noisy = "# Café International\n" + noisy.replace("\n", "\r\n")
    assert replay(noisy).to_position() == game.to_position()
    assert verify(noisy).turns == len(game.history)


def test_write_needs_a_dealt_game_and_a_known_seed() -> None:
    game = _finished(0, 2, "greedy", Options())
    with pytest.raises(CafeError, match="loaded from a position"):
        write(Game.from_position(game.to_position()), reveal_seed=False)
    secret = replay(write(game, reveal_seed=False))
    with pytest.raises(CafeError, match="seed of this game is unknown"):
        write(secret, reveal_seed=True)


def test_site_date_and_game_tags_come_first_and_verify_accepts_them() -> None:
    game = _finished(*ELIMINATIONS)
    about = {"site": "https://cafe.example.org", "date": "2026.11.30", "game_id": "17"}
    text = game.to_record(**about)
    assert text.splitlines()[:4] == [
        '[Site "https://cafe.example.org"]',
        '[Date "2026.11.30"]',
        '[Game "17"]',
        f'[Players "{" ".join(game.players)}"]',
    ]
    assert verify(text) == verify(write(game, reveal_seed=True))
    assert write(replay(text), reveal_seed=True, **about) == text
    assert "[Site" not in write(game, reveal_seed=True)


def test_a_league_games_event_tag_comes_first_and_the_verifier_reports_it() -> None:
    game = _finished(*ELIMINATIONS)
    event = "Spring League, season 2, division 1"
    text = game.to_record(event=event, site="https://cafe.example.org")
    assert text.splitlines()[:2] == [f'[Event "{event}"]', '[Site "https://cafe.example.org"]']
    report = verify(text)
    assert report.event == event and verify(write(game, reveal_seed=True)).event is None
    assert write(replay(text), reveal_seed=True, event=event, site="https://cafe.example.org") == (
        text
    )
    with pytest.raises(CafeError, match="Event tag must be one line"):
        game.to_record(event="Spring\nLeague")


@pytest.mark.parametrize(
    ("tag", "reason"),
    [('[Date "30.11.2026"]', "write YYYY.MM.DD"), ('[Game " "]', "Game is empty"),
     ('[Event ""]', "Event is empty")],
)  # fmt: skip
def test_a_misshapen_date_or_empty_game_tag_is_refused(tag: str, reason: str) -> None:
    text = tag + "\n" + write(_finished(*ELIMINATIONS), reveal_seed=True)
    with pytest.raises(RecordError, match=reason) as caught:
        verify(text)
    assert caught.value.line == 1


# --- tampering --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def record() -> str:
    return write(_finished(*ELIMINATIONS), reveal_seed=True)


def test_altered_draw_is_refused(record: str) -> None:
    line = _line_of(record, "5. ")
    head, _, drawn = record.splitlines()[line - 1].rpartition(" ")
    other = next(tile for tile in ALL_TILES if tile != drawn)
    _refused(_replace_line(record, line, f"{head} {other}"), line, "draws", drawn, other)


def test_altered_points_are_refused(record: str) -> None:
    line = _line_of(record, "8. ")
    text = record.splitlines()[line - 1]
    fields = text.split(" | ")
    fields[1] = f"{int(fields[1]) + 1:+d}"
    _refused(_replace_line(record, line, " | ".join(fields)), line, "scores", fields[1])


def test_turn_with_a_tile_not_in_hand_is_refused(record: str) -> None:
    game = _finished(*ELIMINATIONS)
    before = _partial(game, 9)
    hand = before.hands[before.to_move]
    stranger = next(tile for tile in ALL_TILES if tile not in hand)
    line = _line_of(record, "10. ")
    fields = record.splitlines()[line - 1].split(" | ")
    fields[0] = f"10. {before.player_to_move}: bar {stranger}"
    error = _refused(_replace_line(record, line, " | ".join(fields)), line, "turn 10 by")
    assert f"{stranger} is not in {before.player_to_move}'s hand" in error.reason


def test_unreadable_turn_is_refused(record: str) -> None:
    line = _line_of(record, "3. ")
    head = record.splitlines()[line - 1].partition(": ")[0]
    _refused(_replace_line(record, line, f"{head}: USm@XX9 | +2"), line, "XX9")


def test_turn_by_the_wrong_player_is_refused(record: str) -> None:
    line = _line_of(record, "2. ")
    text = record.splitlines()[line - 1]
    player = text.split()[1].rstrip(":")
    other = next(name for name in NAMES if name != player)
    _refused(_replace_line(record, line, text.replace(player, other, 1)), line, player, other)


def test_missing_turn_is_refused(record: str) -> None:
    line = _line_of(record, "6. ")
    lines = record.splitlines()
    del lines[line - 1]
    _refused("\n".join(lines) + "\n", line, "turn 7 where turn 6 comes next")


def test_altered_elimination_is_refused(record: str) -> None:
    line = _line_of(
        record,
        next(f"{n}. " for n, r in enumerate(_finished(*ELIMINATIONS).history, 1) if r.eliminated),
    )
    text = record.splitlines()[line - 1]
    _refused(_replace_line(record, line, text.removesuffix(" | eliminated")), line, "eliminates")


def test_turn_after_the_end_is_refused(record: str) -> None:
    turns = len(_finished(*ELIMINATIONS).history)
    text = record + f"{turns + 1}. ann: bar DEf | -2 | drew DEm\n"
    _refused(text, len(record.splitlines()) + 1, "already over")


def test_altered_seed_is_refused(record: str) -> None:
    line = _line_of(record, "[Seed ")
    _refused(_replace_line(record, line, '[Seed "3138"]'), line, "Commitment")


def test_altered_commitment_is_refused(record: str) -> None:
    line = _line_of(record, "[Commitment ")
    altered = _replace_line(record, line, f'[Commitment "{"ab" * 32}"]')
    _refused(altered, _line_of(record, "[Seed "), "does not match the Commitment", f"line {line}")


def test_reordered_players_are_refused(record: str) -> None:
    line = _line_of(record, "[Players ")
    players = record.splitlines()[line - 1][len('[Players "') : -2].split()
    swapped = [players[1], players[0], *players[2:]]
    _refused(_replace_line(record, line, f'[Players "{" ".join(swapped)}"]'), line, "seat order")


def test_altered_deal_is_refused(record: str) -> None:
    line = _line_of(record, "[Deal ")
    text = record.splitlines()[line - 1]
    first = text[len('[Deal "') :].split()[0]
    other = next(tile for tile in ALL_TILES if tile != first)
    _refused(_replace_line(record, line, text.replace(first, other, 1)), line, "Deal", "dealt")


def test_altered_result_is_refused(record: str) -> None:
    line = _line_of(record, "[Result ")
    text = record.splitlines()[line - 1].replace("1. ", "1. x", 1)
    _refused(_replace_line(record, line, text), line, "Result: the replayed game ends")


def test_missing_result_is_refused(record: str) -> None:
    line = _line_of(record, "[Result ")
    lines = record.splitlines()
    del lines[line - 1]
    last = len(lines)
    _refused("\n".join(lines) + "\n", last, "no Result tag")


@pytest.mark.parametrize(
    ("where", "garbage", "reason"),
    [
        ("9. ", "hello world", "cannot read 'hello world'"),
        ("9. ", "9. ann USm@US1 | +2", "cannot read"),
        ("[Deal ", '[Round "3"]', "unknown tag Round"),
        ("[Deal ", "[Deal broken", "cannot read tag"),
    ],
)
def test_garbage_line_is_refused(record: str, where: str, garbage: str, reason: str) -> None:
    line = _line_of(record, where)
    _refused(_insert_line(record, line, garbage), line, reason)


def test_tag_after_the_turns_is_refused(record: str) -> None:
    _refused(record + '[Players "ann bob"]\n', len(record.splitlines()) + 1, "header comes first")


def test_verify_needs_the_seed_and_the_end(record: str) -> None:
    game = _finished(*ELIMINATIONS)
    secret = write(game, reveal_seed=False)
    _refused(secret, _line_of(secret, "[Result "), "no Seed tag")
    unfinished = write(_partial(game, 10), reveal_seed=True)
    _refused(unfinished, len(unfinished.splitlines()), "not over")


def test_draw_of_a_tile_the_game_lacks_is_refused() -> None:
    text = HANDWRITTEN.replace("drew ESf ESm", "drew Jf ESm")
    with pytest.raises(RecordError) as caught:
        replay(text)
    assert caught.value.line == _line_of(text, "3. ")
    assert "one Jf too many" in caught.value.reason


@pytest.mark.parametrize(
    ("where", "damaged", "reason"),
    [
        ("[Options ", '[Options "birthday=0"]', "birthday threshold must be a positive"),
        ("[Options ", '[Options "fast"]', "Options: cannot read 'fast'"),
        ("[Options ", '[Options ""]', "write 'none'"),
        ("[Commitment ", '[Commitment "abc"]', "64 hex digits"),
        ("[Seed ", '[Seed "xyz"]', "hex digits"),
        ("[Deal ", '[Deal "DEf DEm / USf"]', "5 tiles for each of the 4 seats"),
        ("[Deal ", '[Deal "DEf DEm USf USm XXf / . / . / ."]', "cannot read tile 'XXf'"),
        ("[Players ", '[Players "ann ann bob cid"]', "player names must differ"),
        ("[Players ", '[Players ""]', "names in seat order"),
        ("1. ", "1. bob: Jm@RU2 | 17pts", "cannot read points '17pts'"),
        ("1. ", "1. bob: Jm@RU2 | +0 | drew DEf | drew DEm", "each at most once"),
        ("1. ", "1. bob: Jm@RU2 | +0 | gone", "cannot read 'gone'"),
    ],
)
def test_damaged_line_is_refused(record: str, where: str, damaged: str, reason: str) -> None:
    line = _line_of(record, where)
    _refused(_replace_line(record, line, damaged), line, reason)


def test_missing_tag_is_refused(record: str) -> None:
    lines = [line for line in record.splitlines() if not line.startswith("[Players ")]
    _refused("\n".join(lines) + "\n", _line_of(record, "[Result ") - 1, "no Players tag")


def test_result_of_an_unfinished_game_is_refused(record: str) -> None:
    unfinished = write(_partial(_finished(*ELIMINATIONS), 10), reveal_seed=True)
    result = next(line for line in record.splitlines() if line.startswith("[Result "))
    text = _insert_line(unfinished, 6, result)
    _refused(text, 6, "not over")


def test_turns_and_removals_on_time_out_are_marked_and_verified() -> None:
    game = Game.new(["ann", "bob", "cid"], seed=7)
    game.play(str(game.hints(1)[0].turn))
    game.play(str(game.hints(1)[0].turn), timeout=True)
    game.resign(game.player_to_move, timeout=True)
    game.resign(game.player_to_move)
    text = game.to_record()
    lines = text.splitlines()
    assert lines[-3].endswith(" | timeout") and lines[-4].count("timeout") == 0
    assert lines[-2:] == [f"-- {game.players[2]} times out", f"-- {game.players[0]} resigns"]
    again = replay(text)
    assert write(again, reveal_seed=True) == text
    assert again.timeout_turns == {2} and again.timed_out == {game.players[2]}
    report = verify(text)
    assert report.standings[0].player == game.players[1]  # the one still in
    # a departure is said as what it was, never "eliminated" (the bar's rule)
    result = next(line for line in lines if line.startswith("[Result "))
    assert f"{game.players[0]} " in result and "(eliminated)" not in result
    assert re.search(rf"2\. {game.players[0]} -?\d+ \(resigned\)", result)
    assert re.search(rf"3\. {game.players[2]} -?\d+ \(removed on time\)", result)
    assert report.left == {game.players[0]: "resigned", game.players[2]: "removed on time"}
    assert "(resigned)" in str(report) and "(removed on time)" in str(report)
    older = text.replace("(resigned)", "(eliminated)").replace("(removed on time)", "(eliminated)")
    assert verify(older).standings == report.standings  # records written before still verify


@pytest.mark.parametrize(
    ("damaged", "reason"),
    [
        ("2. X: T | +0 | timeout | timeout", "'timeout', each at most once"),
        ("-- ann times", "write '-- PLAYER resigns' or '-- PLAYER times out'"),
        ("-- ann timed out", "write '-- PLAYER resigns' or '-- PLAYER times out'"),
    ],
)
def test_damaged_time_out_marks_are_refused(damaged: str, reason: str) -> None:
    game = Game.new(["ann", "bob"], seed=3)
    header = game.to_record().splitlines()
    with pytest.raises(RecordError, match=reason):
        replay("\n".join([*header, damaged]))


# --- adjudication ---------------------------------------------------------------------


def _adjudicated(turns: int = 6, reason: str = "ann's mail bounces  for weeks") -> Game:
    """A game of three ended by adjudication after ``turns`` turns."""
    game = _partial(_finished(0, 3, "greedy", Options()), turns)
    game.adjudicate(reason)
    return game


def test_an_adjudicated_game_ends_with_its_standings_as_they_are() -> None:
    game = _adjudicated()
    assert game.is_over and game.adjudication == "ann's mail bounces for weeks"
    penalties = [standing.penalty for standing in game.standings()]
    assert any(penalties)  # the tiles in hand cost what they cost at any end
    assert [s.score for s in sorted(game.standings(), key=lambda s: s.seat)] == game.scores
    with pytest.raises(CafeError, match="over"):
        game.play(str(_partial(_finished(0, 3, "greedy", Options()), 6).hints(1)[0].turn))
    with pytest.raises(CafeError, match="nothing to adjudicate"):
        game.adjudicate("again")
    with pytest.raises(CafeError, match="needs its reason"):
        _partial(_finished(0, 3, "greedy", Options()), 6).adjudicate("  \n ")


def test_an_adjudicated_record_says_why_last_and_verifies() -> None:
    game = _adjudicated()
    text = write(game, reveal_seed=True)
    assert text.splitlines()[-1] == "-- adjudicated: ann's mail bounces for weeks"
    assert write(replay(text), reveal_seed=True) == text
    report = verify(text)
    assert report.adjudication == "ann's mail bounces for weeks"
    assert report.standings == tuple(game.standings())
    assert "ended by adjudication (ann's mail bounces for weeks)" in str(report)


def test_a_damaged_adjudication_is_refused() -> None:
    game = _adjudicated()
    text = write(game, reveal_seed=True)
    last = len(text.splitlines())
    # a turn after it: the game was over
    played = _partial(_finished(0, 3, "greedy", Options()), 7)
    turn = write(played, reveal_seed=True).splitlines()[-1]
    _refused(text + turn + "\n", last + 1, "already over")
    # a Result other than the position's standings
    result = _line_of(text, "[Result ")
    _refused(_replace_line(text, result, '[Result "1. ann 1 (score 1, penalty 0)"]'), result)
    # without its line the game is not over, so its Result is refused
    _refused(_replace_line(text, last, "# gone"), result, "not over")
    # an adjudication without a reason, or of a game already over
    _refused(_replace_line(text, last, "-- adjudicated:"), last, "REASON")
    finished = write(_finished(0, 3, "greedy", Options()), reveal_seed=True)
    over = finished + "-- adjudicated: too late\n"
    _refused(over, len(over.splitlines()), "nothing to adjudicate")


def test_an_adjudicated_position_is_over_and_keeps_its_reason() -> None:
    game = _adjudicated()
    position = game.to_position()
    assert position["adjudicated"] == "ann's mail bounces for weeks"
    again = Game.from_position(position)
    assert again.is_over and again.adjudication == game.adjudication
    assert again.standings() == game.standings()
    assert "adjudicated" not in _partial(_finished(0, 3, "greedy", Options()), 6).to_position()
    for bad in ("", "two\nlines", 7):
        with pytest.raises(CafeError, match="adjudicated: the reason"):
            Game.from_position({**position, "adjudicated": bad})


def test_the_verifier_counts_one_turn_in_the_singular() -> None:
    game = Game.new(["ann", "bob"], seed=7)
    game.play(GreedyBot().choose(game))
    game.resign(game.to_move)
    said = str(verify(write(game, reveal_seed=True)))
    assert said.startswith(f"verified: 1 turn by {', '.join(game.players)};"), said
