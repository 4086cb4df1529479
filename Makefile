# `make demo` runs the guided tour, `make test` the whole test suite; both set themselves up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The PyTorch cross-checks need torch; this pinned CPU build is the one the suite is checked against.
TORCH ?= torch==2.13.0

.PHONY: test demo bench lint clean

$(VENV)/.installed: setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet '$(TORCH)'
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

test: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/pytest

lint: $(VENV)/.installed
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
