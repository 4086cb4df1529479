"""The tensor track of the exercises: the workspace, the grading of every exercise, and its mutation test (every
planted slip caught and named, every right answer written otherwise graded done)."""
import ast
import functools
import html
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from micrograd.exercises.cutting import body_span, offsets
from micrograd.exercises.report import Report
from micrograd.exercises.result import CORRECT, DONE, NOT_STARTED, WRONG, Result
from micrograd.exercises.tensor import EXERCISES, check, find, solution, start
from micrograd.exercises.tensor.grading import check_one
from micrograd.exercises.tensor.my_tensor_file import (
    blank_tensor,
    blanks,
    library_module,
    library_source,
    load,
    solved,
    splice,
    target,
    with_bodies,
)
from micrograd.exercises.tensor.naming import slips_of
from micrograd.exercises.tensor.running import central_differences, close, expected, torch_grads
from tests import ROOT
from tests.exercises.exercises_tensor_mutants import RIGHT, SLIPS


def body_start(text, name):
    """Where blank name's body starts in a workspace's text: its function found by name at the file's top level."""
    bare = name.removesuffix('()').split('.')[-1]
    fn = next(n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == bare)
    return body_span(text, offsets(text), target(fn, name))[0]


RECORDED = [(e.name, s.blank, s.body, s.key) for e in EXERCISES for s in e.slips]


def planted(replacements):
    """A solved workspace with some bodies written otherwise, loaded as the checker loads a learner's file."""
    return load('my_tensor.py', solved('.', replacements))


def grade(exercise_name, replacements, timeout=None):
    return check_one(find(exercise_name), planted(replacements), timeout=timeout)


# --- the track as a learner meets it --------------------------------------------------------------------

def test_the_exercises_go_from_a_broadcast_gradient_to_attention_and_backward():
    names = [e.name for e in EXERCISES]
    assert names[0] == 'unbroadcast' and names[-1] == 'backward'
    assert names.index('matmul') < names.index('softmax') < names.index('cross_entropy') < names.index('attention')
    for e in EXERCISES:
        assert e.ask and e.rules and e.shapes and e.hint and e.stronger and e.formula and e.math, e.name
        assert e.task.startswith(e.ask) and 'Rules:' in e.task and 'Checked on:' in e.task


def test_the_library_passes_every_exercise():
    module = library_module()
    assert [check_one(e, module).status for e in EXERCISES] == [DONE] * len(EXERCISES)


def test_an_untouched_workspace_has_nothing_started():
    module = blank_tensor()
    assert [check_one(e, module).status for e in EXERCISES] == [NOT_STARTED] * len(EXERCISES)


@pytest.mark.parametrize('number', [e.number for e in EXERCISES if e.kind == 'op'])
def test_the_library_agrees_with_central_differences_and_pytorch_on_every_case(number):
    exercise = EXERCISES[number - 1]
    for i, case in enumerate(exercise.cases):
        run, fd = expected(number, i)
        assert run.error is None, case.text()
        torch = torch_grads(number, i)
        for name, g in run.grads.items():
            assert g.dtype == case.data()[name].dtype, case.text()
            if fd:
                assert close(g, fd[name], loose=True), case.text()
            if torch is not None:
                assert close(g, torch[name], case.dtype), case.text()


def test_the_cases_broadcast_are_0d_empty_non_square_and_float32():
    shapes = [s for e in EXERCISES for c in e.cases for s in c.leaves.values()]
    assert () in shapes and any(0 in s for s in shapes) and any(1 in s for s in shapes)
    assert any(len(s) == 2 and s[0] != s[1] for s in shapes) and any(len(s) == 2 and s[0] == s[1] for s in shapes)
    assert any(c.dtype == 'float32' for e in EXERCISES for c in e.cases)
    upstream = find('+ *').cases[0].upstream((4, 3))
    assert len(np.unique(upstream)) > 6 and not np.allclose(upstream, upstream.T[:, :1].T)  # random, not ones


def test_start_writes_the_exercises_in_order_each_blank_a_raise(tmp_path):
    [path] = start(tmp_path)
    text = path.read_text()
    assert path.name == 'my_tensor.py' and 'check --track tensor' in text
    titles = [text.index(f"# --- EXERCISE {e.number} ({e.name}) ---\n") for e in EXERCISES]
    assert titles == sorted(titles)
    for e, at, end in zip(EXERCISES, titles, titles[1:] + [len(text)]):  # each exercise's blanks under its task
        assert f"raise NotImplementedError('exercise {e.number} ({e.name}): not written yet')" in text[at:end]
        assert all(body_start(text, name) in range(at, end) for name in e.blanks), e.name
    assert "# d(xy)/dx = y, d(xy)/dy = x" in text  # the formula beside each closure stays
    assert len(text.splitlines()) < 650 and '\nclass ' not in text  # the exercises, not the library around them
    with pytest.raises(FileExistsError):
        start(tmp_path)


def test_the_workspace_loads_into_a_fresh_engine_and_a_function_left_out_stays_blank():
    module = load('my_tensor.py', solved())
    assert [check_one(e, module).status for e in EXERCISES] == [DONE] * len(EXERCISES)
    assert library_module().Tensor is not module.Tensor and sum([1, 2]) == 3
    assert module.softmax is library_module().softmax and 'sum' not in vars(module)  # the engine's names back
    text = solved()
    at = body_start(text, 'Tensor.exp')
    start_of_def = text.rindex('\ndef exp(', 0, at)
    end_of_def = text.index('\ndef log(', at)
    module = load('my_tensor.py', text[:start_of_def] + text[end_of_def:])
    with pytest.raises(NotImplementedError, match=r'exercise 3 \(elementwise\)'):
        module.Tensor([1.0, 2.0], requires_grad=True).exp().sum().backward()


def test_the_librarys_names_imported_in_a_workspace_are_the_engines_and_earn_nothing():
    text = solved()
    at = body_start(text, 'cross_entropy')
    start_of_def, end_of_def = text.rindex('\ndef cross_entropy(', 0, at), text.index('\n# ---', at)
    text = text[:start_of_def] + "\nfrom micrograd.tensor import Tensor, cross_entropy\n" + text[end_of_def:]
    module = load('my_tensor.py', text)
    statuses = {e.name: check_one(e, module).status for e in EXERCISES}
    assert statuses.pop('cross_entropy') == NOT_STARTED and set(statuses.values()) == {DONE}


def test_the_workspace_is_the_library_with_the_blanks_cut_and_nothing_else():
    source = library_source()
    back = {b: b.solution.replace('\n' + b.indent, '\n') for b in blanks()}  # each body, unindented
    assert splice(source, back) == source
    names = [b.name for b in blanks()]
    assert names == [name for e in EXERCISES for name in e.blanks]
    assert all(b.solution.strip() for b in blanks())


def test_solution_prints_the_library_code_of_an_exercise():
    text = solution('softmax')
    assert 'micrograd/tensor/unary.py' in text and 'def softmax' in text and 'def log_softmax' in text
    assert find('tanh') is find('elementwise') is find(str(find('elementwise').number))
    with pytest.raises(KeyError, match='no exercise'):
        find('conv2d')


# --- the mutation test ------------------------------------------------------------------------------------

@functools.cache
def first_line(blank_name):
    """The line of the solved workspace where blank_name's body starts (from 1): a planted body starts there too
    (the text above it is the same)."""
    text = solved()
    return text[:body_start(text, blank_name)].count('\n') + 1


def reported_line(blank_name, body, place):
    """The line of a planted body the report points at (from 1), and its text; (None, place) for another place."""
    first = first_line(blank_name)
    found = re.search(r', line (\d+): (.*)$', place)
    if not found:
        return None, place
    return int(found.group(1)) - first + 1, found.group(2)


@pytest.mark.parametrize('exercise, blank, body, key, line', [m + (None,) for m in RECORDED] + [
    (m + (None,))[:5] for m in SLIPS])
def test_a_slip_is_caught_and_named_at_its_line(exercise, blank, body, key, line):
    result = grade(exercise, {blank: body})
    assert result.status in (WRONG, CORRECT), (key, result)
    assert result.diagnosis == key, (key, result.diagnosis, result.why)
    assert result.why and result.input
    n, text = reported_line(blank, body, result.place)
    lines = body.split('\n')
    if line is not None:  # the mutant's line
        assert (n, text) == (line, lines[line - 1].strip()), result.place
    elif (exercise, blank, body, key) in RECORDED:  # a record's slip: a line of its body
        assert n is not None and 1 <= n <= len(lines) and lines[n - 1].strip() == text, result.place


def test_most_mutants_are_checked_at_their_line_and_none_only_repeats_a_record():
    assert sum(len(m) == 5 for m in SLIPS) >= 0.9 * len(SLIPS)
    assert not [m for m in SLIPS if tuple(m[:4]) in RECORDED and len(m) == 4]


def test_the_mutation_test_is_large():
    assert len(SLIPS) + len(RECORDED) >= 60 and len(SLIPS) >= 60 and len(RIGHT) >= 20
    assert len({key for *_, key in SLIPS + RECORDED}) >= 50


@pytest.mark.parametrize('exercise, blank, body', RIGHT)
def test_a_right_backward_written_otherwise_is_done(exercise, blank, body):
    result = grade(exercise, {blank: body})
    assert result.status == DONE, (result.diagnosis, result.why, result.input)


@pytest.mark.parametrize('number', [e.number for e in EXERCISES if e.kind == 'op'])
def test_every_derived_slip_builds_into_an_engine(number):
    for slip in slips_of(EXERCISES[number - 1]):
        with_bodies({slip.blank: slip.body}, 'derived')


def test_a_missing_reduction_names_the_operand_its_shape_and_the_axis():
    result = grade('unbroadcast', {'unbroadcast': "return grad"})
    assert result.diagnosis == 'not_reduced'
    assert "has the output's shape (4, 3)" in result.why and "(3,)" in result.why and "axis 0" in result.why


def test_a_shape_error_is_said_in_the_cases_terms_with_the_learners_line():
    result = grade('matmul', {'Tensor.__matmul__': "self._add_grad(grad @ b)\nother._add_grad(a @ grad)"})
    assert result.diagnosis == 'matmul_untransposed'
    assert 'grad @ B^T' in result.why and 'self._add_grad(grad @ b)' in result.place


def test_one_exercises_slip_leaves_every_other_exercise_done():
    module = planted({'unbroadcast': "return grad"})
    statuses = [check_one(e, module).status for e in EXERCISES]
    assert statuses == [WRONG] + [DONE] * (len(EXERCISES) - 1)


def test_a_data_tensor_given_a_gradient_is_done_with_a_note():
    result = grade('+ *', {'Tensor.__add__': "self._add_grad(grad)\nother._add_grad(grad)"})
    assert result.status == DONE and 'c is data (requires_grad=False) and got a .grad' in result.note


def test_backward_that_seeds_a_non_scalar_output_with_ones_is_correct_with_a_rule_left():
    body = next(s.body for s in find('backward').slips if s.key == 'backward_nonscalar_seeded')
    result = grade('backward', {'Tensor.backward()': body})
    assert result.status == CORRECT and 'correct ✓' in result.why and 'ValueError' in result.why


def test_a_mean_divided_by_the_wrong_count_says_which_axis_it_divided_by():
    result = grade('sum mean', {'Tensor.mean': "if not keepdims and ax:\n    grad = np.expand_dims(grad, ax)\n"
                                               "self._add_grad(np.broadcast_to(grad / self.data.shape[-1], "
                                               "self.data.shape))"})
    assert result.input.startswith('x (4, 3): out = x.mean()')
    assert "divided by 3, the length of x's last axis, axis 1" in result.why and 'n = 12' in result.why
    assert 'batch' not in result.why


def test_an_array_the_forward_pass_saved_written_in_place_is_named_with_its_name():
    result = grade('cross_entropy', {'cross_entropy': "np.exp(log_probs, out=log_probs)\nlog_probs[rows, picked] -= 1\n"
                                                      "log_probs[~counted] = 0\n"
                                                      "logits._add_grad(log_probs * grad / n_counted)"})
    assert result.diagnosis == 'inplace_saved' and '`log_probs`' in result.why


def test_min_is_checked_as_well_as_max():
    assert any('.min(' in c.code for c in find('max').cases)


def test_a_gradient_written_in_place_is_named_with_the_op():
    result = grade('elementwise', {'Tensor.relu': "grad[~passes] = 0\nself._add_grad(grad)"})
    assert result.diagnosis == 'inplace' and "'relu'" in result.why


# --- the command line, a learner's whole track, the notebook ----------------------------------------------

def run(*args, cwd):
    return subprocess.run([sys.executable, '-m', 'micrograd.exercises', *args], capture_output=True, text=True,
                          cwd=cwd, env={'PYTHONPATH': str(ROOT), 'PATH': '/usr/bin:/bin'})


def test_the_command_line_starts_lists_checks_and_shows_a_solution(tmp_path):
    started = run('start', '--track', 'tensor', 'work', cwd=tmp_path)
    assert started.returncode == 0 and 'my_tensor.py' in started.stdout
    listed = run('list', '--track', 'tensor', cwd=tmp_path)
    assert 'attention' in listed.stdout and 'unbroadcast' in listed.stdout
    checked = run('check', '--track', 'tensor', 'work', cwd=tmp_path)
    assert checked.returncode == 1 and 'nothing started yet' in checked.stdout and 'Rules:' in checked.stdout
    shown = run('solution', '--track', 'tensor', 'cross_entropy', cwd=tmp_path)
    assert shown.returncode == 0 and 'def cross_entropy' in shown.stdout


@pytest.mark.slow
def test_a_learners_whole_track_solved_checks_in_under_a_minute(tmp_path):
    (tmp_path / 'my_tensor.py').write_text(solved(tmp_path))
    began = time.perf_counter()
    report = check(tmp_path)
    took = time.perf_counter() - began
    assert report.passed, str(report)
    assert took < 60


@pytest.mark.slow
def test_a_slip_in_the_workspace_file_is_reported_at_its_line(tmp_path):
    text = solved(tmp_path)
    text = text.replace("self._add_grad(sw * (g - (g * sw).sum(axis=ax, keepdims=True)))",
                        "self._add_grad(grad * s * (1 - s))")
    (tmp_path / 'my_tensor.py').write_text(text)
    report = check(tmp_path)
    [wrong] = [r for r in report.results if r.status == WRONG]
    assert wrong.name == 'softmax' and wrong.diagnosis == 'softmax_diagonal'
    line = [t.strip() for t in text.split('\n')].index('self._add_grad(grad * s * (1 - s))') + 1
    assert wrong.place == f"my_tensor.py, line {line}: self._add_grad(grad * s * (1 - s))"


def test_the_html_report_keeps_the_lines_of_a_task_apart():
    first = EXERCISES[0]
    page = Report([Result(number=first.number, name=first.name, status=NOT_STARTED)], EXERCISES)._repr_html_()
    task = html.escape(first.task).split('\n')
    assert len(task) == 3 and task[1].startswith('Rules: ') and task[2].startswith('Checked on: ')
    assert '<br>'.join(task) in re.sub(r'</?code>', '`', page)  # each on its own line, not run together


def test_the_time_limit_counts_the_learners_code_only(tmp_path):
    # In a fresh Python, PyTorch is not imported yet: importing it (5 s on a loaded machine) is the checker's work,
    # and must not count against a time limit of 1 s on the library's own answer.
    script = ("from micrograd.exercises.tensor import find\n"
              "from micrograd.exercises.tensor.grading import check_one\n"
              "from micrograd.exercises.tensor.my_tensor_file import library_module\n"
              "print(check_one(find('+ *'), library_module(), timeout=1).status)\n")
    done = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, cwd=tmp_path,
                          env={'PYTHONPATH': str(ROOT), 'PATH': '/usr/bin:/bin'})
    assert done.stdout.split() == [DONE], done.stderr[-2000:]


def test_an_endless_loop_in_a_backward_is_stopped_by_the_time_limit():
    result = grade('elementwise', {'Tensor.exp': "while True:\n    pass"}, timeout=1)
    assert result.status == WRONG and result.diagnosis == 'timeout' and 'x.exp()' in result.input


@pytest.mark.slow
def test_the_solved_workspace_is_all_done_with_a_time_limit_of_2_s(tmp_path):
    (tmp_path / 'my_tensor.py').write_text(solved(tmp_path))
    checked = run('check', '--track', 'tensor', '--timeout', '2', str(tmp_path), cwd=tmp_path)
    assert checked.returncode == 0 and 'all done' in checked.stdout, checked.stdout[-3000:]


def test_central_differences_are_the_checkers_own():
    case = find('+ *').cases[0]
    fd = central_differences(case)
    assert set(fd) == set(case.leaves) and fd['b'].shape == (3,)
