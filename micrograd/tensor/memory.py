"""An explicit, opt-in setting of the C allocator for training loops: nothing here runs at import."""
from __future__ import annotations

import ctypes
import sys


def keep_freed_memory(mmap_threshold: int = 32 << 20, trim_threshold: int = 64 << 20) -> bool:
    """Ask the C allocator (glibc's malloc, on Linux) to keep memory that NumPy frees, for the next arrays.

    A training step makes arrays of a few MB (activations, their gradients) and frees them all
    at its end. By default glibc hands that memory back to the operating system, and the next
    step takes it back page by page: thousands of page faults a step, a fifth of the GPT's step
    at batch 128 in float64. Raising the two thresholds keeps up to trim_threshold bytes of freed
    memory in the process (arrays up to mmap_threshold come from that pool), so the next step
    reuses it. These are glibc's own maximum defaults, fixed so that they do not drift. Elsewhere
    (macOS, Windows, musl) nothing changes. Returns whether the allocator took the settings.
    """
    if not sys.platform.startswith('linux'):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # from glibc's malloc.h
    return bool(mallopt(M_MMAP_THRESHOLD, mmap_threshold)) and bool(mallopt(M_TRIM_THRESHOLD, trim_threshold))
