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
# the tests run side by side in this many processes (pytest-xdist), a test file to a process: what waits on a browser,
# a server or a child process overlaps with the rest; 0 runs them all in one process
PYTEST_WORKERS ?= 2
XDIST := $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile)
# kills per crash test in `make soak` (the suite makes DELVEBOOK_CRASH_KILLS of them: 30 unless set; CI sets 200)
SOAK_KILLS ?= 1000

BIN := $(VENV)/bin

.PHONY: lab players test test-all soak lite binder-constraints long-delve

lab: $(VENV)/.installed
	$(BIN)/delvebook lab $(CAMPAIGN) $(LAB_ARGS)

# The players' view of the play copy, for a second screen and the players' phones (`delvebook players`;
# PLAYERS_ARGS="--ip 0.0.0.0" for the phones, --hide-hearts...).
# Started before the keeper's first run, it makes the play copy as the table notebook would.
players: $(VENV)/.installed
	@test -d $(PLAY) || $(BIN)/python -c 'import shutil, sys; shutil.copytree(sys.argv[1], sys.argv[2], \
		ignore=shutil.ignore_patterns(".delvebook.lock"))' $(CAMPAIGN) $(PLAY)
	$(BIN)/delvebook players $(PLAY) $(PLAYERS_ARGS)

# The fast tier: unit, property, widget and notebook tests.
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -p no:cacheprovider $(XDIST) -m "not slow and not browser" $(PYTEST_ARGS)

# The full suite, what CI runs: the fast tier plus the slow and the real-browser tests.
test-all: $(VENV)/.installed-test
	$(BIN)/python -m pytest -p no:cacheprovider $(XDIST) $(PYTEST_ARGS)

# The crash tests soak-sized: SOAK_KILLS kills of a writer at random moments in each (the rarest landings, a torn
# line or campaign.yaml's temporary file left behind, come a few times in 200).
soak: $(VENV)/.installed-test
	DELVEBOOK_CRASH_KILLS=$(SOAK_KILLS) $(BIN)/python -m pytest -p no:cacheprovider -s tests/test_store_crash.py \
		$(PYTEST_ARGS)

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
# An editable install leaves out the package's data files (a wheel installs them): the file that switches on the
# players' pages in every Jupyter server of this venv is put where a wheel puts it.
SERVER_CONFIG := jupyter-config/jupyter_server_config.d/delvebook.json
ENABLE_PAGES = install -D -m 644 $(SERVER_CONFIG) $(VENV)/etc/jupyter/jupyter_server_config.d/delvebook.json

$(VENV)/.installed: pyproject.toml $(SERVER_CONFIG) | $(BIN)/python
	$(BIN)/python -m pip install -e '.[all]'
	$(ENABLE_PAGES)
	touch $@

$(VENV)/.installed-test: pyproject.toml $(SERVER_CONFIG) | $(BIN)/python
	$(BIN)/python -m pip install -e '.[test]'
	$(ENABLE_PAGES)
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
