"""What the checker says for either track: the progress table and, for the first exercise not done, why (text, HTML)."""
from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from micrograd.exercises.result import ABSENT, CORRECT, DONE, NOT_STARTED, UNCHECKED, WRONG, Described, Result

MARKS = {DONE: 'done', CORRECT: 'correct ✓', WRONG: 'WRONG', NOT_STARTED: 'not started', ABSENT: '-',
         UNCHECKED: 'not checked'}
COLOURS = {DONE: '#1a7f37', CORRECT: '#9a6700', WRONG: '#cf222e', NOT_STARTED: '#6e7781', ABSENT: '#afb8c1',
           UNCHECKED: '#afb8c1'}
SPAN, CODE = r'`([^`]+)`', r'<code>\1</code>'
CODED = ('input', 'expected', 'obtained', "library's", 'yours', 'also wrong', 'printed', 'stuck?', 'formula', 'line')


@dataclass
class Report:
    """The outcome of check(): print it, or let Jupyter show it; .passed says whether all is done."""
    results: list[Result] = field(default_factory=list)
    exercises: Sequence[Described] = ()  # the track's exercises, for their titles and hints
    error: str = ''                 # the learner's file does not compile or import: nothing was checked
    places: dict[int, str] = field(default_factory=dict)  # exercise number: where it is ('my_engine.py, line 40')
    hint: bool = False              # also the stronger hint and the formula
    command: str = 'python -m micrograd.exercises check'  # how to run the checker again, for the advice
    answer: str = ''                # how to see the library's own code, for when all is done
    title: str = 'micrograd exercises'
    engine: Result | None = None    # the whole engine's verdict (the Result numbered 0), once it was run

    def __post_init__(self) -> None:
        self.engine = next((r for r in self.results if not r.number), self.engine)
        self.results = [r for r in self.results if r.number]

    def exercise(self, result: Result) -> Described:
        return next(e for e in self.exercises if e.name == result.name)

    @property
    def present(self) -> list[Result]:
        return [r for r in self.results if r.status not in (ABSENT, UNCHECKED)]

    @property
    def passed(self) -> bool:
        """Level 1 everywhere, and the whole engine right where it was run."""
        return (not self.error and bool(self.present) and all(r.status in (DONE, CORRECT) for r in self.present)
                and (self.engine is None or self.engine.status == DONE))

    @property
    def focus(self) -> Result | None:
        """What to talk about: the first wrong, else not started, else the whole engine if wrong, else correct ✓."""
        def first(status: str) -> Result | None:
            return next((r for r in self.results if r.status == status), None)
        engine = self.engine if self.engine is not None and self.engine.status == WRONG else None
        return first(WRONG) or first(NOT_STARTED) or engine or first(CORRECT)

    def summary(self) -> str:
        if self.error:
            return "nothing checked"
        absent = [r.name for r in self.results if r.status == ABSENT]
        done = sum(r.status in (DONE, CORRECT) for r in self.results)  # at level 1 (level 2's rules may be left)
        correct = sum(r.status == CORRECT for r in self.results)
        return (f"{done} of {len(self.results) - len(absent)} done"
                + (f" ({len(absent)} not in this class: {' '.join(absent)})" if absent else '')
                + ("; the whole engine differs from the library's" if self.engine is not None
                   and self.engine.status == WRONG else '')
                + (f"; level 2 (the library's rules, optional): {correct} left" if correct else ''))

    def headline(self) -> str:
        """One sentence on where the learner stands."""
        if self.error:
            return self.error
        if not self.present:
            return "none of the exercises' methods is in this class"
        focus = self.focus
        place = f" ({self.places[focus.number]})" if focus is not None and self.places.get(focus.number) else ''
        if self.passed:
            said = "every gradient matches the library's engine and central differences"
            if focus is not None:  # level 2 left
                return (f"all done at level 1: {said}. Level 2, optional: exercise {focus.number} ({focus.name}) "
                        f"is correct ✓{place}; the library asks a little more")
            return f"all done: {said}" + (f". Compare with the library's own code: {self.answer}" if self.answer
                                          else '')
        assert focus is not None
        if focus is self.engine:
            return ("the exercises are done, but the whole engine differs from the library's"
                    + (f" ({focus.place})" if focus.place else ''))
        if all(r.status == NOT_STARTED for r in self.present):
            return f"nothing started yet: begin with `{focus.name}`, exercise {focus.number}{place}"
        if focus.status == NOT_STARTED:
            return f"next: exercise {focus.number} ({focus.name}){place}"
        return f"exercise {focus.number} ({focus.name}) is wrong{place}"

    def details(self) -> list[tuple[str, str]]:
        """(label, text) lines about the focus exercise, then the notes on exercises done (none after an error)."""
        focus = self.focus
        notes = [('note', f"exercise {r.number} ({r.name}) is done; {r.note}") for r in self.results
                 if r.status == DONE and r.note]
        if focus is None:
            return notes
        if focus is self.engine:
            shown = [('input', focus.input), ('expected', focus.expected), ('obtained', focus.obtained),
                     ('diagnosis', focus.why), ('line', focus.place), ('also wrong', focus.also),
                     ('printed', focus.printed.rstrip()[-600:])]
            return [(label, text) for label, text in shown if text]
        exercise = self.exercise(focus)
        rows: list[tuple[str, str]] = []
        if focus.status in (WRONG, CORRECT):  # a correct one is no failure: the library's way beside the learner's
            wrong = focus.status == WRONG
            want, got, why = ('expected', 'obtained', 'diagnosis') if wrong else ("library's", 'yours', 'verdict')
            rows += [('input', focus.input), (want, focus.expected), (got, focus.obtained),
                     ('also wrong', focus.also if wrong else ''),
                     (why, f"{focus.why}: {focus.detail}" if focus.why and focus.detail else focus.why or focus.detail),
                     ('line', focus.place)]
        rows += [('task', exercise.task if focus.status != CORRECT else ''),  # (correct: the verdict says what is left)
                 ('hint', exercise.hint)]
        if self.hint:
            rows += [('more', exercise.stronger), ('formula', exercise.formula)]
        elif focus.status == WRONG:
            rows.append(('stuck?', self.command.replace(')', ', hint=True)') if self.command.endswith(')')
                         else f"{self.command} --hint"))
        rows += [('then', f"check it: {self.command}" if focus.status == NOT_STARTED else ''), ('note', focus.note)]
        rows += [('also', f"exercise {r.number} ({r.name}) is WRONG too: {r.why}"
                          + (f" ({r.place})" if r.place else '')) for r in self.results
                 if r.status == WRONG and r is not focus]
        others = [f"{r.number} ({r.name})" for r in self.results if r.status == CORRECT and r is not focus]
        if others:
            rows.append(('also', f"exercise{'s' if len(others) > 1 else ''} {', '.join(others)} "
                                 f"{'are' if len(others) > 1 else 'is'} correct ✓ too: level 1 done, a rule of the "
                                 "library's left for level 2"))
        rows.append(('printed', focus.printed.rstrip()[-600:]))
        return [(label, text) for label, text in rows + notes if text]  # (a row with no text is not shown)

    def __str__(self) -> str:
        lines = [f"{self.title}: {self.summary()}", ""]
        if self.results:
            lines.append(listing([self.exercise(r) for r in self.results],
                                 [f"{MARKS[r.status]:<12} " for r in self.results]))
        lines.append(self.headline())
        details = self.details()
        width = max((len(label) for label, _ in details), default=0)
        for label, text in details:
            first, *rest = text.split('\n')
            lines.append(f"  {label + ':':<{width + 1}} {first}")
            lines += [f"  {'':<{width + 1}} {line}" for line in rest]
        return '\n'.join(lines) + '\n'

    __repr__ = __str__  # the text, where there is no HTML (a terminal's REPL)

    def _repr_html_(self) -> str:
        e = html.escape
        cells = ''.join(
            f"<tr><td style='text-align:right'>{r.number}</td><td><code>{e(r.name)}</code></td>"
            f"<td style='color:{COLOURS[r.status]};font-weight:bold'>{e(MARKS[r.status])}</td>"
            f"<td>{e(self.exercise(r).title)}</td></tr>" for r in self.results)
        table = (f"<table><thead><tr><th>#</th><th>exercise</th><th>status</th><th></th></tr></thead>"
                 f"<tbody>{cells}</tbody></table>") if self.results else ''
        rows = ''
        for label, text in self.details():
            text = e(text).replace('\n', '<br>')  # (a <br> every page keeps: a notebook may drop the white-space style)
            if label in CODED:
                cell = f"<td style='text-align:left'><code style='white-space:pre-wrap'>{text}</code></td>"
            else:  # a hint's `code`, written so for the notebook's Markdown, as <code>
                cell = f"<td style='text-align:left;white-space:pre-wrap'>{re.sub(SPAN, CODE, text)}</td>"
            rows += f"<tr><th style='text-align:left;vertical-align:top'>{e(label)}</th>{cell}</tr>"
        status = DONE if self.passed else WRONG if self.error else self.focus.status if self.focus else NOT_STARTED
        return (f"<div class='micrograd-exercises'><p><b>{e(self.title)}: {e(self.summary())}</b></p>{table}"
                f"<p style='color:{COLOURS[status]}'><b>{e(self.headline())}</b></p>"
                f"{f'<table>{rows}</table>' if rows else ''}</div>")


def listing(exercises: Sequence[Described], marks: Sequence[str] = ()) -> str:
    """The table of a track's exercises, for `python -m micrograd.exercises list`; with marks, the report's."""
    width = max(9, *(len(e.name) for e in exercises))
    return ''.join(f"  {e.number:>2}  {e.name:<{width}} {mark}{e.title}\n"
                   for e, mark in zip(exercises, marks or [''] * len(exercises)))
