"""Mojibake, the damage the tests must never see in a catalog, a rulebook, a page or a
command's output: UTF-8 read as cp1252 or Latin-1, as the Czech rule sheet `seeds/001` was
("PÅ™ed" for "Před")."""

from __future__ import annotations

import re

#: What the second byte of a two-byte UTF-8 character (0x80 to 0xBF) reads as in cp1252 or
#: Latin-1: "™" for 0x99, "›" for 0x9B, "\x92" for 0x92.
_CONTINUATION = "".join(
    sorted({chr(byte) for byte in range(0x80, 0xC0)} | {
        bytes([byte]).decode("cp1252", errors="ignore") for byte in range(0x80, 0xC0)
    } - {""})
)  # fmt: skip
#: Mojibake: UTF-8 read as cp1252 or Latin-1 ("PÅ™ed" for "Před", "Ä›" for "ě", "Ð¥" for
#: "Х"): the first byte of Czech's, German's or Russian's letters, then a second byte.
MOJIBAKE = re.compile(f"[ÂÃÄÅÐÑ][{re.escape(_CONTINUATION)}]")
