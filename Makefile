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

.PHONY: lab players test test-all lite binder-constraints

lab: $(VENV)/.installed
	$(BIN)/delvebook lab $(CAMPAIGN) $(LAB_ARGS)

# The players' view of the play copy, for a second screen (`delvebook players`; PLAYERS_ARGS=--hide-hearts...).
# Started before the keeper's first run, it makes the play copy as the table notebook would.
players: $(VENV)/.installed
	@test -d $(PLAY) || $(BIN)/python -c 'import shutil, sys; shutil.copytree(sys.argv[1], sys.argv[2], \
		ignore=shutil.ignore_patterns(".delvebook.lock"))' $(CAMPAIGN) $(PLAY)
	$(BIN)/delvebook players $(PLAY) $(PLAYERS_ARGS)

# The fast tier: unit, property, widget and notebook tests (about two minutes).
test: $(VENV)/.installed-test
	$(BIN)/python -m pytest -p no:cacheprovider -m "not slow and not browser" $(PYTEST_ARGS)

# The full suite, what CI runs: the fast tier plus the slow and the real-browser tests.
test-all: $(VENV)/.installed-test
	$(BIN)/python -m pytest -p no:cacheprovider $(PYTEST_ARGS)

# A static JupyterLite site for CAMPAIGN in LITE_OUT (serve it with any static web server; see README).
# Needs npm (Debian: apt-get install npm): Pyodide's core files come from the `pyodide` npm package.
LITE_OUT ?= build/lite

lite: $(VENV)/.installed-test
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
	touch $@ $(VENV)/.installed

# Pin Binder's versions: resolve binder/requirements.txt (without its constraints) in a fresh venv on the
# Python that binder/runtime.txt names, and write what got installed to binder/constraints.txt. Run it
# after changing a dependency, commit the result, and Binder builds the same image every time.
BINDER_PYTHON ?= python$(shell sed -n 's/^python-//p' binder/runtime.txt)

binder-constraints:
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(BINDER_PYTHON) -m venv "$$tmp/venv"; \
	"$$tmp/venv/bin/python" -m pip install -q --upgrade pip; \
	grep -v -e '^-c' -e '^--constraint' binder/requirements.txt > "$$tmp/requirements.txt"; \
	"$$tmp/venv/bin/python" -m pip install -q -r "$$tmp/requirements.txt"; \
	{ echo "# Every version Binder installs, pinned. Written by \`make binder-constraints\` (do not edit by hand):"; \
	  echo "# binder/requirements.txt resolved in a fresh venv on $$("$$tmp/venv/bin/python" -c 'import platform; print("Python", platform.python_version(), platform.system(), platform.machine())')."; \
	  "$$tmp/venv/bin/python" -m pip freeze --exclude delvebook; } > binder/constraints.txt.tmp; \
	mv binder/constraints.txt.tmp binder/constraints.txt; \
	echo "binder/constraints.txt: $$(grep -c '==' binder/constraints.txt) pinned packages"
