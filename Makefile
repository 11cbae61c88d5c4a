# `make play` and `make test` do all the set-up on a fresh machine: a virtual environment in
# .venv, the package built (its engine compiled with mypyc) and installed with its test tools.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml setup.py | cksum | cut -d' ' -f1)
SOURCES := $(shell find src -name '*.py' -o -name '*.toml' -o -name '*.typed')
# The rules tests also run against the pure-Python engine (the source mypy checks).
PURE_TESTS := tests/test_rules.py tests/test_goals.py tests/test_effects.py tests/test_convert.py \
              tests/test_illegal_input.py tests/test_records.py tests/test_extension.py tests/test_worlds.py \
              tests/test_events.py tests/test_knowledge.py

.PHONY: play test lint fuzz bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml setup.py $(SOURCES)
	rm -rf build  # setuptools reuses build/lib: a module deleted from src/ would still be installed
	PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 $(BIN)/python -m pip install -q ".[test,rl,sim,ray,web,webtest,bench]"
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

play: $(STAMP)
	$(BIN)/converge play

lint: $(STAMP)
	$(BIN)/ruff check src tests examples benchmarks
	$(BIN)/mypy

test: lint
	$(BIN)/python -m pytest
	PYTHONPATH=src CONVERGE_PURE=1 $(BIN)/python -m pytest $(wildcard $(PURE_TESTS))

# The fuzz suites (tests/test_fuzz_*.py) at length: `make test` runs a few seconds of them, the same inputs
# each time; this runs FUZZ_EXAMPLES examples per hypothesis test, a hundred times as many inputs per seeded
# bulk test, with fresh random inputs, and prints how many inputs each door took.
FUZZ_EXAMPLES ?= 10000

fuzz: $(STAMP)
	CONVERGE_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -p tests.fuzz_support $(wildcard tests/test_fuzz_*.py)
	CONVERGE_WORLDS=100000 $(BIN)/python -m pytest tests/test_worlds.py

bench: $(STAMP)
	$(BIN)/converge bench

clean:
	rm -rf $(VENV) build src/*.egg-info
