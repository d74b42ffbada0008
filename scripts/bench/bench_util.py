"""Shared helpers for the scripts/bench/bench-* drivers: run a command, report wall time and peak memory."""
import os
import subprocess
import sys
import time


def run_timed(cmd, repeat=3, **kwargs):
    """Run `cmd` `repeat` times; return (best wall seconds, peak RSS in MiB over the runs)."""
    best, peak = float("inf"), 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kwargs)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"command failed: {' '.join(cmd)}\n{err}")
        best = min(best, elapsed)
        peak = max(peak, usage.ru_maxrss / 1024.0)  # ru_maxrss is KiB on Linux
    return best, peak
