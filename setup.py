"""The catalogs compiled into the wheel: `pyproject.toml` says everything else.

A wheel ships each language's `cafe.mo` next to its `cafe.po` (docs/languages.md), so an
installed `cafe` reads compiled catalogs and needs no Babel to start; a checkout compiles its
sources when it first speaks a language (`cafe.i18n.catalog`)."""

from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCatalogs(build_py):
    """`build_py`, then every `.po` catalog it copied compiled to its `.mo`."""

    def run(self) -> None:
        super().run()
        for source in Path(self.build_lib, "cafe", "locales").glob("*/LC_MESSAGES/*.po"):
            with source.open("rb") as stream:
                catalog = read_po(stream, locale=source.parent.parent.name)
            with source.with_suffix(".mo").open("wb") as compiled:
                write_mo(compiled, catalog)


setup(cmdclass={"build_py": BuildWithCatalogs})
