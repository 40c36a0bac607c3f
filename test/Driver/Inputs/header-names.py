#!/usr/bin/env python3
"""The names a tilec header's parameters cannot keep, as the installed
headers define them, and the check that a header renames them.

header-names.py list [--cuda-include DIR] [--hip]
    Prints each macro, type, enumerator and variable that the headers a
    tilec header includes (<stddef.h>, <stdint.h>, <stdbool.h>, <string.h>,
    <pthread.h>, cuda.h or hip/hip_runtime_api.h), and <stdio.h> and
    <stdlib.h>, define in C99, GNU C, C++17 and GNU C++ modes, one a line.
    Macros come from `cc -dM -E` and `c++ -dM -E`, the rest from clang's
    AST (left out, with a note, without clang). Functions are left out: a
    parameter may hide one, as the launch functions call none of them.
header-names.py tile NAMES
    Writes a .tile file whose kernels take a scalar parameter of each name
    in the file NAMES that can name a .tile parameter.
header-names.py check HEADER NAMES
    Fails, listing them, if a launch or run function of HEADER has a
    parameter whose C name is in NAMES.
"""

import argparse
import json
import keyword
import re
import shutil
import subprocess
import sys

INCLUDES = ["stddef.h", "stdint.h", "stdbool.h", "string.h", "stdio.h",
            "stdlib.h", "pthread.h"]
MODES = [("c", "c99"), ("c", "gnu99"), ("c++", "c++17"), ("c++", "gnu++17")]


def source(runtime_header):
    return "".join(f"#include <{h}>\n" for h in INCLUDES + [runtime_header])


def macros(flags, text):
    names = set()
    for language, std in MODES:
        compiler = "cc" if language == "c" else "c++"
        out = subprocess.run([compiler, "-x", language, f"-std={std}", *flags,
                              "-dM", "-E", "-"], input=text, text=True,
                             capture_output=True, check=True).stdout
        for line in out.splitlines():
            match = re.match(r"#define (\w+)", line)
            if match:
                names.add(match.group(1))
    return names


def declarations(node, names):
    for decl in node.get("inner", []):
        kind = decl.get("kind")
        if kind == "LinkageSpecDecl":
            declarations(decl, names)
        elif kind == "EnumDecl":
            for constant in decl.get("inner", []):
                if constant.get("kind") == "EnumConstantDecl":
                    names.add(constant["name"])
        elif kind in ("TypedefDecl", "TypeAliasDecl", "VarDecl") and decl.get("name"):
            names.add(decl["name"])


def identifiers(clang, flags, text):
    names = set()
    for language, std in MODES:
        out = subprocess.run([clang, "-x", language, f"-std={std}", *flags,
                              "-fsyntax-only", "-Xclang", "-ast-dump=json",
                              "-"], input=text, text=True,
                             capture_output=True, check=True).stdout
        declarations(json.loads(out), names)
    return names


def list_names(args):
    runtimes = []
    if args.cuda_include:
        runtimes.append((["-isystem", args.cuda_include], "cuda.h"))
    if args.hip:
        runtimes.append((["-D__HIP_PLATFORM_AMD__"], "hip/hip_runtime_api.h"))
    if not runtimes:
        runtimes.append(([], "stddef.h"))
    clang = shutil.which("clang")
    if not clang:
        print("header-names.py: no clang: listing macros only", file=sys.stderr)
    names = set()
    for flags, header in runtimes:
        text = source(header)
        names |= macros(flags, text)
        if clang:
            names |= identifiers(clang, flags, text)
    for name in sorted(names):
        print(name)


def write_tile(args):
    names = [n for n in open(args.names).read().split()
             if n.isidentifier() and not keyword.iskeyword(n) and n != "T"]
    print("import tilelang.language as T\n")
    per_kernel = 100
    for k in range(0, len(names), per_kernel):
        params = "".join(f",\n        {n}: T.int32" for n in names[k:k + per_kernel])
        print(f"""
@T.prim_func
def names_{k // per_kernel}(tilec_out: T.Tensor((32,), "float32"){params}):
    with T.Kernel({names[k]}, threads=32) as bx:
        for i in T.Parallel(32):
            tilec_out[i] = 1.0
""")


def check(args):
    names = set(open(args.names).read().split())
    header = open(args.header).read()
    signatures = re.findall(r"static inline \w+ \w+_(?:launch|run)\((.*?)\) \{",
                            header, re.S)
    kept = []
    for signature in signatures:
        for declaration in signature.split(","):
            words = re.findall(r"\w+", declaration)
            if words and words[-1] in names:
                kept.append(words[-1])
    if not signatures:
        sys.exit(f"header-names.py: no launch or run function in {args.header}")
    if kept:
        sys.exit("header-names.py: parameters keep names the headers define: " +
                 " ".join(sorted(set(kept))))
    print(f"{len(signatures)} functions checked")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    listing = commands.add_parser("list")
    listing.add_argument("--cuda-include")
    listing.add_argument("--hip", action="store_true")
    listing.set_defaults(run=list_names)
    tile = commands.add_parser("tile")
    tile.add_argument("names")
    tile.set_defaults(run=write_tile)
    checking = commands.add_parser("check")
    checking.add_argument("header")
    checking.add_argument("names")
    checking.set_defaults(run=check)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
