"""What the checker says: a progress table and, for the first exercise that is wrong, why; as text for a
terminal and as HTML for Jupyter and Colab."""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from micrograd.exercises.catalog import DIAGNOSES, EXERCISES
from micrograd.exercises.checks import ABSENT, DONE, NOT_STARTED, UNCHECKED, WRONG, Result
from micrograd.exercises.commands import command

MARKS = {DONE: 'done', WRONG: 'WRONG', NOT_STARTED: 'not started', ABSENT: '-', UNCHECKED: 'not checked'}
COLOURS = {DONE: '#1a7f37', WRONG: '#cf222e', NOT_STARTED: '#6e7781', ABSENT: '#afb8c1', UNCHECKED: '#afb8c1'}


@dataclass
class Report:
    """The outcome of check(): print it, or let Jupyter show it; .passed says whether all is done."""
    results: list[Result] = field(default_factory=list)
    error: str = ''                 # the learner's file does not compile or import: nothing was checked
    places: dict[int, str] = field(default_factory=dict)  # exercise number: where it is ('my_engine.py, line 40')
    hint: bool = False              # also the stronger hint and the formula
    command: str = 'python -m micrograd.exercises check'  # how to run the checker again, for the advice

    @property
    def present(self) -> list[Result]:
        return [r for r in self.results if r.status not in (ABSENT, UNCHECKED)]

    @property
    def done(self) -> int:
        return sum(r.status == DONE for r in self.results)

    @property
    def passed(self) -> bool:
        return not self.error and bool(self.present) and all(r.status == DONE for r in self.present)

    @property
    def focus(self) -> Result | None:
        """The exercise to talk about: the first wrong one, else the first not started."""
        for status in (WRONG, NOT_STARTED):
            for r in self.results:
                if r.status == status:
                    return r
        return None

    def summary(self) -> str:
        if self.error:
            return "nothing checked"
        absent = [r.exercise.name for r in self.results if r.status == ABSENT]
        line = f"{self.done} of {len(self.results) - len(absent)} done"
        if absent:
            line += f" ({len(absent)} not in this Value: {' '.join(absent)})"
        return line

    def headline(self) -> str:
        """One sentence on where the learner stands."""
        if self.error:
            return self.error
        if not self.present:
            return "none of the exercises' methods is in this class"
        if self.passed:
            return ("all done: every gradient matches the library's engine and central differences. "
                    f"Compare with the library's own code: {command('solution', 'OP')}")
        focus = self.focus
        assert focus is not None
        place = self.places.get(focus.number, '')
        place = f" ({place})" if place else ''
        if all(r.status == NOT_STARTED for r in self.present):
            return f"nothing started yet: begin with `{focus.exercise.name}`, exercise {focus.number}{place}"
        if focus.status == NOT_STARTED:
            return f"next: exercise {focus.number} ({focus.exercise.name}){place}"
        return f"exercise {focus.number} ({focus.exercise.name}) is wrong{place}"

    def details(self) -> list[tuple[str, str]]:
        """(label, text) lines about the focus exercise, then the notes on exercises done."""
        focus = self.focus
        if self.error:
            return []
        notes = [('note', f"exercise {r.number} ({r.exercise.name}) is done; {r.note}") for r in self.results
                 if r.status == DONE and r.note and r.exercise.name not in ('sort', 'backward')]
        if focus is None:
            return notes
        rows: list[tuple[str, str]] = []
        if focus.status == WRONG:
            rows += [('input', focus.input), ('expected', focus.expected), ('obtained', focus.obtained),
                     ('also wrong', focus.also)]
            diagnosis = DIAGNOSES.get(focus.diagnosis, '')
            if focus.detail:
                diagnosis = f"{diagnosis}: {focus.detail}" if diagnosis else focus.detail
            rows.append(('diagnosis', diagnosis))
        rows.append(('task', focus.exercise.title))
        rows.append(('hint', focus.exercise.hint))
        if self.hint:
            rows += [('more', focus.exercise.stronger), ('formula', focus.exercise.formula)]
        elif focus.status == WRONG:
            rows.append(('stuck?', self.command.replace(')', ', hint=True)') if self.command.endswith(')')
                         else f"{self.command} --hint"))
        if focus.status == NOT_STARTED:
            rows.append(('then', f"check it: {self.command}"))
        if focus.note:
            rows.append(('note', focus.note))
        if focus.printed:
            rows.append(('printed', focus.printed.rstrip()[-600:]))
        return [(label, text) for label, text in rows + notes if text]

    def __str__(self) -> str:
        lines = [f"micrograd exercises: {self.summary()}", ""]
        if self.results:
            for r in self.results:
                lines.append(f"  {r.number:>2}  {r.exercise.name:<9} {MARKS[r.status]:<12} {r.exercise.title}")
            lines.append("")
        lines.append(self.headline())
        width = max((len(label) for label, _ in self.details()), default=0)
        for label, text in self.details():
            first, *rest = text.split('\n')
            lines.append(f"  {label + ':':<{width + 1}} {first}")
            lines += [f"  {'':<{width + 1}} {line}" for line in rest]
        return '\n'.join(lines) + '\n'

    def __repr__(self) -> str:  # the text, where there is no HTML (a terminal's REPL)
        return str(self)

    def _repr_html_(self) -> str:
        e = html.escape
        cells = ''.join(
            f"<tr><td style='text-align:right'>{r.number}</td><td><code>{e(r.exercise.name)}</code></td>"
            f"<td style='color:{COLOURS[r.status]};font-weight:bold'>{e(MARKS[r.status])}</td>"
            f"<td>{e(r.exercise.title)}</td></tr>" for r in self.results)
        table = (f"<table><thead><tr><th>#</th><th>exercise</th><th>status</th><th></th></tr></thead>"
                 f"<tbody>{cells}</tbody></table>") if self.results else ''
        code = ('input', 'expected', 'obtained', 'also wrong', 'printed', 'stuck?', 'formula')
        rows = ''.join(f"<tr><th style='text-align:left;vertical-align:top'>{e(label)}</th>"
                       f"<td style='text-align:left'><code style='white-space:pre-wrap'>{e(text)}</code></td></tr>"
                       if label in code else
                       f"<tr><th style='text-align:left;vertical-align:top'>{e(label)}</th>"
                       f"<td style='text-align:left'>{_code_spans(e(text))}</td></tr>"
                       for label, text in self.details())
        colour = COLOURS[DONE] if self.passed else COLOURS[WRONG] if self.error or (
            self.focus is not None and self.focus.status == WRONG) else COLOURS[NOT_STARTED]
        return (f"<div class='micrograd-exercises'><p><b>micrograd exercises: {e(self.summary())}</b></p>{table}"
                f"<p style='color:{colour}'><b>{e(self.headline())}</b></p>"
                f"{f'<table>{rows}</table>' if rows else ''}</div>")


def _code_spans(text: str) -> str:
    """`code` in a hint (written so for the notebook's Markdown) as <code> in HTML."""
    return re.sub(r'`([^`]+)`', r'<code>\1</code>', text)


def table_only() -> str:
    """The list of exercises, for `python -m micrograd.exercises list`."""
    return '\n'.join(f"  {e.number:>2}  {e.name:<9} {e.title}" for e in EXERCISES) + '\n'
