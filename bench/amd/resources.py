#!/usr/bin/env python3
"""The examples compiled for AMD's CDNA chips (gfx90a, gfx942), and what
each kernel uses: registers, spills, LDS, MFMA instructions.

No AMD GPU is needed: the hsaco code objects are read with llvm-readobj
(the kernels' metadata) and llvm-objdump (their instructions). With
--check, the run fails unless every kernel exists, spills nothing, stays
within the chip's 512 vector registers per lane and 64 KiB of LDS, and the
GEMMs and FlashAttention run on the matrix cores. With --out, the table is
written as Markdown, stamped with the date and commit.

    python3 bench/amd/resources.py --check --out bench/results/DATE-amd-resources.md
"""

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import ROOT, describe_commit  # noqa: E402

ARCHS = ["gfx90a", "gfx942"]
VGPR_LIMIT = 512  # VGPRs and AGPRs of one lane, together (CDNA2, CDNA3)
LDS_LIMIT = 64 * 1024

# (name, example, -D values, kernel, whether its gemms run on MFMA: True,
# False, or the chips where they do)
CONFIGS = [
    ("elementwise_add", "elementwise_add.tile", ["M=4096", "N=4096"],
     "elementwise_add", False),
    ("gemm f16", "gemm.tile", ["M=4096", "N=4096", "K=4096"], "matmul", True),
    ("gemm bf16", "gemm.tile", ["M=4096", "N=4096", "K=4096",
                                "dtype=bfloat16"], "matmul", True),
    ("gemm 64x64 tiles", "gemm.tile", ["M=1000", "N=1000", "K=1000",
                                       "block_M=64", "block_N=64"],
     "matmul", True),
    ("gemm fp8 e4m3fnuz", "gemm.tile", ["M=4096", "N=4096", "K=4096",
                                        "block_K=32",
                                        "dtype=float8_e4m3fnuz"],
     "matmul", ("gfx942",)),
    ("gemm_tn_swizzle", "gemm_tn_swizzle.tile", [], "gemm_tn", True),
    ("rms_norm", "rms_norm.tile", ["M=8192", "N=4096"], "rms_norm", False),
    ("softmax", "softmax.tile", ["M=8192", "N=4096"], "softmax", False),
    ("flash_attention d64", "flash_attention.tile",
     ["batch=1", "heads=8", "seq_len=4096", "dim=64", "is_causal=False"],
     "flashattn", True),
    ("flash_attention d128 causal", "flash_attention.tile",
     ["batch=1", "heads=8", "seq_len=4096", "dim=128", "is_causal=True"],
     "flashattn", True),
    ("flash_attention d64 bf16 bhsd", "flash_attention.tile",
     ["batch=1", "heads=8", "seq_len=1000", "dim=64", "is_causal=True",
      "dtype=bfloat16", "layout=bhsd"], "flashattn", True),
]


def find_tool(name, explicit):
    # LLVM 22's: older ones do not know gfx942.
    for candidate in [explicit, "/usr/lib/llvm-22/bin/" + name,
                      shutil.which(name + "-22")]:
        if candidate and os.path.exists(candidate):
            return candidate
    sys.exit(f"resources.py: no {name} of LLVM 22; give it with "
             f"--{name.split('-')[1]}")


def kernel_metadata(readobj, hsaco):
    """The kernels' metadata notes: {name: {key: value}}."""
    notes = subprocess.run([readobj, "--notes", hsaco], check=True,
                           capture_output=True, text=True).stdout
    kernels, current = {}, None
    for line in notes.splitlines():
        match = re.match(r"\s*(-\s+)?\.([a-z_]+):\s+(\S+)$", line)
        if not match:
            continue
        if match.group(1) and current is not None and current.get("name"):
            current = None
        if current is None:
            current = {}
        key, value = match.group(2), match.group(3)
        current[key] = value
        if key == "name":
            kernels[value] = current
    return kernels


def count_mfma(objdump, hsaco, arch):
    text = subprocess.run([objdump, "-d", f"--mcpu={arch}", hsaco],
                          check=True, capture_output=True, text=True).stdout
    return len(re.findall(r"^\s+v_mfma_\w+", text, re.MULTILINE))


def shared_bytes(header):
    with open(header) as f:
        match = re.search(r"_SHARED_MEMORY_BYTES (\d+)", f.read())
    return int(match.group(1)) if match else 0


def waves_per_simd(registers):
    """Waves of this kernel one SIMD holds, as its registers allow."""
    granule = 8
    used = max(granule, -(-registers // granule) * granule)
    return min(8, VGPR_LIMIT // used)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tilec", default=os.path.join(ROOT, "build", "bin",
                                                        "tilec"))
    parser.add_argument("--readobj")
    parser.add_argument("--objdump")
    parser.add_argument("--work", help="directory for the code objects")
    parser.add_argument("--out", help="write the table here (Markdown)")
    parser.add_argument("--check", action="store_true",
                        help="fail unless every kernel is within limits")
    args = parser.parse_args()
    readobj = find_tool("llvm-readobj", args.readobj)
    objdump = find_tool("llvm-objdump", args.objdump)
    work = args.work or tempfile.mkdtemp(prefix="tilec-amd-")
    os.makedirs(work, exist_ok=True)

    rows, problems = [], []
    for name, example, defines, kernel, mfma_on in CONFIGS:
        for arch in ARCHS:
            mfma = (arch in mfma_on if isinstance(mfma_on, tuple)
                    else mfma_on)
            stem = os.path.join(work, re.sub(r"\W+", "_", name) + "_" + arch)
            cmd = [args.tilec, os.path.join(ROOT, "examples", example),
                   "--arch", arch, "-o", stem + ".hsaco"]
            for define in defines:
                cmd += ["-D", define]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                problems.append(f"{name} {arch}: tilec failed:\n{run.stderr}")
                continue
            meta = kernel_metadata(readobj, stem + ".hsaco").get(kernel)
            if meta is None:
                problems.append(f"{name} {arch}: no kernel '{kernel}'")
                continue
            vgpr, agpr = int(meta["vgpr_count"]), int(meta.get("agpr_count", 0))
            spills = int(meta["vgpr_spill_count"]) + int(meta["sgpr_spill_count"])
            scratch = int(meta["private_segment_fixed_size"])
            lds = (int(meta["group_segment_fixed_size"]) +
                   shared_bytes(stem + ".h"))
            mfmas = count_mfma(objdump, stem + ".hsaco", arch)
            rows.append((name, arch, vgpr, agpr, int(meta["sgpr_count"]),
                         spills, scratch, lds, mfmas,
                         waves_per_simd(vgpr + agpr)))
            where = f"{name} {arch}"
            if spills or scratch:
                problems.append(f"{where}: {spills} registers spilled, "
                                f"{scratch} bytes of scratch")
            if vgpr + agpr > VGPR_LIMIT:
                problems.append(f"{where}: {vgpr + agpr} vector registers")
            if lds > LDS_LIMIT:
                problems.append(f"{where}: {lds} bytes of LDS")
            if mfma and not mfmas:
                problems.append(f"{where}: no v_mfma instruction")
            if not mfma and mfmas:
                problems.append(f"{where}: unexpected v_mfma instructions")

    header = ("| kernel | chip | VGPRs | AGPRs | SGPRs | spills | scratch B "
              "| LDS B | v_mfma | waves/SIMD |")
    lines = [header, "|" + "---|" * 10]
    for row in rows:
        lines.append("| " + " | ".join(str(x) for x in row) + " |")
    table = "\n".join(lines)
    print(table)
    for problem in problems:
        print("problem: " + problem)
    if args.out:
        with open(args.out, "w") as f:
            f.write(f"# AMD resources of the examples\n\n"
                    f"date: {datetime.date.today()}, commit: "
                    f"{describe_commit()}, tilec compiled here (no AMD GPU): "
                    f"llvm-readobj notes and llvm-objdump of each hsaco\n\n"
                    f"v_mfma counts the instructions in the code, not the "
                    f"ones executed; waves/SIMD is the occupancy the vector "
                    f"registers allow (512 per lane, granules of 8).\n\n"
                    f"{table}\n")
    if args.check:
        if problems:
            return 1
        print(f"ok: {len(rows)} kernels within limits")
    return 0


if __name__ == "__main__":
    sys.exit(main())
