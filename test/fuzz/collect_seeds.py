#!/usr/bin/env python3
"""Writes tilec-fuzz's seed corpus: the examples and GPU-suite kernels with
the -D values they need on their first line (see tools/tilec-fuzz), and each
part of every .tile input of the lit suite."""

import argparse
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]

# File -> option lines, one seed each. Small problems keep each run fast.
PARAMETERIZED = {
    "examples/elementwise_add.tile": ["-D M=256 -D N=256", "-D M=100 -D N=300 --arch gfx942",
                                      "-D M=100 -D N=300 --target host"],
    "examples/gemm.tile": [
        "-D M=256 -D N=256 -D K=256",
        "-D M=200 -D N=136 -D K=72 -D dtype=bfloat16 --arch sm_80",
        "-D M=256 -D N=256 -D K=256 --arch gfx942",
        "-D M=200 -D N=136 -D K=72 --target host",
    ],
    "examples/gemm_tn_swizzle.tile": [""],
    "examples/rms_norm.tile": ["-D M=64 -D N=1024", "-D M=64 -D N=1000 --arch gfx90a"],
    "examples/softmax.tile": ["-D M=64 -D N=1024", "-D M=7 -D N=100 --target host"],
    "examples/flash_attention.tile": [
        "-D batch=1 -D heads=2 -D seq_len=256 -D dim=64 -D is_causal=True",
        "-D batch=1 -D heads=2 -D seq_len=200 -D dim=128 -D is_causal=False -D layout=bhsd",
        "-D batch=1 -D heads=1 -D seq_len=100 -D dim=64 -D is_causal=True --target host",
    ],
    "test/gpu/kernels/control.tile": [""],
    "test/gpu/kernels/convert.tile": ["", "-D dtype=float8_e5m2 --target host"],
    "test/gpu/kernels/copy.tile": ["", "--target host"],
    "test/gpu/kernels/gemm.tile": [
        "-D M=128 -D N=128 -D K=64",
        "-D M=100 -D N=72 -D K=40 -D trans_A=True -D in_dtype=int8 -D accum_dtype=int32",
    ],
    "test/gpu/kernels/reduce.tile": ["-D M=64 -D N=500", "-D M=64 -D N=512 -D kind=max"],
}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=pathlib.Path, help="directory to write")
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    count = 0

    def write(name, text):
        nonlocal count
        (out / name).write_text(text)
        count += 1

    for path, option_lines in PARAMETERIZED.items():
        source = (ROOT / path).read_text()
        stem = path.replace("/", "_").removesuffix(".tile")
        for i, options in enumerate(option_lines):
            write(f"{stem}-{i}.tile", f"# {options}\n{source}" if options else source)
    for path in sorted((ROOT / "test").rglob("*.tile")):
        if "gpu" in path.relative_to(ROOT / "test").parts:
            continue
        stem = str(path.relative_to(ROOT)).replace("/", "_").removesuffix(".tile")
        for i, part in enumerate(path.read_text().split("# -----")):
            write(f"{stem}-{i}.tile", part)
    print(f"collect_seeds.py: wrote {count} seeds to {out}")


if __name__ == "__main__":
    main()
