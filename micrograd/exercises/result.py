"""One exercise's Result, as both tracks grade it: its status and, for one not done, the input that shows it and why."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol


class Described(Protocol):
    """An exercise of any track, as its Result and the report read it."""
    @property
    def number(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def hint(self) -> str: ...
    @property
    def stronger(self) -> str: ...   # the hint --hint adds
    @property
    def formula(self) -> str: ...


DONE, WRONG, NOT_STARTED, ABSENT, UNCHECKED = 'done', 'wrong', 'not started', 'absent', 'not checked'
CORRECT = 'correct'  # the idea is right (the gradients are); a rule of the library's, stated in the task, is not met


@dataclass
class Result:
    """One exercise's outcome. Built with keywords; it travels from the checking process as a dict."""
    number: int
    name: str
    status: str
    input: str = ''       # the code that shows it, as a learner can paste it
    expected: str = ''
    obtained: str = ''
    diagnosis: str = ''   # a key naming the mistake ('overwrite', 'sort_recursion', ...): what tests assert
    why: str = ''         # the diagnosis as a sentence for the learner
    detail: str = ''      # what this case adds: the exception and the line that raised it, ...
    place: str = ''       # the learner's line the diagnosis points at ('my_engine.py, line 47: other.grad += ...')
    note: str = ''        # how it was checked, when that is worth saying
    also: str = ''        # the other inputs it is wrong on
    printed: str = ''     # what the learner's code printed meanwhile

    @classmethod
    def of(cls, exercise: Described, status: str, **fields: Any) -> Result:
        """How exercise stands, as every grader of every track says it."""
        return cls(number=exercise.number, name=exercise.name, status=status, **fields)


# The diagnoses any exercise of any track can get: about running the learner's code rather than its calculus.
GENERIC: dict[str, str] = {
    'unfinished': "not finished: this part of the exercise still raises NotImplementedError",
    'raises': "your code raised an exception",
    'missing': "a method of this exercise is not in your class (renamed or deleted?): what it makes no longer works",
    'exits': "your code called sys.exit() (or exit(), quit()) while it was checked: raise an exception instead",
    'exited': "the process running your code exited in the middle of this exercise (os._exit()?)",
    'timeout': "did not finish in time: an infinite loop?",
    'crash': "the process running your code was killed by a signal (a recursion limit raised until Python's own "
             "stack overflowed?)",
    'wrong': "the gradient differs from the right one, and it is none of the mistakes the checker knows",
}
