"""One rule for player names (`cafe.players`): the service registers exactly the names a
game accepts, at the boundary lengths and with odd characters, and refuses the others
with the same rule in its message."""

from __future__ import annotations

import pytest

from cafe import CafeError, Game
from cafe.players import NAME_LENGTH, NAME_RULE

ACCEPTED = [
    "a",
    "Z9",
    "ann.lee",
    "bob_2",
    "cid-x",
    "x" + "y" * (NAME_LENGTH - 1),  # the longest
    "q" + "0123456789" * 2 + "abc",
]
REFUSED = [
    "",
    "k" * (NAME_LENGTH + 1),  # one too long
    "9lives",
    "_ann",
    ".ann",
    "-ann",
    "ann lee",
    "ann:lee",
    'ann"lee',
    "ann/lee",
    "ann?",
    "ann#",
    "ann@x",
    "ann+1",
    "ann,bob",
    "ann\tlee",
    "ann\u200blee",  # a zero-width space
    "Müller",
    "Ａnn",  # a full-width A
    "ann\x00",
]


def engine_accepts(name: str) -> bool:
    try:
        Game.new([name, "opponent"], seed="names")
    except CafeError as error:
        assert NAME_RULE in str(error)
        return False
    return True


def api_accepts(api, name: str, n: int) -> bool:
    answer = api.client.post("/api/players", json={"name": name, "email": f"p{n}@example.com"})
    assert answer.status_code in (202, 400), answer.json
    if answer.status_code == 400:
        assert answer.json["error"] == "invalid_request" and "`name`" in answer.json["message"]
    return answer.status_code == 202


def test_the_api_and_the_engine_accept_and_refuse_the_same_names(api) -> None:
    verdicts = {name: (api_accepts(api, name, n), engine_accepts(name)) for n, name in
                enumerate(ACCEPTED + REFUSED)}  # fmt: skip
    assert verdicts == {name: (name in ACCEPTED,) * 2 for name in verdicts}


@pytest.mark.parametrize("name", ["ann ", "\tann", "ann\n"])
def test_the_api_strips_surrounding_whitespace_before_the_rule(api, name) -> None:
    assert api_accepts(api, name, 0) and not engine_accepts(name) and engine_accepts("ann")
