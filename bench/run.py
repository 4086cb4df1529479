"""Speed and memory of micrograd beside its peers, each running its own code, on every Python 3.10-3.13 found.

`python bench/run.py --help` lists the options; bench/README.md says what each row measures, and how. The peers
go once into bench/.peers/; a failed check of the engines' numbers makes the exit status non-zero.
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
from datetime import datetime, timezone
from pathlib import Path

from harness import ONE_THREAD, REPO, Report, cell, interleaved, overhead_cell, returned, team, time_cell
from worker import PEERS
from workloads import FULL, QUICK, Config, Workload, workloads

MINORS = ['3.10', '3.11', '3.12', '3.13']
# microgpt's package declares an agent framework as a dependency; the bench loads only its engine.py,
# which needs nothing beyond the standard library, so the peers are installed without dependencies.
PEER_PACKAGES = {'micrograd': '0.1.0', 'strands_microgpt': '0.1.0'}


def find_pythons(only: list[str]) -> dict[str, str]:
    """Full version -> interpreter, for each minor version that scripts/find-python finds (as the Makefile does)."""
    found: dict[str, str] = {}
    for minor in only:
        python = subprocess.run([str(REPO / 'scripts' / 'find-python'), f'python{minor}'], capture_output=True,
                                text=True).stdout.strip()
        version = python and subprocess.run([python, '-c', 'import platform; print(platform.python_version())'],
                                            capture_output=True, text=True).stdout.strip()
        if version and version.startswith(minor + '.'):
            found[version] = python
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


def measure(python: str, w: Workload, cfg: Config, report: Report) -> None:
    """One workload: a fresh worker for our engine and one for the peer, set up alike, then its task in
    interleaved rounds (or, for memory, once); its cells in the report, and its checks."""
    assert w.peer is not None, f"{w.key}: a workload of the table needs a peer"
    sides = {'ours': w.ours, 'peer': w.peer}
    pair = f"ours vs {w.peer.kind}"
    env = {**os.environ, **ONE_THREAD} if w.tensor else None
    inputs = w.inputs(cfg) if w.inputs else {}
    with team(python, *sides, kinds={name: side.kind for name, side in sides.items()}, env=env) as workers:
        ours, peer = workers['ours'], workers['peer']
        if w.setup:
            first = [workers[name](side.setup or w.setup, **inputs, **side.args) for name, side in sides.items()]
            if w.start_limit is not None:  # the setup returns the loss before training
                report.check(f"{w.key}: {w.checked} before training, {pair}", first[:1], first[1:], w.start_limit)
        if w.memory:
            mine, theirs = ours(w.task), peer(w.task)
            report.cells[w.key] = cell(mine['bytes'] / theirs['bytes'], *(
                f"{m['bytes'] / 1e6:.3g} MB, {m['nodes']:,} nodes" for m in (mine, theirs)))
            return
        if w.agree != 'steps':
            report.check(f"{w.key}: {w.checked} before training, {pair}", ours(w.agree)['values'],
                         peer(w.agree)['values'], w.limit)
        runs = interleaved(workers, cfg.rounds, lambda name, worker: worker(sides[name].task or w.task,
                                                                            steps=cfg.steps(sides[name])))
        report.cells[w.key] = time_cell(runs['ours'], runs['peer'], with_gc=not w.tensor)
        if w.floor_row:
            report.cells[f'{w.key} floor'] = overhead_cell(runs['ours'], runs['peer'])
        if w.agree == 'steps':
            report.check(f"{w.key}: {w.checked} of every step, {pair}", returned(runs['ours']),
                         returned(runs['peer']), w.limit)
        else:  # at the weights our training reached
            mine = ours(w.agree)
            report.check(f"{w.key}: {w.checked} after training, at our weights, {pair}", mine['values'],
                         peer(w.agree, weights=mine['weights'])['values'], w.limit)


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or '').splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='a smoke run: tiny sizes, one round, this Python only')
    parser.add_argument('--python', help=f"comma-separated minor versions among {', '.join(MINORS)}")
    parser.add_argument('--only', help="comma-separated workloads, by their key in workloads.py: 'moons,scalar gpt'")
    args = parser.parse_args()
    cfg = QUICK if args.quick else FULL
    table = [w for w in workloads(cfg) if w.row and w.peer]
    only = args.only.split(',') if args.only else [w.key for w in table]
    if set(only) - {w.key for w in table}:
        parser.error(f"--only: no workload {', '.join(sorted(set(only) - {w.key for w in table}))}; the workloads "
                     f"are {', '.join(w.key for w in table)}")
    table = [w for w in table if w.key in only]
    here = '.'.join(platform.python_version_tuple()[:2])
    pythons = find_pythons(args.python.split(',') if args.python else [here] if args.quick else MINORS)
    if not pythons:
        parser.error(f"no Python {args.python or ' / '.join(MINORS)} found on PATH or through pyenv")
    started = time.perf_counter()
    reports: dict[str, Report] = {}

    def run(version: str, python: str, workload: Workload) -> None:
        print(f"Python {version}: {workload.key} ...", end=' ', flush=True)
        began = time.perf_counter()
        try:
            measure(python, workload, cfg, reports.setdefault(version, Report()))
        except RuntimeError as e:  # a worker failed: report it and go on with the other workloads
            reports[version].checks.append((False, f"{workload.key} did not finish: {e}"))
        print(f"{time.perf_counter() - began:.0f} s", flush=True)
    install_peers()
    for version, python in pythons.items():
        for workload in (w for w in table if not w.tensor):
            run(version, python, workload)
    torch, tensor_rows = '', [w for w in table if w.tensor]
    if tensor_rows and importlib.util.find_spec('torch') and importlib.util.find_spec('sklearn'):
        torch = f"; PyTorch {importlib.metadata.version('torch')} on Python {platform.python_version()}"
        for workload in tensor_rows:
            run(platform.python_version(), sys.executable, workload)
    elif tensor_rows:
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
    rows = [(key, row) for w in table for key, row in ((w.key, w.row), (f'{w.key} floor', w.floor_row)) if row]
    for key, row in rows:
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
