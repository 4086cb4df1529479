"""Speed and memory of micrograd beside its peers, each running its own code, on every Python 3.10-3.13 found.

    python bench/run.py                    # everything, one Markdown table at the end (make bench)
    python bench/run.py --quick            # a smoke run: tiny sizes, one round, this Python only
    python bench/run.py --python 3.11,3.13 # only these Pythons

The peers, Karpathy's micrograd 0.1.0 and strands-microgpt 0.1.0, are pure Python without dependencies:
pip puts them once into bench/.peers/ (made on first use, reused), which every Python's workers read.
The tensor rows run where PyTorch is installed, in the Python running this script. Losses and gradients
are checked between engines; a failed check makes the exit status non-zero.
"""
from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from harness import ONE_THREAD, REPO, Report, cell, interleaved, overhead_cell, returned, team, time_cell
from scalar_workloads import make_moons, make_weights

MINORS = ['3.10', '3.11', '3.12', '3.13']
PEERS = Path(__file__).resolve().parent / '.peers'
# microgpt's package declares an agent framework as a dependency; the bench loads only its engine.py,
# which needs nothing beyond the standard library, so the peers are installed without dependencies.
PEER_PACKAGES = {'micrograd': '0.1.0', 'strands_microgpt': '0.1.0'}


@dataclass
class Config:
    rounds: int  # interleaved rounds after a warm-up round
    moons: int  # points of the two moons (Karpathy's demo: 100)
    moons_steps: dict[str, int]  # moons steps per worker per round (a round of each takes a second or so)
    microgpt_steps: int  # microgpt's loop and our scalar GPT, steps per round
    tensor_steps: int  # the tensor GPT, steps per round
    max_name: int  # microgpt trains on the census names up to this length
    batches: tuple[int, ...]  # the tensor GPT's batch sizes
    digits_epochs: int


FULL = Config(rounds=7, moons=100, moons_steps={'ours': 10, 'ours lecture': 2, 'karpathy': 1, 'microgpt': 2},
              microgpt_steps=3, tensor_steps=10, max_name=15, batches=(32, 128), digits_epochs=3)
QUICK = Config(rounds=1, moons=8, moons_steps={'ours': 1, 'ours lecture': 1, 'karpathy': 1, 'microgpt': 1},
               microgpt_steps=1, tensor_steps=1, max_name=3, batches=(4,), digits_epochs=1)


def find_pythons(only: list[str]) -> dict[str, str]:
    """Full version -> interpreter: `python3.X` on PATH, else pyenv's build, else the one running this."""
    found: dict[str, str] = {}
    pyenv = shutil.which('pyenv')
    root = Path(subprocess.run([pyenv, 'root'], capture_output=True, text=True).stdout.strip() if pyenv else '')
    for minor in only:
        builds = sorted(root.glob(f'versions/{minor}.*/bin/python')) if pyenv else []
        candidates = [shutil.which(f'python{minor}') or '', *builds]
        if platform.python_version().startswith(minor + '.'):
            candidates.append(sys.executable)
        for python in filter(None, map(str, candidates)):  # a pyenv shim may refuse unless its version is selected
            done = subprocess.run([python, '-c', 'import platform; print(platform.python_version())'],
                                  capture_output=True, text=True)
            if done.returncode == 0 and done.stdout.startswith(minor + '.'):
                found[done.stdout.strip()] = python
                break
    return found


def peers_installed() -> bool:
    return all((PEERS / f'{name}-{version}.dist-info').is_dir() for name, version in PEER_PACKAGES.items())


def install_peers() -> None:
    """bench/.peers/, filled with the peers on first use, by this Python's pip (one folder for every Python).
    pip fills a folder of its own, renamed to bench/.peers at the end: two runs at once cannot mix."""
    if peers_installed():
        return
    print("  installing the peers into bench/.peers (first run only) ...", flush=True)
    fresh = Path(tempfile.mkdtemp(prefix='.peers-', dir=PEERS.parent))
    try:
        subprocess.run([sys.executable, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check',
                        '--no-deps', '--target', str(fresh),
                        *(f"{name.replace('_', '-')}=={version}" for name, version in PEER_PACKAGES.items())],
                       check=True)
        if PEERS.exists() and not peers_installed():
            shutil.rmtree(PEERS)  # an older or unfinished folder
        if not PEERS.exists():
            fresh.rename(PEERS)
    finally:  # left over when another run got there first
        shutil.rmtree(fresh, ignore_errors=True)


def moons(python: str, cfg: Config, report: Report) -> None:
    """Karpathy's demo loop on both paths: each engine's own MLP (his nn, our Value.dot), and the lecture's
    MLP in plain + and * on our Value and microgpt's (his nn is that very code); the memory of one step's graph."""
    (X, Y), weights = make_moons(cfg.moons), make_weights()
    paths = {'ours': 'nn', 'ours lecture': 'lecture', 'karpathy': 'nn', 'microgpt': 'lecture'}
    with team(python, *paths, kinds={'ours lecture': 'ours'}) as workers:
        for name, w in workers.items():
            w('moons_setup', X=X, Y=Y, weights=weights, path=paths[name])
        grads = {name: w('moons_grads') for name, w in workers.items()}
        for name in ('ours', 'ours lecture', 'microgpt'):
            report.check(f"moons: loss and {len(weights)} gradients, {name} vs Karpathy's",
                         [grads[name]['loss'], *grads[name]['grads']],
                         [grads['karpathy']['loss'], *grads['karpathy']['grads']], 1e-12)
        runs = interleaved(workers, cfg.rounds, lambda name, w: w('moons_steps', steps=cfg.moons_steps[name]))
        report.cells['moons'] = time_cell(runs['ours'], runs['karpathy'], with_gc=True)
        report.cells['moons lecture'] = time_cell(runs['ours lecture'], runs['karpathy'], with_gc=True)
        report.cells['moons lecture microgpt'] = time_cell(runs['ours lecture'], runs['microgpt'], with_gc=True)
        ours = workers['ours']('moons_grads')  # at the weights our training reached
        for name in ('ours lecture', 'karpathy', 'microgpt'):
            theirs = workers[name]('moons_grads', weights=ours['weights'])
            report.check(f"moons: the same after training, ours vs {name}", [ours['loss'], *ours['grads']],
                         [theirs['loss'], *theirs['grads']], 1e-12)
        ours, theirs = (workers[name]('moons_memory') for name in ('ours', 'karpathy'))
        report.cells['memory'] = cell(ours['bytes'] / theirs['bytes'], *(f"{m['bytes'] / 1e6:.3g} MB, {m['nodes']:,} "
                                                                          f"nodes" for m in (ours, theirs)))


def microgpt(python: str, cfg: Config, report: Report) -> None:
    """microgpt's train_on_docs on its Value and on ours (also one step per call); our scalar GPT."""
    sys.path.insert(0, str(REPO / 'examples' / 'gpt'))
    from data import load_names
    docs, steps = [name for name in load_names() if len(name) <= cfg.max_name], cfg.microgpt_steps
    with team(python, 'ours', 'microgpt') as workers, team(python, 'ours') as gpt:
        for w in workers.values():
            w('microgpt_setup', docs=docs)
        loop = interleaved(workers, cfg.rounds, lambda name, w: w('microgpt_steps', steps=steps))
        report.cells['microgpt'] = time_cell(loop['ours'], loop['microgpt'], with_gc=True)
        report.check("microgpt's loop: the loss of every step, our Value vs microgpt's", returned(loop['ours']),
                     returned(loop['microgpt']), 1e-9)
        calls = interleaved(workers, cfg.rounds, lambda name, w: w('microgpt_steps', steps=steps, one_per_call=True))
        report.cells['one per call'] = time_cell(calls['ours'], calls['microgpt'], with_gc=True)
        report.check("microgpt's loop, one step per call: the same", returned(calls['ours']),
                     returned(calls['microgpt']), 1e-9)
        gpt['ours']('gpt_setup', docs=docs)
        ours = [gpt['ours']('gpt_steps', steps=steps) for _ in range(cfg.rounds + 1)][1:]  # as the loop's calls
        report.cells['scalar gpt'] = time_cell(ours, loop['microgpt'], with_gc=True)
        report.check("our scalar GPT: the loss of every step vs microgpt's loop", returned(ours),
                     returned(loop['microgpt']), 1e-9)


def tensor(python: str, cfg: Config, report: Report) -> None:
    """micrograd.tensor vs PyTorch, one thread each: digits epoch; GPT step and its overhead above the floor.
    Each workload, and each batch size and dtype of the GPT, in fresh workers: none inherits the heap of another
    (after the digits and the batch-32 runs, our batch-128 float64 step measured 58 ms in the same worker, 32 ms
    in a fresh one)."""
    env = {**os.environ, **ONE_THREAD}
    with team(python, 'tensor-ours', 'tensor-torch', env=env) as workers:
        for w in workers.values():
            w('digits_setup', dtype='float64')
        runs = interleaved(workers, cfg.rounds, lambda name, w: w('digits_epochs', epochs=cfg.digits_epochs))
        ours, theirs = runs.values()
        report.cells['digits'] = time_cell(ours, theirs)
        report.check("digits: the loss of every batch, micrograd.tensor vs PyTorch", returned(ours), returned(theirs),
                     1e-9)
    for batch in cfg.batches:
        for dtype in ('float64', 'float32'):
            what, f64 = f"tensor GPT, batch {batch}, {dtype}: the loss", dtype == 'float64'
            with team(python, 'tensor-ours', 'tensor-torch', env=env) as workers:
                first = [w('gpt_setup', batch_size=batch, dtype=dtype, steps=(cfg.rounds + 1) * cfg.tensor_steps)
                         for w in workers.values()]
                report.check(f"{what} before training vs PyTorch's", first[:1], first[1:], 1e-12 if f64 else 1e-6)
                runs = interleaved(workers, cfg.rounds, lambda name, w: w('gpt_steps', steps=cfg.tensor_steps))
            ours, theirs = runs.values()
            report.cells[f'gpt {batch} {dtype}'] = time_cell(ours, theirs)
            report.cells[f'over {batch} {dtype}'] = overhead_cell(ours, theirs)
            # in float32 the two trainings drift apart (rounding, amplified by Adam): about 1e-2 after 80
            # steps at batch 128; a wrong float32 step would be off by far more than 3e-2
            report.check(f"{what} of every step vs PyTorch's", returned(ours), returned(theirs),
                         1e-9 if f64 else 3e-2)


ROWS = {'moons': "moons step, each engine's own MLP: ours (Value.dot) / Karpathy's micrograd 0.1.0 (plain + and *)",
        'moons lecture': "moons step, the lecture's MLP in plain + and *: our Value / Karpathy's micrograd 0.1.0",
        'moons lecture microgpt': "moons step, the lecture's MLP in plain + and *: our Value / microgpt's Value",
        'memory': "moons step's graph memory, each engine's own MLP: ours / Karpathy's",
        'microgpt': "microgpt's own training loop (plain ops): our Value / microgpt's Value",
        'one per call': "microgpt's loop, one step per call: our Value / microgpt's Value",
        'scalar gpt': "our scalar GPT (Value.dot, Adam) / microgpt's loop on its Value",
        'digits': "digits epoch, float64: micrograd.tensor / PyTorch"}
for _batch in sorted({*FULL.batches, *QUICK.batches}):
    for _dtype in ('float64', 'float32'):
        ROWS[f'gpt {_batch} {_dtype}'] = f"tensor GPT step, batch {_batch}, {_dtype}: micrograd.tensor / PyTorch"
        ROWS[f'over {_batch} {_dtype}'] = f"… its time above the matmul floor, batch {_batch}, {_dtype}"


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or '').splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='a smoke run: tiny sizes, one round, this Python only')
    parser.add_argument('--python', help=f"comma-separated minor versions among {', '.join(MINORS)}")
    args = parser.parse_args()
    cfg = QUICK if args.quick else FULL
    here = '.'.join(platform.python_version_tuple()[:2])
    pythons = find_pythons(args.python.split(',') if args.python else [here] if args.quick else MINORS)
    if not pythons:
        parser.error(f"no Python {args.python or ' / '.join(MINORS)} found on PATH or through pyenv")
    started = time.perf_counter()
    reports: dict[str, Report] = {}

    def run(version: str, python: str, workload: Callable[[str, Config, Report], None]) -> None:
        print(f"Python {version}: {workload.__name__} ...", end=' ', flush=True)
        began = time.perf_counter()
        try:
            workload(python, cfg, reports.setdefault(version, Report()))
        except RuntimeError as e:  # a worker failed: report it and go on with the other workloads
            reports[version].checks.append((False, f"{workload.__name__} did not finish: {e}"))
        print(f"{time.perf_counter() - began:.0f} s", flush=True)
    install_peers()
    for version, python in pythons.items():
        for workload in (moons, microgpt):
            run(version, python, workload)
    torch = ''
    if importlib.util.find_spec('torch') and importlib.util.find_spec('sklearn'):
        torch = f"; PyTorch {importlib.metadata.version('torch')} on Python {platform.python_version()}"
        run(platform.python_version(), sys.executable, tensor)
    else:
        print(f"Python {platform.python_version()}: no PyTorch (or scikit-learn) here, so no tensor rows")

    versions = sorted(reports, key=lambda v: tuple(map(int, v.split('.'))))
    git = ['git', '-C', str(REPO)]
    commit = subprocess.run([*git, 'rev-parse', '--short', 'HEAD'], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run([*git, 'status', '--porcelain', '--untracked-files=no', '--', 'micrograd', 'examples',
                            'bench'], capture_output=True, text=True).stdout.strip()
    print(f"\nmicrograd at commit {commit or 'unknown'}{' + uncommitted changes' if dirty else ''}; "
          f"{platform.machine()}, {os.cpu_count()} cores; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC{torch}; "
          f"{cfg.rounds} interleaved rounds after a warm-up{' (QUICK: tiny sizes, not figures to quote)' * args.quick}")
    print(f"\n| our figure / the peer's (ours / peer's) | {' | '.join(f'Python {v}' for v in versions)} |")
    print(f"|---|{'---|' * len(versions)}")
    for key, row in ROWS.items():
        if any(key in reports[v].cells for v in versions):
            print(f"| {row} | {' | '.join(reports[v].cells.get(key, '—') for v in versions)} |")
    print("\nBelow 1x ours is faster (or smaller). A ratio is the median over rounds of the two figures from the "
          "same round;\na time is the median step; GC is the collector's share of it; the floor is the step's bare "
          "matrix products.\n")
    failed = [what for r in reports.values() for ok, what in r.checks if not ok]
    for version in versions:
        for ok, what in reports[version].checks:
            print(f"{'ok  ' if ok else 'FAIL'} {version}: {what}")
    total = sum(len(r.checks) for r in reports.values())
    print(f"\n{total - len(failed)} of {total} checks passed; the bench took {time.perf_counter() - started:.0f} s")
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
