"""Learn backpropagation by writing it: each op's backward, the sort and backward(), cut out of
micrograd's own engine for you to write, and a checker that says what is wrong.

    python -m micrograd.exercises start [DIR]      # my_engine.py and my_nn.py, every exercise a blank
    python -m micrograd.exercises check [DIR]      # the progress table and, for the first wrong one, why
    python -m micrograd.exercises solution tanh    # the library's own code for an exercise

In Jupyter or Colab: `from micrograd.exercises import check; check('my_engine.py')`, or check(Value)
for a Value class written in a notebook cell; the report shows as a table.
"""
from micrograd.exercises.catalog import DIAGNOSES, EXERCISES, Exercise
from micrograd.exercises.report import Report
from micrograd.exercises.runner import check
from micrograd.exercises.workspace import blank_engine, blank_nn, solution, start

__all__ = ['check', 'start', 'solution', 'blank_engine', 'blank_nn', 'Report', 'EXERCISES', 'DIAGNOSES',
           'Exercise']
