"""The language `cafe` speaks in one run, decided once, before its commands are built (their
help is translated where they are defined, at import).

The first that names one of our languages (`cafe.i18n.LANGUAGES`) wins: `--lang`, else
`CAFE_LANG`, else the language the profile stored (`cafe prefs language=…`, or learnt from
the server at `cafe login` and `cafe register`), else the locale's variables as gettext
reads them (`LANGUAGE`, a colon-separated list, then `LC_ALL`, `LC_MESSAGES`, `LANG`),
else English. The same language goes to the server in `Accept-Language`, so that its
messages come back in it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from cafe.i18n import DEFAULT, negotiate

#: The environment variable that chooses the language when `--lang` does not.
VARIABLE = "CAFE_LANG"
#: The locale's variables, in the order gettext reads them: the first one set counts.
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def chosen(said: str | None, stored: Callable[[], str | None], environ: Mapping[str, str]) -> str:
    """The run's language: `said` (`--lang`, else `CAFE_LANG`), else the profile's `stored()`
    (read only when needed), else the locale's, else English. What is not ours is passed
    over (`fr`, `C`), as gettext passes over a language it has no catalog for."""
    found = negotiate([said]) if said else None
    if found:
        return found
    profile = stored()
    found = negotiate([profile]) if profile else None
    if found:
        return found
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable)
        if value:  # the first variable set decides, as in gettext: LANG=de under LC_ALL=C is C
            return negotiate(value.split(":")) or DEFAULT
    return DEFAULT


def given(args: Sequence[str], option: str) -> str | None:
    """The value of `option` (`--lang`) on a command line not parsed yet, written as
    `--lang cs` or `--lang=cs` anywhere before `--`; the last one counts, as in Click."""
    end = list(args).index("--") if "--" in args else len(args)
    value = None
    for i, word in enumerate(args[:end]):
        if word == option and i + 1 < end:
            value = args[i + 1]
        elif word.startswith(option + "="):
            value = word.partition("=")[2]
    return value
