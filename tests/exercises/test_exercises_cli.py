"""micrograd.exercises from the command line and in a workspace, with the learner's code in a child process:
every option refused on one line before any work, paths with spaces, commands that work as printed, and a
learner's code that prints, exits or writes to file descriptor 1 without disturbing the checker's results."""
import os
import re
import shlex
import subprocess
import sys

import pytest

from micrograd.engine import topological_order
from micrograd.exercises import EXERCISES, check, start
from micrograd.exercises.__main__ import main
from micrograd.exercises.cutting import library_source, splice
from micrograd.exercises.result import DONE, GENERIC, WRONG
from micrograd.exercises.scalar.blanks import engine_header, find_blanks, nn_header
from micrograd.exercises.scalar.exercises import BY_NAME as EXERCISE
from micrograd.exercises.scalar.grade import check_one
from tests import ROOT
from tests.exercises.exercises_mutants import LECTURE_STYLE, mutant_engine, rewritten_engine

N = len(EXERCISES)  # how many there are: counted, never written


def blank(path, name, body):
    """Write an exercise's blank in a workspace's my_engine.py (its marker and raise replaced by body)."""
    engine = path / 'my_engine.py'
    text = engine.read_text()
    marker = f"raise NotImplementedError('exercise {EXERCISE[name].number} ({name}): not written yet')"
    assert marker in text
    engine.write_text(text.replace(marker, body, 1))


def solved(path, upto):
    """Write the exercises up to the one named upto as the library does (the library's engine, with the later
    blanks kept)."""
    source, _ = library_source('micrograd.engine')
    later = {b: b.text() for b in find_blanks(source) if b.exercise.number > EXERCISE[upto].number}
    (path / 'my_engine.py').write_text(engine_header(path) + splice(source, later))


# --- Every option, against its bad values: one line on stderr, a non-zero exit, nothing done -----

def bad_values(tmp):
    file = tmp / 'notes.txt'
    file.write_text('mine\n')
    (tmp / 'empty').mkdir()
    return [
        (['check', 'ws', '--timeout', '-1'], 'positive, finite'),
        (['check', 'ws', '--timeout', '0'], 'positive, finite'),
        (['check', 'ws', '--timeout', 'nan'], 'positive, finite'),
        (['check', 'ws', '--timeout', 'inf'], 'positive, finite'),
        (['check', 'ws', '--timeout=-inf'], 'positive, finite'),
        (['check', 'ws', '--timeout', 'ten'], "expected a number of seconds, got 'ten'"),
        (['check', 'ws', '--timeout'], 'expected one argument'),
        (['check', str(tmp / 'missing')], f"no folder {tmp / 'missing'}: make the workspace there with"),
        (['check', str(tmp / 'missing.py')], 'no file'),
        (['check', str(tmp / 'empty')], f"no my_engine.py in {tmp / 'empty'}"),
        (['check', str(file)], 'is not a Python file'),
        (['check', 'ws', '--hint=yes'], 'ignored explicit argument'),
        (['start', str(file)], 'is a file, not a folder'),
        (['start', str(file / 'ws')], 'is a file, not a folder'),
        (['solution', 'softmax'], "no exercise 'softmax'"),
        (['solution', '0'], "no exercise '0'"),
        (['solution', str(N + 1)], f"no exercise '{N + 1}'"),
        (['solution'], 'the following arguments are required: name'),
        (['notebook', str(tmp / 'empty')], 'is a folder'),
        (['notebook', str(tmp / 'missing' / 'ex.ipynb')], 'no folder'),
        (['list', '--all'], 'unrecognized arguments'),
        (['frobnicate'], 'invalid choice'),
        ([], 'the following arguments are required: command'),
    ]


def test_every_bad_option_is_one_line_on_stderr_and_nothing_is_done(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    start(tmp_path / 'ws')
    table = bad_values(tmp_path)
    before = sorted(str(p) for p in tmp_path.rglob('*'))
    for argv, said in table:
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        out, err = capsys.readouterr()
        assert exit_.value.code not in (0, None), argv
        assert out == '' and err.count('\n') == 1 and said in err, (argv, err)
        assert 'Traceback' not in err
        assert sorted(str(p) for p in tmp_path.rglob('*')) == before, argv  # nothing written


def test_the_tensor_track_without_numpy_says_what_to_install_on_one_line(tmp_path):
    code = ("import sys; sys.modules['numpy'] = None  # (a Python without NumPy)\n"
            "from micrograd.exercises.__main__ import main; sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, '-c', code, 'check', '--track', 'tensor', str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ''
    assert done.stderr.count('\n') == 1 and 'the tensor track needs NumPy: pip install numpy' in done.stderr


def test_good_values_work_with_spaces_in_the_path(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(['start', 'my work']) == 0
    out = capsys.readouterr().out
    assert f"{shlex.quote(sys.executable)} -m micrograd.exercises check 'my work'" in out
    assert main(['check', 'my work', '--timeout', '2.5']) == 1
    out = capsys.readouterr().out
    assert f'0 of {N} done' in out and "check 'my work'" in out
    assert main(['check', 'my work/my_engine.py', '--hint']) == 1
    assert main(['notebook', 'my work/ex.ipynb']) == 0 and (tmp_path / 'my work' / 'ex.ipynb').exists()
    assert main(['solution', 'div']) == 0 and main(['list']) == 0


def test_the_command_in_the_workspace_header_works_as_printed_from_anywhere(tmp_path):
    start(tmp_path / 'my ws')
    line = next(line for line in (tmp_path / 'my ws' / 'my_engine.py').read_text().splitlines()
                if ' check ' in line and line.startswith('#     '))
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'VIRTUAL_ENV')}
    env['PATH'] = '/usr/bin:/bin'  # no virtual environment's python first on PATH
    done = subprocess.run(['sh', '-c', line[len('#     '):]], cwd='/', env=env, capture_output=True, text=True,
                          timeout=120)
    assert 'No module named' not in done.stderr and f'0 of {N} done' in done.stdout, done.stderr


# --- The learner's code, in the child process ------------------------------------------------------

def run(*args, cwd):
    env = {**os.environ, 'PYTHONPATH': str(ROOT)}
    return subprocess.run([sys.executable, '-m', 'micrograd.exercises', *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize('body', [
    "print('no newline', end='', file=sys.__stdout__); sys.__stdout__.flush(); self.grad += grad; other.grad += grad",
    "os.write(1, b'raw bytes'); self.grad += grad; other.grad += grad",
    "os.write(2, b'on stderr'); self.grad += grad; other.grad += grad",
])
def test_what_the_learner_writes_does_not_swallow_a_result(tmp_path, body):
    start(tmp_path)
    blank(tmp_path, '+', "import os, sys; " + body)
    done = run('check', '.', cwd=tmp_path)
    assert f"1 of {N} done" in done.stdout and "died" not in done.stdout, done.stdout
    lines = [line for line in done.stdout.splitlines() if line[:5].strip().isdigit()]
    assert len(lines) == N


def test_sys_exit_in_learner_code_is_named_and_the_others_still_checked(tmp_path):
    start(tmp_path)
    blank(tmp_path, '+', "import sys; sys.exit()")
    done = run('check', '.', cwd=tmp_path)
    assert f"exercise {EXERCISE['+'].number} (+) is wrong" in done.stdout and GENERIC['exits'] in done.stdout
    assert "stack overflowed" not in done.stdout and f"0 of {N} done" in done.stdout
    assert "not checked" not in done.stdout  # the child went on to the other exercises


def test_os_exit_in_learner_code_is_an_exit_not_a_crash(tmp_path):
    start(tmp_path)
    blank(tmp_path, '*', "import os; os._exit(3)")
    solved(tmp_path, EXERCISES[EXERCISE['*'].number - 2].name)  # the exercises before * written
    blank(tmp_path, '*', "import os; os._exit(3)")
    done = run('check', '.', cwd=tmp_path)
    assert f"exercise {EXERCISE['*'].number} (*) is wrong" in done.stdout and "exited with status 3" in done.stdout
    assert GENERIC['exited'] in done.stdout and "stack overflowed" not in done.stdout


def test_the_lectures_out_grad_is_translated_and_the_closure_named(tmp_path):
    start(tmp_path)
    blank(tmp_path, '+', "self.grad += out.grad\n            other.grad += out.grad")
    report = check(tmp_path)
    focus = report.focus
    assert (focus.name, focus.diagnosis) == ('+', 'holds_out')
    assert "write `grad` where the lecture writes `out.grad`" in str(report)
    line = 1 + (tmp_path / 'my_engine.py').read_text().split('self.grad += out.grad')[0].count('\n')
    assert focus.place == f"my_engine.py, line {line}: self.grad += out.grad"


def test_a_given_op_slipped_in_a_finished_workspace_is_named_at_its_line_and_exit_status_is_1(tmp_path):
    """Every exercise written as the library writes it, then `__rmul__ = __add__`: not all done."""
    start(tmp_path)
    solved(tmp_path, 'backward')
    nn = tmp_path / 'my_nn.py'
    nn.write_text(nn_header() + library_source('micrograd.nn')[0].replace('from micrograd.engine import',
                                                                        'from my_engine import'))
    engine = tmp_path / 'my_engine.py'
    engine.write_text(re.sub(r'__rmul__ = __mul__.*', '__rmul__ = __add__', engine.read_text(), count=1))
    line = 1 + engine.read_text().split('__rmul__ = __add__')[0].count('\n')
    done = run('check', '.', cwd=tmp_path)
    assert done.returncode == 1 and f"{N} of {N} done; the whole engine differs" in done.stdout, done.stdout
    assert f"(my_engine.py, line {line}: __rmul__ = __add__)" in done.stdout
    assert "`2 * x` gives the value of `2 + x`" in done.stdout


def test_an_error_inside_micrograd_is_placed_at_the_learners_line():
    """The learner's closure calls a micrograd helper that raises: the report names their closure and line, not
    numeric.py."""
    module = mutant_engine('**', '__pow__', "{x}.grad += numeric.real('k', '__pow__') * grad")
    result = check_one(EXERCISE['**'], module.Value, strict=True)
    assert result.status == WRONG and "in _backward in Value.__pow__, <mutant> line" in result.detail
    assert 'numeric.py' not in result.detail


def test_a_renamed_method_in_a_workspace_is_not_done(tmp_path):
    solved(tmp_path, 'backward')
    engine = tmp_path / 'my_engine.py'
    engine.write_text(engine.read_text().replace('def __truediv__(', 'def __div__('))
    start(tmp_path / 'other')  # my_nn.py
    (tmp_path / 'my_nn.py').write_text((tmp_path / 'other' / 'my_nn.py').read_text())
    report = check(tmp_path)
    division = report.results[EXERCISE['/'].number - 1]
    assert (division.status, division.diagnosis) == (WRONG, 'missing') and 'Value.__truediv__' in division.obtained
    assert not report.passed


def test_backward_without_the_gradient_is_caught_on_the_learners_own_ops():
    """A notebook Value whose ops' closures take the grad, and a backward() that calls node._backward() bare: the
    checker's graphs take either call, so only the learner's own ops show it."""
    class Mine:
        def __init__(self, data, _children=(), _op=''):
            self.data, self.grad, self._prev, self._op = data, 0.0, tuple(_children), _op
            self._backward = lambda grad: None

        def __add__(self, other):
            other = other if isinstance(other, Mine) else Mine(other)
            out = Mine(self.data + other.data, (self, other), '+')

            def _backward(grad):
                self.grad += grad
                other.grad += grad
            out._backward = _backward
            return out

        def _topological_order(self):
            return topological_order(self)

        def backward(self):
            order = self._topological_order()
            for node in order:
                node.grad = 0.0
            self.grad += 1.0
            for node in reversed(order):
                node._backward()
    results = {r.name: r for r in check(Mine).results}
    assert results['+'].status == DONE
    assert (results['backward'].status, results['backward'].diagnosis) == (WRONG, 'backward_no_grad')
    assert 'x = x0 + 0; y0 = Value(-3.0); y = y0 + 0; out = x + y; out.backward()' in results['backward'].input


def test_a_lecture_style_op_runs_under_the_learners_backward():
    module = rewritten_engine('__mul__', next(text for _, method, text in LECTURE_STYLE if method == '__mul__'))
    a, b = module.Value(3.0), module.Value(-4.0)
    (a * b).backward()
    assert (a.grad, b.grad) == (-4.0, 3.0)


@pytest.mark.slow
@pytest.mark.same_on_every_python  # make runs the default .venv, whichever Python runs this test
def test_make_exercises_twice_shows_where_the_learner_stands(tmp_path):
    folder = tmp_path / 'my ws'
    made = subprocess.run(['make', '-s', 'exercises', f'EXERCISES={folder}'], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert f'0 of {N} done' in made.stdout and 'begin with `+`' in made.stdout, made.stdout + made.stderr
    solved(folder, 'exp')
    again = subprocess.run(['make', '-s', 'exercises', f'EXERCISES={folder}'], cwd=ROOT, capture_output=True,
                           text=True, timeout=300)
    written, after = EXERCISE['exp'].number, EXERCISES[EXERCISE['exp'].number]
    assert f'{written} of {N} done' in again.stdout and f'next: exercise {after.number} ({after.name})' in again.stdout
    assert 'EXERCISE 1' not in again.stdout


# --- Two tracks: --track picks the package, scalar the default ------------------------------------

def test_track_picks_the_exercises_and_scalar_is_the_default(capsys):
    assert main(['list']) == 0
    scalar = capsys.readouterr().out
    assert main(['list', '--track', 'scalar']) == 0 and capsys.readouterr().out == scalar
    assert f'{N}  {EXERCISES[-1].name}' in scalar
    assert main(['list', '--track', 'tensor']) == 0
    tensor = capsys.readouterr().out
    assert tensor != scalar and 'matmul' in tensor


def test_a_track_that_is_not_there_is_said_on_one_line(monkeypatch, capsys):
    import micrograd.exercises.__main__ as cli
    monkeypatch.setattr(cli, '_has', lambda name: name == 'scalar')
    with pytest.raises(SystemExit) as exit_:
        main(['list', '--track', 'tensor'])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count('\n') == 1
    assert "the tensor track is not in this micrograd yet (the tracks here: scalar)" in err


# --- The checker's own edges: what is not a workspace is said on one line, never as a traceback -----

def test_check_finds_the_track_from_the_files_the_workspace_holds(tmp_path):
    assert run('start', '--track', 'tensor', 'tws', cwd=tmp_path).returncode == 0
    for target in ('tws', 'tws/my_tensor.py'):
        done = run('check', target, cwd=tmp_path)
        assert "tensor track: 0 of" in done.stdout and 'no my_engine.py' not in done.stdout + done.stderr, target


def test_check_on_my_nn_checks_the_workspace_it_belongs_to(tmp_path):
    start(tmp_path / 'ws')
    done = run('check', 'ws/my_nn.py', cwd=tmp_path)
    assert f"0 of {len(EXERCISES)} done" in done.stdout and 'circular' not in done.stdout + done.stderr


def test_a_learner_file_in_latin_1_is_read_as_python_reads_it(tmp_path):
    start(tmp_path)
    engine = tmp_path / 'my_engine.py'
    engine.write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + engine.read_bytes())
    done = run('check', '.', cwd=tmp_path)
    assert f"0 of {len(EXERCISES)} done" in done.stdout and 'Traceback' not in done.stdout + done.stderr


@pytest.mark.parametrize('where', ['ws', 'ws/my_engine.py'])
def test_a_folder_named_my_engine_py_is_said_on_one_line(tmp_path, where):
    (tmp_path / 'ws' / 'my_engine.py').mkdir(parents=True)
    done = run('check', where, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == '' and done.stderr.count('\n') == 1
    assert "my_engine.py is a folder, not a Python file" in done.stderr


def test_an_endless_loop_at_import_is_said_as_such_not_blamed_on_exercise_1(tmp_path):
    start(tmp_path)
    with (tmp_path / 'my_engine.py').open('a') as engine:
        engine.write("\nwhile True:\n    pass\n")
    done = run('check', '.', '--timeout', '1', cwd=tmp_path)
    assert "importing my_engine.py did not finish in 1 s" in done.stdout
    assert "exercise 1" not in done.stdout and "nothing checked" in done.stdout


def test_an_empty_my_engine_py_is_said_to_have_no_value_class(tmp_path):
    start(tmp_path)
    (tmp_path / 'my_engine.py').write_text('')
    done = run('check', '.', cwd=tmp_path)
    assert "my_engine.py has no class `Value`" in done.stdout
    assert "exited" not in done.stdout and "Traceback" not in done.stdout + done.stderr
