"""Learn backpropagation by writing it: each op's backward, the sort and backward(), cut out of micrograd's own
engine for you to write, and a checker that says what is wrong. Two tracks: scalar (the default: micrograd's
engine.py and nn.py) and tensor (micrograd.tensor: broadcasting to attention).

    python -m micrograd.exercises start [DIR]        # my_engine.py and my_nn.py, every exercise a blank
    python -m micrograd.exercises check [DIR]        # the progress table and, for the first wrong one, why
    python -m micrograd.exercises solution tanh      # the library's own code for an exercise
    python -m micrograd.exercises list --track tensor

In Jupyter or Colab: `from micrograd.exercises import check; check('my_engine.py')`, or check(Value)
for a Value class written in a notebook cell; the report shows as a table.

The checker grades the idea first (right gradients, the lecture's way, are "correct ✓"), then the library's own
rules, each stated in the task. Each track (scalar/, tensor/) is a Track (track.py); the other modules serve both."""
from micrograd.exercises.report import Report
from micrograd.exercises.result import Result
from micrograd.exercises.scalar import EXERCISES, blank_engine, blank_nn, check, solution, start

__all__ = ['check', 'start', 'solution', 'blank_engine', 'blank_nn', 'Report', 'Result', 'EXERCISES']
