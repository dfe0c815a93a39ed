"""Properties of whole games: random seeded games played to the end by the random bot,
2 to 4 players, with and without the variants, checked after every turn."""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe import CafeError, Game, NotationError, Options, Turn
from cafe.board import CHAIR_COUNT, NATIONS, TABLES
from cafe.bots import RandomBot
from cafe.standings import hand_penalty
from cafe.tiles import TILE_COUNTS

NAMES = ["ann", "bob", "cid", "dan"]
TILE_TEXTS = sorted(TILE_COUNTS)
CHAIR_TEXTS = [*TABLES, *(f"#{n}" for n in range(1, CHAIR_COUNT + 1)), "DE1-FR1", "US1-US2"]

games = st.builds(
    lambda seed, players, birthday, klatsch: (seed, players, Options(birthday, klatsch)),
    st.integers(0, 10**9),
    st.integers(2, 4),
    st.sampled_from([None, 12, 30]),
    st.booleans(),
)
random_turns = st.one_of(
    st.builds(
        lambda tiles, chairs: " ".join(f"{t}@{c}" for t, c in zip(tiles, chairs, strict=False)),
        st.lists(st.sampled_from(TILE_TEXTS), min_size=1, max_size=4),
        st.lists(st.sampled_from(CHAIR_TEXTS), min_size=4, max_size=4),
    ),
    st.builds("bar {}".format, st.sampled_from(TILE_TEXTS)),
    st.builds("swap {}@{}".format, st.sampled_from(TILE_TEXTS), st.sampled_from(CHAIR_TEXTS)),
)
whole_games = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _accounted(game: Game) -> Counter[str]:
    position = game.to_position()
    tiles = Counter(t for hand in position["hands"] for t in hand)
    tiles += Counter(text.partition("=")[0] for text in position["chairs"].values())
    return tiles + Counter(position["bar"]) + Counter(position["bag"])


def _balanced(game: Game) -> bool:
    chairs = game.chair_tiles
    for table in TABLES.values():
        genders = [chairs[c].partition("=")[0][-1] for c in table.chairs if c in chairs]
        ladies, gents = genders.count("f"), genders.count("m")
        klatsch = game.options.coffee_klatsch and len(genders) == 4 and ladies in (0, 4)
        if abs(ladies - gents) > 1 and not klatsch:
            return False
    return True


def _play_out(seed: int, players: int, options: Options, checks) -> Game:
    game = Game.new(NAMES[:players], seed=seed, options=options)
    bot = RandomBot(seed)
    while not game.is_over:
        checks(game)
        game.play(bot.choose(game))
    checks(game)
    return game


@whole_games
@given(games)
def test_tiles_are_always_accounted_for_and_tables_balanced(case) -> None:
    def check(game: Game) -> None:
        assert _accounted(game) == TILE_COUNTS
        assert _balanced(game)

    _play_out(*case, check)


@whole_games
@given(games)
def test_scores_are_the_sum_of_turn_points_and_standings_add_penalties(case) -> None:
    game = _play_out(*case, lambda game: None)
    for seat, score in enumerate(game.scores):
        assert score == sum(r.points for r in game.history if r.seat == seat)
    for standing in game.standings():
        penalty = 0 if standing.eliminated else hand_penalty(game.hands[standing.seat])
        assert standing.final == standing.score + penalty
        assert standing.penalty == penalty


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games)
def test_every_listed_turn_is_accepted_with_its_points(case) -> None:
    def check(game: Game) -> None:
        for turn, points in game.scored_turns():
            assert game.copy().play(turn).points == points, turn

    _play_out(*case, check)


@whole_games
@given(games, st.lists(random_turns, min_size=20, max_size=20))
def test_refused_random_turns_raise_cafe_errors_and_change_nothing(case, attempts) -> None:
    seed, players, options = case
    game = Game.new(NAMES[:players], seed=seed, options=options)
    bot = RandomBot(seed)
    tried = 0
    while not game.is_over:
        text = attempts[tried % len(attempts)]
        tried += 1
        before = game.to_position()
        try:
            game.play(text)
        except CafeError:
            assert game.to_position() == before
            game.play(bot.choose(game))


@whole_games
@given(games)
def test_position_and_record_round_trips_reproduce_the_game(case) -> None:
    seed, players, options = case
    game = Game.new(NAMES[:players], seed=seed, options=options)
    bot = RandomBot(seed)
    while not game.is_over:
        position = game.to_position()
        again = Game.from_position(position)
        assert again.to_position() == position
        assert again.scored_turns() == game.scored_turns()
        game.play(bot.choose(game))
    replayed = Game.from_record(game.to_record())
    assert replayed.to_position() == game.to_position()
    assert replayed.standings() == game.standings()
    assert replayed.to_record() == game.to_record()


@whole_games
@given(games)
def test_a_position_copy_is_the_game_its_position_loads_as(case) -> None:
    seed, players, options = case
    game = Game.new(NAMES[:players], seed=seed, options=options)
    bot = RandomBot(seed)
    while True:
        loaded = Game.from_position(game.to_position())
        copied = game.position_copy()
        for same in (Game.to_position, Game.standings, Game.scored_turns):
            assert same(copied) == same(loaded)
        for fact in ("is_over", "seed", "commitment", "history", "resignations", "deal"):
            assert getattr(copied, fact) == getattr(loaded, fact), fact
        if game.is_over:
            break
        turn = bot.choose(game)
        assert copied.play(turn) == loaded.play(turn) == game.play(turn)
        assert copied.to_position() == loaded.to_position() == game.to_position()


@settings(max_examples=3000, deadline=None)
@given(st.text(max_size=40))
def test_notation_parser_raises_only_notation_errors(text: str) -> None:
    try:
        turn = Turn.parse(text)
    except NotationError:
        return
    assert Turn.parse(str(turn)) == turn


notation_like = st.lists(
    st.one_of(
        st.sampled_from(["bar", "swap", "noshrink", "birthday=", "@", "=", "#", "-", ",", " "]),
        st.sampled_from(TILE_TEXTS + list(TABLES) + list(NATIONS)),
        st.integers(-5, 80).map(str),
    ),
    max_size=12,
).map("".join)


@settings(max_examples=3000, deadline=None)
@given(notation_like)
def test_notation_parser_on_near_miss_text(text: str) -> None:
    try:
        turn = Turn.parse(text)
    except NotationError as error:
        assert str(error)
        return
    assert Turn.parse(str(turn)) == turn
