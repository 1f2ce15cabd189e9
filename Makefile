# Two commands set everything up on a fresh machine: `make lab` and `make test`.
# Needs python3 with venv (Debian/Ubuntu: apt-get install python3-venv).

PYTHON ?= python3
VENV ?= .venv
CAMPAIGN ?= campaigns/the-sunken-keep
# the play copy the table notebook records into (examples/run-a-session.ipynb copies CAMPAIGN there)
PLAY ?= examples/play/$(notdir $(CAMPAIGN))
LAB_ARGS ?=
PLAYERS_ARGS ?=
PYTEST_ARGS ?=

BIN := $(VENV)/bin

.PHONY: lab players test test-all lite binder-constraints long-delve

lab: $(VENV)/.installed
	$(BIN)/delvebook lab $(CAMPAIGN) $(LAB_ARGS)

# The players' view of the play copy, for a second screen and the players' phones (`delvebook players`;
# PLAYERS_ARGS="--ip 0.0.0.0" for the phones, --hide-hearts...).
# Started before the keeper's first run, it makes the play copy as the table notebook would.
players: $(VENV)/.installed
	@test -d $(PLAY) || $(BIN)/python -c 'import shutil, sys; shutil.copytree(sys.argv[1], sys.argv[2], \
		ignore=shutil.ignore_patterns(".delvebook.lock"))' $(CAMPAIGN) $(PLAY)
	$(BIN)/delvebook players $(PLAY) $(PLAYERS_ARGS)

# The fast tier: unit, property, widget and notebook tests (about four minutes on 2 cores).
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -p no:cacheprovider -m "not slow and not browser" $(PYTEST_ARGS)

# The full suite, what CI runs: the fast tier plus the slow and the real-browser tests.
test-all: $(VENV)/.installed-test
	$(BIN)/python -m pytest -p no:cacheprovider $(PYTEST_ARGS)

# The bundled finished campaign, played again by its script with its fixed seed, and the digests of what it read:
# `make test` says when it is due (a change to the engine, the rules or the script that may change its log).
long-delve: $(VENV)/.installed
	$(BIN)/python scripts/make_finished_campaign.py campaigns/the-long-delve --record scripts/the-long-delve.sources.json

# A static JupyterLite site for CAMPAIGN in LITE_OUT (serve it with any static web server; see README).
# Needs npm (Debian: apt-get install npm): Pyodide's core files come from the `pyodide` npm package.
LITE_OUT ?= build/lite

lite: $(VENV)/.installed-lite
	$(BIN)/delvebook lite $(CAMPAIGN) -o $(LITE_OUT)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip

# Stamps: reinstall only when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e '.[all]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e '.[test]'
	touch $@ $(VENV)/.installed $(VENV)/.installed-lite

# `make lite` needs only the core and JupyterLite (the lite extra), not the table's or the tests' dependencies
$(VENV)/.installed-lite: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -e '.[lite]'
	touch $@

# Pin Binder's versions together with repo2docker's base image: render the Dockerfile Binder builds (no Docker),
# install the base image's own packages (its conda lock) into a fresh venv on the Python binder/runtime.txt names,
# install binder/requirements.txt there without moving any of them, `pip check`, and write what got installed to
# binder/constraints.txt (and the copy `delvebook new --repo` gives a campaign repository). Run it after changing a
# dependency or the repo2docker pin in pyproject.toml, commit the result, and Binder builds the same image every time.
BINDER_PYTHON ?= python$(shell sed -n 's/^python-//p' binder/runtime.txt)

binder-constraints: $(VENV)/.installed-test
	$(BIN)/python scripts/binder_constraints.py --python $(BINDER_PYTHON)
