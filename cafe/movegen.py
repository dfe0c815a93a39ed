"""Every legal turn of the player to move, each with the points it scores (RULES.md §4–§8).

Seating turns are found without trying each one on the board. A placement is a *candidate*
when its tile may sit on the free chair by nation. Two placements interact only through a
table both chairs touch, and two chairs share at most one table, so every two-guest turn is
either *independent* (no common table: both placements must be legal on their own, points
add up, order is irrelevant) or *dependent* on exactly one common table, where the pair is
checked and scored together in both orders. The private chairs of a table are equivalent,
so only the lowest free one (and the next, for a second guest at the same table) is tried.
"""

from __future__ import annotations

from collections import Counter
from itertools import permutations

from cafe.board import BAR_VALUES, CHAIRS, NATION_CHAIRS, TABLES
from cafe.notation import CHAIR_REFS, Placement, Turn
from cafe.state import CHAIR_TABLES, State, table_points
from cafe.tiles import GENTLEMAN, LADY, is_joker, nation_of

KLATSCH_POINTS = 20
_ALL_CHAIRS = tuple(CHAIRS)
_CHAIR_NATIONS = ((), *(tuple(sorted(CHAIRS[c].nations)) for c in CHAIRS))

ScoredTurn = tuple[Turn, int]

# A candidate placement: (tile, chair, nation it counts as, 1 if a lady else 0, Placement).
Candidate = tuple[str, int, str, int, Placement]


def scored_turns(state: State, *, joker_bar: bool = True) -> list[ScoredTurn]:
    """All legal turns of the player to move with their points; jokers to the bar only
    when nothing else is legal (and ``joker_bar`` allows it)."""
    hand = Counter(state.hands[state.to_move])
    result: list[ScoredTurn] = []
    candidates = _candidates(state, hand)
    _seating_turns(state, hand, candidates, result)
    if state.options.coffee_klatsch:
        _klatsch_turns(state, hand, result)
    _swap_turns(state, hand, result)
    _bar_turns(state, hand, result, joker_bar=joker_bar)
    return result


def has_legal_turn_besides_joker_bar(state: State) -> bool:
    return bool(scored_turns(state, joker_bar=False))


def _placement(tile: str, chair: int, nation: str) -> Placement:
    declared = nation if tile[0] == "J" and len(_CHAIR_NATIONS[chair]) == 2 else None
    return Placement(tile, CHAIR_REFS[chair], declared)


def _candidates(state: State, hand: Counter[str]) -> dict[int, list[Candidate]]:
    """Candidate placements by chair, on shared chairs and each table's lowest free private
    chair."""
    tile_at = state.seating.tile
    by_chair: dict[int, list[Candidate]] = {}
    for tile in hand:
        nation = nation_of(tile)
        lady = 1 if tile[-1] == LADY else 0
        for chair in _ALL_CHAIRS if nation is None else NATION_CHAIRS[nation]:
            if tile_at[chair] is not None or not _is_representative(tile_at, chair):
                continue
            options = _CHAIR_NATIONS[chair] if nation is None else (nation,)
            bucket = by_chair.setdefault(chair, [])
            for counted in options:
                bucket.append((tile, chair, counted, lady, _placement(tile, chair, counted)))
    return by_chair


def _is_representative(tile_at: list[str | None], chair: int) -> bool:
    """Shared chairs all count; of a table's free private chairs only the lowest does."""
    tables = CHAIR_TABLES[chair]
    if len(tables) == 2:
        return True
    for other in TABLES[tables[0]].chairs:
        if other == chair:
            return True
        if len(CHAIR_TABLES[other]) == 1 and tile_at[other] is None:
            return False
    return True


def _seating_turns(
    state: State,
    hand: Counter[str],
    candidates: dict[int, list[Candidate]],
    out: list[ScoredTurn],
) -> None:
    seating = state.seating
    count, ladies, table_nation = seating.count, seating.ladies, seating.table_nation
    birthday = state.birthday_nation
    empty_board = seating.seated == 0
    singles: list[tuple[Candidate, int]] = []
    for chair, bucket in candidates.items():
        tables = CHAIR_TABLES[chair]
        company = any(count[t] for t in tables)
        for cand in bucket:
            _, _, nation, lady, placement = cand
            if any(abs(2 * (ladies[t] + lady) - count[t] - 1) > 1 for t in tables):
                continue
            if company:
                points = 0
                for t in tables:
                    n = count[t] + 1
                    if n > 1:
                        pts = 2 * n if table_nation[t] == nation else n
                        points += 2 * pts if t[:2] == birthday else pts
                singles.append((cand, points))
                out.append((Turn.seat(placement), points))
            elif empty_board:
                out.append((Turn.seat(placement), 0))
    _independent_pairs(hand, singles, out)
    _dependent_pairs(state, hand, candidates, out)


def _independent_pairs(
    hand: Counter[str], singles: list[tuple[Candidate, int]], out: list[ScoredTurn]
) -> None:
    for i, (first, first_points) in enumerate(singles):
        tile, chair = first[0], first[1]
        tables = CHAIR_TABLES[chair]
        twice = hand[tile] >= 2
        for second, second_points in singles[i + 1 :]:
            if second[0] == tile and not twice:
                continue
            other = CHAIR_TABLES[second[1]]
            if other[0] in tables or (len(other) == 2 and other[1] in tables):
                continue
            out.append((Turn.seat(first[4], second[4]), first_points + second_points))


def _dependent_pairs(
    state: State,
    hand: Counter[str],
    candidates: dict[int, list[Candidate]],
    out: list[ScoredTurn],
) -> None:
    tile_at = state.seating.tile
    for table, info in TABLES.items():
        if state.seating.count[table] > 2:
            continue
        shared = [c for c in info.chairs if tile_at[c] is None and len(CHAIR_TABLES[c]) == 2]
        private = [c for c in info.chairs if tile_at[c] is None and len(CHAIR_TABLES[c]) == 1]
        chairs = shared + private[:1]
        for i, x in enumerate(chairs):
            for y in chairs[i + 1 :]:
                _pair_at(state, table, hand, candidates[x] if x in candidates else [],
                         candidates.get(y, []), y, False, out)  # fmt: skip
        if len(private) >= 2 and private[0] in candidates:
            bucket = candidates[private[0]]
            _pair_at(state, table, hand, bucket, bucket, private[1], True, out)


def _pair_at(
    state: State,
    table: str,
    hand: Counter[str],
    at_x: list[Candidate],
    at_y: list[Candidate],
    y: int,
    same_kind: bool,
    out: list[ScoredTurn],
) -> None:
    """Two guests on chairs x and y of ``table``; ``same_kind``: both private chairs of it,
    where writing order alone distinguishes the turns."""
    seating = state.seating
    count, ladies, table_nation = seating.count, seating.ladies, seating.table_nation
    birthday = state.birthday_nation
    n = count[table]
    base_ladies = ladies[table]
    here = table_nation[table]
    doubled_here = table[:2] == birthday
    for tile_x, x, nation_x, lady_x, place_x in at_x:
        other_x = _other_table(x, table)
        extra_x = _lone_points(state, other_x, nation_x, lady_x) if other_x else 0
        if extra_x is None:
            continue
        for tile_y, _, nation_y, lady_y, place_y in at_y:
            if tile_x == tile_y and hand[tile_x] < 2:
                continue
            if abs(2 * (base_ladies + lady_x + lady_y) - n - 2) > 1:
                continue
            other_y = _other_table(y, table)
            extra_y = _lone_points(state, other_y, nation_y, lady_y) if other_y else 0
            if extra_y is None:
                continue
            if same_kind:
                place_y = _placement(tile_y, y, nation_y)
            both = nation_x == nation_y and (here is None or here == nation_x)
            second = table_points(n + 2, both, doubled_here)
            x_first = table_points(n + 1, here is None or here == nation_x, doubled_here)
            base = extra_x + extra_y + second
            out.append((Turn.seat(place_x, place_y), base + x_first))
            if not same_kind:
                y_first = table_points(n + 1, here is None or here == nation_y, doubled_here)
                if y_first != x_first:
                    out.append((Turn.seat(place_y, place_x), base + y_first))


def _other_table(chair: int, table: str) -> str | None:
    tables = CHAIR_TABLES[chair]
    if len(tables) == 1:
        return None
    return tables[1] if tables[0] == table else tables[0]


def _lone_points(state: State, table: str, nation: str, lady: int) -> int | None:
    """Points of one guest added to ``table``, or ``None`` if that breaks its gender balance."""
    seating = state.seating
    n = seating.count[table] + 1
    if abs(2 * (seating.ladies[table] + lady) - n) > 1:
        return None
    single = seating.table_nation[table] in (None, nation)
    return table_points(n, single, table[:2] == state.birthday_nation)


def _klatsch_turns(state: State, hand: Counter[str], out: list[ScoredTurn]) -> None:
    """Fill one table with four ladies or four gentlemen in one turn (RULES.md §11)."""
    seating = state.seating
    seen: set[str] = set()
    for table, info in TABLES.items():
        guests = seating.count[table]
        if guests > 1:
            continue
        free = [c for c in info.chairs if seating.tile[c] is None]
        genders = (LADY, GENTLEMAN) if guests == 0 else (LADY if seating.ladies[table] else GENTLEMAN,)
        for gender in genders:
            tiles = [t for t, k in hand.items() for _ in range(k) if t[-1] == gender]
            if len(tiles) < len(free):
                continue
            for chosen in set(permutations(tiles, len(free))):
                _klatsch_assignments(state, table, free, chosen, seen, out)


def _klatsch_assignments(
    state: State,
    table: str,
    free: list[int],
    chosen: tuple[str, ...],
    seen: set[str],
    out: list[ScoredTurn],
) -> None:
    options: list[list[tuple[str, int, str]]] = [[]]
    for tile, chair in zip(chosen, free, strict=True):
        nation = nation_of(tile)
        allowed = _CHAIR_NATIONS[chair] if nation is None else (nation,)
        if nation is not None and nation not in _CHAIR_NATIONS[chair]:
            return
        options = [done + [(tile, chair, n)] for done in options for n in allowed]
    lady = 1 if chosen[0][-1] == LADY else 0
    for assignment in options:
        points = 0
        for tile, chair, nation in assignment:
            other = _other_table(chair, table)
            if other:
                extra = _lone_points(state, other, nation, lady)
                if extra is None:
                    break
                points += extra
        else:
            nations = {nation for _, _, nation in assignment}
            nations.update(state.seating.nation[c] for c in TABLES[table].chairs if c not in free)
            single = len(nations) == 1
            birthday = table[:2] == state.birthday_nation
            points += KLATSCH_POINTS * (2 if single else 1) * (2 if birthday else 1)
            turn = Turn.seat(*(_placement(t, c, n) for t, c, n in assignment))
            text = str(turn)
            if text not in seen:
                seen.add(text)
                out.append((turn, points))


def _swap_turns(state: State, hand: Counter[str], out: list[ScoredTurn]) -> None:
    tile_at = state.seating.tile
    seen: set[str] = set()
    for chair in _ALL_CHAIRS:
        joker = tile_at[chair]
        if joker is None or not is_joker(joker):
            continue
        for tile in hand:
            if is_joker(tile) or tile[-1] != joker[-1]:
                continue
            if nation_of(tile) in _CHAIR_NATIONS[chair]:
                turn = Turn.swap(Placement(tile, CHAIR_REFS[chair]))
                text = str(turn)
                if text not in seen:
                    seen.add(text)
                    out.append((turn, 0))


def _bar_turns(
    state: State, hand: Counter[str], out: list[ScoredTurn], *, joker_bar: bool
) -> None:
    if len(state.bar) >= len(BAR_VALUES):
        return
    value = BAR_VALUES[len(state.bar)]
    points = 0 if state.scores[state.to_move] + value < 0 else value
    ordinary = [tile for tile in hand if not is_joker(tile)]
    if ordinary:
        out.extend((Turn.bar(tile), points) for tile in ordinary)
    elif joker_bar and not out:
        out.extend((Turn.bar(tile), points) for tile in hand)
