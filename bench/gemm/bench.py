#!/usr/bin/env python3
"""GEMM throughput of tilec's tensor-core kernel against cuBLAS (through
torch) and a Triton matmul, all measured in one run, with tilec's compile
time per kernel.

    bench/gemm/bench.py build --out DIR [--arch sm_80 --ptx]   # where tilec runs
    bench/gemm/bench.py run --out DIR --log bench/results/NAME.md

The kernel is test/gpu/kernels/gemm.tile (C = A B, or A B^T for the NT
shapes), by default with 128x128x32 blocks, 128 threads and 3 pipeline
stages (--block, --threads and --stages choose others; --shapes square
keeps the 4096^3 and 8192^3 rows).
"""

import argparse
import datetime
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "bench", "gemm")
sys.path.insert(0, os.path.join(ROOT, "bench"))
from common import (compile_seconds, describe_commit,  # noqa: E402
                    device_name, median_ms)
KERNEL = os.path.join(ROOT, "test", "gpu", "kernels", "gemm.tile")

# TileLang's M0-M7 problem sizes (M, N, K), then square ones.
SHAPES = [(4096, 1024, 8192), (4096, 8192, 8192), (4096, 28672, 8192),
          (4096, 8192, 28672), (8192, 1024, 8192), (8192, 8192, 8192),
          (8192, 28672, 8192), (8192, 8192, 28672)]


def cases(shapes):
    out = []
    for dtype in ("float16", "bfloat16"):
        for m in (4096, 8192):
            out.append((m, m, m, dtype, False))
    if shapes == "square":
        return out
    for m, n, k in SHAPES:
        out.append((m, n, k, "float16", False))
    out.append((4096, 4096, 4096, "float16", True))
    return out


def build(args):
    os.makedirs(args.out, exist_ok=True)
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    manifest = []
    block_m, block_n, block_k = (int(x) for x in args.block.split(","))
    config = (f"{block_m}x{block_n}x{block_k} blocks, {args.threads} threads, "
              f"{args.stages} stages")
    if args.panel:
        config += f", T.use_swizzle(panel_size={args.panel})"
    if args.full_row:
        config += ", policy FullRow"
    if args.stage_out:
        config += ", C through a shared tile (TMA stores)"
    for i, (m, n, k, dtype, trans_b) in enumerate(cases(args.shapes)):
        base = os.path.join(args.out, f"gemm{i}")
        # With --ptx, the header embeds PTX that the driver compiles for
        # the GPU at load time: how an sm_80 build runs on a newer GPU.
        output = ["-o", base + ".ptx", "--header", base + ".h"] if args.ptx \
            else ["-o", base + ".cubin"]
        cmd = [args.tilec, KERNEL, "--arch", args.arch, *output,
               "-D", f"M={m}", "-D", f"N={n}", "-D", f"K={k}",
               "-D", f"in_dtype={dtype}", "-D", f"out_dtype={dtype}",
               "-D", f"trans_B={trans_b}", "-D", f"block_M={block_m}",
               "-D", f"block_N={block_n}", "-D", f"block_K={block_k}",
               "-D", f"threads={args.threads}",
               "-D", f"num_stages={args.stages}",
               "-D", f"swizzle_panel={args.panel}",
               "-D", f"full_row={args.full_row}",
               "-D", f"stage_out={args.stage_out}", *args.tilec_flag]
        compile_s = compile_seconds(cmd)
        exe = base + ".bench"
        subprocess.run(["g++", "-std=c++17", "-O2", "-I", cuda + "/include",
                        "-I", os.path.join(ROOT, "test", "gpu", "harness"),
                        "-include", base + ".h", f"-DBENCH_M={m}",
                        f"-DBENCH_N={n}", f"-DBENCH_K={k}",
                        f"-DBENCH_BF16={int(dtype == 'bfloat16')}",
                        os.path.join(HERE, "bench.cpp"), "-o", exe,
                        "-L", cuda + "/lib64/stubs", "-lcuda"], check=True)
        manifest.append({"m": m, "n": n, "k": k, "dtype": dtype,
                         "trans_b": trans_b, "exe": os.path.basename(exe),
                         "compile_s": compile_s})
        print(f"built {m}x{n}x{k} {dtype}{' NT' if trans_b else ''}: "
              f"tilec {compile_s:.2f} s")
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"commit": describe_commit(),
                   "arch": args.arch + (" (PTX, compiled by the driver)"
                                        if args.ptx else "") +
                           "".join(" " + flag for flag in args.tilec_flag),
                   "config": config, "cases": manifest}, f, indent=1)
    return 0


def triton_matmul():
    """A plain Triton matmul (fixed tiles, no autotuning), or None."""
    try:
        import triton
        import triton.language as tl
    except ImportError:
        return None

    @triton.jit
    def kernel(a, b, c, m, n, k, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
               GROUP: tl.constexpr):
        pid = tl.program_id(0)
        blocks_m = tl.cdiv(m, BM)
        blocks_n = tl.cdiv(n, BN)
        group = pid // (GROUP * blocks_n)
        first_m = group * GROUP
        rows = min(blocks_m - first_m, GROUP)
        pm = first_m + (pid % (GROUP * blocks_n)) % rows
        pn = (pid % (GROUP * blocks_n)) // rows
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for kk in range(0, tl.cdiv(k, BK)):
            offs = kk * BK + rk
            x = tl.load(a + rm[:, None] * sam + offs[None, :] * sak,
                        mask=(rm[:, None] < m) & (offs[None, :] < k), other=0.0)
            y = tl.load(b + offs[:, None] * sbk + rn[None, :] * sbn,
                        mask=(offs[:, None] < k) & (rn[None, :] < n), other=0.0)
            acc += tl.dot(x, y)
        tl.store(c + rm[:, None] * scm + rn[None, :] * scn,
                 acc.to(c.dtype.element_ty),
                 mask=(rm[:, None] < m) & (rn[None, :] < n))

    def run(x, y, out):
        m, k = x.shape
        n = y.shape[1]
        grid = (triton.cdiv(m, 128) * triton.cdiv(n, 256),)
        kernel[grid](x, y, out, m, n, k, x.stride(0), x.stride(1),
                     y.stride(0), y.stride(1), out.stride(0), out.stride(1),
                     BM=128, BN=256, BK=64, GROUP=8, num_warps=8,
                     num_stages=3)
    return run


def run(args):
    import torch
    with open(os.path.join(args.out, "manifest.json")) as f:
        recorded = json.load(f)
    triton_mm = triton_matmul()
    rows = []
    for case in recorded["cases"]:
        m, n, k = case["m"], case["n"], case["k"]
        result = subprocess.run([os.path.join(args.out, case["exe"])],
                                capture_output=True, text=True)
        if result.returncode != 0:
            print(f"FAILED {m}x{n}x{k}: {result.stderr}")
            tilec_ms = None
        else:
            tilec_ms = json.loads(result.stdout)["ms"]
        t = getattr(torch, case["dtype"])
        a = torch.randn(m, k, device="cuda", dtype=t)
        b = torch.randn(n, k, device="cuda", dtype=t).t() if case["trans_b"] \
            else torch.randn(k, n, device="cuda", dtype=t)
        out = torch.empty(m, n, device="cuda", dtype=t)
        cublas_ms = median_ms(lambda: torch.matmul(a, b, out=out), torch)
        triton_ms = None
        if triton_mm is not None:
            try:
                triton_ms = median_ms(lambda: triton_mm(a, b, out), torch)
            except Exception as error:  # a Triton failure is not ours
                print(f"triton failed at {m}x{n}x{k}: {error}")
        del a, b, out
        torch.cuda.empty_cache()
        flops = 2.0 * m * n * k
        rows.append((case, tilec_ms, cublas_ms, triton_ms, flops))

    tf = lambda ms, flops: f"{flops / ms / 1e9:.0f}" if ms else "n/a"
    lines = [f"# GEMM on tensor cores, {datetime.date.today().isoformat()}",
             "",
             f"- commit: {recorded['commit']}; tilec --arch {recorded['arch']}",
             f"- device: {device_name()}",
             f"- kernel: test/gpu/kernels/gemm.tile, {recorded['config']}",
             "- times: medians of 21 samples (CUDA events); cuBLAS through torch.matmul;",
             "  Triton: a plain matmul, 128x256x64 tiles, 8 warps, 3 stages",
             "",
             "| M x N x K | dtype | tilec ms | tilec TFLOP/s | cuBLAS TFLOP/s | tilec / cuBLAS | Triton TFLOP/s | tilec / Triton | tilec compile s |",
             "|---|---|---|---|---|---|---|---|---|"]
    vs_cublas, vs_triton = [], []
    for case, tilec_ms, cublas_ms, triton_ms, flops in rows:
        ratio = f"{cublas_ms / tilec_ms:.2f}" if tilec_ms else "n/a"
        shape = f"{case['m']}x{case['n']}x{case['k']}" + (" (NT)" if case["trans_b"] else "")
        lines.append(f"| {shape} | {case['dtype']} | "
                     f"{tilec_ms:.3f} | " if tilec_ms else f"| {shape} | {case['dtype']} | n/a | ")
        triton_ratio = (f"{triton_ms / tilec_ms:.2f}"
                        if tilec_ms and triton_ms else "n/a")
        if tilec_ms:
            vs_cublas.append(cublas_ms / tilec_ms)
            if triton_ms:
                vs_triton.append(triton_ms / tilec_ms)
        lines[-1] += (f"{tf(tilec_ms, flops)} | {tf(cublas_ms, flops)} | {ratio} | "
                      f"{tf(triton_ms, flops)} | {triton_ratio} | "
                      f"{case['compile_s']:.2f} |")
    geomean = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else 0
    lines += ["", f"Geometric means over {len(vs_cublas)} rows: tilec / cuBLAS "
                  f"{geomean(vs_cublas):.3f}, tilec / Triton {geomean(vs_triton):.3f}."]
    table = "\n".join(lines) + "\n"
    print(table)
    if args.log:
        with open(args.log, "w") as f:
            f.write(table)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=["build", "run"])
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "bench-gemm"))
    parser.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    parser.add_argument("--arch", default="sm_90a")
    parser.add_argument("--ptx", action="store_true",
                        help="embed PTX rather than a cubin (to run an older "
                             "--arch's code on a newer GPU)")
    parser.add_argument("--log")
    parser.add_argument("--block", default="128,128,32",
                        help="block_M,block_N,block_K")
    parser.add_argument("--threads", type=int, default=128)
    parser.add_argument("--stages", type=int, default=3)
    parser.add_argument("--shapes", choices=["all", "square"], default="all")
    parser.add_argument("--panel", type=int, default=0,
                        help="T.use_swizzle panel size (0: none)")
    parser.add_argument("--full-row", action="store_true",
                        help="policy FullRow instead of Square")
    parser.add_argument("--stage-out", action="store_true",
                        help="write C through a shared tile, which TMA "
                             "stores on sm_90")
    parser.add_argument("--tilec-flag", action="append", default=[],
                        help="an extra tilec flag (--no-wgmma, ...)")
    args = parser.parse_args()
    return build(args) if args.step == "build" else run(args)


if __name__ == "__main__":
    sys.exit(main())
