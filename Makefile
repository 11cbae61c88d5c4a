# `make play` and `make test` do all the set-up on a fresh machine, in a virtual environment in .venv.
# `make test` installs the extras at the exact versions of constraints.txt (pyproject.toml gives ranges).
# `make play` installs only what playing needs (the package and its core dependencies: rich, Textual), its
# engine in pure Python (and the native core in C, which compiles in seconds) so that the first match starts
# within a minute; `make test` builds the package as it ships (its engine compiled with mypyc) with every extra
# the tests need. Each has its own stamp, so `make play`
# then `make test` (or the other way round) installs what is missing; once `make test` has installed
# everything, `make play` uses that.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEPS_SUM := $(shell cat pyproject.toml setup.py constraints.txt | cksum | cut -d' ' -f1)
PLAY_STAMP := $(VENV)/.installed-play-$(DEPS_SUM)
TEST_STAMP := $(VENV)/.installed-test-$(DEPS_SUM)
# the wheel `make test` builds and installs (.ci/wheel-smoke installs the same one in a fresh venv, and
# tests/test_container.py as the image does), built by the image's own build step (deploy/docker/build.sh)
WHEEL_DIR := build/wheel
# everything the package ships: a change to any of it (a deck, the browser client, a migration, the native
# core's C) reinstalls
SOURCES := $(shell find src -name '*.py' -o -name '*.toml' -o -name '*.typed' -o -name '*.md' -o -name '*.js' \
             -o -name '*.css' -o -name '*.html' -o -name '*.svg' -o -name '*.json' -o -name '*.mako' \
             -o -name '*.c' -o -name '*.h')
# The rules tests also run against the pure-Python engine (the source mypy checks).
PURE_TESTS := $(addprefix tests/engine/test_,rules.py goals.py effects.py convert.py illegal_input.py records.py \
              extension.py worlds.py events.py knowledge.py indistinguishable.py)

.PHONY: play test lint docs fuzz bench clean

$(BIN)/python:
	@echo "make: creating the virtual environment in $(VENV)"
	$(PYTHON) -m venv $(VENV)

$(PLAY_STAMP): $(BIN)/python pyproject.toml setup.py $(SOURCES)
	@echo "make: installing converge and what playing needs (rich, Textual), pure Python: about half a minute"
	rm -rf build  # setuptools reuses build/lib: a module deleted from src/ would still be installed
	CONVERGE_PURE=1 $(BIN)/python -m pip install --disable-pip-version-check .
	rm -f $(VENV)/.installed-*
	touch $(PLAY_STAMP)

$(TEST_STAMP): $(BIN)/python pyproject.toml setup.py constraints.txt $(SOURCES)
	@echo "make: installing converge (engine compiled with mypyc: a few minutes) with every extra the tests need"
	$(BIN)/python -m pip install -q --disable-pip-version-check --upgrade pip
	rm -rf build
	PYTHON=$(BIN)/python deploy/docker/build.sh . $(WHEEL_DIR)
	$(BIN)/python -m pip uninstall -q -y converge-game 2>/dev/null || true  # (the same version is not reinstalled)
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(BIN)/python -m pip install -q --disable-pip-version-check \
	    -c constraints.txt "$$(ls $(WHEEL_DIR)/converge_game-*.whl)[test,rl,sim,cards,ray,web,webtest,bench,docs]"
	rm -f $(VENV)/.installed-*
	touch $(TEST_STAMP)

# Once everything is installed (`make test`), playing uses that install; otherwise the light one.
play: $(if $(wildcard $(VENV)/.installed-test-*),$(TEST_STAMP),$(PLAY_STAMP))
	$(BIN)/converge play

# ruff, mypy strict, and the dead-code check (vulture: its settings and the framework hooks it keeps are in
# pyproject.toml)
lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests examples benchmarks docs
	$(BIN)/mypy
	$(BIN)/vulture

# The documentation site (mkdocs.yml, pages in docs/) in site/, which git ignores: a broken link or anchor, a page
# missing from the nav, an API reference that names no object or an included file that is missing fail it.
# (NO_MKDOCS_2_WARNING: Material's notice about MkDocs 2.0, printed on every build.)
docs: $(TEST_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# The tests run on every core (pytest-xdist): PYTEST_WORKERS=N sets how many workers, 0 runs them in this one
# process. Tests that share a module-scoped fixture stay on one worker (--dist loadgroup; tests/conftest.py).
PYTEST_WORKERS ?= logical
PARALLEL := -n $(PYTEST_WORKERS) --dist loadgroup

# lint (mypy: one core) and docs (mkdocs: one core) side by side, each one's output kept together
test: $(TEST_STAMP)
	@$(MAKE) --no-print-directory -j2 --output-sync=target lint docs
	$(BIN)/python -m pytest $(PARALLEL) --durations=25
	PYTHONPATH=src CONVERGE_PURE=1 CONVERGE_PAIRS=2000 $(BIN)/python -m pytest $(PARALLEL) $(wildcard $(PURE_TESTS))

# The fuzz suites (tests/*/test_fuzz.py) at length: `make test` runs a few seconds of them, the same inputs
# each time; this runs FUZZ_EXAMPLES examples per hypothesis test, a hundred times as many inputs per seeded
# bulk test, with fresh random inputs, and prints how many inputs each door took; then sampled worlds and
# pairs of matches a player cannot tell apart (tests/engine/test_indistinguishable.py) by the hundred thousand.
# Then what the hosts' tests run short in `make test`: the database away for 70 s (tests/server/test_jobs.py),
# ten rolling restarts behind each shipped nginx file (tests/test_deploy.py), and the full-screen game's whole
# matches at every terminal size (tests/cli/test_terminal_tui.py). Last, the native core and the engine side by
# side over a million rounds (tests/engine/test_native.py).
FUZZ_EXAMPLES ?= 10000

fuzz: $(TEST_STAMP)
	CONVERGE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -p tests.fuzz_support $(wildcard tests/*/test_fuzz.py)
	CONVERGE_WORLDS=100000 $(BIN)/python -m pytest tests/engine/test_worlds.py
	CONVERGE_PAIRS=100000 CONVERGE_PAIRS_SEED=$$(date +%s) $(BIN)/python -m pytest tests/engine/test_indistinguishable.py
	CONVERGE_OUTAGE_S=70 CONVERGE_JOB_RETRY_LONGEST_S=30 CONVERGE_ROLLING_RESTARTS=10 $(BIN)/python -m pytest \
	    tests/server/test_jobs.py tests/test_deploy.py
	CONVERGE_ARENA_MINUTES=10 CONVERGE_TEST_HANG_S=1500 $(BIN)/python -m pytest tests/server/test_tournaments.py -k arena_pairs -rP
	CONVERGE_NATIVE_ROUNDS=1000000 CONVERGE_FUZZ_SEED=$$(date +%s) $(BIN)/python -m pytest -p tests.fuzz_support \
	    tests/engine/test_native.py -k many_rounds
	CONVERGE_CONTAINER_MATCHES=50 $(BIN)/python -m pytest tests/test_container.py -rP
	CONVERGE_ALL_SIZES=1 $(BIN)/python -m pytest $(PARALLEL) tests/cli/test_terminal_tui.py
	CONVERGE_TABLE_JOIN_KILLS=20 $(BIN)/python -m pytest tests/server/test_crash.py -k table_join

bench: $(TEST_STAMP)
	$(BIN)/converge bench

clean:
	rm -rf $(VENV) build site src/*.egg-info
