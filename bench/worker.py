"""One engine in one process, answering the driver's requests (JSON lines on stdin and stdout):
`python -I bench/worker.py KIND`, KIND ours, karpathy or microgpt (scalar_workloads.py) or tensor-ours or
tensor-torch (tensor_workloads.py). A fresh process per engine: none pays collector time for another's heap,
and Karpathy's package (also named `micrograd`) never meets ours. The collector is only watched.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
PEERS = BENCH / '.peers'  # Karpathy's micrograd and strands-microgpt, pure Python (run.py installs them)


def import_micrograd(checkout: Path, ours: bool) -> Any:
    """Our micrograd from the checkout, or (ours=False) Karpathy's from bench/.peers; either way, checked."""
    if ours:
        sys.path.insert(0, str(checkout))
    import micrograd
    expected = checkout / 'micrograd' if ours else PEERS / 'micrograd'
    if Path(micrograd.__file__).resolve().parent != expected:
        raise ImportError(f"imported the wrong micrograd: {micrograd.__file__}")
    return micrograd


def serve(kind: str) -> None:
    """Read one JSON request per line, run it, answer with one JSON line."""
    replies, sys.stdout = sys.stdout, sys.stderr  # a stray print must not garble the replies
    sys.path.insert(0, str(BENCH))  # -I leaves the script's folder off sys.path
    # a peer's worker finds the peers first; ours finds them last (microgpt's loop), after our micrograd
    sys.path.insert(1 if kind in ('karpathy', 'microgpt') else len(sys.path), str(PEERS))
    from timing import GCWatch
    watch = GCWatch().start()
    if kind != 'microgpt':  # microgpt's Value is the module itself; it needs no micrograd
        import_micrograd(BENCH.parent, ours=kind != 'karpathy')
    if kind.startswith('tensor-'):
        from tensor_workloads import TensorEngine
        engine: Any = TensorEngine(kind.removeprefix('tensor-'), BENCH.parent, watch)
    else:
        from scalar_workloads import ScalarEngine
        engine = ScalarEngine(kind, watch)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            reply = {'ok': getattr(engine, request['task'])(**request['args'])}
        except Exception as e:  # reported by the driver, which knows what it asked for
            reply = {'error': f'{type(e).__name__}: {e}'}
        replies.write(json.dumps(reply) + '\n')
        replies.flush()


if __name__ == '__main__':
    serve(sys.argv[1])
