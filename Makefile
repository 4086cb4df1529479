# `make demo` runs the guided tour, `make check` a quick check, `make test` the whole test suite,
# `make gpt` trains a GPT on names, `make bench` measures speed; each sets itself up in a local virtual
# environment (.venv) on first use.
# `make test PYTHON=python3.13` builds a separate environment (.venv-3.13) and runs the suite there.
PYTHON ?= python3
PY := $(shell scripts/find-python $(PYTHON))
PYVER := $(shell $(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
ifeq ($(PYTHON),python3)
VENV ?= .venv
else
VENV ?= .venv-$(PYVER)
endif
BIN := $(VENV)/bin
# The PyTorch cross-checks run against this CPU build, which exists here for Python 3.11 only: on other
# interpreters they are skipped (any other torch would download gigabytes of CUDA packages).
TORCH ?= torch==2.13.0
TORCH_PYTHON ?= 3.11

.PHONY: demo notebook gpt sample check test-env test bench lint exercises clean

# Set-up is quiet: one line says what is being installed. Whatever pip still prints is its own (a warning
# about an index location, say, comes from your pip configuration, not from this project). setuptools' note on
# editable installs (a folder named like the package may be imported instead) is said in the README, once.
# --no-compile: Python compiles a module when it is first imported, not every file of every package up front.
PIP := PYTHONWARNINGS='ignore:Editable installation' $(BIN)/pip install --quiet --disable-pip-version-check --no-compile

$(BIN)/python:
	@test -n "$(PY)" || { echo "No runnable interpreter for PYTHON=$(PYTHON)"; exit 1; }
	@echo "Setting up $(VENV) with $(PY) (first run only; any WARNING lines below are pip's own)..."
	@$(PY) -m venv $(VENV)
	@$(PIP) --upgrade pip

$(VENV)/.demo-installed: setup.py | $(BIN)/python
	@echo "Installing micrograd and the demo's tools (Jupyter, matplotlib, scikit-learn, Graphviz) into $(VENV)..."
	@$(PIP) -e '.[demo]'
	@touch $@

$(VENV)/.gpt-installed: setup.py | $(BIN)/python
	@echo "Installing micrograd, NumPy, matplotlib and the census names into $(VENV)..."
	@$(PIP) -e '.[gpt]'
	@touch $@

# PyTorch alone writes nothing into this folder (CI installs it beside another environment's set-up).
$(VENV)/.torch-installed: | $(BIN)/python
ifeq ($(PYVER),$(TORCH_PYTHON))
	@echo "Installing PyTorch ($(TORCH), CPU) into $(VENV), for the cross-checks..."
	@$(PIP) '$(TORCH)'
endif
	@touch $@

$(VENV)/.test-installed: setup.py $(VENV)/.torch-installed | $(BIN)/python
	@echo "Installing micrograd and the test tools into $(VENV)..."
	@$(PIP) -e '.[test]'
	@touch $@

# `dot` for programs that run it by name, as Karpathy's trace_graph.ipynb does through graphviz.Digraph (with
# .venv activated): a Graphviz installed elsewhere on PATH if there is one, else graphviz-pure. See scripts/dot.
$(BIN)/dot: scripts/dot | $(BIN)/python
	@cp scripts/dot $@

# The page loads nothing from the network (docs/demo-page.html.j2), so it works offline too. The kernel talks to
# nbconvert over a local socket file (ipc), not TCP, so Jupyter has no unencrypted port to warn about.
demo: $(VENV)/.demo-installed $(BIN)/dot
	@rm -f build/demo.html
	@echo "Executing demo.ipynb..."
	$(BIN)/jupyter nbconvert --to html --execute --ExecutePreprocessor.timeout=300 demo.ipynb \
		--KernelManager.transport=ipc --template-file docs/demo-page.html.j2 --output-dir build --output demo
	@echo "The demo ran. Open $(CURDIR)/build/demo.html"

# Train the tensor GPT on the census first names, or on a text of yours: make gpt DATA=file.txt
# (one document per line; GPT_ARGS='--split blocks' reads it as one text). Each model is saved under the name of
# its data, build/gpt-names.npz for the names and build/gpt-cities.npz for DATA=cities.txt, beside its loss curve;
# it ends saying whether the model learned more than letter pairs, invents 20 names and, with SHOW=word (emma on
# the names), draws what each attention head looks at. GPT_ARGS takes any other option of
# `python examples/gpt/tensor_gpt.py --help`, e.g. GPT_ARGS='--resume build/gpt-names.npz --steps 3000'.
gpt: $(VENV)/.gpt-installed
	$(BIN)/python examples/gpt/tensor_gpt.py $(if $(DATA),--data '$(DATA)') \
		$(if $(SHOW),--show '$(SHOW)',$(if $(DATA),,--show emma)) $(GPT_ARGS)

# Make up 20 names with the names model make gpt saved, without training again; DATA=file.txt samples the model
# make gpt DATA=file.txt saved, MODEL=file.npz any other. SHOW=word to look inside,
# SAMPLE_ARGS='--n 5 --temperature 0.8 --seed 0' for more.
sample: $(VENV)/.gpt-installed
	$(BIN)/python examples/gpt/sample.py $(if $(MODEL),'$(MODEL)',$(if $(DATA),--data '$(DATA)')) \
		$(if $(SHOW),--show '$(SHOW)') $(SAMPLE_ARGS)

# Re-execute demo.ipynb in place and keep its outputs (commit it after changing the engine or the tour); the kernel
# talks over a local socket file, as for `make demo`. NOTEBOOK=higher_order.ipynb re-executes that one.
NOTEBOOK ?= demo.ipynb
notebook: $(VENV)/.demo-installed
	$(BIN)/python -c "import nbformat; from nbclient import NotebookClient; from traitlets.config import Config; \
	nb, config = nbformat.read('$(NOTEBOOK)', as_version=4), Config(); \
	config.KernelManager.transport = 'ipc'; \
	NotebookClient(nb, config=config, timeout=300, record_timing=False, coalesce_streams=True).execute(); \
	nbformat.write(nb, '$(NOTEBOOK)')"

# A quick check of what a learner or a contributor touches first: the scalar engine's, nn's and the
# lecture's tests without the slow ones, the tests generated from the op tables (the engine's sweep and its
# table, which fail on an op without its row; each closure against its record's derivative), every op having its
# exercise, and the layout's rules (the core's budgets, one name per module, no import circles); with the check
# extra only (setup.py: nothing heavier than NumPy and matplotlib; the sweeps against PyTorch and the rest are
# make test's).
CHECK_TESTS ?= $(addprefix tests/scalar/,test_engine.py test_engine_habits.py test_engine_sweep.py \
	test_engine_internals.py test_op_records.py test_nn.py test_nn_state_dict.py test_lecture.py) tests/layout \
	tests/exercises/test_exercises.py::test_every_op_in_the_op_table_has_an_exercise
$(VENV)/.check-installed: setup.py | $(BIN)/python
	@echo "Installing micrograd, NumPy and the test runner into $(VENV)..."
	@$(PIP) -e '.[check]'
	@touch $@

check: $(VENV)/.check-installed
	$(BIN)/pytest -q -m 'not slow' $(CHECK_TESTS) $(PYTEST_ARGS)

# PYTEST_ARGS narrows a run, e.g. PYTEST_ARGS='-m "not slow"' for the quick loop while editing.
# OTHER_PYTHON=1 leaves out ruff (its verdict is the same on every Python) and the tests marked same_on_every_python
# (pyproject.toml): CI runs everything on the default Python and, on every other Python, what a version could change.
# test-env only sets up what make test needs (CI sets up one environment at a time, then tests side by side).
test-env: $(VENV)/.test-installed $(BIN)/dot

# make test runs pytest in TEST_WORKERS processes (pytest-xdist): much of the suite waits on subprocesses, notebook
# kernels and a browser, so two keep a core busy while one waits. TEST_WORKERS=0 runs it in make's own process.
# --dist loadfile: each file's tests go to one process, as a whole and as a process asks for more, so a notebook
# a file's tests share runs once (handed out test by test in fixed shares, the slow ones, collected together at
# the start, fell to one process while the other idled). Each process does its arithmetic in one thread (NumPy's
# OpenBLAS and PyTorch start a thread a core, which in two processes on two cores wait on each other).
TEST_WORKERS ?= 2
TEST_THREADS := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

test: test-env
	@echo "Testing on Python $(PYVER) ($(PY)) in $(VENV)"
	$(if $(OTHER_PYTHON),,$(BIN)/ruff check .)
	$(BIN)/mypy --strict micrograd
	$(TEST_THREADS) MICROGRAD_REQUIRE_EXTRAS=1 MICROGRAD_REQUIRE_TORCH=$(if $(filter $(PYVER),$(TORCH_PYTHON)),1,) \
		MICROGRAD_OTHER_PYTHON=$(OTHER_PYTHON) $(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

# bench/run.py finds every Python 3.10-3.13 on PATH or through pyenv; the peers (pure Python) are installed once
# into bench/.peers/, which each Python reads; the project's environment only drives it (and runs the tensor
# rows, where PyTorch is installed). `make bench QUICK=1`: a smoke run, tiny sizes, this Python only.
bench: $(VENV)/.test-installed
	$(BIN)/python bench/run.py $(if $(QUICK),--quick)

lint: $(VENV)/.test-installed
	$(BIN)/ruff check .

# Learn by writing it: your own copy of the engine with every backward cut out (made once, then kept), and where
# you stand: the checker's table and the next exercise, each time you run it. micrograd goes into $(VENV) (editable,
# no dependencies), so the check command it prints works from any folder. EXERCISES='my folder' names another;
# TRACK=tensor the second track (micrograd.tensor's backwards, in exercises-workspace/tensor).
TRACK ?= scalar
EXERCISES ?= exercises-workspace$(if $(filter-out scalar,$(TRACK)),/$(TRACK))
exercises: | $(BIN)/python
	@$(BIN)/python -m pip show --quiet micrograd-edu >/dev/null 2>&1 || $(PIP) --no-deps -e .
	@$(if $(filter tensor,$(TRACK)),$(BIN)/python -c 'import numpy' 2>/dev/null || $(PIP) -e '.[tensor]')
	@ls '$(EXERCISES)'/my_*.py >/dev/null 2>&1 || $(BIN)/python -m micrograd.exercises start --track $(TRACK) '$(EXERCISES)'
	@$(BIN)/python -m micrograd.exercises check --track $(TRACK) '$(EXERCISES)' || true

clean:
	rm -rf .venv .venv-3.* build *.egg-info .pytest_cache .hypothesis .mypy_cache bench/.peers
