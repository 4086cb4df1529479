"""The checker against a learner's file or output that is hostile to it, both tracks, each kind swept: a file in
another encoding or with other line endings, output that is not UTF-8, a loop that never ends at import, one that
swallows the time limit, a checker interrupted (Ctrl-C) or killed outright. A report always comes back, its lines
are the file's, and no process the check started outlives it."""
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from micrograd.exercises import runner
from micrograd.exercises.result import WRONG
from micrograd.exercises.scalar import TRACK as SCALAR
from micrograd.exercises.tensor import TRACK as TENSOR
from tests import ROOT

TRACKS = {'scalar': SCALAR, 'tensor': TENSOR}


def workspace(track, folder):
    """A fresh workspace of track in folder: the file the learner opens, and its text."""
    [first, *_] = track.start(folder)
    return first, first.read_text(encoding='utf-8')


def with_exercise(text, number, body):
    """text with exercise number's raise (its first) replaced by body."""
    marker = re.search(rf"raise NotImplementedError\('exercise {number} \(.*\n", text)
    return text[:marker.start()] + body + '\n' + text[marker.end():]


def alive(pid):
    """Whether process pid runs (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f'/proc/{pid}/stat') as stat:
            return stat.read().rpartition(')')[2].split()[0] != 'Z'
    except FileNotFoundError:
        return False
    except OSError:  # (no /proc)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def gone(pid, within=5.0):
    """Whether process pid has ended, waiting up to within seconds."""
    end = time.monotonic() + within
    while alive(pid) and time.monotonic() < end:
        time.sleep(0.05)
    return not alive(pid)


# --- the learner's file as Python reads it: every encoding and line ending, both tracks ---------------

ENCODINGS = {  # the file's bytes, from its text (the second line a comment in a language that is not English)
    'utf-8': lambda text: ("# -*- coding: utf-8 -*-\n# café\n" + text).encode('utf-8'),
    'utf-8 with a byte-order mark': lambda text: b'\xef\xbb\xbf' + ("# café\n# ok\n" + text).encode('utf-8'),
    # (what latin-1 cannot spell, the header's ✓, saved as an editor would: '?')
    'latin-1 declared': lambda text: ("# -*- coding: latin-1 -*-\n# café\n" + text).encode('latin-1', 'replace'),
    'CRLF line endings': lambda text: ("# café\n# ok\n" + text).replace('\n', '\r\n').encode('utf-8'),
}


@pytest.mark.parametrize('encoding', ENCODINGS)
@pytest.mark.parametrize('track', TRACKS)
def test_a_learners_file_is_read_as_python_reads_it_and_its_lines_are_the_files(tmp_path, track, encoding):
    chosen = TRACKS[track]
    first, text = workspace(chosen, tmp_path)
    first.write_bytes(ENCODINGS[encoding](with_exercise(text, 1, "raise ValueError('mine')")))
    report = chosen.check(tmp_path, timeout=5)
    assert report.error == '' and report.results[0].status == WRONG, str(report)
    lines = first.read_bytes().decode('latin-1' if 'latin' in encoding else 'utf-8-sig').splitlines()
    for number, holds in ((1, "raise ValueError('mine')"), (2, "exercise 2 (")):  # the wrong one, the next one
        place = report.places[number]
        line = int(re.search(r'line (\d+)', place).group(1))
        assert holds in lines[line - 1], (place, lines[line - 1])
    assert 'Traceback' not in str(report)


# --- output that is not UTF-8 ------------------------------------------------------------------------

@pytest.mark.parametrize('then', ['goes on', 'exits'])
@pytest.mark.parametrize('fd', [1, 2])
@pytest.mark.parametrize('track', TRACKS)
def test_output_that_is_not_utf_8_still_gets_a_report(tmp_path, track, fd, then):
    chosen = TRACKS[track]
    first, text = workspace(chosen, tmp_path)
    ending = "os._exit(3)\n" if then == 'exits' else ''
    first.write_text(text + f"\nimport os\nos.write({fd}, b'caf\\xe9\\n')\n{ending}", encoding='utf-8')
    report = chosen.check(tmp_path, timeout=5)
    if then == 'exits':
        assert 'exited with status 3' in report.error
        assert fd == 1 or report.error.endswith('caf\ufffd'), report.error  # its last line, as far as it reads
    else:
        assert report.error == '' and len(report.results) == len(chosen.exercises), str(report)


# --- time: a loop at import, a loop that swallows the limit, a checker stopped or killed ------------------

@pytest.mark.parametrize('track', TRACKS)
def test_an_endless_loop_at_import_is_stopped_by_the_time_limit_given(tmp_path, track):
    chosen = TRACKS[track]
    first, text = workspace(chosen, tmp_path)
    first.write_text(text + "\nwhile True:\n    pass\n", encoding='utf-8')
    report = chosen.check(tmp_path, timeout=0.5)
    assert report.error.startswith(f"importing {first.name} did not finish in 0.5 s"), report.error


STUBBORN = """
import os, subprocess, sys, time
from pathlib import Path
helper = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])
Path(__file__).with_name('pids').write_text(f"{os.getpid()} {helper.pid}")
while True:  # a loop the time limit cannot stop: it catches everything (and sleeps, leaving the cores to others)
    try:
        while True:
            time.sleep(0.01)
    except BaseException:
        pass
"""


def stubborn(track, folder):
    """A workspace whose file starts a process of its own, notes its pids and never lets its import end."""
    first, text = workspace(track, folder)
    first.write_text(text + STUBBORN, encoding='utf-8')
    return folder / 'pids'


def pids(file, within=60.0):
    end = time.monotonic() + within
    while not (file.exists() and len(file.read_text().split()) == 2) and time.monotonic() < end:
        time.sleep(0.05)
    return [int(p) for p in file.read_text().split()]


@pytest.mark.slow
@pytest.mark.parametrize('track', TRACKS)
def test_a_check_out_of_time_kills_its_child_and_what_it_started(tmp_path, track, monkeypatch):
    monkeypatch.setattr(runner, 'MARGIN', 3.0)  # (the checker's own work before the learner's file: a second)
    chosen = TRACKS[track]
    noted = stubborn(chosen, tmp_path)
    report = chosen.check(tmp_path, timeout=0.2)
    assert 'did not finish in' in report.error, report.error
    worker, helper = pids(noted, within=0)
    assert gone(worker) and gone(helper)


@pytest.mark.slow
@pytest.mark.parametrize('how', [signal.SIGINT, signal.SIGKILL])
@pytest.mark.parametrize('track', TRACKS)
def test_a_checker_interrupted_or_killed_leaves_no_process_behind(tmp_path, track, how):
    """Nor a folder: the checker's temporary one is removed, by the child when the checker is killed outright."""
    noted = stubborn(TRACKS[track], tmp_path / 'ws')
    argv = [sys.executable, '-m', 'micrograd.exercises', 'check', '--track', track, 'ws', '--timeout', '100']
    (temporary := tmp_path / 'tmp').mkdir()
    # Ctrl-C as in a terminal: a job started in the background (as CI's lanes are) inherits SIGINT ignored
    env = {**os.environ, 'PYTHONPATH': str(ROOT), 'TMPDIR': str(temporary)}
    checker = subprocess.Popen(argv, cwd=tmp_path, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        worker, helper = pids(noted)
        assert alive(worker) and alive(helper)
        checker.send_signal(how)
        checker.wait(timeout=30)
        assert gone(worker) and gone(helper)
        assert not list(temporary.iterdir())
    finally:
        checker.kill()
        checker.wait()
