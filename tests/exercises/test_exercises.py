"""micrograd.exercises, the scalar track: the workspace is the library with holes, the checker grades the idea
first and then the library's rules, and names every slip.

The mutants (tests/exercises/exercises_mutants.py) are the library's engine with one body written the way learners write
it; each must be caught by its own exercise, with its own name; the right ones written otherwise must be done;
the lecture's own code must be graded correct, with each rule it misses named. They run in this process; the
command-line tests run the learner's code in a child process.
"""
import ast
import inspect
import math
import os
import re
import subprocess
import sys

import pytest

import micrograd.engine
import micrograd.nn
from micrograd import ops
from micrograd.exercises import EXERCISES, blank_engine, blank_nn, check, solution, start
from micrograd.exercises.cutting import library_source, load, splice
from micrograd.exercises.report import Report
from micrograd.exercises.result import CORRECT, DONE, GENERIC, NOT_STARTED, WRONG
from micrograd.exercises.scalar.blanks import blanks_of, engine_header, find_blanks, nn_header
from micrograd.exercises.scalar.drive import closure_of, expected, takes_grad
from micrograd.exercises.scalar.exercises import BY_NAME as EXERCISE
from micrograd.exercises.scalar.exercises import WRITTEN, op_exercise
from micrograd.exercises.scalar.grade import check_all, check_one
from micrograd.exercises.scalar.places import closures
from micrograd.exercises.scalar.slips import RULES, derive, variants
from micrograd.exercises.scalar.whole_engine import PROTOCOL, check_engine, forms
from tests import ROOT
from tests.exercises.exercises_mutants import (
    CONSTRUCTOR_EDITS,
    GIVEN_OP_SLIPS,
    GIVEN_OPS_RIGHT,
    GRAPH_EDITS,
    IN_THEIR_WORDS,
    LECTURE_BUILD_TOPO,
    LECTURE_DIVISION,
    LECTURE_GRAPH_EDITS,
    LECTURE_STYLE,
    LECTURE_SWAPPED,
    LINE_SLIPS,
    MUTANTS,
    NEURON_LINE_SLIPS,
    NEURON_MUTANTS,
    NEURON_RULES_LEFT,
    RIGHT,
    RULES_LEFT,
    edited_engine,
    given_op_engine,
    line_of,
    mutant_engine,
    mutant_nn,
    mutant_source,
    rewritten_engine,
    rewritten_source,
)
from tests.support.lecture import LectureValue

OPS = [e for e in EXERCISES if e.kind == 'op']
N = len(EXERCISES)  # how many there are: counted, never written


def number(name):
    """An exercise's number: its place in the list."""
    return EXERCISE[name].number


# --- The library itself passes; an untouched workspace has nothing started -----------------------

def test_the_library_passes_every_exercise():
    report = check(micrograd.engine.Value, micrograd.nn.Neuron)
    assert [r.status for r in report.results] == [DONE] * N
    assert report.passed
    assert f"{N} of {N} done" in str(report) and "all done" in str(report)


@pytest.mark.parametrize('exercise', OPS, ids=[e.name for e in OPS])
def test_the_library_agrees_with_central_differences_on_every_case(exercise):
    for i, case in enumerate(exercise.cases):
        run, fd = expected(exercise.name, i)
        assert run.error is None
        for leaf, g in run.grads.items():
            if not case.kink:
                assert math.isclose(g, fd[leaf], rel_tol=1e-5, abs_tol=1e-7), (case.text(), leaf, g, fd[leaf])


def test_an_untouched_workspace_has_nothing_started():
    engine = blank_engine()
    report = check(engine.Value, blank_nn(engine).Neuron)
    assert [r.status for r in report.results] == [NOT_STARTED] * N
    assert not report.passed
    text = str(report)
    assert f"0 of {N} done" in text
    assert f"nothing started yet: begin with `{EXERCISES[0].name}`" in text
    assert "Traceback" not in text


def test_a_started_workspace_points_at_the_next_exercise():
    source, _ = library_source('micrograd.engine')
    written = number('**')  # the exercises up to ** are written, as the library writes them
    solved = {b: b.text() for b in find_blanks(source) if b.exercise.number > written}
    module = load(engine_header() + splice(source, solved), 'partly', '<partly>')
    report = check(module.Value)  # no Neuron: the neuron's exercise is not in this class
    assert [r.status for r in report.results[:written + 2]] == [DONE] * written + [NOT_STARTED] * 2
    assert f"{written} of {N - 1} done" in str(report)
    after = EXERCISES[written]
    assert f"next: exercise {after.number} ({after.name})" in str(report)


# --- One exercise, one record ----------------------------------------------------------------------

def test_every_exercise_is_one_record_with_everything_about_it():
    """Its blanks, task, rules, hints, formula, inputs and the mistakes it can name are fields of one record, and
    every mistake it can name (its record's, or a rule's) has a sentence."""
    assert [e.number for e in EXERCISES] == list(range(1, N + 1))  # its place in the list
    for e in EXERCISES:
        assert e.title and e.task and e.hint and e.stronger and e.formula and len(e.prompts) == len(e.methods)
        assert (e.cases != ()) == (e.kind == 'op') and (e.graphs != ()) == (e.kind in ('sort', 'backward'))
        assert all(key in e.mistakes or key in RULES for key, _ in e.slips)
        for slip, _ in variants(e.name) if e.kind == 'op' else ():
            assert slip.says and (slip.key in e.mistakes or slip.key in RULES)


def test_every_op_in_the_op_table_has_an_exercise():
    """An op added to micrograd/ops.py (and engine.py) is an exercise too, in the table's order (engine.py's), before
    the sort, backward() and the neuron: its record in scalar/exercises.py, or the one derived from its op record."""
    assert [e.attribute for e in OPS] == [op.method for op in ops.OPS]
    assert EXERCISES[:len(OPS)] == tuple(OPS)
    assert [e.name for e in EXERCISES[len(OPS):]] == ['sort', 'backward', 'neuron']
    assert {e.attribute for e in WRITTEN} <= set(ops.BY_METHOD), "a written op exercise for an op ops.py does not have"


def test_an_op_without_a_written_exercise_has_one_derived_from_its_op_record():
    """What a new op's exercise says is read from ops.py: tanh's record, with its written exercise set aside."""
    tanh = op_exercise(ops.BY_NAME['tanh'])
    assert (tanh.name, tanh.methods, tanh.kind) == ('tanh', ('tanh',), 'op')
    assert tanh.what == "Write the body of `_backward(grad)` in `Value.tanh`."
    assert "`d(tanh(x))/dx = 1 - out**2`, with `out` the output" in tanh.hint and "`t` the output" in tanh.stronger
    assert tanh.formula == 'x.grad += (1 - t * t) * grad   where t = tanh(x)'
    assert [c.text() for c in tanh.cases] == [
        'x = Value(0.5); out = x.tanh()', 'x = Value(-1.2); out = x.tanh()', 'x = Value(2.0); out = x.tanh()',
        'x = Value(0.5); out = x.tanh()   (backpropagating out.grad = -1.5)',
        'x = Value(0.5); x.grad = 0.25; out = x.tanh()   (x.grad was not 0: gradients accumulate)']
    divide = op_exercise(ops.BY_NAME['/'])
    assert divide.cases[0].text() == 'x = Value(1.5); y = Value(-2.0); out = x / y'
    assert divide.hint == "The local derivatives: `d(x / y)/dx = 1 / y` and `d(x / y)/dy = -x / y**2`."
    with pytest.raises(ValueError, match="dot takes any number of parents"):
        op_exercise(ops.BY_NAME['dot'])


def test_every_rule_is_stated_in_the_task_and_above_the_blank_before_the_learner_starts():
    engine_text = engine_header() + splice(library_source('micrograd.engine')[0],
                                           {b: b.text() for b in find_blanks(library_source('micrograd.engine')[0])})
    nn_text = splice(library_source('micrograd.nn')[0],
                     {b: b.text() for b in find_blanks(library_source('micrograd.nn')[0], 'nn')})
    flat = ' '.join(line.strip().lstrip('#').strip() for line in (engine_text + nn_text).splitlines())
    ruled = [e for e in EXERCISES if e.rules]
    assert [e.name for e in ruled] == ['sort', 'backward', 'neuron']
    for e in ruled:
        for _, text in e.rules:
            assert text in e.task
            assert ' '.join(text.split()) in flat, text


def closure_runs(case, data=None):
    """Each closure the case runs with the library, in the order backward() runs them: (its code, whether a
    parent holds a gradient already when it runs, {parent's position: (the case's leaf there, its sign)})."""
    leaves, out = case.build(micrograd.engine.Value, data)
    names = {id(v): k for k, v in leaves.items()}
    order = micrograd.engine.topological_order(out)
    for node in order:
        node.grad = 0.0
    out.grad = case.grad
    runs = []
    for node in reversed(order):
        fn = closure_of(node)  # (the closure itself, or a wrapper holding it: its code is the closure's)
        code = next(c for c in [fn.__code__, *(getattr(cell.cell_contents, '__code__', None)
                                               for cell in fn.__closure__ or ())] if c and c.co_name == '_backward')
        runs.append((code, any(p.grad != 0 for p in node._prev),
                     {i: (names[id(p)], math.copysign(1, p.data)) for i, p in enumerate(node._prev) if id(p) in names}))
        fn(node.grad) if takes_grad(fn) else fn()
    return runs


@pytest.mark.parametrize('exercise', OPS, ids=[e.name for e in OPS])
def test_every_closures_cases_reuse_a_parent_and_cover_each_sign_its_domain_allows(exercise):
    """Each closure of an op (x ** y's two too) runs on a case where a parent holds a gradient already when it
    runs (used twice, or left from an earlier backward(): where `=` for `+=` shows), and each parent that is a
    leaf takes each sign the library accepts there (a leaf's sign flipped: where it still builds and runs the
    closure, that sign is in its domain, and a case must have it: where abs() and a dropped sign show)."""
    for code in closures(micrograd.engine.Value, exercise.methods):
        runs = [(case, run) for case in exercise.cases for run in closure_runs(case) if run[0] is code]
        assert runs, f"{code.co_name} of {exercise.name}: no case runs it"
        assert any(held for _, (_, held, _) in runs), f"{exercise.name}: no parent holds a gradient as it runs"
        seen = {(i, sign) for _, (_, _, signs) in runs for i, (_, sign) in signs.items()}
        for case, (_, _, signs) in runs:
            for i, (leaf, sign) in signs.items():
                try:
                    flipped = closure_runs(case, {**case.leaves, leaf: -case.leaves[leaf]})
                except ValueError:  # outside the op's domain (log of a negative, a fractional power of one)
                    continue
                assert (i, -sign) in seen or all(run[0] is not code for run in flipped), \
                    f"{exercise.name}: parent {i} never has the sign of {leaf} flipped in `{case.text()}`"


def test_my_engine_read_top_to_bottom_meets_the_ops_in_the_order_of_their_numbers():
    """The ops are numbered as engine.py holds them (the lecture's order), then the sort and backward(); the
    header says where they stand."""
    text = engine_header() + splice(library_source('micrograd.engine')[0],
                                    {b: b.text() for b in find_blanks(library_source('micrograd.engine')[0])})
    met = list(dict.fromkeys(int(n) for n in re.findall(r'# EXERCISE (\d+) ', text)))  # (a blank's first)
    ops = [n for n in met if EXERCISES[n - 1].kind == 'op']
    lecture = [number('sort'), number('backward')]
    assert ops == list(range(1, len(ops) + 1)) and sorted(set(met) - set(ops)) == lecture
    where = [met.index(n) for n in lecture]  # side by side in the file, between two ops
    before, after = met[min(where) - 1], met[max(where) + 1]
    header = ' '.join(line.lstrip('# ') for line in engine_header().splitlines())
    assert f"The ops stand in the file in that order: {', '.join(e.label for e in OPS)}, with the lecture's " \
           f"{lecture[0]} sort and {lecture[1]} backward between {EXERCISES[before - 1].label} and " \
           f"{EXERCISES[after - 1].label}." in header


# --- The workspace: the library's source with exactly the exercises' bodies cut out --------------

def test_start_writes_the_library_with_each_blank_one_raise(tmp_path):
    engine_file, nn_file = start(tmp_path)
    for path, which, header in ((engine_file, 'engine', engine_header(tmp_path)), (nn_file, 'nn', nn_header(tmp_path))):
        text = path.read_text()
        assert text.startswith(header)
        text = text[len(header):]
        library, _ = library_source(f'micrograd.{which}')
        blanks = find_blanks(library, which)
        if which == 'nn':
            library = library.replace("from micrograd.engine import Value",
                                      "from my_engine import Value  # your engine")
            blanks = find_blanks(library, which)
        assert text == splice(library, {b: b.text() for b in blanks})
        tree = ast.parse(text)
        raises = [n for n in ast.walk(tree) if isinstance(n, ast.Raise) and 'not written yet' in ast.unparse(n)]
        assert len(raises) == len(blanks)
        for blank in blanks:  # an op's formulas stay above its blank, and its body is gone
            for comment in blank.comments:
                assert comment in text
            if blank.exercise.kind == 'op':
                assert blank.solution.split('#')[0].strip() not in text


def test_every_op_exercise_blanks_each_backward_it_defines():
    source, _ = library_source('micrograd.engine')
    names = [(b.exercise.name, b.method) for b in find_blanks(source)]
    assert [e.name for e in OPS][:10] == ['+', '*', '**', 'tanh', 'exp', 'relu', '/', 'log', 'sigmoid', 'dot']
    assert len(names) == len(set(names))  # one closure per op: a number in x + 2 is a leaf Value
    parents = {b.exercise.name: b.parents for b in find_blanks(source) if b.exercise.kind == 'op'}
    assert {parents[n] for n in ('+', '*', '**', '/')} == {('self', 'other')}
    assert {parents[n] for n in ('exp', 'tanh', 'log', 'relu', 'sigmoid')} == {('self',)}
    assert parents['dot'] == ('w', 'x', 'b')
    value = next(n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name == 'Value')
    closures = sum(1 for method in value.body if isinstance(method, ast.FunctionDef)
                   for node in ast.walk(method) if isinstance(node, ast.FunctionDef) and node.name == '_backward'
                   and node is not method)
    assert sum(1 for b in find_blanks(source) if b.function.startswith('_backward')) == closures


def test_a_fresh_workspace_imports_and_builds_graphs(tmp_path, monkeypatch):
    start(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ('my_engine', 'my_nn'):
        monkeypatch.delitem(sys.modules, name, raising=False)
    import my_engine
    import my_nn
    a, b = my_engine.Value(2.0), my_engine.Value(-3.0)
    out = ((a * b + 10) ** 2).tanh() + (a.exp() - b.relu() + a.log() + b.sigmoid()) / 2
    assert out.data == pytest.approx(math.tanh(16.0) + (math.exp(2) + math.log(2) + 1 / (1 + math.exp(3))) / 2)
    assert my_engine.Value.dot([a], [b]).data == -6.0
    model = my_nn.MLP(2, [3, 1])
    assert my_nn.Value is my_engine.Value and len(model.layers) == 2
    with pytest.raises(NotImplementedError, match=rf"exercise {number('backward')} \(backward\)"):
        out.backward()


def test_start_refuses_to_overwrite_a_workspace(tmp_path):
    start(tmp_path)
    (tmp_path / 'my_engine.py').write_text("# my work\n")
    with pytest.raises(FileExistsError, match="--force"):
        start(tmp_path)
    assert (tmp_path / 'my_engine.py').read_text() == "# my work\n"
    start(tmp_path, force=True)
    assert f"EXERCISE 1 ({EXERCISES[0].name})" in (tmp_path / 'my_engine.py').read_text()


def test_solution_prints_the_library_method():
    text = solution('tanh')
    library = (ROOT / 'micrograd' / 'engine.py').read_text()
    body = text.split('\n', 2)[2].rstrip('\n')
    assert body in library and 'def tanh(self)' in body
    assert 'def __call__' in solution('neuron') and 'def parameters' in solution(str(number('neuron')))
    division = solution('/')
    assert 'def __truediv__' in division and 'def __rtruediv__' not in division
    assert solution('div') == solution('truediv') == solution(str(number('/'))) == division
    with pytest.raises(KeyError, match="no exercise 'softmax'"):
        solution('softmax')


# --- Every slip named ------------------------------------------------------------------------------

@pytest.mark.parametrize('exercise, method, body, diagnosis', MUTANTS,
                         ids=[f"{m[0]}-{m[3]}-{n}" for n, m in enumerate(MUTANTS)])
def test_a_slip_is_caught_by_its_exercise_and_named(exercise, method, body, diagnosis):
    module = mutant_engine(exercise, method, body)
    result = check_one(EXERCISE[exercise], module.Value, strict=True, timeout=2.0)
    assert (result.status, result.diagnosis) == (WRONG, diagnosis), (result.why, result.detail)
    assert result.input and result.obtained and result.why
    assert "none of the mistakes the checker knows" not in result.why


RECORDED = [(e.name, slip) for e in OPS for slip in e.named if slip.body]


@pytest.mark.parametrize('exercise, slip', RECORDED, ids=[f"{m[0]}-{m[1].key}" for m in RECORDED])
def test_a_records_own_slip_is_named_at_a_line_of_its_body(exercise, slip):
    """Each record's slip planted in each blank of its exercise: named, at a line of the body planted; or done,
    where the body is right (x ** k has no exponent's gradient to get wrong). Named in one blank at least."""
    library = library_source('micrograd.engine')[0].splitlines()
    named = []
    for blank in blanks_of(EXERCISE[exercise]):
        source = mutant_source(exercise, blank.method, slip.body)
        result = check_one(EXERCISE[exercise], load(source, 'mutant', '<mutant>').Value, strict=True, timeout=2.0)
        assert (result.status, result.diagnosis) in ((WRONG, slip.key), (DONE, '')), (result.why, result.place)
        named.append(result.status == WRONG)
        if result.place:  # (x ** 3's exponent given a gradient fails in the checker's code: no line of the body)
            lines = source.splitlines()
            first = next(n for n, (a, b) in enumerate(zip(library, lines), 1) if a != b)
            last = len(lines) - next(n for n, (a, b) in enumerate(zip(library[::-1], lines[::-1])) if a != b)
            line = int(re.match(r'<mutant>, line (\d+): ', result.place).group(1))
            assert first <= line <= last and result.place.endswith(lines[line - 1].strip()), result.place
    assert any(named)


def test_every_slip_a_record_names_is_planted_by_a_test():
    """A record's slip with a body is planted by the test above (in one blank of its exercise at least, named);
    one the checker finds by what the code does, by a row of the mutation tables."""
    named = {(e.name, slip.key) for e in EXERCISES for slip in e.named}
    by_body = {(name, slip.key) for name, slip in RECORDED}
    rows = {(m[0], m[3]) for m in MUTANTS + LINE_SLIPS} | {('neuron', m[2]) for m in NEURON_MUTANTS + NEURON_LINE_SLIPS}
    # backward_no_grad needs closures that take no gradient: the command-line tests plant it (test_exercises_cli);
    # backward_own_ops, a backward() right on the checker's graphs and wrong on the learner's own ops, none yet
    assert named - by_body - rows == {('backward', 'backward_no_grad'), ('backward', 'backward_own_ops')}
    assert not [m for m in MUTANTS + LINE_SLIPS for name, slip in RECORDED
                if (m[0], m[2], m[3]) == (name, slip.body, slip.key)]  # no row repeats a record's own slip


def test_the_mutation_test_is_large_and_each_slip_has_a_name():
    """Over a hundred wrong backwards, none named with the catch-all; twenty and more right ones; every rule the
    slips are derived by is exercised by at least one mutant."""
    assert len(MUTANTS) >= 100 and len(RIGHT) + len(LECTURE_STYLE) >= 20
    assert all(m[3] != 'wrong' for m in MUTANTS)
    derived = {slip.key for e in OPS for blank in blanks_of(e) for slip in derive(blank)}
    assert derived <= {m[3] for m in MUTANTS}


@pytest.mark.parametrize('exercise, method, body', RIGHT, ids=[f"{m[0]}-{n}" for n, m in enumerate(RIGHT)])
def test_a_right_backward_written_otherwise_is_done(exercise, method, body):
    module = mutant_engine(exercise, method, body)
    # The learner's own time limit, not the mutants' short one: a right body on the 10,000-node chain must not
    # fail because the machine is busy.
    result = check_one(EXERCISE[exercise], module.Value, strict=True)
    assert result.status == DONE, (result.diagnosis, result.input, result.obtained, result.detail)


@pytest.mark.parametrize('exercise, method, text', LECTURE_STYLE, ids=[m[0] for m in LECTURE_STYLE])
def test_an_op_rewritten_as_the_lecture_writes_it_is_done_and_backward_runs_it(exercise, method, text):
    module = rewritten_engine(method, text)
    results = {r.name: r for r in check_all(module.Value, None, strict=False)}
    assert results[exercise].status == DONE and results['backward'].status == DONE


def test_a_slip_nobody_listed_is_named_by_the_rule_that_makes_it():
    """tanh's 1 + t**2 and log's grad * x are in no hand-written list: the rules 'a sign flipped' and '* for /',
    applied to the library's own backward, name them, with what changed."""
    tanh = check_one(EXERCISE['tanh'], mutant_engine('tanh', 'tanh', "{x}.grad += (1 + t ** 2) * grad").Value)
    assert tanh.diagnosis == 'sign' and "`1 + t * t` where the derivative has `1 - t * t`" in tanh.why
    log = check_one(EXERCISE['log'], mutant_engine('log', 'log', "{x}.grad += grad * {x}.data").Value)
    assert log.diagnosis == 'mul_for_div' and "`grad * x` where the derivative has `grad / x`" in log.why
    assert not any(key in ('sign', 'mul_for_div') for key, _ in EXERCISE['tanh'].slips + EXERCISE['log'].slips)


def test_a_slip_quotes_only_what_a_learner_writes():
    """A closure of the library's that calls a helper (x ** y's ieee.power and ieee.times_log) is written out as
    the helper's formula before slips are derived from it: no diagnosis quotes code the learner did not write."""
    helpers = [name for name, v in vars(micrograd.engine).items()
               if (inspect.ismodule(v) or inspect.isfunction(v)) and (getattr(v, '__module__', None) or v.__name__)
               .startswith('micrograd.') and name != 'Value']
    assert helpers  # (the engine's support modules and functions)
    said = [slip.says for e in OPS for slip, _ in variants(e.name)]
    assert not [s for s in said if any(f"{name}." in s or f"{name}(" in s for name in helpers)]
    power = ' '.join(slip.says for slip, _ in variants('**'))
    assert '`x ** (y - 1)`' in power and 'data * math.log(x)' in power


def test_the_issues_slips_are_each_named():
    named = {(m[0], m[3]) for m in MUTANTS}
    assert {('tanh', 'sign'), ('log', 'mul_for_div'), ('relu', 'relu_leaky'), ('/', 'factor_added'),
            ('+', 'reused_leaf'), ('dot', 'factor_added'), ('dot', 'dot_reversed'),
            ('backward', 'backward_twice'), ('sort', 'sort_duplicate')} <= named
    body = "for w, x in zip(ws, xs):\n{i}    w.grad += x.data * grad\n{i}    x.grad += w.data * grad\n{i}b.grad += "
    bias = check_one(EXERCISE['dot'], mutant_engine('dot', 'dot', body + "b.data * grad").Value)
    assert bias.diagnosis == 'factor_added' and "`b.grad += b.data * grad`" in bias.why
    squared = "{x}.grad += grad / {y}.data\n{i}{y}.grad -= ({x}.data / {y}.data) ** 2 * grad"
    square = check_one(EXERCISE['/'], mutant_engine('/', '__truediv__', squared).Value)
    assert square.diagnosis in ('factor_added', 'formula') and square.why


def test_the_lectures_division_is_said_to_overflow_not_to_be_wrong():
    """x / y as the lecture's x * y**-1: right in form; for y = 1e-170 the derivative of y**-1 is past a float's
    range. Done, with a note saying exactly that."""
    module = rewritten_engine('__truediv__', LECTURE_DIVISION)
    result = check_one(EXERCISE['/'], module.Value, strict=True)
    assert result.status == DONE
    assert "your x / y is the lecture's x * y**-1: right in form, but for y = 1e-170" in result.note
    assert "-(x/y)/y stays finite" in result.note
    lecture = check(LectureValue)
    division = lecture.results[EXERCISE['/'].number - 1]
    assert division.status == DONE and "x * y**-1" in division.note


def test_the_line_pointed_at_is_the_wrong_one():
    """The statement that gives the wrong parent its gradient, not the closure's first line."""
    module = mutant_engine('*', '__mul__', "{x}.grad += {y}.data * grad\n{i}{y}.grad += grad")
    result = check_one(EXERCISE['*'], module.Value, strict=True)
    assert result.place.endswith(": other.grad += grad")
    seed = next(m for m in RULES_LEFT if m[3] == ['backward_seed_overwrites'])  # backward() with self.grad = 1.0
    result = check_one(EXERCISE['backward'], mutant_engine(*seed[:3]).Value, strict=True)
    assert result.place.endswith(": self.grad = 1.0")
    neuron = check_one(EXERCISE['neuron'], micrograd.engine.Value, mutant_nn('parameters', "return self.w").Neuron,
                       strict=True)
    assert neuron.diagnosis == 'params_no_bias' and neuron.place.endswith(': Neuron.parameters')


# --- The graph: every op's output in it, with its parents, its name and its closure ---------------------

@pytest.mark.parametrize('exercise, method, old, new, diagnosis', GRAPH_EDITS,
                         ids=[f"{m[0]}-{m[4]}-{n}" for n, m in enumerate(GRAPH_EDITS)])
def test_an_output_put_in_the_graph_wrong_is_named_at_the_line_planted(exercise, method, old, new, diagnosis):
    module, line = edited_engine(method, old, new)
    result = check_one(EXERCISE[exercise], module.Value, strict=True)
    assert (result.status, result.diagnosis) == (WRONG, diagnosis), (result.why, result.place)
    assert f"<edited>, line {line}: " in result.place, (line, result.place)
    assert "none of the mistakes the checker knows" not in result.why


@pytest.mark.parametrize('exercise, method, old, new, diagnosis, reported', LECTURE_GRAPH_EDITS,
                         ids=[f"{m[0]}-{m[4]}" for m in LECTURE_GRAPH_EDITS])
def test_a_lecture_style_op_put_in_the_graph_wrong_is_named_at_its_line(exercise, method, old, new, diagnosis,
                                                                         reported):
    text = next(t for e, m, t in LECTURE_STYLE if m == method)
    assert old in text
    source = rewritten_source(method, text.replace(old, new))
    result = check_one(EXERCISE[exercise], load(source, 'rewritten', '<rewritten>').Value, strict=True)
    assert (result.status, result.diagnosis) == (WRONG, diagnosis), (result.why, result.place)
    assert f"<rewritten>, line {line_of(source, reported)}: " in result.place, result.place


@pytest.mark.parametrize('old, new, diagnosis, reported', CONSTRUCTOR_EDITS, ids=[m[2] for m in CONSTRUCTOR_EDITS])
def test_a_constructor_that_keeps_less_than_it_is_given_is_named_at_its_line(old, new, diagnosis, reported):
    module, line = edited_engine('__init__', old, new)
    result = check_one(EXERCISES[0], module.Value, strict=True)
    assert (result.status, result.diagnosis) == (WRONG, diagnosis), (result.why, result.place)
    assert result.place.startswith(f"<edited>, line {line}: ") and reported in result.place, result.place
    assert "Value.__init__" in result.why


def test_the_graph_slips_are_said_in_the_learners_terms():
    """Named as the issue asks: the operand left out, by its name in the op; the closure not attached, in the
    convention the op is written in."""
    dropped = check_one(EXERCISE['*'], edited_engine('__mul__', "(self, other), '*'", "(self,), '*'")[0].Value)
    assert dropped.why.startswith("your `*` leaves `other` out of the graph")
    mul = next(t for e, m, t in LECTURE_STYLE if m == '__mul__')
    lecture = check_one(EXERCISE['*'], rewritten_engine('__mul__', mul.replace("        out._backward = _backward\n",
                                                                               "")).Value)
    missing = "`out._backward = _backward` is missing: the closure is never attached"
    assert lecture.why.startswith(missing)
    ours = check_one(EXERCISE['*'], edited_engine('__mul__', "out._backward = _backward\n        return out",
                                                  "return out")[0].Value)
    assert ours.why.startswith(missing)


@pytest.mark.parametrize('exercise, method, body, diagnosis, planted', LINE_SLIPS,
                         ids=[f"{m[0]}-{m[3]}-{n}" for n, m in enumerate(LINE_SLIPS)])
def test_a_slip_is_reported_at_the_line_that_ran(exercise, method, body, diagnosis, planted):
    """In a closure of two branches, the branch the failing input took; dot's line, though a decorator stands
    above it; backward()'s `for` line when it walks the order from the leaves."""
    source = mutant_source(exercise, method, body)
    result = check_one(EXERCISE[exercise], load(source, 'mutant', '<mutant>').Value, strict=True)
    assert (result.status, result.diagnosis) == (WRONG, diagnosis), (result.why, result.place)
    assert result.place == f"<mutant>, line {line_of(source, planted)}: {planted}"


@pytest.mark.parametrize('exercise, method, body, diagnosis, planted, said', IN_THEIR_WORDS,
                         ids=[f"{m[0]}-{m[3]}" for m in IN_THEIR_WORDS])
def test_a_slip_is_said_with_the_learners_own_line(exercise, method, body, diagnosis, planted, said):
    """Never the library's form of the line (`other.grad += grad * (self.data / other.data / other.data)`): the
    learner's own, at the line planted (the second of two alike, where one is meant for the other parent)."""
    source = mutant_source(exercise, method, body)
    result = check_one(EXERCISE[exercise], load(source, 'mutant', '<mutant>').Value, strict=True)
    assert (result.status, result.diagnosis) == (WRONG, diagnosis), (result.why, result.place)
    line = max(n for n, text in enumerate(source.splitlines(), 1) if text.strip() == planted)
    assert result.place == f"<mutant>, line {line}: {planted}"
    assert result.why.endswith(said) and "every parent" not in result.why


def test_the_lectures_mul_with_operands_swapped_is_said_with_out_grad_as_written():
    text = LECTURE_STYLE[0][2].replace("self.grad += other.data * out.grad", LECTURE_SWAPPED)
    source = rewritten_source('__mul__', text)
    result = check_one(EXERCISE['*'], load(source, 'lecture', '<lecture>').Value, strict=True)
    assert (result.status, result.diagnosis) == (WRONG, 'swapped')
    assert result.place == f"<lecture>, line {line_of(source, LECTURE_SWAPPED)}: {LECTURE_SWAPPED}"
    assert result.why.endswith(f"`{LECTURE_SWAPPED}`")


def test_the_lectures_class_and_the_lecture_style_ops_are_put_in_the_graph_right():
    """The lecture's own class (a set for _prev, out._backward assigned) passes the graph's checks, with every op
    it has run on operands made by ops, through its own backward()."""
    statuses = {r.name: r.status for r in check(LectureValue).results}
    assert {n for n, s in statuses.items() if s == DONE} == {'+', '*', '**', '/', 'exp', 'tanh', 'relu'}


# --- The idea first: the lecture's own code is correct, the library's rules named one by one -----

@pytest.mark.parametrize('method, text, said, planted', GIVEN_OP_SLIPS, ids=[f"{m[0]}-{n}" for n, m in
                                                                        enumerate(GIVEN_OP_SLIPS)])
def test_a_slip_in_an_op_the_workspace_gives_keeps_the_engine_from_done(method, text, said, planted):
    """Every exercise done, one given op slipped: the whole engine names the form and its line; not all done."""
    engine, source = given_op_engine(method, text)
    report = Report(results=list(check_all(engine.Value)), exercises=EXERCISES)
    assert all(r.status == DONE for r in report.present), [(r.name, r.why) for r in report.present]
    assert report.engine.status == WRONG and not report.passed
    assert report.engine.why == said and report.focus is report.engine
    assert report.engine.place == f"<given>, line {line_of(source, planted)}: {planted}"
    assert f"the whole engine differs from the library's ({report.engine.place})" in str(report)


@pytest.mark.parametrize('method, text', GIVEN_OPS_RIGHT, ids=[f"{m[0]}-{n}" for n, m in enumerate(GIVEN_OPS_RIGHT)])
def test_a_given_op_written_otherwise_rightly_is_done(method, text):
    engine, _ = given_op_engine(method, text)
    assert check_engine(engine.Value, strict=True).status == DONE


def test_the_whole_engine_runs_every_op_of_the_protocol_and_the_op_table_on_each_operand_kind():
    codes = [f.code for f in forms()]
    table = {(f.code, f.method) for f in forms()}
    for symbol, method, reflected in PROTOCOL:  # a Value, the same Value, an int and a float; both sides
        assert {(f"x {symbol} y", method), (f"x {symbol} x", method), (f"x {symbol} 2", method),
                (f"2 {symbol} x", reflected), (f"x {symbol} 0.5", method), (f"0.5 {symbol} x", reflected)} <= table
    assert {op.method for op in ops.OPS} <= {f.method for f in forms()}
    assert len(codes) == len(set(codes))


@pytest.mark.parametrize('exercise, method, body, rules', RULES_LEFT,
                         ids=[f"{m[0]}-{n}" for n, m in enumerate(RULES_LEFT)])
def test_right_in_the_idea_but_short_of_a_rule_is_correct_and_the_rule_named(exercise, method, body, rules):
    module = mutant_engine(exercise, method, body)
    result = check_one(EXERCISE[exercise], module.Value, strict=True, timeout=5.0, sort_done=False)
    assert result.status == CORRECT, (result.diagnosis, result.why)
    assert result.why.startswith("correct ✓ — ")
    stated = dict(EXERCISE[exercise].rules)
    assert [key for key in stated if stated[key] in result.why] == rules


@pytest.mark.parametrize('method, body, rules', NEURON_RULES_LEFT, ids=[str(n) for n in range(len(NEURON_RULES_LEFT))])
def test_the_lectures_neuron_is_correct_and_each_rule_named(method, body, rules):
    result = check_one(EXERCISE['neuron'], micrograd.engine.Value, mutant_nn(method, body).Neuron, strict=True)
    assert result.status == CORRECT, (result.diagnosis, result.why, result.detail)
    stated = dict(EXERCISE['neuron'].rules)
    assert [key for key in stated if stated[key] in result.why] == rules


def test_the_tanh_neuron_says_first_that_the_forward_value_differs_and_why():
    body = "act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)\n{i}return act.tanh()"
    report = check(micrograd.engine.Value, mutant_nn('__call__', body).Neuron)
    text = str(report)
    assert f"exercise {number('neuron')} (neuron) is correct ✓" in text
    rows = [line.split(':', 1)[0].strip() for line in text.splitlines() if line.startswith('  ') and ':' in line]
    assert rows.index("library's") < rows.index('verdict')
    assert "out.data = 3.25   (relu of w . x + b = 3.25)" in text and "out.data = 0.996997635487" in text
    assert "this Neuron is ReLU unless made with activation='tanh'" in text
    assert report.focus.place.endswith(": return act.tanh()")  # the line that applies the activation


@pytest.mark.parametrize('method, body, diagnosis, planted', NEURON_LINE_SLIPS,
                         ids=[f"{m[2]}-{n}" for n, m in enumerate(NEURON_LINE_SLIPS)])
def test_a_neuron_whose_value_differs_is_named_by_the_rule_that_gives_it_at_its_line(method, body, diagnosis,
                                                                                      planted):
    nn = mutant_nn(method, body)
    result = check_one(EXERCISE['neuron'], micrograd.engine.Value, nn.Neuron, strict=True)
    assert (result.status, result.diagnosis) == (WRONG, diagnosis), result.why
    assert result.place.endswith(f"line {line_of(inspect.getsource(nn), planted)}: {planted}")


@pytest.mark.parametrize('method, body, diagnosis', NEURON_MUTANTS, ids=[m[2] for m in NEURON_MUTANTS])
def test_a_mistake_in_the_neuron_is_named(method, body, diagnosis):
    result = check_one(EXERCISE['neuron'], micrograd.engine.Value, mutant_nn(method, body).Neuron, strict=True)
    assert (result.status, result.diagnosis) == (WRONG, diagnosis)


def test_a_value_from_the_lecture_is_checked_on_the_ops_it_has():
    report = check(LectureValue)
    statuses = {r.name: r.status for r in report.results}
    lecture = {'+', '*', '**', '/', 'exp', 'tanh', 'relu'}
    assert {n for n, s in statuses.items() if s == DONE} == lecture
    absent = {n for n, s in statuses.items() if s == 'absent'}  # the ops after the lecture's, the sort (the lecture
    assert absent == {e.name for e in EXERCISES} - lecture - {'backward'}  # has build_topo in backward()), the neuron
    backward = report.results[EXERCISE['backward'].number - 1]
    assert backward.status == CORRECT  # right gradients; it never zeroes, sets the root's grad, recurses
    assert backward.diagnosis == 'backward_no_zeroing' and "3 steps left" in backward.why
    present = N - len(absent)
    assert f"{present} of {present} done (5 not in this class: log sigmoid dot sort neuron); level 2 (the library's " \
           "rules, optional): 1 left" in str(report)
    assert report.passed and report.engine.status == DONE  # its whole engine, on the forms it has


def test_a_lecture_value_with_eq_for_plus_eq_is_caught_on_a_times_a():
    class Slipped(LectureValue):
        def __mul__(self, other):
            other = other if isinstance(other, LectureValue) else Slipped(other)
            out = Slipped(self.data * other.data, (self, other), '*')

            def _backward():
                self.grad = other.data * out.grad
                other.grad = self.data * out.grad
            out._backward = _backward
            return out
    result = check(Slipped).results[1]
    assert (result.status, result.diagnosis, result.input) == (WRONG, 'overwrite', 'a = Value(3.0); out = a * a')


def test_the_extreme_inputs_and_which_naive_formulas_pass_them():
    """tanh at 400 (the lecture's (e**2x - 1)/(e**2x + 1) overflows above 355) and a divisor of 1e-170 (y**2
    underflows to 0, y**-2 overflows). A right formula that Python refuses to evaluate there (OverflowError,
    ZeroDivisionError) is accepted, with a note saying so."""
    assert any(c.extreme and c.leaves == {'x': 400.0} for c in EXERCISE['tanh'].cases)
    assert any(c.extreme and c.leaves.get('y') == 1e-170 for c in EXERCISE['/'].cases)
    textbook = mutant_engine('/', '__truediv__',
                             "{x}.grad += grad / {y}.data\n{i}{y}.grad -= {x}.data / {y}.data ** 2 * grad")
    result = check_one(EXERCISE['/'], textbook.Value, strict=True)
    assert result.status == DONE and 'ZeroDivisionError' in result.note and '1e-170' in result.note
    naive = mutant_engine('tanh', 'tanh', "t2 = (math.exp(2 * {x}.data) - 1) / (math.exp(2 * {x}.data) + 1)\n"
                                          "{i}{x}.grad += (1 - t2 ** 2) * grad")
    result = check_one(EXERCISE['tanh'], naive.Value, strict=True)
    assert result.status == DONE and 'OverflowError' in result.note
    assert f"exercise {number('tanh')} (tanh) is done; on `x = Value(400.0)" in str(check(naive.Value))
    library = check_one(EXERCISE['tanh'], micrograd.engine.Value, strict=True)
    assert library.status == DONE and not library.note


def test_a_case_with_a_gradient_left_over_names_the_leaf():
    texts = [case.text() for e in OPS for case in e.cases if case.prior]
    assert "x = Value(3.0); y = Value(2.0); y.grad = 0.5; out = x / y   (y.grad was not 0: gradients accumulate)" \
        in texts
    assert any(text.endswith("(w.grad was not 0: gradients accumulate)") for text in texts)


def test_one_mistake_leaves_every_other_exercise_done():
    module = mutant_engine('tanh', 'tanh', "{x}.grad += (1 - {x}.data ** 2) * grad")
    statuses = {r.name: r.status for r in check_all(module.Value, None, strict=True)}
    assert statuses.pop('tanh') == WRONG and statuses.pop('neuron') == WRONG  # strict: a workspace has my_nn.py
    assert set(statuses.values()) == {DONE}


def test_the_report_shows_input_expected_obtained_diagnosis_line_and_hint():
    module = mutant_engine('tanh', 'tanh', "{x}.grad += (1 - {x}.data ** 2) * grad")
    text = str(check(module.Value))
    assert f"exercise {number('tanh')} (tanh) is wrong" in text
    rows = {line.split(':', 1)[0].strip(): line.split(':', 1)[1].strip() for line in text.splitlines()
            if line.startswith('  ') and ':' in line and not line.strip()[0].isdigit()}
    assert rows['input'] == "x = Value(0.5); out = x.tanh()"
    assert rows['expected'].startswith("x.grad = 0.786447732966") and "central differences give 0.78644773" in text
    assert rows['obtained'] == "x.grad = 0.75"
    assert rows['diagnosis'].startswith(RULES['at_input']) and rows['hint'] == EXERCISE['tanh'].hint
    assert rows['line'].endswith("self.grad += (1 - self.data ** 2) * grad")
    assert rows['also wrong'] == "x = Value(-1.2); out = x.tanh()   (backpropagating out.grad = 2.0)"
    hinted = str(check(module.Value, hint=True))
    assert EXERCISE['tanh'].stronger in hinted and EXERCISE['tanh'].formula in hinted


def test_the_report_shows_as_html_in_jupyter():
    module = mutant_engine('*', '__mul__', "{x}.grad = {y}.data * grad\n{i}{y}.grad = {x}.data * grad")
    page = check(module.Value)._repr_html_()
    assert page.count('<tr>') >= N and 'WRONG' in page
    assert 'a Value used twice (as in a * a, a / a, or b = a + a; c = b + b)' in page
    assert '<code>+=</code>' in page  # a hint's `code`, as code
    assert 'a = Value(3.0); out = a * a' in page


def test_a_recursive_backward_is_named_on_a_deep_chain():
    class Fixed(LectureValue):
        def backward(self):
            topo, visited = [], set()

            def build(v):
                if v not in visited:
                    visited.add(v)
                    for child in v._prev:
                        build(child)
                    topo.append(v)
            build(self)
            for v in topo:
                if v._prev:
                    v.grad = 0.0
            self.grad += 1
            for v in reversed(topo):
                v._backward()
    result = check_one(EXERCISE['backward'], Fixed)
    assert (result.status, result.diagnosis) == (CORRECT, 'backward_recursion')
    assert "10,000 times" in result.why


# --- The command line, with the learner's code in a child process --------------------------------

def run(*args, cwd):
    env = {**os.environ, 'PYTHONPATH': str(ROOT)}
    return subprocess.run([sys.executable, '-m', 'micrograd.exercises', *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def write(path, name, body):
    """A blank of a workspace file written (its marker, rules and raise replaced by body)."""
    text = path.read_text()
    marker = f"# EXERCISE {number(name)} ({name})"
    raise_ = f"raise NotImplementedError('exercise {number(name)} ({name}): not written yet')"
    start_, end = text.index(marker), text.index(raise_, text.index(marker)) + len(raise_)
    path.write_text(text[:start_] + body + text[end:])


def test_the_command_line(tmp_path):
    started = run('start', 'ws', cwd=tmp_path)
    assert started.returncode == 0 and "-m micrograd.exercises check ws" in started.stdout
    again = run('start', 'ws', cwd=tmp_path)
    assert again.returncode == 1 and "--force" in again.stderr

    fresh = run('check', 'ws', cwd=tmp_path)
    assert fresh.returncode == 1
    assert f"0 of {N} done" in fresh.stdout and "nothing started yet: begin with `+`" in fresh.stdout
    assert "Traceback" not in fresh.stdout + fresh.stderr

    engine = tmp_path / 'ws' / 'my_engine.py'
    text = engine.read_text()
    engine.write_text(text.replace(f"raise NotImplementedError('exercise {number('+')} (+): not written yet')",
                                   "self.grad += grad +", 1))
    broken = run('check', 'ws', cwd=tmp_path)
    line = 1 + engine.read_text()[:engine.read_text().index("self.grad += grad +")].count('\n')
    assert broken.returncode == 1 and f"my_engine.py, line {line}: SyntaxError" in broken.stdout

    library, _ = library_source('micrograd.engine')
    engine.write_text(engine_header() + library)  # every exercise written as the library writes it
    nn = tmp_path / 'ws' / 'my_nn.py'
    write(nn, 'neuron', "return self.w + [self.b]")  # parameters() written, __call__ not yet
    almost = run('check', 'ws', cwd=tmp_path)
    assert almost.returncode == 1 and f"{N - 1} of {N} done" in almost.stdout

    nn.write_text(nn_header() + library_source("micrograd.nn")[0].replace("from micrograd.engine import",
                                                                          "from my_engine import"))
    finished = run('check', 'ws', cwd=tmp_path)
    assert finished.returncode == 0 and f"{N} of {N} done" in finished.stdout

    shown = run('solution', '**', cwd=tmp_path)
    assert shown.returncode == 0 and 'def __pow__' in shown.stdout
    assert run('list', '--track', 'scalar', cwd=tmp_path).stdout == run('list', cwd=tmp_path).stdout


def test_a_learner_writes_the_lectures_sort_backward_and_neuron_and_is_told_correct(tmp_path):
    """The walk-through: the lecture's recursive build_topo keeping the leaves, its backward() with
    self.grad = 1.0 and node._backward(), its tanh neuron with a for loop over zip(self.w, x). Each is correct
    backprop, said so: level 1 is done, with the library's rules (level 2, optional) named one by one."""
    start(tmp_path)
    engine, nn = tmp_path / 'my_engine.py', tmp_path / 'my_nn.py'
    source, _ = library_source('micrograd.engine')  # the ops written as the library writes them
    engine.write_text(engine_header(tmp_path) + splice(source, {b: b.text() for b in find_blanks(source)
                                                                if b.exercise.kind != 'op'}))
    i = ' ' * 8
    write(engine, 'sort', LECTURE_BUILD_TOPO.format(i=i) + f"{i}return topo")
    write(engine, 'backward', "topo = self._topological_order()\n"
                                  f"{i}self.grad = 1.0\n{i}for node in reversed(topo):\n{i}    node._backward()")
    write(nn, 'neuron', "act = self.b\n"
                            f"{i}for wi, xi in zip(self.w, x):\n{i}    act = act + wi * xi\n{i}return act.tanh()")
    write(nn, 'neuron', "return self.w + [self.b]")
    report = check(tmp_path)
    ops = len(OPS)  # the ops come first, then the sort, backward() and the neuron
    assert [r.status for r in report.results] == [DONE] * ops + [CORRECT] * 3, [r.why for r in report.results]
    text = str(report)
    assert f"{N} of {N} done; level 2 (the library's rules, optional): 3 left" in text
    assert report.passed and report.engine.status == DONE  # level 1 is done: exit status 0
    assert "all done at level 1: every gradient matches" in text
    assert f"Level 2, optional: exercise {number('sort')} (sort) is correct ✓" in text
    assert "correct ✓ — every node once, after its parents" in text
    for r in report.results[ops:]:
        assert r.why.startswith("correct ✓ — ") and "left to match the library" in r.why


# One slip after the lecture's own sort, backward() and neuron: (file, exercise, body, diagnosis, its line).
LECTURE_THEN_A_SLIP = [
    ('my_nn.py', 'neuron', "return self.w", 'params_no_bias', "return self.w"),
    ('my_engine.py', 'backward', "topo = self._topological_order()\n        self.grad = 1.0\n"
                                 "        for node in topo:\n            node._backward()",
     'backward_not_reversed', "for node in topo:"),
]


@pytest.mark.parametrize('file, name, body, diagnosis, planted', LECTURE_THEN_A_SLIP,
                         ids=[m[3] for m in LECTURE_THEN_A_SLIP])
def test_a_wrong_exercise_is_shown_before_the_lectures_correct_ones(tmp_path, file, name, body, diagnosis, planted):
    """The lecture's answers are correct with a rule left; a slip in a later exercise is what the report shows
    first, its diagnosis and line, and the correct ones wait ("also")."""
    start(tmp_path)
    engine, nn = tmp_path / 'my_engine.py', tmp_path / 'my_nn.py'
    source, _ = library_source('micrograd.engine')
    engine.write_text(engine_header(tmp_path) + splice(source, {b: b.text() for b in find_blanks(source)
                                                                if b.exercise.kind != 'op'}))
    i = ' ' * 8
    write(engine, 'sort', LECTURE_BUILD_TOPO.format(i=i) + f"{i}return topo")
    write(engine, 'backward', "topo = self._topological_order()\n"
                                  f"{i}self.grad = 1.0\n{i}for node in reversed(topo):\n{i}    node._backward()")
    write(nn, 'neuron', f"act = sum((wi*xi for wi, xi in zip(self.w, x)), self.b)\n{i}return act.tanh()")
    write(nn, 'neuron', "return self.w + [self.b]")
    if name == 'backward':  # the lecture's backward() replaced whole
        text = engine.read_text()
        at = text.index("topo = self._topological_order()\n        self.grad = 1.0")
        end = text.index("node._backward()", at) + len("node._backward()")
        engine.write_text(text[:at] + body + text[end:])
    else:
        text = nn.read_text()
        nn.write_text(text.replace("return self.w + [self.b]", body, 1))
    report = check(tmp_path)
    wrong = next(r for r in report.results if r.status == WRONG)
    assert (wrong.name, wrong.diagnosis) == (name, diagnosis)
    assert report.focus is wrong
    text = str(report)
    lines = (tmp_path / file).read_text().splitlines()
    body = next(n for n, t in enumerate(lines) if t.strip() == body.splitlines()[-1].strip())
    line = max(n for n, t in enumerate(lines[:body + 1], 1) if planted in t)  # the slip's line, or its def's
    assert f"exercise {number(name)} ({name}) is wrong" in text
    assert f"  line:      {file}, line {line}: " in text and wrong.why in text
    correct = [r for r in report.results if r.status == CORRECT]
    also = next(line for line in text.splitlines() if "correct ✓ too: level 1 done" in line)
    assert correct and all(f"{r.number} ({r.name})" in also for r in correct)
    assert text.index("diagnosis:") < text.index("correct ✓ too")


def test_a_correct_exercise_shows_the_librarys_way_beside_the_learners_not_as_expected():
    sort = mutant_engine('sort', '_topological_order', LECTURE_BUILD_TOPO + "{i}return topo").Value
    report = Report(results=[check_one(EXERCISE['sort'], sort, strict=True)], exercises=EXERCISES)
    rows = dict(row for row in report.details())
    assert report.focus.name == 'sort' and "expected" not in rows and "obtained" not in rows
    assert rows["library's"].startswith("[x, y, z]") and rows['yours'].startswith("[a, b, x, y, z]")
    assert "correct ✓" in rows['verdict']


@pytest.mark.slow
def test_an_infinite_loop_is_stopped_and_named():
    """The time limit per exercise, inside this process (a timer signal) as in the child process."""
    module = mutant_engine('sort', '_topological_order', "while True:\n{i}    pass")
    result = check_one(EXERCISE['sort'], module.Value, strict=True, timeout=0.3)
    assert (result.status, result.diagnosis) == (WRONG, 'timeout') and result.why == GENERIC['timeout']
    assert result.input.startswith('a = Value(2.0)')
