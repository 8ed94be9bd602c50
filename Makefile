# `make run` and `make test` each create .venv and install first (README.md).
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

REDOCLY_VERSION := 2.77.0
REDOCLY := $(VENV)/node/node_modules/.bin/redocly

.PHONY: install run test lint openapi bench clean

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/tablestream serve

$(REDOCLY):
	npm install --silent --no-save --no-audit --no-fund --prefix $(VENV)/node @redocly/cli@$(REDOCLY_VERSION)

lint: install $(REDOCLY)
	$(BIN)/ruff check .
	$(REDOCLY) lint openapi.yaml

test: install lint
	$(BIN)/python -m pytest -n auto

openapi: install
	$(BIN)/tablestream openapi -o openapi.yaml

bench: install
	$(BIN)/python bench/store_and_http.py
	$(BIN)/python bench/bots_and_clocks.py

clean:
	rm -rf $(VENV) *.egg-info
