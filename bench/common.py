"""Helpers the benchmarks share: the commit measured, tilec's compile time,
CUDA-event medians, the device's name."""

import os
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def describe_commit():
    """The commit of the source tree, marked when it has local changes."""
    def git(*argv):
        return subprocess.run(["git", "-C", ROOT, *argv], capture_output=True,
                              text=True).stdout.strip()
    commit = git("rev-parse", "--short=12", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return commit + (" (with local changes)" if dirty else "")


def compile_seconds(cmd):
    """Runs the compilation `cmd` three times; the median wall time."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run(cmd, check=True)
        times.append(time.perf_counter() - start)
    return sorted(times)[1]


def median_ms(fn, torch):
    """The median time of `fn` in ms over 21 samples of about 20 ms each."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    stop.record()
    stop.synchronize()
    inner = max(1, min(100, int(20.0 / max(start.elapsed_time(stop), 1e-3))))
    times = []
    for _ in range(21):
        start.record()
        for _ in range(inner):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / inner)
    return sorted(times)[len(times) // 2]


def device_name():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                              "--format=csv,noheader", "-i", "0"],
                             capture_output=True, text=True).stdout.strip()
        return out or "unknown"
    except OSError:
        return "unknown"
