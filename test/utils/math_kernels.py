#!/usr/bin/env python3
"""math_kernels.py DTYPE: prints a .tile file with one kernel per math
builtin of the language (and the reductions built on them) over DTYPE, for
the tests that compile every builtin for every element type and target."""

import sys

UNARY = ["abs", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sigmoid",
         "tanh", "floor", "ceil"]
BINARY = ["max", "min"]
REDUCTIONS = ["reduce_max", "reduce_min", "reduce_sum", "reduce_abssum",
              "reduce_absmax"]

dtype = sys.argv[1]
print("import tilelang.language as T")
for name in UNARY + BINARY:
    call = f"T.{name}(A[i])" if name in UNARY else f"T.{name}(A[i], B[i])"
    print(f'''

@T.prim_func
def {name}_{dtype}(A: T.Tensor((256,), "{dtype}"), B: T.Tensor((256,), "{dtype}")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.Parallel(256):
            B[i] = {call}''')
for name in REDUCTIONS:
    print(f'''

@T.prim_func
def {name}_{dtype}(A: T.Tensor((4, 64), "{dtype}"), B: T.Tensor((4,), "{dtype}")):
    with T.Kernel(1, threads=128) as bx:
        tile = T.alloc_fragment((4, 64), "{dtype}")
        result = T.alloc_fragment((4,), "{dtype}")
        T.copy(A, tile)
        T.{name}(tile, result, dim=1)
        T.copy(result, B)''')
