"""The catalogs of `cafe/locales/` kept in step with the code (docs/languages.md).

    python tools/catalogs.py update     # what `make catalogs` runs
    python tools/catalogs.py new pl     # what `make language LANG_CODE=pl` runs
    python tools/catalogs.py check      # what is stale, untranslated or fuzzy; exit 1 if any
    python tools/catalogs.py fill cs FILE  # translations from FILE (.json or .po) into cs

A JSON file for `fill` maps each msgid to its translation (a list of forms for a plural);
a message with a context (`pgettext`) is keyed by the context, U+0004 and the msgid.

`update` extracts every message of our Python and templates (`babel.cfg` says where) and
brings each language's catalog up to date with them: new messages are added untranslated,
messages the code no longer has are dropped. The files are written sorted, without line
numbers and with a fixed header, so that two branches that add messages merge cleanly.

A message is its msgid and, said in a sense (`pgettext`), its context: the same English in
two senses is two entries, checked and filled apart. A key names it as gettext does,
`CONTEXT\x04MSGID` (`"stool\u0004bar"` in a JSON file), and the msgid alone without one.
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALES = ROOT / "cafe" / "locales"
DOMAIN = "cafe"
#: The functions whose messages are extracted: gettext's, and `cafe.i18n`'s lazy ones.
KEYWORDS = {**DEFAULT_KEYWORDS, "lazy_gettext": None, "lazy_ngettext": (1, 2)}

#: The placeholders of a message: `%(name)s` (and `%%`, a percent sign).
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")

_HEADER = """\
# The {name} words of Café International by correspondence (docs/languages.md), written by
# the project in the terms of the game's own documents. `make catalogs` brings this file up
# to date with the code; translate every entry, and keep each `%(name)s` as it is.
msgid ""
msgstr ""
"Project-Id-Version: cafe-international\\n"
"Language: {code}\\n"
"Plural-Forms: nplurals={count}; plural={expression};\\n"
"MIME-Version: 1.0\\n"
"Content-Type: text/plain; charset=utf-8\\n"
"Content-Transfer-Encoding: 8bit\\n"

"""


def extract() -> Catalog:
    """Every message of the code, as a template catalog."""
    with (ROOT / "babel.cfg").open() as config:
        method_map, options_map = parse_mapping_cfg(config)
    template = Catalog(domain=DOMAIN)
    for filename, _line, message, comments, context in extract_from_dir(
        ROOT,
        method_map,
        options_map,
        keywords=KEYWORDS,
        comment_tags=("Translators:",),
        strip_comment_tags=True,
    ):
        template.add(message, None, [(filename, 0)], auto_comments=comments, context=context)
    return template


def path_of(code: str) -> Path:
    """Where the catalog of language `code` is."""
    return LOCALES / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def languages() -> list[str]:
    """The codes of the languages that have a catalog."""
    return sorted(folder.name for folder in LOCALES.iterdir() if path_of(folder.name).exists())


def read(code: str) -> Catalog:
    """The catalog of language `code`."""
    with path_of(code).open("rb") as stream:
        return read_po(stream, locale=code)


def write(code: str, catalog: Catalog) -> None:
    """`catalog` written as the catalog of `code`: our header, then the entries sorted."""
    body = io.BytesIO()
    write_po(body, catalog, omit_header=True, sort_output=True, no_location=True)
    count, expression = get_plural(code)
    header = _HEADER.format(
        name=Locale("en").languages[code], code=code, count=count, expression=expression
    )
    path_of(code).parent.mkdir(parents=True, exist_ok=True)
    path_of(code).write_bytes(header.encode() + body.getvalue())


def update(template: Catalog, code: str) -> None:
    """The catalog of `code` brought up to date with `template` (a new one if it has none)."""
    catalog = read(code) if path_of(code).exists() else Catalog(locale=code, domain=DOMAIN)
    catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
    catalog.obsolete.clear()
    write(code, catalog)


def problems(template: Catalog, code: str) -> list[str]:
    """What is wrong with the catalog of `code`: messages the code has and it lacks (or the
    other way round), entries untranslated or fuzzy, placeholders that differ."""
    catalog = read(code)
    wanted = {_key(message): message for message in template if message.id}
    found = {_key(message): message for message in catalog if message.id}
    found_problems = [f"{code}: missing {key!r}" for key in wanted.keys() - found.keys()]
    found_problems += [f"{code}: not in the code {key!r}" for key in found.keys() - wanted.keys()]
    for key, message in found.items():
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy:
            found_problems.append(f"{code}: fuzzy {key!r}")
        if not all(strings):
            found_problems.append(f"{code}: untranslated {key!r}")
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        expected = set().union(*(PLACEHOLDER.findall(str(text)) for text in ids)) - {"num"}
        for text in strings:
            if set(PLACEHOLDER.findall(str(text))) - {"num"} != expected:
                found_problems.append(f"{code}: placeholders differ in {key!r}: {text!r}")
    return sorted(found_problems)


def fill(code: str, source: Path) -> list[str]:
    """Translations from `source` written into the catalog of `code`, for the messages it
    has: a JSON object `{msgid: translation}` (a list of forms for a plural) or another `.po`
    file of the same language (the other side of a merge). Returns the msgids not found."""
    if source.suffix == ".json":
        given = json.loads(source.read_text())
    else:
        with source.open("rb") as stream:
            given = {_key(m): m.string for m in read_po(stream, locale=code) if m.id and m.string}
    catalog = read(code)
    found = {_key(message): message for message in catalog if message.id}
    for key, translation in given.items():
        if key in found:
            found[key].string = tuple(translation) if isinstance(translation, list) else translation
            found[key].flags.discard("fuzzy")
    write(code, catalog)
    return sorted(given.keys() - found.keys())


#: Between a message's context and its msgid in its key, as in a compiled catalog.
CONTEXT_SEPARATOR = "\x04"


def _key(message: Message) -> str:
    """A message's key: its msgid (its singular, for a plural message), after its context
    and `CONTEXT_SEPARATOR` where it has one (`pgettext("season", "finished")` is
    `"season\x04finished"`, `"season\u0004finished"` in a JSON file), so that one English
    word in two senses is two entries."""
    msgid = message.id if isinstance(message.id, str) else message.id[0]
    return msgid if message.context is None else f"{message.context}{CONTEXT_SEPARATOR}{msgid}"


def main(arguments: list[str]) -> int:
    """The command line: `update`, `new CODE` or `check`."""
    template = extract()
    match arguments:
        case ["update"]:
            for code in languages():
                update(template, code)
        case ["new", code]:
            update(template, code)
        case ["fill", code, source]:
            print("\n".join(f"not in the catalog: {key!r}" for key in fill(code, Path(source))))
        case ["check"]:
            found = [problem for code in languages() for problem in problems(template, code)]
            print("\n".join(found) or f"{len(template)} messages, every one translated")
            return 1 if found else 0
        case _:
            print(__doc__)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
