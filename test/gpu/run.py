#!/usr/bin/env python3
"""The GPU test suite: compiles each kernel configuration with tilec, builds
a test program against its generated header, runs it on the GPU on fresh
random inputs and compares with a float64 reference (or cuBLAS), and with
what the same program built for the host target (--target host) computed
on the same inputs just before.

    test/gpu/run.py                  # build and run (skips without a GPU)
    test/gpu/run.py build --out DIR  # only build (where tilec runs)
    test/gpu/run.py run --out DIR    # only run what DIR holds (where the GPU is)
    test/gpu/run.py verify           # what the Z3 verifiers prove of each
    test/gpu/run.py host             # the programs that fit a CPU, run on
                                     # the host target (--target host)
    test/gpu/run.py --arch gfx942    # the same on an AMD GPU, through HIP

Building needs tilec, g++ and the CUDA toolkit's cuda.h (for AMD, the HIP
headers and libamdhip64); running needs the GPU and its driver. On AMD,
the GEMMs are checked against a float64 product rather than cuBLAS, and
the programs for NVIDIA only (headers for several sm_ targets, the sm_80
paths of the H200) are left out.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "test", "gpu")


def example(name):
    return os.path.join(ROOT, "examples", name + ".tile")


def kernel(name):
    return os.path.join(HERE, "kernels", name + ".tile")


def configs():
    """(name, .tile file, -D values, TEST_<KIND>, harness macros[, tilec
    flags[, harness source[, libraries]]])."""
    out = []
    for m, n in [(4096, 4096), (1000, 1000), (130, 96)]:
        out.append((f"add_f32_{m}x{n}", example("elementwise_add"),
                    {"M": m, "N": n}, "ADD", {"M": m, "N": n}))
    for m, n in [(4096, 4096), (333, 200)]:
        out.append((f"add_f16_{m}x{n}", example("elementwise_add"),
                    {"M": m, "N": n, "dtype": "float16"}, "ADD",
                    {"M": m, "N": n, "DTYPE_F16": 1}))
    for dtype in ("float8_e4m3", "float8_e5m2", "float8_e4m3fnuz",
                  "float8_e5m2fnuz"):
        out.append((f"convert_{dtype}", kernel("convert"), {"dtype": dtype},
                    "FP8", {"FP8_E5M2": int("e5m2" in dtype),
                            "FP8_FNUZ": int(dtype.endswith("fnuz"))}))
    out.append(("copy2d", kernel("copy"), {}, "COPY2D", {}))
    out.append(("copy3d", kernel("copy"), {}, "COPY3D", {}))
    for kind in ["sum", "max", "min", "absmax", "abssum"]:
        out.append((f"reduce_{kind}_37x100", kernel("reduce"),
                    {"M": 37, "N": 100, "kind": kind, "clear": "False"},
                    "REDUCE", {"M": 37, "N": 100, "REDUCE_KIND": f'"{kind}"',
                               "CLEAR": 0}))
    # Rows and result in shared memory.
    for kind, clear in [("sum", False), ("absmax", True)]:
        out.append((f"reduce_{kind}_shared_37x100", kernel("reduce"),
                    {"M": 37, "N": 100, "kind": kind, "clear": str(clear),
                     "scope": "shared"},
                    "REDUCE", {"M": 37, "N": 100, "REDUCE_KIND": f'"{kind}"',
                               "CLEAR": int(clear)}))
    # Along dimension 0 of the block's tile, held in a fragment or shared.
    for kind, scope in [("sum", "fragment"), ("max", "shared")]:
        out.append((f"reduce_{kind}_dim0_{scope}_37x100", kernel("reduce"),
                    {"M": 37, "N": 100, "kind": kind, "scope": scope,
                     "dim": 0},
                    "REDUCE", {"M": 37, "N": 100, "REDUCE_KIND": f'"{kind}"',
                               "CLEAR": 1}))
    # Rows held in bfloat16 and reduced into float32.
    for kind in ["sum", "absmax"]:
        out.append((f"reduce_{kind}_bf16_37x100", kernel("reduce"),
                    {"M": 37, "N": 100, "kind": kind, "dtype": "bfloat16"},
                    "REDUCE", {"M": 37, "N": 100, "REDUCE_KIND": f'"{kind}"',
                               "CLEAR": 1, "REDUCE_BF16": 1}))
    for m, n, kind in [(64, 4096, "sum"), (64, 4096, "max"), (130, 64, "absmax"),
                       (9, 32, "min")]:
        out.append((f"reduce_{kind}_{m}x{n}", kernel("reduce"),
                    {"M": m, "N": n, "kind": kind}, "REDUCE",
                    {"M": m, "N": n, "REDUCE_KIND": f'"{kind}"', "CLEAR": 1}))
    for m, n in [(4096, 4096), (100, 1000), (7, 64)]:
        out.append((f"rms_norm_{m}x{n}", example("rms_norm"), {"M": m, "N": n},
                    "RMSNORM", {"M": m, "N": n}))
        out.append((f"softmax_{m}x{n}", example("softmax"), {"M": m, "N": n},
                    "SOFTMAX", {"M": m, "N": n}))
    # Blocks whose size has few factors of two leave their last threads out
    # of the grid layouts (and, with cross-warp reductions, their warps'
    # partners past the last warp).
    for kernel_name, params in [("rms_norm", {"threads": 325}),
                                ("softmax", {"threads": 100, "blk_m": 4})]:
        suffix = "".join(f"_{k}{v}" for k, v in params.items())
        out.append((f"{kernel_name}{suffix}_100x1000", example(kernel_name),
                    {"M": 100, "N": 1000, **params},
                    kernel_name.replace("_", "").upper(), {"M": 100, "N": 1000}))
    for kind, threads in [("sum", 325), ("max", 100), ("absmax", 33)]:
        out.append((f"reduce_{kind}_{threads}t_37x1000", kernel("reduce"),
                    {"M": 37, "N": 1000, "kind": kind, "threads": threads},
                    "REDUCE", {"M": 37, "N": 1000, "REDUCE_KIND": f'"{kind}"',
                               "CLEAR": 1}))
    # --fast-math: approximate division and exp2, f32 denormals flushed;
    # the results still match to the output's (f16) precision.
    for kernel_name in ["rms_norm", "softmax"]:
        out.append((f"{kernel_name}_fast_math_1000x1000", example(kernel_name),
                    {"M": 1000, "N": 1000}, kernel_name.replace("_", "").upper(),
                    {"M": 1000, "N": 1000}, ["--fast-math"]))
    # FlashAttention: both layouts, causal or not, sequence lengths that are
    # and are not multiples of the blocks, head sizes 64 and 128, more keys
    # than queries, bfloat16, a run-time sequence length; the example's
    # 64x64 blocks on 128 threads, and the Hopper configuration of the
    # benchmarks (bench/attention: 128x128 blocks, two consumer warpgroups
    # and a producer, two stages), mostly with --fast-math as benchmarked.
    hopper = {"block_M": 128, "block_N": 128, "num_stages": 2, "threads": 256}
    fast = ["--fast-math"]
    sm80 = ["--no-tma", "--no-wgmma"]
    for batch, heads, seq, seq_kv, dim, causal, layout, extra, flags in [
            (1, 2, 256, None, 64, False, "bshd", {}, []),
            (2, 3, 1000, None, 64, True, "bshd", {}, []),
            (1, 2, 333, None, 128, False, "bhsd", {}, []),
            (1, 1, 512, None, 128, True, "bhsd", {}, []),
            (1, 2, 300, 700, 64, True, "bshd", {}, []),
            (1, 2, 200, None, 64, False, "bshd", {"dtype": "bfloat16"}, []),
            (2, 3, 1000, None, 64, True, "bshd", hopper, fast),
            (1, 2, 333, None, 128, False, "bhsd", hopper, fast),
            (1, 4, 1024, None, 128, True, "bshd", hopper, fast),
            (2, 2, 200, None, 128, True, "bhsd", hopper, fast),
            (1, 2, 640, None, 128, False, "bshd", hopper, []),
            (1, 2, 250, 1000, 128, True, "bhsd", hopper, fast),
            (1, 3, 129, 520, 64, False, "bshd", hopper, fast),
            (2, 2, 700, None, 128, True, "bshd",
             dict(hopper, dtype="bfloat16"), fast),
            (1, 2, 333, None, 64, False, "bhsd",
             dict(hopper, dtype="bfloat16"), fast),
            # One warpgroup over 128 rows: two bands of 64 per warp, P
            # from registers into the second wgmma.
            (2, 3, 1000, None, 64, True, "bshd",
             dict(hopper, threads=128), fast),
            (1, 2, 333, None, 128, False, "bhsd",
             dict(hopper, threads=128), []),
            (2, 2, 1000, None, 128, True, "bshd",
             dict(hopper, dynamic=True), fast),
            (1, 3, 77, None, 64, False, "bhsd",
             dict(hopper, dynamic=True), fast),
            (1, 2, 300, None, 64, True, "bshd", {"dynamic": True}, []),
            # The sm_80 path (cp.async, mma.sync) on the same GPU.
            (2, 3, 1000, None, 64, True, "bshd", {}, sm80),
            (1, 2, 250, 600, 128, True, "bhsd", {"dtype": "bfloat16"}, sm80),
            (1, 2, 500, None, 64, False, "bshd", {"dynamic": True}, sm80),
            # Stages through registers, as on AMD.
            (2, 3, 1000, None, 64, True, "bshd", {"num_stages": 2},
             ["--no-cp-async"]),
            (1, 2, 333, None, 128, False, "bhsd", {"num_stages": 3},
             ["--no-cp-async"])]:
        bf16 = extra.get("dtype") == "bfloat16"
        dynamic = extra.get("dynamic", False)
        name = (f"flash_{layout}_{'causal_' if causal else ''}"
                f"{batch}x{heads}x{seq}{f'x{seq_kv}' if seq_kv else ''}x{dim}"
                f"{'_ws' if extra.get('threads') == 256 else ''}"
                f"{'_m128_t128' if extra.get('threads') == 128 and extra.get('block_M') == 128 else ''}"
                f"{'_bf16' if bf16 else ''}{'_dynamic' if dynamic else ''}" +
                "".join("_" + f.lstrip("-").replace("-", "_") for f in flags))
        defines = {"batch": batch, "heads": heads, "seq_len": seq, "dim": dim,
                   "is_causal": causal, "layout": layout, **extra}
        if seq_kv:
            defines["seq_kv"] = seq_kv
        out.append((name, example("flash_attention"), defines,
                    "FLASH", {"TEST_BATCH": batch, "TEST_HEADS": heads,
                              "TEST_SEQ": seq, "TEST_SEQ_KV": seq_kv or seq,
                              "TEST_DIM": dim, "CAUSAL": int(causal),
                              "BHSD": int(layout == "bhsd"),
                              "BF16": int(bf16), "DYNAMIC": int(dynamic)},
                    flags))
    # Headers for several targets pick the device's binary, or refuse.
    for archs in ["sm_80,sm_90a", "sm_80,sm_86"]:
        out.append((f"multiarch_{archs.replace(',', '_')}", kernel("copy"), {},
                    "MULTIARCH", {"ARCHS": f'"{archs}"'},
                    ["--arch", archs, "--kernel", "copy2d"], "multiarch.cpp"))
    for m, n, k in [(256, 256, 256), (200, 136, 72), (1000, 520, 333)]:
        out.append((f"gemm_example_{m}x{n}x{k}", example("gemm"),
                    {"M": m, "N": n, "K": k}, "GEMM", {"M": m, "N": n, "K": k}))
    # Explicit warp groups (T.ws): a loading group and one or two computing
    # ones, on wgmma and on mma.sync.
    for m, n, k, consumers, flags in [(200, 136, 160, 1, []),
                                      (256, 256, 256, 2, []),
                                      (1000, 520, 333, 2, []),
                                      (1000, 520, 333, 2, ["--no-wgmma"])]:
        out.append((f"warp_groups_{m}x{n}x{k}_c{consumers}" +
                    "".join("_" + f.lstrip("-").replace("-", "_")
                            for f in flags),
                    kernel("warp_groups"),
                    {"M": m, "N": n, "K": k, "consumers": consumers}, "GEMM",
                    {"M": m, "N": n, "K": k}, flags))
    # Tensor-core GEMM against cuBLAS: operand orders, types, tails.
    gemm_cases = [
        # (M, N, K, trans_A, trans_B, in, out, extra -D values)
        (256, 256, 256, False, False, "float16", "float16", {}),
        (4096, 4096, 4096, False, False, "float16", "float16", {}),
        (8192, 8192, 8192, False, True, "float16", "float16", {}),
        (1000, 1000, 1000, False, True, "float16", "float16", {}),
        (200, 136, 72, True, False, "float16", "float16", {}),
        (333, 250, 100, True, True, "float16", "float32", {}),
        (1, 4096, 1024, False, False, "float16", "float16", {}),
        (4096, 1, 1024, False, True, "float16", "float16", {}),
        (77, 93, 35, False, False, "float16", "float16", {}),
        (1024, 1024, 1024, False, False, "bfloat16", "bfloat16", {}),
        (999, 1001, 520, False, True, "bfloat16", "float32", {}),
        (512, 768, 256, True, False, "bfloat16", "bfloat16", {}),
        (512, 512, 512, False, False, "float16", "float16",
         {"accum_dtype": "float16"}),
        (640, 640, 640, False, False, "float16", "float16",
         {"block_M": 64, "block_N": 64, "block_K": 64}),
        (512, 384, 256, False, True, "int8", "int32",
         {"accum_dtype": "int32", "block_K": 64}),
        (200, 136, 160, False, False, "int8", "int32",
         {"accum_dtype": "int32", "block_K": 64}),
        (320, 256, 128, True, True, "int8", "int32",
         {"accum_dtype": "int32", "block_K": 64}),
        (512, 512, 512, False, True, "float32", "float32",
         {"accum_dtype": "float32"}),
        (256, 256, 128, False, True, "float8_e4m3", "float32",
         {"block_K": 64}),
        (200, 136, 96, False, True, "float8_e5m2", "float16",
         {"block_K": 64}),
        # AMD gfx942's fp8 formats (its matrix cores'); CUDA cores here,
        # where K steps of 32 keep a thread's unrolled multiply-adds within
        # tilec's limit.
        (200, 136, 96, False, False, "float8_e4m3fnuz", "float32",
         {"block_K": 32}),
        (128, 256, 128, True, True, "float8_e5m2fnuz", "float16",
         {"block_K": 32}),
        (333, 200, 100, True, False, "float32", "float32",
         {"accum_dtype": "float32"}),
        (1024, 1024, 1024, False, False, "float16", "float16",
         {"block_M": 128, "block_N": 256, "threads": 256}),
        (1024, 1024, 1024, False, False, "float16", "float16",
         {"num_stages": 1}),
    ]
    # Pipelines that must not hang: stage counts against threads and K
    # extents down to fewer iterations than stages (K = 32 is one iteration
    # of 32) and K tails, with and without a producer warpgroup.
    for stages, threads, k in [(2, 128, 32), (3, 128, 64), (4, 256, 96),
                               (4, 128, 1000), (2, 256, 40), (3, 256, 8192)]:
        for ws in (True, False):
            extra = {"num_stages": stages, "threads": threads}
            if threads == 256:
                extra.update(block_M=128, block_N=256)
            gemm_cases.append((384, 512, k, False, False, "float16", "float16",
                               extra, [] if ws else ["--no-warp-specialize"]))
    # The sm_80 path on the same GPU: mma.sync, cp.async, or both.
    gemm_cases += [
        (1000, 1000, 1000, False, False, "float16", "float16", {},
         ["--no-wgmma", "--no-tma"]),
        (999, 1001, 520, False, True, "bfloat16", "float32", {},
         ["--no-wgmma"]),
        (200, 136, 72, True, False, "float16", "float16", {}, ["--no-tma"]),
    ]
    # Stages through registers (AMD's pipeline) on the same GPU, on
    # mma.sync and on wgmma: tails, one iteration, two warpgroups.
    regs = ["--no-cp-async"]
    gemm_cases += [
        (1000, 1000, 1000, False, False, "float16", "float16", {},
         regs + ["--no-wgmma"]),
        (200, 136, 72, True, False, "float16", "float16", {},
         regs + ["--no-wgmma"]),
        (999, 1001, 520, False, True, "bfloat16", "float32", {}, regs),
        (384, 512, 32, False, False, "float16", "float16",
         {"num_stages": 2}, regs + ["--no-wgmma"]),
        (384, 512, 1000, False, False, "float16", "float16",
         {"num_stages": 4, "threads": 256, "block_M": 128, "block_N": 256},
         regs),
    ]
    # Epilogues through a shared tile, stored by TMA: tails in both
    # dimensions, f32 and bf16 results, transposed operands, a producer
    # warpgroup; and the threads' copy of the tile for comparison.
    gemm_cases += [
        (1000, 1000, 1000, False, False, "float16", "float16",
         {"stage_out": True}),
        (200, 136, 72, True, True, "float16", "float32", {"stage_out": True}),
        (999, 1001, 520, False, True, "bfloat16", "bfloat16",
         {"stage_out": True}),
        (1000, 1000, 1000, False, False, "float16", "float16",
         {"block_M": 128, "block_N": 256, "block_K": 64, "threads": 256,
          "stage_out": True}),
        (1000, 1000, 1000, False, False, "float16", "float16",
         {"stage_out": True}, ["--no-tma"]),
    ]
    for m, n, k, ta, tb, ind, outd, extra, *flags in gemm_cases:
        order = ("T" if ta else "N") + ("T" if tb else "N")
        name = f"mma_{ind}_{order}_{m}x{n}x{k}"
        if extra:
            name += "_" + "_".join(f"{key}{value}" for key, value in extra.items())
        defines = {"M": m, "N": n, "K": k, "trans_A": ta, "trans_B": tb,
                   "in_dtype": ind, "out_dtype": outd, **extra}
        macros = {"M": m, "N": n, "K": k, "TRANS_A": int(ta), "TRANS_B": int(tb),
                  "IN_KIND": {"float16": 0, "bfloat16": 1, "int8": 2,
                              "float32": 3, "float8_e4m3": 4,
                              "float8_e5m2": 5, "float8_e4m3fnuz": 6,
                              "float8_e5m2fnuz": 7}[ind],
                  "ACC_F16": int(extra.get("accum_dtype") == "float16"),
                  "OUT_KIND": {"float16": 0, "bfloat16": 1, "float32": 2,
                               "int32": 3}[outd]}
        tilec_flags = flags[0] if flags else []
        if tilec_flags:
            name += "_" + "_".join(f.lstrip("-").replace("-", "_")
                                   for f in tilec_flags)
        out.append((name, kernel("gemm"), defines, "MMA", macros,
                    tilec_flags, "gemm.cpp", ["-lcublas", "-lcudart"]))
    # One header for an older and a Hopper target, which launch the GEMM
    # differently (tensor maps, shared memory): the H200 takes the second.
    for archs in ["sm_80,sm_90a", "sm_80,sm_90"]:
        m, n, k = 1000, 1000, 1000
        out.append((f"multiarch_gemm_{archs.replace(',', '_')}", kernel("gemm"),
                    {"M": m, "N": n, "K": k}, "MMA",
                    {"M": m, "N": n, "K": k, "TRANS_A": 0, "TRANS_B": 0,
                     "IN_KIND": 0, "ACC_F16": 0, "OUT_KIND": 0},
                    ["--arch", archs], "gemm.cpp", ["-lcublas", "-lcudart"]))
    out.append(("atomic_region", kernel("atomic"), {}, "ATOMIC_REGION", {},
                ["--kernel", "atomic_region"]))
    out.append(("atomic_extrema_50x300", kernel("atomic"), {"M": 50, "N": 300},
                "ATOMIC_EXTREMA", {"M": 50, "N": 300},
                ["--kernel", "atomic_extrema"]))
    # Run-time while loops around a pipelined GEMM: tails in M, N and K,
    # then whole tiles, with and without TMA.
    for m, n, k, flags in [(200, 300, 520, []), (256, 256, 512, []),
                           (200, 300, 520, ["--no-tma"])]:
        name = f"streamk_while_{m}x{n}x{k}"
        if flags:
            name += "_no_tma"
        out.append((name, kernel("streamk"), {"M": m, "N": n, "K": k},
                    "STREAMK", {"M": m, "N": n, "K": k}, flags))
    for m, n in [(256, 256), (300, 200)]:
        out.append((f"threads2d_{m}x{n}", kernel("threads2d"),
                    {"M": m, "N": n}, "THREADS2D", {"M": m, "N": n}))
    # T.cumsum along and across rows, forward and reversed, over extents
    # that are not powers of two.
    for dim, reverse in [(1, False), (1, True), (0, False), (0, True)]:
        out.append((f"cumsum_dim{dim}{'_reverse' if reverse else ''}",
                    kernel("scan"),
                    {"M": 200, "N": 100, "dim": dim, "reverse": reverse},
                    "CUMSUM", {"M": 200, "N": 100, "CUMSUM_DIM": dim,
                               "CUMSUM_REVERSE": int(reverse)}))
    # Persistent GEMMs (T.Persistent): 7 resident blocks over 8x8 tiles in
    # groups of 3 columns (a ragged last group and last wave), and 5 over
    # 5x5 tiles with tails, in one group.
    gemm_macros = {"TRANS_A": 0, "TRANS_B": 0, "IN_KIND": 0, "ACC_F16": 0,
                   "OUT_KIND": 0}
    for m, n, k, waves, group in [(1000, 1000, 256, 7, 3),
                                  (600, 520, 200, 5, 8)]:
        out.append((f"persistent_gemm_{m}x{n}x{k}_w{waves}_g{group}",
                    kernel("persistent"),
                    {"M": m, "N": n, "K": k, "waves": waves,
                     "group_size": group},
                    "MMA", {"M": m, "N": n, "K": k, **gemm_macros},
                    [], "gemm.cpp", ["-lcublas", "-lcudart"]))
    # Code written from one thread's view of the block: thread, lane and
    # warp indices, T.vectorized, warp shuffles and explicit barriers.
    threads = kernel("thread_level")
    out.append(("warp_row_sums_1001x300", threads, {"M": 1001, "N": 300},
                "WARP_ROW_SUMS", {"M": 1001, "N": 300},
                ["--kernel", "warp_row_sums"]))
    out.append(("dequant_int4_200x320", threads, {"N": 200, "K": 320},
                "DEQUANT_INT4", {"N": 200, "K": 320},
                ["--kernel", "dequant_int4"]))
    out.append(("shuffle_modes_1000", threads, {"M": 1000},
                "SHUFFLE_MODES", {"M": 1000}, ["--kernel", "shuffle_modes"]))
    # Rows of 1024 and 4096 over 4 warps, and of 256 over one, with
    # TileLang's and TVM's shuffles.
    for m, n, t, tvm in [(37, 1024, 128, False), (5, 4096, 128, True),
                         (64, 256, 32, True)]:
        out.append((f"hadamard_{m}x{n}_t{t}{'_tvm' if tvm else ''}", threads,
                    {"M": m, "N": n, "threads": t, "tvm_spelling": tvm},
                    "HADAMARD", {"M": m, "N": n}, ["--kernel", "hadamard"]))
    # A named barrier among the first R threads and warp barriers among
    # the others, which run at the same time; rows shorter and longer
    # than the block.
    for m, n, r, t in [(7, 1000, 128, 256), (3, 100, 64, 128)]:
        out.append((f"partial_barriers_{m}x{n}_r{r}_t{t}", threads,
                    {"M": m, "N": n, "R": r, "threads": t},
                    "PARTIAL_BARRIERS", {"M": m, "N": n, "RADIX": r, "BLOCK_THREADS": t},
                    ["--kernel", "partial_barriers"]))
    # break and continue under run-time conditions, in a T.serial loop and
    # a while loop, one thread per row over rows that cut the block.
    out.append(("loop_exits_1000x300", threads, {"M": 1000, "N": 300},
                "LOOP_EXITS", {"M": 1000, "N": 300},
                ["--kernel", "loop_exits"]))
    # Atomic adds that return the count before them (return_prev=True)
    # and T.fill of one element of a shared buffer; the last block is cut.
    out.append(("compact_1000", threads, {"N": 1000}, "COMPACT", {"N": 1000},
                ["--kernel", "compact"]))
    # Convolution as an implicit GEMM over T.im2col tiles, with the filter
    # and the output seen as matrices through views: padding 1, and stride
    # and dilation 2 without padding; pixels, filters and the K * K * C
    # columns cut the tiles.
    for n, h, w, c, f, k, s, d, p in [(2, 15, 13, 40, 72, 3, 1, 1, 1),
                                      (3, 20, 17, 32, 64, 3, 2, 2, 0)]:
        out.append((f"conv2d_{n}x{h}x{w}x{c}_f{f}_k{k}_s{s}_d{d}_p{p}",
                    kernel("conv"),
                    {"N": n, "H": h, "W": w, "C": c, "F": f, "K": k,
                     "stride": s, "dilation": d, "pad": p},
                    "CONV2D", {"N": n, "CONV_H": h, "CONV_W": w, "CONV_C": c,
                               "CONV_F": f, "K": k, "CONV_STRIDE": s,
                               "CONV_DILATION": d, "CONV_PAD": p}))
    # Fragments whose uses need different layouts, converted through
    # shared memory, over shapes that cut the tiles.
    layouts = kernel("layouts")
    out.append(("layout_transpose_100x70", layouts, {"M": 100, "N": 70},
                "LAYOUT_TRANSPOSE", {"M": 100, "N": 70},
                ["--kernel", "transpose_fragment"]))
    out.append(("online_softmax_37x1000", layouts, {"M": 37, "N": 1000},
                "ONLINE_SOFTMAX", {"M": 37, "N": 1000},
                ["--kernel", "online_softmax"]))
    out.append(("int4_gemv_200x320", layouts, {"N": 200, "K": 320},
                "INT4_GEMV", {"N": 200, "K": 320}, ["--kernel", "int4_gemv"]))
    out.append(("topk_50x40_k6", layouts, {"M": 50, "E": 40, "k": 6},
                "TOPK", {"M": 50, "TOPK_E": 40, "TOPK_K": 6},
                ["--kernel", "topk_rows"]))
    out.append(("block_absmax_100x130", layouts, {"M": 100, "N": 130},
                "BLOCK_ABSMAX", {"M": 100, "N": 130},
                ["--kernel", "block_absmax"]))
    # MLA decode at DeepSeek's latent size, whose shared buffers fit sm_90a
    # only as the output tile reuses the bytes of Q's.
    mla = {"batch": 2, "heads": 64, "seqlen_kv": 256, "dim": 512,
           "pe_dim": 64, "block_N": 64}
    out.append(("mla_decode_512", os.path.join(ROOT, "test", "Corpus",
                                                "mla_decode.tile"),
                mla, "MLA_DECODE",
                {f"MLA_{k.upper()}": v for k, v in mla.items()
                 if k != "block_N"}))
    # Split-KV decode: a kernel function of two T.Kernel blocks (partial
    # attention per split, then their combination) behind one launch; a
    # split of 250 keys ends inside a key tile.
    splitkv = {"batch": 2, "heads": 16, "groups": 8, "seqlen_kv": 1000,
               "dim": 64, "num_split": 4}
    out.append(("splitkv_decode_1000", os.path.join(ROOT, "test", "Corpus",
                                                    "gqa_decode_splitkv.tile"),
                splitkv, "SPLITKV_DECODE",
                {f"SPLITKV_{k.upper()}": v for k, v in splitkv.items()}))
    # T.alloc_global buffers of two blocks, in a workspace allocated by the
    # launch and in one the caller gives.
    for m in (77, 1000):
        out.append((f"workspace_{m}", kernel("workspace"), {}, "WORKSPACE",
                    {"M": m}))
    out.append(("control", kernel("control"), {}, "CONTROL", {}))
    out.append(("control_fast_math", kernel("control"), {}, "CONTROL", {},
                ["--fast-math"]))
    return out


def is_amd(arch):
    return arch.startswith("gfx")


def selected(args, name, flags):
    """Whether the program `name`, compiled with `flags`, is for this run:
    it passes --filter, and on AMD it is not one for NVIDIA only."""
    if args.filter and not any(f in name for f in args.filter.split(",")):
        return False
    return not is_amd(args.arch) or not (
        "--arch" in flags or
        any(f in GPU_FLAGS and f not in AMD_FLAGS for f in flags))


def harness_command(args, header, kind, name, macros):
    """The C++ compiler's command for a test program of the GPU's header,
    up to its sources and libraries."""
    cmd = ["g++", "-std=c++17", "-O2", "-Wall", "-Wextra",
           "-I", os.path.join(HERE, "harness")]
    if is_amd(args.arch):
        cmd += ["-D__HIP_PLATFORM_AMD__", "-DTILEC_TEST_HIP",
                "-I", os.path.join(args.rocm_path, "include")]
    else:
        cmd += ["-I", os.path.join(args.cuda_path, "include")]
    cmd += ["-include", header, f"-DTEST_{kind}", f'-DTEST_NAME="{name}"']
    # Shape macros are prefixed: cuda.h uses M and N as parameter names.
    cmd += [f"-D{'TEST_' + k if k in 'MNK' else k}={v}"
            for k, v in macros.items()]
    return cmd


def gpu_libraries(args, libs):
    if is_amd(args.arch):
        lib = os.path.join(args.rocm_path, "lib")
        return ["-L", lib, "-lamdhip64", "-lpthread", "-Wl,-rpath," + lib]
    lib = os.path.join(args.cuda_path, "lib64")
    return ["-L", lib, "-L", lib + "/stubs", "-lcuda", "-lpthread", *libs,
            "-Wl,-rpath," + lib]


def build(args):
    os.makedirs(args.out, exist_ok=True)
    host_out = os.path.join(args.out, "host")
    os.makedirs(host_out, exist_ok=True)
    binary = ".hsaco" if is_amd(args.arch) else ".cubin"
    manifest = []
    compiled = {}
    for name, source, defines, test_kind, macros, *rest in configs():
        flags = rest[0] if rest else []
        harness = rest[1] if len(rest) > 1 else "harness.cpp"
        libs = rest[2] if len(rest) > 2 else []
        if not selected(args, name, flags):
            continue
        key = (source, tuple(sorted(defines.items())), tuple(flags))
        if key not in compiled:
            base = os.path.join(args.out, name)
            if "--arch" in flags:
                # Several targets: one header embedding them all.
                cmd = [args.tilec, source, "-o", base + ".h", *flags]
            else:
                cmd = [args.tilec, source, "--arch", args.arch, "-o",
                       base + binary, *flags]
            for k, v in defines.items():
                cmd += ["-D", f"{k}={v}"]
            start = time.perf_counter()
            result = subprocess.run(cmd, capture_output=True, text=True)
            seconds = time.perf_counter() - start
            if (result.returncode != 0 and is_amd(args.arch) and
                    "bytes of shared memory; " in result.stderr):
                # The Hopper configurations' tiles outgrow 64 KiB of LDS.
                print(f"skipped {name}: its tiles do not fit the LDS")
                continue
            if result.returncode != 0:
                print(f"BUILD FAIL {name}: {' '.join(cmd)}\n{result.stderr}")
                return 1
            compiled[key] = (base + ".h", seconds)
        header, seconds = compiled[key]
        exe = os.path.join(args.out, name)
        cmd = harness_command(args, header, test_kind, name, macros)
        cmd += [os.path.join(HERE, "harness", harness), "-o", exe,
                *gpu_libraries(args, libs)]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            print(f"BUILD FAIL {name}: {' '.join(cmd)}\n{result.stderr}")
            return 1
        entry = {"name": name, "exe": os.path.basename(exe),
                 "compile_seconds": round(seconds, 3)}
        # The same program for the host target, to run first on the same
        # inputs (differential testing).
        work = host_work(test_kind, macros)
        if args.differential and work is not None and work <= args.max_work:
            twin = build_host_program(
                argparse.Namespace(out=host_out, tilec=args.tilec,
                                   cxx=args.cxx),
                name, source, defines, test_kind, macros, flags, harness)
            if twin is None:
                return 1
            entry["host_exe"] = os.path.relpath(twin, args.out)
        manifest.append(entry)
        print(f"built {name} (tilec {seconds:.2f} s)")
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    return 0


def verify(args):
    """Runs tilec --verify-only on each distinct configuration and prints
    the verifiers' summary per program: accesses proved in bounds (and
    guarded), writes proved free of races (and not), accesses proved
    aligned (and lowered or not proved)."""
    import re
    seen = set()
    totals = {}
    failed = 0
    for name, source, defines, _, _, *rest in configs():
        flags = [f for f in (rest[0] if rest else []) if f != "--kernel"]
        if "--arch" in flags:
            flags = flags[:flags.index("--arch")]
        key = (source, tuple(sorted(defines.items())), tuple(flags))
        if key in seen or (args.filter and not any(
                f in name for f in args.filter.split(","))):
            continue
        seen.add(key)
        cmd = [args.tilec, source, "--arch", args.arch, "--verify-only", *flags]
        for k, v in defines.items():
            cmd += ["-D", f"{k}={v}"]
        result = subprocess.run(cmd, capture_output=True, text=True)
        counts = {}
        patterns = {
            "bounds": r"memory accesses: (\d+) proved, (\d+) guarded",
            "races": r"writes: (\d+) proved free, (\d+) not proved",
            "alignment": r"ldmatrix accesses: (\d+) proved, (\d+) lowered, "
                         r"(\d+) not proved",
        }
        for line in result.stderr.splitlines():
            for kind, pattern in patterns.items():
                match = re.search(pattern, line)
                if match:
                    pair = counts.setdefault(kind, [0, 0])
                    pair[0] += int(match.group(1))
                    pair[1] += sum(int(g) for g in match.groups()[1:])
        if result.returncode != 0:
            failed += 1
            print(f"FAIL {name}:\n{result.stderr}")
            continue
        cells = [f"{kind} {p}/{p + u}" for kind, (p, u) in sorted(counts.items())]
        print(f"{name}: " + ", ".join(cells))
        for kind, (p, u) in counts.items():
            total = totals.setdefault(kind, [0, 0])
            total[0] += p
            total[1] += u
    print("total: " + ", ".join(f"{kind} {p} proved, {u} not"
                                for kind, (p, u) in sorted(totals.items())))
    return 1 if failed else 0


# GPU-only flags: the host target compiles the same kernel without them.
GPU_FLAGS = {"--no-tma", "--no-wgmma", "--no-warp-specialize",
             "--no-cp-async"}
# What AMD targets do anyway: the programs with them run there too.
AMD_FLAGS = {"--no-cp-async"}


def host_work(kind, macros):
    """The multiply-adds a program's kernel and float64 reference do, or
    None for programs the host target does not run: headers for several
    GPUs."""
    if kind == "MULTIARCH":
        return None
    if kind in ("MMA", "GEMM"):
        return macros["M"] * macros["N"] * macros["K"]
    if kind == "FLASH":
        return (macros["TEST_BATCH"] * macros["TEST_HEADS"] * macros["TEST_SEQ"]
                * macros["TEST_SEQ_KV"] * macros["TEST_DIM"])
    if kind in ("ADD", "REDUCE", "RMSNORM", "SOFTMAX"):
        return macros["M"] * macros["N"]
    return 1


def build_host_program(args, name, source, defines, kind, macros, flags,
                       harness):
    """Compiles one program of the suite for the host target into
    args.out: tilec --target host makes the kernel's object file and header,
    and the harness is built against them. Returns the program's path, or
    None after printing why it failed."""
    flags = [f for f in flags if f not in GPU_FLAGS]
    base = os.path.join(args.out, name)
    cmd = [args.tilec, source, "--target", "host", "-o", base + ".o", *flags]
    for k, v in defines.items():
        cmd += ["-D", f"{k}={v}"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"FAIL {name}: {' '.join(cmd)}\n{result.stderr}")
        return None
    cmd = [args.cxx, "-std=c++17", "-O1", "-Wall", "-Wextra",
           "-DTILEC_TEST_HOST", "-I", os.path.join(HERE, "harness"),
           "-include", base + ".h", f"-DTEST_{kind}", f'-DTEST_NAME="{name}"']
    cmd += [f"-D{'TEST_' + k if k in 'MNK' else k}={v}"
            for k, v in macros.items()]
    cmd += [os.path.join(HERE, "harness", harness), base + ".o", "-o", base,
            "-lm"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"FAIL {name}: {' '.join(cmd)}\n{result.stderr}")
        return None
    return base


def host(args):
    """Builds the suite's programs small enough for a CPU against the host
    target (tilec --target host: an object file and its header) and runs
    them, here."""
    os.makedirs(args.out, exist_ok=True)
    seen = set()
    failed = 0
    count = 0
    for name, source, defines, kind, macros, *rest in configs():
        flags = [f for f in (rest[0] if rest else []) if f not in GPU_FLAGS]
        harness = rest[1] if len(rest) > 1 else "harness.cpp"
        work = host_work(kind, macros)
        if work is None or work > args.max_work:
            continue
        if args.filter and not any(f in name for f in args.filter.split(",")):
            continue
        key = (source, tuple(sorted(defines.items())), tuple(flags))
        if key in seen:
            continue
        seen.add(key)
        count += 1
        exe = build_host_program(args, name, source, defines, kind, macros,
                                 flags, harness)
        if exe is None:
            failed += 1
            continue
        try:
            result = subprocess.run([exe], capture_output=True, text=True,
                                    timeout=args.timeout)
            output, code = result.stdout + result.stderr, result.returncode
        except subprocess.TimeoutExpired:
            output, code = f"TIMEOUT {name}\n", -1
        sys.stdout.write(output)
        if code != 0:
            failed += 1
            if "FAIL" not in output:
                print(f"FAIL {name}: exit code {code}")
    print(f"{count - failed} of {count} host programs passed")
    return 1 if failed else 0


def have_gpu(arch):
    if is_amd(arch):
        # The kernel driver's device, which HIP opens.
        return os.path.exists("/dev/kfd")
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    return subprocess.run([smi, "-L"], capture_output=True).returncode == 0


def run(args):
    if not have_gpu(args.arch):
        vendor = "AMD" if is_amd(args.arch) else "NVIDIA"
        print(f"SKIP: no {vendor} GPU here; the GPU tests did not run")
        return 0
    if args.sanitize and is_amd(args.arch):
        print("run.py: --sanitize runs compute-sanitizer, which is NVIDIA's",
              file=sys.stderr)
        return 2
    with open(os.path.join(args.out, "manifest.json")) as f:
        manifest = json.load(f)
    if args.filter:
        manifest = [e for e in manifest
                    if any(f in e["name"] for f in args.filter.split(","))]
    failed = 0
    lines = []
    for entry in manifest:
        exe = os.path.join(args.out, entry["exe"])
        cmd = [exe]
        if args.sanitize:
            cmd = ["compute-sanitizer", "--error-exitcode", "3",
                   "--tool", "memcheck", exe]
        env = dict(os.environ)
        env.setdefault("TILEC_TEST_SEED", str(random.getrandbits(32)))
        record = None
        if entry.get("host_exe") and not args.sanitize:
            # The host target's result on the same inputs, which the GPU's
            # must agree with.
            record = os.path.join(args.out, entry["exe"] + ".host-record")
            try:
                result = subprocess.run(
                    [os.path.join(args.out, entry["host_exe"])],
                    capture_output=True, text=True, timeout=args.timeout,
                    env={**env, "TILEC_TEST_RECORD": record})
                host_output = result.stdout + result.stderr
                host_code = result.returncode
            except subprocess.TimeoutExpired:
                host_output, host_code = "TIMEOUT", -1
            if host_code != 0:
                msg = (f"FAIL {entry['name']}: the host target's run failed\n"
                       + "".join("  " + line + "\n"
                                 for line in host_output.splitlines()))
                sys.stdout.write(msg)
                lines.append(msg)
                failed += 1
                continue
            env["TILEC_TEST_AGAINST"] = record
        try:
            result = subprocess.run(cmd, capture_output=True, text=True,
                                    timeout=args.timeout, env=env)
            output = result.stdout + result.stderr
            code = result.returncode
        except subprocess.TimeoutExpired:
            output, code = f"TIMEOUT {entry['name']}\n", -1
        if record and os.path.exists(record):
            os.remove(record)
        sys.stdout.write(output)
        lines.append(output)
        if code != 0:
            failed += 1
            if "FAIL" not in output:
                msg = f"FAIL {entry['name']}: exit code {code}\n"
                sys.stdout.write(msg)
                lines.append(msg)
    summary = f"{len(manifest) - failed} of {len(manifest)} programs passed\n"
    sys.stdout.write(summary)
    if args.log:
        with open(args.log, "w") as f:
            f.writelines(lines + [summary])
    return 1 if failed else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", nargs="?",
                        choices=["all", "build", "run", "verify", "host"],
                        default="all")
    parser.add_argument("--out", default=os.path.join(ROOT, "build", "gpu-tests"))
    parser.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin", "tilec"))
    parser.add_argument("--arch", default="sm_90a",
                        help="the GPU: an NVIDIA sm_ or an AMD gfx target")
    parser.add_argument("--cuda-path",
                        default=os.environ.get("CUDA_PATH", "/usr/local/cuda"))
    parser.add_argument("--rocm-path",
                        default=os.environ.get("ROCM_PATH", "/opt/rocm"),
                        help="for AMD: where HIP's include/ and lib/ are "
                             "(Debian's packages put them in /usr)")
    parser.add_argument("--sanitize", action="store_true",
                        help="run each program under compute-sanitizer memcheck")
    parser.add_argument("--log", help="also write the results to this file")
    parser.add_argument("--timeout", type=int, default=300,
                        help="seconds a program may run before it counts as "
                             "hung (a failure)")
    parser.add_argument("--filter",
                        help="build and run only the programs whose names "
                             "contain one of these comma-separated strings")
    parser.add_argument("--cxx", default=os.environ.get("CXX", "c++"),
                        help="the C++ compiler of the host programs")
    parser.add_argument("--max-work", type=float, default=2 ** 28,
                        help="host, and the host twins of build: leave out "
                             "programs whose kernel does more multiply-adds "
                             "than this")
    parser.add_argument("--no-differential", dest="differential",
                        action="store_false",
                        help="build: no host-target twins, so run compares "
                             "with the references only")
    args = parser.parse_args()
    if args.step == "host":
        if args.out == parser.get_default("out"):
            args.out = os.path.join(ROOT, "build", "host-tests")
        return host(args)
    if args.step == "verify":
        return verify(args)
    if args.step in ("all", "build"):
        code = build(args)
        if code or args.step == "build":
            return code
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
