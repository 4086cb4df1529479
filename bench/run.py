"""Speed and memory of micrograd beside its peers, on every Python 3.10 to 3.13 found, in one table.

    python bench/run.py                  # the full table (make bench)
    python bench/run.py --quick          # a smoke run with small sizes and two rounds
    python bench/run.py --python 3.11    # only these interpreters (comma-separated)
    python bench/run.py --ours PATH      # measure the micrograd of another checkout (e.g. an older commit)

Per Python, each engine in its own process, from the same floats, in interleaved rounds:
  moons step      Karpathy's demo training step: ours vs Karpathy's micrograd 0.1.0
  memory          the bytes one moons step's graph holds: ours vs Karpathy's
  microgpt step   microgpt's training step (its model, one name per step, Adam), on microgpt's own
                  Value against ours twice: running microgpt's very code, and our scalar GPT example
                  (examples/gpt/scalar_gpt.py, Value.dot and micrograd.optim.Adam)
  deep chain, wide sum   seconds per op, ours vs Karpathy's where its recursive sort survives
The peers are installed into bench/.venvs/<version>/ on first use (gitignored, reused). Losses
and gradients are checked against the peers; a failed check makes the exit status non-zero.
--ours swaps only the engine: the workloads, the GPT example and its optimizer stay this checkout's.
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from measure import WORKLOADS, Config, Result
from pythons import MINORS, find_pythons, peer_python

REPO = Path(__file__).resolve().parent.parent
FULL = Config(rounds=7, steps={'ours': 10, 'karpathy': 2, 'gpt': 4}, small=(300, 900), large=100_000, reps=100)
QUICK = Config(rounds=2, steps={'ours': 2, 'karpathy': 1, 'gpt': 1}, small=(300, 900), large=10_000, reps=3)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open('/proc/cpuinfo') as f:
            cpu = next(line.split(':', 1)[1].strip() for line in f if line.startswith('model name'))
    except (OSError, StopIteration):
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}"


def engine_commit(checkout: Path) -> str:
    """The commit that last changed the checkout's engine, and whether micrograd/ has changes on top."""
    def git(*args: str) -> str:
        return subprocess.run(['git', '-C', str(checkout), *args], capture_output=True, text=True).stdout.strip()
    commit = git('log', '-1', '--format=%h', '--', 'micrograd/engine.py') or 'unknown'
    return commit + (' + uncommitted changes in micrograd/' if git('status', '--porcelain', '--', 'micrograd') else '')


def print_table(results: dict[str, Result]) -> None:
    """One markdown row per (workload, Python), ready to paste."""
    rows: dict[str, list[str]] = {}
    for version, result in results.items():
        for workload, ours, peer, ratio in result.rows:
            rows.setdefault(workload, []).append(f"| {workload} | {version} | {ours} | {peer} | {ratio} |")
    print("| workload | Python | ours | peer | ours vs peer |")
    print("|---|---|---|---|---|")
    for lines in rows.values():
        print('\n'.join(lines))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or '').splitlines()[0])
    parser.add_argument('--quick', action='store_true', help='a smoke run: small sizes, two rounds')
    parser.add_argument('--python', help=f"comma-separated minor versions among {', '.join(MINORS)}")
    parser.add_argument('--ours', default=str(REPO),
                        help='the checkout whose micrograd is measured (default: this one)')
    args = parser.parse_args()
    ours = Path(args.ours).resolve()
    if not (ours / 'micrograd' / 'engine.py').is_file():
        parser.error(f"--ours {args.ours}: no micrograd/engine.py there")
    cfg = QUICK if args.quick else FULL
    pythons = find_pythons(args.python.split(',') if args.python else None)
    if not pythons:
        parser.error(f"no Python {args.python or ' / '.join(MINORS)} found on PATH or through pyenv")

    started = time.perf_counter()
    print(f"machine: {machine()}; {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
    print(f"ours: {ours}, engine at commit {engine_commit(ours)}")
    print(f"Pythons: {', '.join(f'{version} ({python})' for version, python in pythons.values())}")
    print(f"{cfg.rounds} interleaved rounds after a warm-up; garbage collector at its default settings")
    results: dict[str, Result] = {}
    for version, python in pythons.values():
        result = results[version] = Result()
        venv_python = peer_python(version, python)
        for workload in WORKLOADS:
            print(f"  Python {version}: {workload.__name__.replace('_', ' ')} ...", end=' ', flush=True)
            began = time.perf_counter()
            try:
                workload(venv_python, str(ours), cfg, result)
            except RuntimeError as e:  # a worker failed: report it and go on with the other workloads
                result.checks.append((False, f"{workload.__name__} did not finish: {e}"))
            print(f"{time.perf_counter() - began:.0f} s", flush=True)

    print()
    print_table(results)
    print()
    failed = 0
    for version, result in results.items():
        for ok, what in result.checks:
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {version}: {what}")
    total = sum(len(r.checks) for r in results.values())
    print(f"\n{total - failed} of {total} checks passed; the bench took {time.perf_counter() - started:.0f} s"
          + (' (quick smoke run: sizes and rounds too small to quote)' if args.quick else ''))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
