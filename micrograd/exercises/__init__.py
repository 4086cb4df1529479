"""Learn backpropagation by writing it: each op's backward, the sort and backward(), cut out of micrograd's own
engine for you to write, and a checker that says what is wrong. Two tracks: scalar (the default: micrograd's
engine.py and nn.py) and tensor (micrograd.tensor: broadcasting to attention).

    python -m micrograd.exercises start [DIR]        # my_engine.py and my_nn.py, every exercise a blank
    python -m micrograd.exercises check [DIR]        # the progress table and, for the first wrong one, why
    python -m micrograd.exercises solution tanh      # the library's own code for an exercise
    python -m micrograd.exercises list --track tensor

In Jupyter or Colab: `from micrograd.exercises import check; check('my_engine.py')`, or check(Value)
for a Value class written in a notebook cell; the report shows as a table.

An exercise is one record, its number its place in the list. The checker grades the idea first (right gradients,
the lecture's way, are "correct ✓"), then the library's own rules, each stated in the task and named when missing.

    scalar/       the scalar track: micrograd's engine.py and nn.py (its modules: scalar/__init__.py)
    tensor/       the tensor track: micrograd.tensor
    Both backpropagate with the engine's own sort (engine.topological_order).

The machinery both tracks share, one idea per module:
    track.py      a Track: what a track says for itself, and what every track does the same way
    result.py     how one exercise stands: the Result record, its statuses, the diagnoses any exercise can get
    report.py     what the checker says: the progress table and why, as text and as HTML
    runner.py     the learner's files checked in a child process that never outlives the check
    sandbox.py    the learner's code for one exercise under a time limit, its printing kept aside
    lines.py      the learner's line, in both tracks: in a traceback, the first that makes a wrong value (their
                  code traced against the library's run), the one a slip of backward() is about
    derived_slips.py  the wrong backwards derived from the library's own body, and the search that plants them
    numbers.py    comparing numbers and printing them as a learner reads them
    graphs.py     backward() on graphs the checker makes: the library's gradients the right ones, slips planted
    cutting.py    cutting bodies out of the library's source, and running the result; a learner's file read
    commands.py   the commands printed for the learner to copy
    notebook.py   a track's notebook: its cells in order, Markdown that keeps formulas, a cell's free names
    __main__.py   the command line: start, check, list, solution, notebook; --track scalar|tensor
"""
from micrograd.exercises.report import Report
from micrograd.exercises.result import Result
from micrograd.exercises.scalar import EXERCISES, blank_engine, blank_nn, check, solution, start

__all__ = ['check', 'start', 'solution', 'blank_engine', 'blank_nn', 'Report', 'Result', 'EXERCISES']
