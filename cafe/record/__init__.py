"""Game records: a game as text, in the spirit of chess's PGN, that anyone can re-check.

A record is text made of lines. Blank lines, and lines whose first non-blank character is
``#`` (comments), may stand anywhere and are ignored. The *header* comes first: one tag per
line, written ``[Name "value"]``, each at most once and no others; ``write`` emits them in
this order, then one blank line:

``[Event "Spring League, season 2, division 1"]``
    Optional, as PGN's Event: the competition a league game was played in, its league,
    season and division (``cafe.render.quantities.season_place``, in English); left out
    for a game outside a league.
``[Site "https://cafe.example.org"]``
    Optional, as in PGN's seven-tag roster: where the game was played (the service).
``[Date "2026.11.30"]``
    Optional: the day the game started, ``YYYY.MM.DD`` as in PGN (``??`` for what is unknown).
``[Game "17"]``
    Optional: the game's id at that site.
``[Players "ann bob cid"]``
    Required. The player names in seat order (the order of play), separated by spaces.
``[Options "birthday=30 coffee_klatsch"]``
    Required. The variants of rulebook §11: ``birthday=T`` (threshold ``T`` points) and
    ``coffee_klatsch``, in this order, separated by spaces; ``none`` when both are off.
``[Commitment "<64 hex digits>"]``
    Required. The SHA-256 of the seed (rulebook §12), published when the game was dealt.
``[Seed "<hex digits>"]``
    Only once revealed (normally when the game is over): the seed's bytes in hexadecimal.
``[Deal "DEf DEm USf Jm CNf / ITm … / …"]``
    Required. The five tiles dealt to each seat, in the order drawn, hands in seat order
    separated by ``/``.
``[Result "1. ann 45 (score 50, penalty -5); 2. bob 30 (score 30, penalty 0); …"]``
    Exactly when the game is over: the final standings (rulebook §10), best first, separated
    by ``; ``. Each is ``PLACE. PLAYER FINAL (score SCORE, penalty PENALTY)`` where ``FINAL``
    is ``SCORE`` plus ``PENALTY`` (what the tiles left in hand cost), or
    ``PLACE. PLAYER SCORE (HOW)`` for a player out of the game before its end, ``HOW`` being
    ``eliminated`` (at the bar), ``resigned`` or ``removed on time``. Equal final scores
    share a place. (Records written before said ``eliminated`` for all three; they still
    verify.)

The *turns* follow, one line per turn, numbered from 1 in the order played::

    N. PLAYER: TURN | POINTS [| drew TILE TILE …] [| eliminated] [| timeout]

* ``TURN`` is the turn in rulebook §13 notation, canonical (``str(turn)``), with one
  exception: a guest placed on a private chair other than the one its table id would name
  at that moment in the replay (the lowest free private chair of the table; for a joker
  exchange, the lowest private chair holding a joker of the tile's gender) is written with
  its chair number, ``USf@#17``, so that every guest sits on the same chair when replayed.
* ``POINTS`` is the change of the player's score, with its sign: ``+17``, ``-4``, ``+0``
  (an eliminating bar turn scores ``+0``).
* ``drew …`` lists the tiles drawn into the hand after the turn, in the order drawn;
  the field is left out when no tile was drawn.
* ``eliminated`` marks the bar turn that put the player out of the game.
* ``timeout`` marks a turn the correspondence service played for the player because their
  time ran out (the best turn it could find); it is replayed like any other.

A player who resigns (not a turn: the correspondence service allows it at any time) is
written ``-- PLAYER resigns`` where it happened among the turns; a player the service
removed because their time ran out, ``-- PLAYER times out`` (out in the same way).

A game ended by adjudication (``Game.adjudicate``: a league's organiser ended a game stuck
for a reason outside the rules) has ``-- adjudicated: REASON`` as its last line. Replaying
it ends the game there: nothing may follow it, the game must not have been over already,
and ``Result`` must be the standings of the position as it stood, with the penalties for
the tiles in hand as at any end.

For example::

    12. bob: USm@US1-US2 USf@DE2-US1 | +17 | drew DEf ITm
    13. cid: bar ITf | +0 | eliminated

Reading a record replays it with the engine. Every turn must be played by the player to
move and be legal, and must score the recorded points, draw the recorded tiles and
eliminate as recorded; ``Result`` must equal the replayed standings. With a ``Seed`` the
bag is the seed's shuffle (``cafe.fairbag``): the seed must hash to the commitment, the
seat order, the deal and every draw must be the shuffle's. Without one (a game in progress)
the bag is rebuilt as the deal, then the recorded draws in order, then the tiles not yet
drawn in the canonical order of ``cafe.tiles.ALL_TILES``: a stand-in that reproduces
everything visible (board, hands, scores, the size of the bag) but not the secret order, so
such a game is for reading, not for playing on. A damaged record is refused with a
``RecordError`` (an ``InvalidPositionError``) naming the line and the reason.
"""

from cafe.record.replaying import VerifyReport, replay, verify
from cafe.record.syntax import RecordError
from cafe.record.writing import options_text, result_text, write

__all__ = [
    "RecordError",
    "VerifyReport",
    "options_text",
    "replay",
    "result_text",
    "verify",
    "write",
]
