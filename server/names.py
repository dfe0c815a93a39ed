"""Names that look alike: two players' names may not differ only by characters confusable
with one another (`Iris` and `lris`, `O0` and `OO`, `rnary` and `mary`), as they may not
differ only in case.

The test is Unicode's own (UTS #39, "Unicode Security Mechanisms"): two strings are
confusable when their *skeletons* are equal, the skeleton mapping every character to the
prototype it looks like. ICU implements it (`SpoofChecker.getSkeleton`, with the Unicode
consortium's confusables data), so that is what we use rather than a table of our own;
the players table keeps each name's skeleton, lowercased, under a unique index.
"""

from __future__ import annotations

import icu

#: ICU's spoof checker: configured once, then safe to share between threads.
_CHECKER = icu.SpoofChecker()


def skeleton(name: str) -> str:
    """The name's confusable skeleton (UTS #39), lowercased: equal for two names that a
    reader could take for one another (`Iris` and `lris` are both `lris`, `O0` and
    `OO` both `oo`)."""
    return str(_CHECKER.getSkeleton(0, name)).lower()
