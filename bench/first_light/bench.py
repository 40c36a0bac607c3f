#!/usr/bin/env python3
"""Bandwidth of tilec's elementwise add, RMS norm and softmax against a
device-to-device copy of the same bytes, with torch's kernels for reference,
all measured in one run, plus tilec's compile time per kernel.

    bench/first_light/bench.py build --out DIR   # where tilec runs
    bench/first_light/bench.py run --out DIR --log bench/results/NAME.md

The table is headed by the date, the commit tilec was built from and the
device, as bench/results keeps it.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "bench", "first_light")
sys.path.insert(0, os.path.join(ROOT, "bench"))
from common import compile_seconds, describe_commit, device_name  # noqa: E402


def cases():
    """(name, example, -D values, BENCH kind, macros, (M, N))."""
    out = []
    for m in (4096, 16384):
        for dtype, size in (("float32", 4), ("float16", 2)):
            out.append((f"add {dtype} {m}x{m}", "elementwise_add",
                        {"M": m, "N": m, "dtype": dtype}, "ADD",
                        {"BENCH_ELEMENT_BYTES": size}, (m, m)))
        threads = 128 if m == 4096 else 512
        for kernel, kind in (("rms_norm", "RMSNORM"), ("softmax", "SOFTMAX")):
            out.append((f"{kernel} float16 {m}x{m}", kernel,
                        {"M": m, "N": m, "threads": threads}, kind, {}, (m, m)))
    return out


def build(args):
    os.makedirs(args.out, exist_ok=True)
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    manifest = []
    for i, (name, example, defines, kind, macros, (m, n)) in enumerate(cases()):
        base = os.path.join(args.out, f"case{i}")
        cmd = [args.tilec, os.path.join(ROOT, "examples", example + ".tile"),
               "--arch", args.arch, "-o", base + ".cubin"]
        for k, v in defines.items():
            cmd += ["-D", f"{k}={v}"]
        compile_s = compile_seconds(cmd)
        exe = base + ".bench"
        build_cmd = ["g++", "-std=c++17", "-O2", "-I", cuda + "/include",
                     "-I", os.path.join(ROOT, "test", "gpu", "harness"),
                     "-include", base + ".h", f"-DBENCH_{kind}",
                     f"-DBENCH_M={m}", f"-DBENCH_N={n}"]
        build_cmd += [f"-D{k}={v}" for k, v in macros.items()]
        build_cmd += [os.path.join(HERE, "bench.cpp"), "-o", exe,
                      "-L", cuda + "/lib64/stubs", "-lcuda"]
        subprocess.run(build_cmd, check=True)
        manifest.append({"name": name, "exe": os.path.basename(exe),
                         "kernel": example, "m": m, "n": n,
                         "compile_s": compile_s})
        print(f"built {name}: tilec {compile_s:.2f} s")
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"commit": describe_commit(), "cases": manifest}, f, indent=1)
    return 0


def torch_baseline(kernel, m, n, dtype):
    """The median time of torch's version of `kernel`, or None."""
    try:
        import torch
    except ImportError:
        return None
    t = getattr(torch, dtype)
    x = torch.randn(m, n, device="cuda", dtype=t)
    if kernel == "elementwise_add":
        y = torch.randn(m, n, device="cuda", dtype=t)
        fn = lambda: torch.add(x, y)
    elif kernel == "softmax":
        fn = lambda: torch.softmax(x, dim=-1)
    else:
        w = torch.ones(n, device="cuda", dtype=t)
        fn = lambda: torch.nn.functional.rms_norm(x, (n,), w, eps=1e-6)
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(21):
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(10):
            fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 10)
    return sorted(times)[len(times) // 2]


def run(args):
    with open(os.path.join(args.out, "manifest.json")) as f:
        recorded = json.load(f)
    manifest = recorded["cases"]
    rows = []
    for entry in manifest:
        out = subprocess.run([os.path.join(args.out, entry["exe"])], check=True,
                             capture_output=True, text=True).stdout
        r = json.loads(out)
        dtype = entry["name"].split()[1]
        torch_ms = torch_baseline(entry["kernel"], entry["m"], entry["n"], dtype)
        gbps = r["bytes"] / r["ms"] / 1e6
        copy_gbps = r["bytes"] / r["copy_ms"] / 1e6
        rows.append((entry["name"], r["ms"], gbps, copy_gbps, gbps / copy_gbps,
                     torch_ms, entry["compile_s"]))
    lines = [f"# First-light bandwidth, {datetime.date.today().isoformat()}",
             "",
             f"- commit: {recorded['commit']}",
             f"- device: {device_name()}",
             "- times: medians of 21 samples of 10 launches each (CUDA events);",
             "  copy is a device-to-device cuMemcpy that reads and writes as many",
             "  bytes as the kernel",
             "",
             "| kernel | tilec ms | tilec GB/s | copy GB/s | tilec / copy | torch ms | torch / tilec time | tilec compile s |",
             "|---|---|---|---|---|---|---|---|"]
    for name, ms, gbps, copy_gbps, ratio, torch_ms, compile_s in rows:
        torch_col = f"{torch_ms:.4f}" if torch_ms else "n/a"
        speed = f"{torch_ms / ms:.2f}" if torch_ms else "n/a"
        lines.append(f"| {name} | {ms:.4f} | {gbps:.0f} | {copy_gbps:.0f} | "
                     f"{ratio:.2f} | {torch_col} | {speed} | {compile_s:.2f} |")
    table = "\n".join(lines) + "\n"
    print(table)
    if args.log:
        with open(args.log, "w") as f:
            f.write(table)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=["build", "run"])
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "bench-first-light"))
    parser.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    parser.add_argument("--arch", default="sm_90a")
    parser.add_argument("--log")
    args = parser.parse_args()
    return build(args) if args.step == "build" else run(args)


if __name__ == "__main__":
    sys.exit(main())
