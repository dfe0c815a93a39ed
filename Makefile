# The two set-up commands of the README: `make run` (the service on its embedded
# defaults) and `make test` (the test suite). Both create .venv on first use.
#   make run PORT=6100 MAIL_PORT=8125   (or CAFE_PORT / CAFE_MAIL_PORT in the environment)
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?=
MAIL_PORT ?=

.PHONY: setup run test lint format bench catalogs language clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

setup: $(BIN)/.installed

run: setup
	$(BIN)/cafe-server dev $(if $(PORT),--port $(PORT)) $(if $(MAIL_PORT),--mail-port $(MAIL_PORT))

# What the tests need beyond Python (Chromium, npm, nginx) is installed with apt-get as
# root, or the run stops with one line saying what to install (tests/prerequisites.py).
test: setup
	@$(BIN)/python tests/prerequisites.py
	$(BIN)/python -m pytest -n auto

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: setup
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Languages (docs/languages.md): `make catalogs` extracts our messages and brings every
# catalog up to date with them; `make language LANG_CODE=pl` starts a new one.
catalogs: setup
	$(BIN)/python tools/catalogs.py update

language: setup
	$(BIN)/python tools/catalogs.py new $(LANG_CODE)

bench: setup
	$(BIN)/python benchmarks/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis
