# `make run` and `make test` each create .venv and install first (README.md).
VENV   ?= .venv
PYTHON ?= python3
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run test lint openapi bench clean

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/tablestream serve

lint: install
	$(BIN)/ruff check .

test: install lint
	$(BIN)/python -m pytest -n auto

openapi: install
	$(BIN)/tablestream openapi -o openapi.yaml

bench: install
	$(BIN)/python bench/store_and_http.py
	$(BIN)/python bench/bots_and_clocks.py
	$(BIN)/python bench/replay_and_explain.py

clean:
	rm -rf $(VENV) *.egg-info
