"""Shared helpers for the scripts/bench/bench-* drivers: run a command, report wall time and peak memory.

As a script (for the shell drivers, so that they need neither GNU time nor bc):
  python3 scripts/bench/bench_util.py TIMEOUT_S STDOUT_FILE STDERR_FILE COMMAND...
runs COMMAND once with its output in the two files, stopped after TIMEOUT_S seconds, and prints
`WALL_S PEAK_RSS_MIB EXIT_STATUS` (exit status 124 when it ran out of time, as timeout(1)).
"""
import os
import resource
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


def run_limited(cmd, timeout, stdout, stderr):
    """Run `cmd` once, its output into the files `stdout` and `stderr`, killed after `timeout`
    seconds; return (wall seconds, peak RSS in MiB, exit status: 124 when it ran out of time).
    Call it at most once per process: the peak is that of every child this process waited for."""
    start = time.perf_counter()
    with open(stdout, "wb") as out, open(stderr, "wb") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        try:
            status = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            status = 124
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    return elapsed, peak, status if status >= 0 else 128 - status


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__.strip())
    try:
        secs, mib, status = run_limited(sys.argv[4:], float(sys.argv[1]), sys.argv[2], sys.argv[3])
    except OSError as e:  # the command cannot be started: as the shell's 127
        with open(sys.argv[3], "w") as err:
            err.write(f"{e}\n")
        secs, mib, status = 0.0, 0.0, 127
    print(f"{secs:.3f} {mib:.0f} {status}")
