#!/usr/bin/env python3
"""FlashAttention forward throughput of tilec's examples/flash_attention.tile
against torch's scaled_dot_product_attention on its flash and cuDNN
backends, all measured in one run, with tilec's compile time per kernel.

    bench/attention/bench.py build --out DIR [--block 128,128 ...]  # where tilec runs
    bench/attention/bench.py run --out DIR --log bench/results/NAME.md

Every row also checks tilec's output against SDPA in float32 (its
memory-efficient backend) on the same random fp16 inputs, and fails the run
if they differ by more than fp16 rounding of the probabilities and the
output allows.
"""

import argparse
import ctypes
import datetime
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "bench", "attention")
sys.path.insert(0, os.path.join(ROOT, "bench"))
from common import (compile_seconds, describe_commit,  # noqa: E402
                    device_name, median_ms)
KERNEL = os.path.join(ROOT, "examples", "flash_attention.tile")


def cases(args):
    out = []
    for seq in (int(s) for s in args.seq.split(",")):
        for dim in (int(d) for d in args.dim.split(",")):
            for causal in (False, True):
                out.append((args.batch, args.heads, seq, dim, causal))
    return out


def build(args):
    os.makedirs(args.out, exist_ok=True)
    cuda = os.environ.get("CUDA_PATH", "/usr/local/cuda")
    block_m, block_n = (int(x) for x in args.block.split(","))
    config = (f"{args.layout}, {block_m}x{block_n} blocks, {args.threads} "
              f"threads, {args.stages} stages")
    manifest = []
    for i, (batch, heads, seq, dim, causal) in enumerate(cases(args)):
        base = os.path.join(args.out, f"flash{i}")
        cmd = [args.tilec, KERNEL, "--arch", args.arch, "-o", base + ".cubin",
               "-D", f"batch={batch}", "-D", f"heads={heads}",
               "-D", f"seq_len={seq}", "-D", f"dim={dim}",
               "-D", f"is_causal={causal}", "-D", f"layout={args.layout}",
               "-D", f"block_M={block_m}", "-D", f"block_N={block_n}",
               "-D", f"num_stages={args.stages}",
               "-D", f"threads={args.threads}", *args.tilec_flag]
        compile_s = compile_seconds(cmd)
        lib = base + ".so"
        subprocess.run(["g++", "-std=c++17", "-O2", "-shared", "-fPIC",
                        "-I", cuda + "/include", "-include", base + ".h",
                        os.path.join(HERE, "launch.cpp"), "-o", lib,
                        "-L", cuda + "/lib64/stubs", "-lcuda"], check=True)
        manifest.append({"batch": batch, "heads": heads, "seq": seq,
                         "dim": dim, "causal": causal,
                         "lib": os.path.basename(lib),
                         "compile_s": compile_s})
        print(f"built {batch}x{heads}x{seq}x{dim}{' causal' if causal else ''}: "
              f"tilec {compile_s:.2f} s")
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"commit": describe_commit(),
                   "arch": args.arch + "".join(" " + f for f in args.tilec_flag),
                   "layout": args.layout, "config": config,
                   "cases": manifest}, f, indent=1)
    return 0


def run(args):
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with open(os.path.join(args.out, "manifest.json")) as f:
        recorded = json.load(f)
    bshd = recorded["layout"] == "bshd"
    torch.manual_seed(0)
    rows, failures = [], 0
    for case in recorded["cases"]:
        b, h, s, d = case["batch"], case["heads"], case["seq"], case["dim"]
        causal = case["causal"]
        shape = (b, s, h, d) if bshd else (b, h, s, d)
        q, k, v = (torch.randn(shape, device="cuda", dtype=torch.float16)
                   for _ in range(3))
        out = torch.full(shape, float("nan"), device="cuda", dtype=torch.float16)
        # SDPA wants [batch, heads, seq, dim]; bshd tensors go in as views.
        view = (lambda t: t.transpose(1, 2)) if bshd else (lambda t: t)
        lib = ctypes.CDLL(os.path.join(args.out, case["lib"]))
        lib.tilecFlashAttention.restype = ctypes.c_int
        lib.tilecFlashAttention.argtypes = [ctypes.c_void_p] + [ctypes.c_uint64] * 4

        def tilec():
            status = lib.tilecFlashAttention(
                ctypes.c_void_p(torch.cuda.current_stream().cuda_stream),
                q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr())
            if status != 0:
                raise RuntimeError(f"flashattn_launch returned CUresult {status}")

        def sdpa(backend):
            def call():
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(
                        view(q), view(k), view(v), is_causal=causal)
            return call

        tilec()
        torch.cuda.synchronize()
        with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
            want = F.scaled_dot_product_attention(
                view(q).float(), view(k).float(), view(v).float(),
                is_causal=causal)
        error = (view(out).float() - want).abs().max().item()
        if not error <= 2e-2:
            failures += 1
            print(f"MISMATCH {b}x{h}x{s}x{d} causal={causal}: max error {error}")
        tilec_ms = median_ms(tilec, torch)
        flash_ms = median_ms(sdpa(SDPBackend.FLASH_ATTENTION), torch)
        try:
            cudnn_ms = median_ms(sdpa(SDPBackend.CUDNN_ATTENTION), torch)
        except RuntimeError as failure:  # not every torch build has it
            print(f"cuDNN attention failed at {b}x{h}x{s}x{d}: {failure}")
            cudnn_ms = None
        flops = 4.0 * b * h * s * s * d / (2 if causal else 1)
        rows.append((case, tilec_ms, flash_ms, cudnn_ms, flops, error))
        del q, k, v, out, want
        torch.cuda.empty_cache()

    tf = lambda ms, flops: f"{flops / ms / 1e9:.0f}" if ms else "n/a"
    lines = [f"# FlashAttention forward, {datetime.date.today().isoformat()}",
             "",
             f"- commit: {recorded['commit']}; tilec --arch {recorded['arch']}",
             f"- device: {device_name()}; torch {torch.__version__}",
             f"- kernel: examples/flash_attention.tile, {recorded['config']}, fp16",
             "- times: medians of 21 samples (CUDA events), one process;"
             " SDPA on its flash and cuDNN backends",
             "- error: max |tilec - SDPA in float32| on the same random inputs",
             "",
             "| B x H x S x D | causal | tilec ms | tilec TFLOP/s | flash TFLOP/s | tilec / flash | cuDNN TFLOP/s | tilec / cuDNN | error | tilec compile s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    vs_flash, vs_cudnn = [], []
    for case, tilec_ms, flash_ms, cudnn_ms, flops, error in rows:
        vs_flash.append(flash_ms / tilec_ms)
        if cudnn_ms:
            vs_cudnn.append(cudnn_ms / tilec_ms)
        lines.append(
            f"| {case['batch']}x{case['heads']}x{case['seq']}x{case['dim']} | "
            f"{'yes' if case['causal'] else 'no'} | {tilec_ms:.3f} | "
            f"{tf(tilec_ms, flops)} | {tf(flash_ms, flops)} | "
            f"{flash_ms / tilec_ms:.2f} | {tf(cudnn_ms, flops)} | "
            f"{f'{cudnn_ms / tilec_ms:.2f}' if cudnn_ms else 'n/a'} | "
            f"{error:.1e} | {case['compile_s']:.2f} |")
    geomean = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else 0
    lines += ["", f"Geometric means over {len(rows)} rows: tilec / flash "
                  f"{geomean(vs_flash):.3f}, tilec / cuDNN {geomean(vs_cudnn):.3f}."]
    if failures:
        lines += ["", f"{failures} rows did not match SDPA."]
    table = "\n".join(lines) + "\n"
    print(table)
    if args.log:
        with open(args.log, "w") as f:
            f.write(table)
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=["build", "run"])
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "bench-attention"))
    parser.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    parser.add_argument("--arch", default="sm_90a")
    parser.add_argument("--log")
    parser.add_argument("--layout", choices=["bshd", "bhsd"], default="bshd")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--heads", type=int, default=32)
    parser.add_argument("--seq", default="1024,4096,16384",
                        help="comma-separated sequence lengths")
    parser.add_argument("--dim", default="64,128",
                        help="comma-separated head sizes")
    parser.add_argument("--block", default="128,128", help="block_M,block_N")
    parser.add_argument("--threads", type=int, default=256)
    parser.add_argument("--stages", type=int, default=2)
    parser.add_argument("--tilec-flag", action="append", default=[],
                        help="an extra tilec flag (--no-wgmma, ...)")
    args = parser.parse_args()
    return build(args) if args.step == "build" else run(args)


if __name__ == "__main__":
    sys.exit(main())
