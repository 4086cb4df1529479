"""What a record of the tensor track holds: an Exercise, and the Slips it can name (records.py has them all)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from micrograd.exercises.result import Result
from micrograd.exercises.tensor.cases import Case, Graph

NEVER_IN_PLACE = ("Never write into `grad` or into the forward pass's arrays (another node may hold the same "
                  "array): make a new one.")


@dataclass(frozen=True)
class Slip:
    key: str      # how tests and reports refer to it: 'keepdims_lost'
    blank: str    # the blank it fills
    body: str     # what the learner typed there
    says: str     # the sentence that names it


@dataclass(frozen=True, eq=False)
class Exercise:
    number: int
    name: str
    title: str
    ask: str        # what to write
    rules: str
    shapes: str
    hint: str
    stronger: str
    formula: str
    blanks: tuple[str, ...]
    cases: tuple[Case, ...]
    slips: tuple[Slip, ...] = ()
    graphs: tuple[Graph, ...] = ()  # exercise 13: graphs whose nodes the checker makes, for backward()
    prompts: tuple[str, ...] = ()   # a line above each blank: what that body does (the formula is on its def line)
    kind: str = 'op'     # 'op': cases are graphs; 'function': unbroadcast called directly; 'backward'
    math: str = ''       # the rule in LaTeX, for the notebook (G is the output's gradient)

    def prompt(self, blank: str) -> str:
        """What the body of one of this exercise's blanks does, in a line."""
        return self.prompts[self.blanks.index(blank)] if len(self.prompts) == len(self.blanks) else self.title

    def result(self, status: str, **fields: Any) -> Result:
        """How this exercise stands, as both tracks report it."""
        return Result(number=self.number, name=self.name, status=status, **fields)

    @property
    def task(self) -> str:
        """What the report and the notebook say before anything else: what to write, its rules, its shapes."""
        return f"{self.ask}\nRules: {self.all_rules}\nChecked on: {self.shapes}"

    @property
    def all_rules(self) -> str:
        """The exercise's rules, and the one every op's backward keeps."""
        return self.rules + (f" {NEVER_IN_PLACE}" if self.kind == 'op' else '')
