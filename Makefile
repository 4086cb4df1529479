# `make demo` runs the guided tour, `make test` the whole test suite; both set themselves up
# in a local virtual environment (.venv) on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The PyTorch cross-checks need torch; this CPU build is the one the suite is checked against.
TORCH ?= torch==2.13.0

.PHONY: demo notebook gpt test bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.demo-installed: setup.py | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[demo]'
	touch $@

$(VENV)/.gpt-installed: setup.py | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[gpt]'
	touch $@

$(VENV)/.test-installed: setup.py | $(BIN)/python
	$(BIN)/pip install --quiet '$(TORCH)'
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

demo: $(VENV)/.demo-installed
	@rm -f build/demo.html
	@echo "Executing demo.ipynb (about half a minute)..."
	$(BIN)/jupyter nbconvert --to html --execute --ExecutePreprocessor.timeout=300 demo.ipynb \
		--output-dir build --output demo
	@echo "The demo ran. Open $(CURDIR)/build/demo.html"

# Train the tensor GPT on the census first names (about a minute) and let it invent 20 names.
gpt: $(VENV)/.gpt-installed
	$(BIN)/python examples/gpt/tensor_gpt.py

# Re-execute demo.ipynb in place and keep its outputs (commit it after changing the engine or the tour).
notebook: $(VENV)/.demo-installed
	$(BIN)/python -c "import nbformat; from nbclient import NotebookClient; \
	nb = nbformat.read('demo.ipynb', as_version=4); \
	NotebookClient(nb, timeout=300, record_timing=False, coalesce_streams=True).execute(); \
	nbformat.write(nb, 'demo.ipynb')"

test: $(VENV)/.test-installed
	$(BIN)/ruff check .
	$(BIN)/pytest

# bench/run.py finds every Python 3.10-3.13 on PATH or through pyenv and gives each its own throwaway
# environment for the peers (bench/.venvs/); the project's environment only drives it.
bench: $(VENV)/.test-installed
	$(BIN)/python bench/run.py
	$(BIN)/python bench/tensor_digits.py
	if [ -f bench/tensor_gpt.py ]; then $(BIN)/python bench/tensor_gpt.py; fi

lint: $(VENV)/.test-installed
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
