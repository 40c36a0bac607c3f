#!/usr/bin/env python3
#===- check_random_kernels.py - Compile random kernels, check each run -----===#
"""Compiles random kernels (random_kernels.py) with tilec and checks each run.

    check_random_kernels.py TILEC [--seconds S] [--first-seed N] [--count N]
                            [--jobs J] [--regressions DIR] [--work DIR]
                            [--target ARCH] [--known-bugs]
    check_random_kernels.py TILEC --replay FILE...

Generates kernels seed after seed, from --first-seed (by default one drawn
from the clock, printed), until --seconds have passed or --count kernels
have run, and compiles each with the options on its first line in a folder
of its own. A run fails when tilec

- dies of a signal, or exits with a status other than 0 and 1;
- prints an internal error (a crash it caught is one), or a sanitizer
  report;
- takes more than 10 s (30 s in a sanitizer build), twice: a busy
  machine can slow one run down;
- has more than 1 GiB resident (3 GiB in a sanitizer build, for its
  shadow memory), tilec or a tool it runs (ptxas, ld.lld);
- reports an error without a location (`tilec: error:` is for the command
  line), fails without an error, or succeeds with one;
- leaves a temporary file behind, writes an output when it fails, or
  succeeds without writing its outputs;
- writes a header that does not compile as C99 and as C++17 with
  -Wall -Wextra -Werror -pedantic (NVIDIA headers against the CUDA
  toolkit's cuda.h, HIP headers against /usr/include/hip when present).

Each failing kernel is copied to --regressions as random-SEED-ORACLE.tile
and the run exits with status 1. At the end it prints how many kernels
compiled, the most common user errors (the generator means to write valid
kernels, so a high share of them is a generator bug) and the failures.
--replay runs the same checks on given files (regressions), in order.
"""

import argparse
import collections
import os
import pathlib
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import random_kernels  # noqa: E402

GIB = 1 << 30
LOCATED = re.compile(r"^(.+?):(\d+):(\d+): error: (.*)$")
COMMAND_LINE = re.compile(r"^tilec: error: (.*)$")
ERROR = re.compile(r"\berror:")
SANITIZER = re.compile(r"(ERROR: (Address|Leak|Memory|Thread)Sanitizer|runtime error:|"
                       r"SUMMARY: \w+Sanitizer)")
OUT_OF_MEMORY = re.compile(r"(out of memory|bad_alloc|Cannot allocate memory|"
                           r"failed to allocate|mmap.*ENOMEM)", re.IGNORECASE)
HEADER_FLAGS = ["-Wall", "-Wextra", "-Werror", "-pedantic", "-fsyntax-only"]


def sanitized(tilec):
    """Whether tilec was built with a sanitizer (TILEC_SANITIZED=0/1 decides)."""
    forced = os.environ.get("TILEC_SANITIZED")
    if forced is not None:
        return forced not in ("", "0")
    try:
        symbols = subprocess.run(["nm", "-D", "--defined-only", tilec], capture_output=True,
                                 text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "__asan_init" in symbols or "__ubsan_handle" in symbols


class Limits:
    def __init__(self, sanitizer_build):
        self.sanitized = sanitizer_build
        self.seconds = 30 if sanitizer_build else 10
        # Resident memory. A sanitizer build's shadow memory takes more.
        self.memory = 3 * GIB if sanitizer_build else GIB
        # Address space, a safety net for the machine while the resident
        # size is polled; sanitizers reserve terabytes of it.
        self.address_space = None if sanitizer_build else 8 * GIB


class Run:
    """A finished run: its status (negative: killed by that signal), its
    output (stdout and stderr), time, peak resident size of tilec and the
    tools it ran, and whether it was stopped for time or memory."""

    def __init__(self, status, output, seconds, rss, timed_out, over_memory):
        self.status = status
        self.output = output
        self.seconds = seconds
        self.rss = rss
        self.timed_out = timed_out
        self.over_memory = over_memory


PAGE = os.sysconf("SC_PAGE_SIZE")


def resident_bytes(pid):
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * PAGE
    except (OSError, ValueError, IndexError):
        return 0


def run_limited(cmd, cwd, env, limits):
    """Runs cmd in a process group of its own, polling its time and
    resident size; kills the group past either limit."""
    def limit():
        if limits.address_space:
            resource.setrlimit(resource.RLIMIT_AS, (limits.address_space,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    start = time.monotonic()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=limit)
        timed_out = over_memory = False
        peak = 0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, resident_bytes(proc.pid))
            timed_out = time.monotonic() - start > limits.seconds
            over_memory = peak > limits.memory
            if timed_out or over_memory:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
        proc.returncode = 0  # reaped above; keeps Popen from waiting again
        seconds = time.monotonic() - start
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    # ru_maxrss: the largest of tilec and the children it waited for.
    peak = max(peak, usage.ru_maxrss * 1024)
    return Run(code, text, seconds, peak, timed_out, over_memory or peak > limits.memory)


def normalize(message):
    """A user error's message without the names and numbers of one kernel."""
    message = re.sub(r"'[^']*'", "'_'", message)
    message = re.sub(r"\b\d+\b", "N", message)
    return message[:150]


def header_checks(header, vendor):
    """Commands that compile the header as C99 and as C++17."""
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    extra = []
    if vendor == "nvidia":
        if not os.path.exists(os.path.join(cuda, "include", "cuda.h")):
            return []
        extra = ["-isystem", os.path.join(cuda, "include")]
    elif vendor == "amd":
        if not os.path.exists("/usr/include/hip/hip_runtime_api.h"):
            return []
        extra = ["-D__HIP_PLATFORM_AMD__"]
    checks = []
    for compiler, lang, std in (("cc", "c", "c99"), ("c++", "c++", "c++17")):
        if shutil.which(compiler):
            checks.append([compiler, f"-std={std}", *HEADER_FLAGS, *extra, "-x", lang])
    return checks


class Result:
    def __init__(self, seed, path):
        self.seed = seed
        self.path = path
        self.oracle = None        # the failed check, or None
        self.detail = ""
        self.user_errors = []     # normalized messages of a status-1 run
        self.warnings = []
        self.status = None
        self.target = None
        self.retried = None       # the time of a first run that timed out
        self.seconds = 0.0
        self.rss = 0

    def fail(self, oracle, detail):
        if self.oracle is None:
            self.oracle, self.detail = oracle, detail


def check(tilec, path, seed, limits, env):
    result = check_once(tilec, path, seed, limits, env)
    if result.oracle == "timeout":
        # On a busy machine a run can take twice as long: a timeout counts
        # when a second run times out too.
        again = check_once(tilec, path, seed, limits, env)
        if again.oracle != "timeout":
            again.retried = result.seconds
            return again
    return result


def check_once(tilec, path, seed, limits, env):
    text = pathlib.Path(path).read_text()
    first = text.split("\n", 1)[0]
    options = shlex.split(first[1:]) if first.startswith("#") else []
    result = Result(seed, path)
    result.target = target_of(options)
    vendor = ("host" if result.target == "host" else
              "amd" if result.target.startswith("gfx") else "nvidia")
    with tempfile.TemporaryDirectory(prefix="tilec-random-") as work:
        run_dir = os.path.join(work, "run")
        tmp_dir = os.path.join(work, "tmp")
        os.mkdir(run_dir)
        os.mkdir(tmp_dir)
        run_env = dict(env, TMPDIR=tmp_dir)
        cmd = [tilec, os.path.abspath(path), *options]
        run = run_limited(cmd, run_dir, run_env, limits)
        status, output, rss = run.status, run.output, run.rss
        result.status, result.seconds, result.rss = status, run.seconds, rss
        lines = output.splitlines()
        errors = [line for line in lines if ERROR.search(line)]
        if run.timed_out:
            result.fail("timeout", f"over {limits.seconds} s")
        elif run.over_memory:
            result.fail("memory", f"over {limits.memory >> 20} MiB (peak {rss >> 20} MiB)")
        elif SANITIZER.search(output):
            result.fail("sanitizer", next(l for l in lines if SANITIZER.search(l)))
        elif status not in (0, 1) and OUT_OF_MEMORY.search(output):
            why = next((l for l in lines if "internal error" in l), f"exit {status}")
            result.fail("memory", f"{why} (out of memory; peak {rss >> 20} MiB)")
        elif status < 0:
            result.fail("crash", f"signal {-status}: {(errors or lines or [''])[-1]}")
        for line in errors:
            if "internal error" in line:
                # A crash that tilec caught says so: `crashed (signal 11)`.
                result.fail("crash" if "crashed (signal" in line else "internal", line)
        if status not in (0, 1):
            result.fail(f"exit{status}", (errors or lines or [""])[0])
        if status == 0 and errors:
            result.fail("error-on-success", errors[0])
        if result.oracle is None and status == 1:
            if OUT_OF_MEMORY.search(output):
                result.fail("memory", (errors or lines or [""])[0])
            if not errors:
                result.fail("silent", "exit 1 without an error")
            for line in errors:
                located = LOCATED.match(line)
                command = COMMAND_LINE.match(line)
                if located:
                    result.user_errors.append(normalize(located.group(4)))
                elif command:
                    result.user_errors.append("tilec: " + normalize(command.group(1)))
                else:
                    result.fail("unlocated", line)
        result.warnings = [normalize(l.split("warning: ", 1)[1]) for l in lines
                           if "warning: " in l]
        leftovers = os.listdir(tmp_dir)
        if leftovers:
            result.fail("leftover", f"left {leftovers} in TMPDIR")
        written = sorted(os.listdir(run_dir))
        if result.oracle is None and status == 1 and written:
            result.fail("output-on-error", f"wrote {written} but failed")
        if result.oracle is None and status == 0:
            expected = expected_outputs(options)
            missing = [f for f in expected if f not in written]
            if missing:
                result.fail("missing-output", f"did not write {missing}")
            for name in written:
                if name.endswith(".h"):
                    check_header(result, run_dir, name, vendor)
    return result


def target_of(options):
    """The target of a command line: --target host, or --arch (sm_90a by
    default)."""
    target = "sm_90a"
    for option, value in zip(options, options[1:]):
        if option == "--arch":
            target = value
        elif option == "--target" and value == "host":
            return "host"
    return target


def expected_outputs(options):
    out = header = None
    emit = None
    for i, o in enumerate(options):
        if o == "-o" and i + 1 < len(options):
            out = options[i + 1]
        elif o == "--header" and i + 1 < len(options):
            header = options[i + 1]
        elif o.startswith("--emit="):
            emit = o.split("=", 1)[1]
    files = [out] if out else []
    binary = emit is None and out and out.endswith((".cubin", ".hsaco", ".o"))
    if header and (binary or (out and out.endswith(".ptx"))):
        files.append(header)
    elif binary:
        files.append(out.rsplit(".", 1)[0] + ".h")
    return files


def check_header(result, run_dir, name, vendor):
    for base in ("c", "cpp"):
        source = os.path.join(run_dir, f"use-header.{base}")
        with open(source, "w") as f:
            f.write(f'#include "{name}"\n#include "{name}"\n')
    for cmd in header_checks(name, vendor):
        source = "use-header.c" if cmd[0] == "cc" else "use-header.cpp"
        proc = subprocess.run([*cmd, "-I", ".", source], cwd=run_dir, capture_output=True,
                              text=True, timeout=60)
        if proc.returncode != 0:
            first = next((l for l in proc.stderr.splitlines() if "error" in l),
                         proc.stderr.strip()[:300])
            result.fail("header", f"{cmd[0]} {cmd[1]}: {first}")
            return


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("tilec")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--first-seed", type=int)
    parser.add_argument("--count", type=int, help="stop after this many kernels")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--regressions", type=pathlib.Path,
                        help="where failing kernels are copied")
    parser.add_argument("--work", type=pathlib.Path,
                        help="where kernels are written; failing ones are kept there")
    parser.add_argument("--keep", action="store_true", help="keep the kernels that pass too")
    parser.add_argument("--target", metavar="ARCH",
                        help="compile every kernel for this target (an --arch value, or "
                             "host) rather than the one its seed draws")
    parser.add_argument("--known-bugs", action="store_true",
                        help="also write what random_kernels.KNOWN_BUGS says tilec gets "
                             "wrong, to see whether it still does")
    parser.add_argument("--replay", nargs="+", metavar="FILE",
                        help="check these kernels instead, each of which must compile")
    parser.add_argument("--max-user-errors", type=float, default=0.2,
                        help="fail when more than this share of the kernels are user "
                             "errors: the generator is to write valid kernels (default 0.2)")
    parser.add_argument("--verbose", action="store_true", help="print every user error")
    args = parser.parse_args()

    tilec = os.path.abspath(args.tilec)
    if not os.access(tilec, os.X_OK):
        sys.exit(f"check_random_kernels.py: no tilec at {tilec}")
    limits = Limits(sanitized(tilec))
    env = dict(os.environ)
    work_holder = None
    if args.work:
        args.work.mkdir(parents=True, exist_ok=True)
        work = args.work
    else:
        work_holder = tempfile.TemporaryDirectory(prefix="random-kernels-")
        work = pathlib.Path(work_holder.name)
        args.keep = False

    first = args.first_seed
    if first is None:
        first = int(time.time()) % 1_000_000_000
    build = "a sanitizer build" if limits.sanitized else "a release build"
    print(f"random kernels: {tilec} ({build}; limits {limits.seconds} s, "
          f"{limits.memory >> 20} MiB)", flush=True)
    if not args.replay:
        print(f"random kernels: seeds from {first}", flush=True)

    results = []
    lock = threading.Lock()
    failures = []
    kept = collections.Counter()

    def report(result):
        with lock:
            results.append(result)
            if result.oracle:
                failures.append(result)
                print(f"FAIL seed {result.seed}: {result.oracle}: {result.detail}", flush=True)
                # A few kernels of each kind of failure are enough.
                signature = (result.oracle, normalize(result.detail))
                kept[signature] += 1
                if args.regressions and result.seed is not None and kept[signature] <= 3:
                    args.regressions.mkdir(parents=True, exist_ok=True)
                    dest = args.regressions / f"random-{result.seed}-{result.oracle}.tile"
                    shutil.copyfile(result.path, dest)
                    print(f"  kept as {dest}", flush=True)
            elif result.retried:
                print(f"seed {result.seed}: timed out once, then took {result.seconds:.1f} s",
                      flush=True)
            elif args.verbose and result.user_errors:
                print(f"seed {result.seed}: {result.user_errors[0]}", flush=True)

    if args.replay:
        for path in args.replay:
            r = check(tilec, path, None, limits, env)
            if not r.oracle and r.status != 0:
                # Random kernels are valid: a user error is tilec's mistake.
                r.fail("rejected", r.user_errors[0] if r.user_errors else f"exit {r.status}")
            report(r)
            print(f"{path}: {r.oracle or ('ok' if r.status == 0 else 'user error')}"
                  f"{': ' + r.detail if r.oracle else ''}")
        return 1 if failures else 0

    start = time.monotonic()

    def one(seed):
        path = work / f"random-{seed}.tile"
        path.write_text(random_kernels.generate(seed, avoid_known=not args.known_bugs,
                                                target=args.target))
        r = check(tilec, str(path), seed, limits, env)
        report(r)
        if not r.oracle and not args.keep:
            path.unlink()

    seed = first
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        pending = set()
        while True:
            if args.count is not None and seed - first >= args.count:
                break
            if args.count is None and time.monotonic() - start >= args.seconds:
                break
            while len(pending) >= args.jobs:
                done = next(iter(pending))
                for f in list(pending):
                    if f.done():
                        done = f
                        break
                else:
                    time.sleep(0.01)
                    continue
                pending.discard(done)
                done.result()
            pending.add(pool.submit(one, seed))
            seed += 1
        for f in pending:
            f.result()
    elapsed = time.monotonic() - start
    summarize(results, first, seed - 1, elapsed)
    user = sum(1 for r in results if r.status == 1 and not r.oracle)
    if len(results) >= 20 and user > args.max_user_errors * len(results):
        print(f"random kernels: {user} of {len(results)} kernels are user errors, more than "
              f"{args.max_user_errors:.0%}: random_kernels.py writes invalid kernels")
        return 1
    return 1 if failures else 0


def summarize(results, first, last, elapsed):
    n = len(results)
    ok = sum(1 for r in results if r.status == 0 and not r.oracle)
    user = [r for r in results if r.status == 1 and not r.oracle]
    failed = [r for r in results if r.oracle]
    print(f"random kernels: seeds {first} to {last}: {n} kernels in {elapsed:.0f} s, "
          f"{ok} compiled ({100 * ok / max(n, 1):.1f}%), {len(user)} user errors, "
          f"{len(failed)} failures")
    if results:
        slowest = max(results, key=lambda r: r.seconds)
        biggest = max(results, key=lambda r: r.rss)
        print(f"random kernels: slowest seed {slowest.seed} ({slowest.seconds:.1f} s), "
              f"largest seed {biggest.seed} ({biggest.rss >> 20} MiB)")
    targets = collections.defaultdict(collections.Counter)
    for r in results:
        outcome = "failed" if r.oracle else "compiled" if r.status == 0 else "user error"
        targets[r.target][outcome] += 1
    for target, outcomes in sorted(targets.items(), key=lambda t: str(t[0])):
        print(f"  {target or '?':14} {sum(outcomes.values()):5d} kernels: "
              f"{outcomes['compiled']} compiled, {outcomes['user error']} user errors, "
              f"{outcomes['failed']} failed")
    messages = collections.Counter(r.user_errors[0] for r in user if r.user_errors)
    if messages:
        print("random kernels: most common user errors:")
        for message, count in messages.most_common(12):
            print(f"  {count:5d}  {message}")
    warnings = collections.Counter(w for r in results for w in set(r.warnings))
    if warnings:
        print("random kernels: most common warnings (kernels):")
        for message, count in warnings.most_common(6):
            print(f"  {count:5d}  {message}")
    oracles = collections.Counter(r.oracle for r in failed)
    for oracle, count in oracles.most_common():
        seeds = [str(r.seed) for r in failed if r.oracle == oracle][:10]
        print(f"random kernels: {count} x {oracle}: seeds {' '.join(seeds)}")


if __name__ == "__main__":
    sys.exit(main())
