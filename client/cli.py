"""`cafe`: the command-line client players use (console script `cafe = client.cli:main`).

Parse → call the `ApiClient` → print; the app and its commands are `client.app`. This
module decides the run's language first (`client.language`: `--lang`, `CAFE_LANG`, the
profile's, the terminal's), from the command line and the environment before Typer reads
them, because every command's help is translated where it is defined: `client.app` is
imported inside `cafe.i18n.speaking` of that language.
"""

import os
import sys
from collections.abc import Mapping

from cafe.i18n import speaking
from client.config import DEFAULT_PROFILE, Store, config_dir
from client.errors import CliError
from client.language import VARIABLE, chosen, given


def run_language(args: list[str], environ: Mapping[str, str]) -> str:
    """The language of `cafe ARGS…` under `environ`: the profile's stored one is read (from
    the profile `--profile` or `CAFE_PROFILE` names) only when neither `--lang` nor
    `CAFE_LANG` says one."""
    profile = given(args, "--profile") or environ.get("CAFE_PROFILE") or DEFAULT_PROFILE
    said = given(args, "--lang") or environ.get(VARIABLE)

    def stored() -> str | None:
        try:
            return Store(config_dir(environ)).language(profile)
        except CliError:  # an unreadable config: the command says so, in the next language
            return None

    return chosen(said, stored, environ)


def main() -> None:
    """Console-script entry point."""
    with speaking(run_language(sys.argv[1:], os.environ)):
        from client.app import app  # noqa: PLC0415 (its help is translated as it is built)

        app()
