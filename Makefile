# Your Trumps: `make run` serves the site locally, `make test` runs lint and every test.
# Both create .venv and install into it on first use the exact versions locked in
# requirements/ (every package, Twisted, autobahn and redis-py included), then the project
# itself; a stamp file inside .venv makes them reinstall only when a lock file or
# pyproject.toml changes.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run serve test lint lock clean catalogues messages

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUN_STAMP): requirements/run.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements/run.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@

# The dev install includes everything `run` needs, so it satisfies both stamps.
$(DEV_STAMP): requirements/dev.txt pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -r requirements/dev.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $@ $(RUN_STAMP)

# After changing a range in pyproject.toml: lock the versions again (pip-tools), for everyone.
LOCK := $(BIN)/python -m piptools compile --quiet --strip-extras --no-emit-index-url \
	--no-emit-trusted-host --no-emit-find-links pyproject.toml
lock: $(DEV_STAMP)
	$(LOCK) --output-file requirements/run.txt
	$(LOCK) --extra dev --output-file requirements/dev.txt

# The message catalogues (locale/*/LC_MESSAGES/*.po), compiled to .mo by Babel from the venv:
# a newcomer needs no GNU gettext to see the site in Galician, Hebrew or Armenian.
catalogues: $(RUN_STAMP)
	$(BIN)/python -m yourtrumps_site.catalogues

# For developers who changed marked strings: extract them again into every language's catalogue
# (Django's makemessages, which needs GNU gettext's xgettext), then compile.
messages: $(RUN_STAMP)
	$(BIN)/python -m yourtrumps_site.catalogues extract

# Serves http://127.0.0.1:8000 with Daphne (Django's runserver is Daphne's ASGI server here).
# Uses DATABASE_URL / REDIS_URL when set in the environment, else SQLite and in-memory channels.
# A socket's handshake may wait 30 s for its consumer (Daphne's default, 5 s, resets the sockets
# of a crowd arriving at once, and each comes back as a reconnection: the git log of docs/load.md).
# The migrations also make the database cache's table, where the abuse limits count
# (accounts.limits, migration 0006).
run: catalogues
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py runserver --websocket_handshake_timeout 30 $(HOST):$(PORT)

# The scaled set-up on one address (README, "Serving a crowd"): several Daphne processes sharing
# port 8000 and the task workers, on PostgreSQL and Redis (the local ones unless set). It collects
# the static files first (quick when nothing changed): with DEBUG=false the manifest storage
# answers every page with a 500 until they are collected.
SERVE_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/test
SERVE_REDIS_URL ?= redis://127.0.0.1:6379/0
PROCESSES ?= 2
serve: catalogues
	DATABASE_URL=$${DATABASE_URL:-$(SERVE_DATABASE_URL)} REDIS_URL=$${REDIS_URL:-$(SERVE_REDIS_URL)} \
	  sh -c '$(BIN)/python manage.py migrate --noinput && \
	  $(BIN)/python manage.py collectstatic --noinput --verbosity 0 && \
	  exec $(BIN)/python manage.py serve --host $(HOST) --port $(PORT) --processes $(PROCESSES)'

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# axe-core, which the browser tests inject into pages to check their accessibility, from
# package-lock.json. Without npm those checks are skipped (they say so); nothing else needs it.
AXE := node_modules/axe-core/axe.min.js
$(AXE): package-lock.json
	@if command -v npm >/dev/null; then npm ci --no-audit --no-fund && touch $@; \
	else echo "npm is missing: the browser tests' accessibility checks will be skipped"; fi

# `make test`: ruff, mypy (strict, on the engine), the import rules (lint-imports), then two
# pytest processes, since pytest-playwright and pytest-asyncio break each other in one.
# Exit code 5 (no tests collected) counts as success.
test: lint catalogues $(AXE)
	$(BIN)/python -m pytest -m "not e2e" || [ $$? -eq 5 ]
	$(BIN)/python -m pytest -m e2e || [ $$? -eq 5 ]

clean:
	rm -rf $(VENV) node_modules staticfiles test-artifacts test-results .pytest_cache .ruff_cache .hypothesis
