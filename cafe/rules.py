"""Playing one turn: check it against every rule, then change the state (rulebook §4–§10).

``apply_turn`` either raises a ``CafeError`` and leaves the state exactly as it was, or
applies the whole turn: seating or bar or swap, scoring, hand limit, refill, birthday,
end of game and the next player.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from cafe.board import BAR_VALUES, CHAIRS, PRIVATE_CHAIRS, SHARED_CHAIR
from cafe.endings import end_condition
from cafe.errors import CafeError, GameOverError, IllegalTurnError
from cafe.i18n import Country, Text, lazy_gettext, lazy_ngettext
from cafe.movegen import has_legal_turn_besides_joker_bar
from cafe.notation import CHAIR_REFS, ChairRef, Placement, Turn, TurnKind
from cafe.results import TableScore, TurnResult
from cafe.state import CHAIR_TABLES, State, klatsch_points, table_points
from cafe.tiles import LADY, gender_of, is_joker, nation_of


def apply_turn(state: State, turn: Turn) -> TurnResult:
    """Play ``turn`` for the player to move; raise a ``CafeError`` and change nothing if illegal."""
    if state.over:
        raise GameOverError(lazy_gettext("the game is over: no more turns"))
    seat = state.to_move
    _check_in_hand(state, seat, turn)
    if turn.kind is TurnKind.SEAT:
        played, points, tables, completed, exact = _seat(state, seat, turn)
        return _finish(state, seat, played, points, tables, completed, exact=exact)
    if turn.kind is TurnKind.BAR:
        _check_bar(state, turn)
        value = BAR_VALUES[len(state.bar)]
        eliminated = state.scores[seat] + value < 0
        points = 0 if eliminated else value
        _check_birthday(state, seat, turn, state.scores[seat] + points)
        state.bar.append(turn.tile)  # type: ignore[arg-type]  # a bar turn names its tile
        return _finish(state, seat, turn, points, eliminated=eliminated, stool=len(state.bar))
    chair, nation, joker, named = _plan_swap(state, turn)
    _check_birthday(state, seat, turn, state.scores[seat])
    state.seating.unseat(chair)
    state.seating.seat(chair, turn.placements[0].tile, nation)
    state.hands[seat].append(joker)
    played = replace(turn, placements=(_pinned(turn.placements[0], chair),))
    return _finish(state, seat, played, 0, exact=() if named else (chair,))


def _check_in_hand(state: State, seat: int, turn: Turn) -> None:
    hand = state.hands[seat]
    wanted = [p.tile for p in turn.placements]
    if turn.kind is TurnKind.BAR:
        assert turn.tile is not None  # a bar turn names its tile (`Turn.bar`)
        wanted = [turn.tile]
    for tile in set(wanted):
        count = wanted.count(tile)
        if hand.count(tile) < count:
            have = " ".join(hand) or lazy_gettext("nothing")
            raise IllegalTurnError(
                lazy_ngettext(
                    "%(tile)s is not in %(player)s's hand: %(hand)s",
                    "%(tile)s %(num)s times is not in %(player)s's hand: %(hand)s",
                    count,
                    tile=tile,
                    player=state.players[seat],
                    hand=have,
                ),
                rule="hand",
            )


# --- seating ----------------------------------------------------------------------------


def _seat(
    state: State, seat: int, turn: Turn
) -> tuple[Turn, int, tuple[TableScore, ...], tuple[str, ...], list[int]]:
    """Seat the placements in order and score them; also returns the private chairs taken
    that their table id would not have named (they need ``#N`` to be replayed exactly)."""
    count = len(turn.placements)
    if count > 2 and not state.options.coffee_klatsch:
        raise IllegalTurnError(
            lazy_gettext(
                "a seating turn places 1 or 2 guests, not %(count)s (3 or 4 only in the "
                "coffee-klatsch variant, which this game does not use)",
                count=count,
            ),
            rule="count",
        )
    seating = state.seating
    empty_board = seating.seated == 0
    placed: list[int] = []
    scores: list[TableScore] = []
    pinned: list[Placement] = []
    exact: list[int] = []
    try:
        for placement in turn.placements:
            chair, named = _resolve_free_chair(state, placement.chair)
            if not named:
                exact.append(chair)
            nation = _seat_nation(placement, chair)
            seating.seat(chair, placement.tile, nation)
            placed.append(chair)
            pinned.append(_pinned(placement, chair))
            scores.extend(_placement_scores(state, chair, placement.tile))
        klatsch = _klatsch_table(state, placed) if count > 2 else None
        _check_balance(state, placed, exempt=klatsch)
        if not (empty_board and count == 1):
            _check_company(state, placed)
        if klatsch is not None:
            scores = [s for s in scores if s.table != klatsch]
            scores.append(_klatsch_score(state, klatsch))
        points = sum(s.points for s in scores)
        _check_birthday(state, seat, turn, state.scores[seat] + points)
        touched = dict.fromkeys(t for chair in placed for t in CHAIR_TABLES[chair])
        completed = tuple(t for t in touched if seating.single_nation_full(t))
        _check_noshrink(turn, completed)
    except IllegalTurnError:
        for chair in reversed(placed):
            seating.unseat(chair)
        raise
    if any(a is not b for a, b in zip(pinned, turn.placements, strict=True)):
        turn = replace(turn, placements=tuple(pinned))
    return turn, points, tuple(scores), completed, exact


def _pinned(placement: Placement, chair: int) -> Placement:
    """The placement naming the exact chair it took."""
    if placement.chair.number == chair:
        return placement
    return Placement(placement.tile, CHAIR_REFS[chair], placement.nation)


def _resolve_free_chair(state: State, ref: ChairRef) -> tuple[int, bool]:
    """The free chair a reference means now (``DE1``: the lowest free private chair of DE1),
    and whether its table id names it."""
    tile_at = state.seating.tile
    if ref.shared:
        chair = SHARED_CHAIR[ref.tables]
        named = True
    else:
        free = [c for c in PRIVATE_CHAIRS[ref.tables[0]] if tile_at[c] is None]
        if ref.number is None and not free:
            raise IllegalTurnError(
                lazy_gettext("%(chair)s has no free private chair", chair=str(ref)),
                rule="chair-taken",
            )
        chair = free[0] if ref.number is None else ref.number
        named = bool(free) and chair == free[0]
    if tile_at[chair] is not None:
        raise IllegalTurnError(
            lazy_gettext(
                "chair %(chair)s (%(ref)s) is taken by %(tile)s",
                chair=chair,
                ref=str(CHAIR_REFS[chair]),
                tile=tile_at[chair],
            ),
            rule="chair-taken",
        )
    return chair, named


def _where(chair: int) -> Text:
    """Which tables a chair touches, each with its nation's name."""
    tables = [
        Text("%(table)s (%(country)s)", table=t, country=Country(t[:2]))
        for t in CHAIRS[chair].tables
    ]
    if len(tables) == 1:
        return lazy_gettext("chair %(chair)s touches only %(table)s", chair=chair, table=tables[0])
    return lazy_gettext(
        "chair %(chair)s touches %(first)s and %(second)s",
        chair=chair,
        first=tables[0],
        second=tables[1],
    )


def _seat_nation(placement: Placement, chair: int) -> str:
    """The nation the tile counts as on this chair (rulebook §5.1, §6 jokers)."""
    nations = CHAIRS[chair].nations
    tile = placement.tile
    if not is_joker(tile):
        nation = nation_of(tile)
        if nation not in nations:
            raise IllegalTurnError(_cannot_sit(tile, chair), rule="nation")
        return nation
    declared = placement.nation
    if declared is None:
        if len(nations) == 1:
            return next(iter(nations))
        first, second = (f"{tile}={n}@{CHAIR_REFS[chair]}" for n in sorted(nations))
        raise IllegalTurnError(
            lazy_gettext(
                "%(tile)s on chair %(chair)s (%(ref)s) must declare its nation: "
                "%(first)s or %(second)s",
                tile=tile,
                chair=chair,
                ref=str(CHAIR_REFS[chair]),
                first=first,
                second=second,
            ),
            rule="joker-nation",
        )
    if declared not in nations:
        raise IllegalTurnError(_cannot_sit(f"{tile}={declared}", chair), rule="joker-nation")
    return declared


def _cannot_sit(tile: str, chair: int) -> Text:
    return lazy_gettext(
        "%(tile)s cannot sit at %(ref)s: %(where)s",
        tile=tile,
        ref=str(CHAIR_REFS[chair]),
        where=_where(chair),
    )


def _placement_scores(state: State, chair: int, tile: str) -> list[TableScore]:
    seating = state.seating
    scores = []
    for table in CHAIR_TABLES[chair]:
        guests = seating.count[table]
        single = bool(seating.table_nation[table])
        birthday = table[:2] == state.birthday_nation
        points = table_points(guests, single, birthday)
        scores.append(TableScore(table, points, guests, single, birthday, tile, chair))
    return scores


def _klatsch_table(state: State, placed: list[int]) -> str:
    """The table a 3- or 4-guest turn fills with one gender (rulebook §11), or an error."""
    common = set(CHAIR_TABLES[placed[0]]).intersection(*(CHAIR_TABLES[c] for c in placed[1:]))
    for table in common:
        guests = state.seating.count[table]
        ladies = state.seating.ladies[table]
        if guests == 4 and ladies in (0, 4):
            return table
    raise IllegalTurnError(
        lazy_ngettext(
            "%(num)s guest in one turn must fill one table with four ladies or four "
            "gentlemen (coffee klatsch or regulars' table)",
            "%(num)s guests in one turn must fill one table with four ladies or four "
            "gentlemen (coffee klatsch or regulars' table)",
            len(placed),
        ),
        rule="klatsch",
    )


def _klatsch_score(state: State, table: str) -> TableScore:
    single = bool(state.seating.table_nation[table])
    birthday = table[:2] == state.birthday_nation
    points = klatsch_points(single, birthday)
    return TableScore(table, points, 4, single, birthday)


def _check_balance(state: State, placed: list[int], exempt: str | None) -> None:
    seating = state.seating
    for table in dict.fromkeys(t for c in placed for t in CHAIR_TABLES[c]):
        ladies = seating.ladies[table]
        gents = seating.count[table] - ladies
        if abs(ladies - gents) > 1 and table != exempt:
            raise IllegalTurnError(
                lazy_gettext(
                    "gender balance at %(table)s: %(gentlemen)s, %(ladies)s",
                    table=table,
                    gentlemen=lazy_ngettext("%(num)s gentleman", "%(num)s gentlemen", gents),
                    ladies=lazy_ngettext("%(num)s lady", "%(num)s ladies", ladies),
                ),
                rule="gender-balance",
            )


def _check_company(state: State, placed: list[int]) -> None:
    count = state.seating.count
    for chair in placed:
        tables = CHAIR_TABLES[chair]
        if all(count[t] < 2 for t in tables):
            where = {
                "tile": state.seating.tile[chair],
                "chair": chair,
                "ref": str(CHAIR_REFS[chair]),
            }
            alone = (
                lazy_gettext(
                    "%(tile)s on chair %(chair)s (%(ref)s) would sit alone: "
                    "nobody else at %(table)s",
                    table=tables[0],
                    **where,
                )
                if len(tables) == 1
                else lazy_gettext(
                    "%(tile)s on chair %(chair)s (%(ref)s) would sit alone: "
                    "nobody else at %(first)s or %(second)s",
                    first=tables[0],
                    second=tables[1],
                    **where,
                )
            )
            raise IllegalTurnError(alone, rule="alone")


# --- bar and swap -----------------------------------------------------------------------


def _check_bar(state: State, turn: Turn) -> None:
    if state.next_stool_value is None:
        raise IllegalTurnError(lazy_gettext("the bar is full"), rule="bar-full")
    if is_joker(turn.tile) and has_legal_turn_besides_joker_bar(state):  # type: ignore[arg-type]  # bar turn: tile set
        raise IllegalTurnError(
            lazy_gettext("a joker may go to the bar only when no other turn is possible"),
            rule="joker-bar",
        )


def _plan_swap(state: State, turn: Turn) -> tuple[int, str, str, bool]:
    """Check a joker exchange (rulebook §8): the chair, the tile's nation there, the joker,
    and whether the chair's table id names that chair."""
    placement = turn.placements[0]
    tile = placement.tile
    if is_joker(tile):
        raise IllegalTurnError(lazy_gettext("a joker cannot be swapped for a joker"), rule="swap")
    chair, named = _joker_chair(state, placement.chair, gender_of(tile))
    joker: str = state.seating.tile[chair]  # type: ignore[assignment]  # `_joker_chair` checked
    if gender_of(joker) != gender_of(tile):
        where = {"chair": chair, "ref": str(CHAIR_REFS[chair])}
        mismatch = (
            lazy_gettext(
                "the joker on chair %(chair)s (%(ref)s) is a lady: swap it for a lady", **where
            )
            if gender_of(joker) == LADY
            else lazy_gettext(
                "the joker on chair %(chair)s (%(ref)s) is a gentleman: swap it for a gentleman",
                **where,
            )
        )
        raise IllegalTurnError(mismatch, rule="swap")
    return chair, _seat_nation(placement, chair), joker, named


def _joker_chair(state: State, ref: ChairRef, gender: str) -> tuple[int, bool]:
    """The chair of the joker a swap means (docs/rules.md: ``DE1`` is the private chair of
    DE1 holding a joker of the tile's gender), and whether the table id names it."""
    tile_at = state.seating.tile
    named = True
    if ref.shared:
        chair = SHARED_CHAIR[ref.tables]
    else:
        table = ref.tables[0]
        jokers = {c: t for c in PRIVATE_CHAIRS[table] if (t := tile_at[c]) and is_joker(t)}
        likely = [c for c, t in jokers.items() if gender_of(t) == gender] or list(jokers)
        if ref.number is None and not likely:
            raise IllegalTurnError(
                lazy_gettext("no joker sits on a private chair of %(table)s", table=table),
                rule="swap",
            )
        chair = likely[0] if ref.number is None else ref.number
        named = bool(likely) and chair == likely[0]
    held = tile_at[chair]
    if held is None or not is_joker(held):
        where = {"chair": chair, "ref": str(CHAIR_REFS[chair])}
        not_joker = (
            lazy_gettext("chair %(chair)s (%(ref)s) is empty, not a joker", **where)
            if held is None
            else lazy_gettext(
                "chair %(chair)s (%(ref)s) holds %(tile)s, not a joker", tile=held, **where
            )
        )
        raise IllegalTurnError(not_joker, rule="swap")
    return chair, named


# --- after the action -------------------------------------------------------------------


def _finish(
    state: State,
    seat: int,
    played: Turn,
    points: int,
    tables: tuple[TableScore, ...] = (),
    completed: tuple[str, ...] = (),
    *,
    eliminated: bool = False,
    stool: int | None = None,
    exact: Collection[int] = (),
) -> TurnResult:
    """Commit the rest of a checked turn: hand, score, hand limit, refill, birthday, end."""
    hand = state.hands[seat]
    if played.kind is TurnKind.BAR:
        hand.remove(played.tile)  # type: ignore[arg-type]  # a bar turn names its tile
    else:
        for placement in played.placements:
            hand.remove(placement.tile)
    state.scores[seat] += points
    if completed and not played.noshrink:
        state.hand_limits[seat] = max(0, state.hand_limits[seat] - len(completed))
    drawn: list[str] = []
    if eliminated:
        state.eliminated[seat] = True
        state.elimination_order.append(seat)
    elif played.kind is not TurnKind.SWAP:
        missing = max(0, state.hand_limits[seat] - len(hand))
        drawn = state.bag[:missing]
        del state.bag[:missing]
        hand.extend(drawn)
    _update_birthday(state, seat, played)
    state.over = game_ends(state)
    if not state.over:
        state.to_move = _next_seat(state, seat)
    return TurnResult(
        seat=seat,
        player=state.players[seat],
        turn=played,
        notation=played.text(exact=exact),
        points=points,
        tables=tables,
        drawn=tuple(drawn),
        eliminated=eliminated,
        game_over=state.over,
        completed=completed,
        hand_limit=state.hand_limits[seat],
        stool=stool,
    )


def _check_noshrink(turn: Turn, completed: tuple[str, ...]) -> None:
    """``noshrink`` keeps the hand limit a completed single-nation table would lower
    (rulebook §9); on a turn that completes none it would mean nothing, so it is refused
    rather than recorded."""
    if turn.noshrink and not completed:
        raise IllegalTurnError(
            lazy_gettext(
                "noshrink keeps the hand limit after completing a single-nation table (§9), "
                "and this turn completes none: leave noshrink out"
            ),
            rule="noshrink",
        )


def _check_birthday(state: State, seat: int, turn: Turn, score_after: int) -> None:
    if turn.birthday is None:
        return
    threshold = state.options.birthday
    if threshold is None:
        raise IllegalTurnError(
            lazy_gettext("birthday=: this game is played without the birthday-table variant"),
            rule="birthday",
        )
    if state.birthday_nation is not None:
        raise IllegalTurnError(
            lazy_gettext(
                "the birthday nation is already named: %(nation)s", nation=state.birthday_nation
            ),
            rule="birthday",
        )
    holder = state.birthday_player
    if holder is None and score_after >= threshold:
        holder = seat
    if holder != seat:
        who = lazy_gettext("nobody yet") if holder is None else state.players[holder]
        raise IllegalTurnError(
            lazy_ngettext(
                "birthday=: only the first player to reach %(num)s point names the birthday "
                "nation (%(who)s)",
                "birthday=: only the first player to reach %(num)s points names the birthday "
                "nation (%(who)s)",
                threshold,
                who=who,
            ),
            rule="birthday",
        )


def _update_birthday(state: State, seat: int, turn: Turn) -> None:
    threshold = state.options.birthday
    if threshold is None:
        return
    if state.birthday_player is None and state.scores[seat] >= threshold:
        state.birthday_player = seat
    if turn.birthday is not None:
        state.birthday_nation = turn.birthday


def apply_resignation(state: State, seat: int) -> None:
    """A player leaves the game for good: out of the game like an eliminated player (hand
    set aside, no penalty, ranked below everyone still in), the turn passing on if it was
    theirs. Not in the board game's rules; a correspondence game needs it."""
    if state.over:
        raise GameOverError(lazy_gettext("the game is over: nobody can resign"))
    if state.eliminated[seat]:
        raise CafeError(
            lazy_gettext("%(player)s is already out of the game", player=state.players[seat])
        )
    state.eliminated[seat] = True
    state.elimination_order.append(seat)
    state.over = game_ends(state)
    if not state.over and state.to_move == seat:
        state.to_move = _next_seat(state, seat)


def game_ends(state: State) -> bool:
    """Rulebook §10: checked at the end of every turn (`cafe.endings.end_condition`)."""
    return end_condition(state) is not None


def _next_seat(state: State, seat: int) -> int:
    players = len(state.players)
    for step in range(1, players + 1):
        candidate = (seat + step) % players
        if not state.eliminated[candidate]:
            return candidate
    return seat
