# Two commands set everything up on a fresh machine: `make lab` and `make test`.
# Needs python3 with venv (Debian/Ubuntu: apt-get install python3-venv).

PYTHON ?= python3
VENV ?= .venv
CAMPAIGN ?= campaigns/the-sunken-keep
LAB_ARGS ?=
PYTEST_ARGS ?=

BIN := $(VENV)/bin

.PHONY: lab test test-all

lab: $(VENV)/.installed
	$(BIN)/delvebook lab $(CAMPAIGN) $(LAB_ARGS)

# The fast tier: unit, property, widget and notebook tests (about two minutes).
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -p no:cacheprovider -m "not slow and not browser" $(PYTEST_ARGS)

# The full suite, what CI runs: the fast tier plus the slow and the real-browser tests.
test-all: $(VENV)/.installed-test
	$(BIN)/python -m pytest -p no:cacheprovider $(PYTEST_ARGS)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

# Stamps: reinstall only when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e '.[all]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e '.[test]'
	touch $@ $(VENV)/.installed
