#!/usr/bin/env python3
#===- random_kernels.py - Random .tile kernels that tilec should accept ----===#
"""Writes a random .tile file that tilec should accept, csmith-style.

    random_kernels.py SEED [-o FILE] [--target ARCH] [--known-bugs]

Each seed gives one file, always the same: one to three kernels built from
element-wise sections (through fragments, shared memory or global memory
directly, guarded where tiles run past the tensors), reductions, gemms
(shared operands, or A from a previous gemm's accumulator), serial,
pipelined and unrolled loops, scalar variables, local tables, atomic adds
and run-time conditions, over random shapes (tails included), dtypes,
block sizes, scalar parameters and T.dynamic extents, with names that
C or C++ take now and then. Everything stays inside the limits of
docs/robustness.md, so that each kernel should compile, in well under a
second. The first line holds tilec's options (a random target, output kind
and flags, and -D values for kernel factories), in the form tilec-fuzz
reads: run `tilec FILE $(head -1 FILE | cut -c3-)` in an empty folder.
--target replaces the target the seed draws; --known-bugs also writes what
KNOWN_BUGS lists. test/fuzz/check_random_kernels.py compiles the files and
checks the results.
"""

import argparse
import random
import re
import sys

# Python keywords and names the generated code itself needs.
RESERVED = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break",
    "class", "continue", "def", "del", "elif", "else", "except", "finally",
    "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal",
    "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
    "T", "tilelang", "make_swizzled_layout", "print", "match", "case", "type",
    "range",
}

# Names that C, C++, the C library, the CUDA and HIP headers or tilec's
# headers take; the header must rename them (docs/abi.md, "Names").
ODD_NAMES = [
    "int", "float", "double", "char", "auto", "default", "do", "switch",
    "struct", "union", "typedef", "void", "volatile", "register", "restrict",
    "inline", "signed", "unsigned", "sizeof", "goto", "static", "extern",
    "const", "long", "short", "enum", "new", "delete", "this", "template",
    "typename", "namespace", "operator", "private", "public", "virtual", "bool",
    "true", "false", "nullptr", "xor", "bitand", "compl", "typeof", "asm",
    "int64_t", "int32_t", "uint8_t", "size_t", "uintptr_t", "INT64_C",
    "SIZE_MAX", "INT32_MAX", "NULL", "EOF", "errno", "stdin", "offsetof",
    "assert", "NDEBUG", "linux", "unix", "_Pragma", "__LINE__", "__func__",
    "__FILE__", "_Bool", "__cplusplus", "a__b", "_X", "CUDA_VERSION",
    "CUstream", "CUresult", "CUdeviceptr", "CUfunction", "cuLaunchKernel",
    "CU_LAUNCH_PARAM_END", "CUDA_SUCCESS", "hipSuccess", "hipError_t",
    "hipStream_t", "HIP_VERSION", "stream", "grid", "dims", "args", "err",
    "function", "min", "max", "abs", "k", "K", "main", "launch", "run",
    "kernel", "OUT", "TILEC_HOST_SUCCESS", "size", "shape", "dtype", "i_",
    "x__", "_", "__", "M", "N", "len", "float_", "int_", "exp", "WARP_SZ",
    "__nv_expf",
]
PLAIN_NAMES = [
    "A", "B", "C", "D", "X", "Y", "Z", "W", "Q", "V", "out", "inp", "src",
    "dst", "acc", "bias", "scale", "alpha", "beta", "gamma", "x", "y", "z",
    "rows", "cols", "table", "weights", "lhs", "rhs", "res", "data",
]
KERNEL_NAMES = [
    "main", "kernel", "k", "K", "fused", "step", "add", "gemm", "reduce",
    "copy", "softmax_like", "epilogue", "mix", "stage2", "body",
]
DYNAMIC_NAMES = [
    "m", "n", "len", "rows", "cols", "batch", "seq", "count", "n_", "N2",
    "int", "NULL", "class", "if", "stream", "SIZE_MAX", "__LINE__", "float_",
    "k", "grid", "min", "size_t", "CUstream", "_Pragma",
]
OUTPUT_STEMS = ["kernel", "k", "out", "int", "my-kernel", "1st", "a.b", "NULL",
                "gemm", "tilec", "K"]

FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64", "float8_e4m3",
                "float8_e5m2"]
INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"]
# Weighted: the common ones most often.
ELEMENT_DTYPES = (["float32"] * 6 + ["float16"] * 4 + ["bfloat16"] * 3 +
                  ["int32"] * 3 + ["int8"] * 2 + ["float8_e4m3"] * 2 +
                  ["float8_e5m2", "float64", "uint8", "int16", "int64",
                   "uint32", "uint16", "half", "float", "float8_e4m3fn",
                   "float8_e4m3fnuz", "float8_e5m2fnuz", "e4m3_float8", "double",
                   "int"])
# Narrower than a byte: read and written element by element.
SUBBYTE_DTYPES = ["bool", "int4"]
ACCUM_DTYPES = ["float32"] * 5 + ["float16", "bfloat16", "int32", "float64"]
SCALAR_DTYPES = ["int32", "int32", "int64", "float32", "float32", "float64",
                 "float16", "uint32", "int8", "bfloat16"]
BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "int8": 1,
         "int16": 2, "int32": 4, "int64": 8, "uint8": 1, "uint16": 2,
         "uint32": 4, "float8_e4m3": 1, "float8_e5m2": 1, "half": 2,
         "float": 4, "float8_e4m3fn": 1, "float8_e4m3fnuz": 1,
         "float8_e5m2fnuz": 1, "bool": 1, "int4": 1, "e4m3_float8": 1,
         "double": 8, "int": 4}

# What tilec is known to get wrong, and the generator leaves out unless
# asked (--known-bugs), so that runs find new problems rather than these
# again. Once one is fixed, remove its entry, which lets the generator
# write what it left out, and keep a kernel that showed it in
# test/fuzz/regressions/ as random-SEED-ORACLE.tile.
KNOWN_BUGS = {}

# Names in code, but not attributes (T.exp): what an expression reads.
IDENTIFIER = re.compile(r"(?<![.\w])[A-Za-z_]\w*")

REDUCTIONS = ["reduce_sum", "reduce_max", "reduce_min", "reduce_abssum",
              "reduce_absmax"]


def is_float(dtype):
    return dtype.startswith(("float", "bfloat", "half", "double", "e4m3", "e5m2"))


def kind_of(dtype):
    return "f" if is_float(dtype) else "i"


def leaf(code, dtype):
    """An element read as an expression leaf (code, kind). Constants take
    the type of what they meet, and few fit in bool or int4: such elements
    are read as int32."""
    if dtype in SUBBYTE_DTYPES:
        return f"T.cast({code}, \"int32\")", "i"
    return code, kind_of(dtype)


def pow2_floor(n):
    p = 1
    while p * 2 <= n:
        p *= 2
    return p


def ceildiv(a, b):
    return -(-a // b)


class Dim:
    """An extent: `code` in the .tile file, `value` when static."""

    def __init__(self, code, value):
        self.code = code
        self.value = value

    @property
    def dynamic(self):
        return self.value is None


class Names:
    """Names of one file, unique whatever their kind."""

    def __init__(self, rng):
        self.rng = rng
        self.used = set(RESERVED)

    def take(self, name):
        if name in self.used:
            return None
        self.used.add(name)
        return name

    def fresh(self, base):
        for n in [base] + [f"{base}{i}" for i in range(1, 1000)]:
            if self.take(n):
                return n
        raise AssertionError(base)

    def param(self, odd_probability=0.15):
        rng = self.rng
        if rng.random() < odd_probability:
            name = self.take(rng.choice(ODD_NAMES))
            if name:
                return name
        return self.fresh(rng.choice(PLAIN_NAMES))


class Kernel:
    """One kernel: its grid, tiles, parameters and body."""

    def __init__(self, gen, name):
        self.gen = gen
        self.rng = gen.rng
        self.names = gen.names
        self.name = name
        self.params = []          # (name, annotation)
        self.outputs = []         # (name, T.empty call) of eager kernels
        self.lines = []
        # Buffers declared at the top of the kernel rather than where first
        # used.
        self.decls = []
        self.hoist = self.rng.random() < 0.3
        self.frag_elems = 0       # fragment elements per thread, all fragments
        self.shared_bytes = 0
        self.target = gen.target

    # Code.
    def emit(self, depth, text):
        if self.hoist and depth == 2 and (" = T.alloc_" in text or "T.annotate_layout" in text):
            self.decls.append("    " * depth + text)
        else:
            self.lines.append("    " * depth + text)

    def local(self, base):
        return self.names.fresh(base)

    # Buffers.
    def per_thread(self, elems):
        return ceildiv(elems, pow2_floor(self.threads))

    def fits_fragment(self, shape, dtype="float32"):
        elems = 1
        for s in shape:
            elems *= s
        words = ceildiv(self.per_thread(elems) * BYTES.get(dtype, 4), 4)
        return (self.per_thread(elems) <= 64 and
                self.frag_elems + words <= self.frag_budget)

    def fragment(self, base, shape, dtype):
        elems = 1
        for s in shape:
            elems *= s
        self.frag_elems += ceildiv(self.per_thread(elems) * BYTES.get(dtype, 4), 4)
        name = self.local(base)
        self.emit(2, f"{name} = T.alloc_fragment({shape_code(shape)}, {q(dtype)})")
        return name

    def fits_shared(self, shape, dtype, stages=1):
        elems = 1
        for s in shape:
            elems *= s
        return self.shared_bytes + elems * BYTES.get(dtype, 4) * stages <= 32 * 1024

    def shared(self, base, shape, dtype, stages=1):
        elems = 1
        for s in shape:
            elems *= s
        self.shared_bytes += elems * BYTES.get(dtype, 4) * stages
        name = self.local(base)
        self.emit(2, f"{name} = T.alloc_shared({shape_code(shape)}, {q(dtype)})")
        if self.rng.random() < 0.1 and len(shape) == 2:
            self.emit(2, f"T.annotate_layout({{{name}: make_swizzled_layout({name})}})")
            self.gen.needs_layout_import = True
        return name

    def tensor(self, shape, dtype, output=False):
        """A tensor parameter; `output`: only ever written, by T.copy, so
        that an eager kernel may declare it with T.empty."""
        name = self.names.param()
        kind = "T.Buffer" if self.rng.random() < 0.1 else "T.Tensor"
        dims = ", ".join(d.code for d in shape) + ("," if len(shape) == 1 else "")
        spelled = (f"T.{dtype}" if self.rng.random() < 0.2 and dtype.isidentifier()
                   else q(dtype))
        if output and self.form == "jit" and self.rng.random() < 0.7:
            self.outputs.append((name, f"T.empty(({dims}), {spelled})"))
        else:
            self.params.append((name, f"{kind}(({dims}), {spelled})"))
        return name

    @property
    def scalar_names(self):
        return [name for name, _ in self.scalars]

    def scalar(self, dtype):
        name = self.names.param()
        self.params.append((name, f"T.{dtype}"))
        self.scalars.append((name, dtype))
        return name


def q(dtype):
    return f'"{dtype}"'


def shape_code(shape):
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


class Generator:
    def __init__(self, seed, avoid_known=True, target=None):
        self.seed = seed
        self.avoid_known = avoid_known
        self.forced_target = target
        self.rng = random.Random(seed)
        self.names = Names(self.rng)
        self.module_lines = []
        self.defines = []
        self.needs_layout_import = False
        self.needs_tilelang_import = False
        self.dynamics = {}        # T.dynamic name -> Python variable

    def command(self):
        """random_kernels.py's arguments that write this file again."""
        args = [str(self.seed)]
        if self.forced_target:
            args += ["--target", self.forced_target]
        if not self.avoid_known:
            args.append("--known-bugs")
        return " ".join(args)

    def avoids(self, bug):
        """Whether to leave out what KNOWN_BUGS[bug] says tilec gets wrong
        (nothing, once the entry is gone)."""
        return self.avoid_known and bug in KNOWN_BUGS

    # Targets and options.
    def choose_target(self):
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            self.target = rng.choice(["sm_90a", "sm_90a", "sm_80", "sm_80", "sm_86", "sm_89",
                                      "sm_90", "sm_80,sm_90a"])
            self.vendor = "nvidia"
        elif r < 0.8:
            self.target = rng.choice(["gfx942", "gfx942", "gfx90a", "gfx1100"])
            self.vendor = "amd"
        else:
            self.target = "host"
            self.vendor = "host"
        if self.forced_target:
            self.target = self.forced_target
            self.vendor = vendor_of(self.target)

    def options(self):
        rng = self.rng
        stem = rng.choice(OUTPUT_STEMS) if rng.random() < 0.3 else "kernel"
        opts = []
        if self.vendor == "host":
            opts += ["--target", "host"]
            kind = rng.choice(["obj", "obj", "obj", "header", "llvm", "isa"])
        else:
            opts += ["--arch", self.target]
            if self.vendor == "nvidia":
                kind = rng.choice(["cubin", "cubin", "cubin", "ptx", "ptx-header",
                                   "header", "llvm", "gpu"])
            else:
                kind = rng.choice(["hsaco", "hsaco", "hsaco", "isa", "header", "llvm",
                                   "gpu"])
            if "," in self.target:
                # Several targets: one header that embeds a binary for each.
                kind = "header"
        out = {
            "cubin": f"{stem}.cubin", "hsaco": f"{stem}.hsaco", "obj": f"{stem}.o",
            "ptx": f"{stem}.ptx", "ptx-header": f"{stem}.ptx", "header": f"{stem}.h",
            "llvm": f"{stem}.ll", "isa": f"{stem}.s", "gpu": f"{stem}.mlir",
        }[kind]
        if kind in ("llvm", "gpu", "isa", "header"):
            opts += [f"--emit={'header' if kind == 'header' else kind}"]
        opts += ["-o", out]
        if kind == "ptx-header" or (kind in ("cubin", "hsaco", "obj") and rng.random() < 0.2):
            opts += ["--header", f"{stem}_api.h"]
        if rng.random() < 0.3:
            opts += [f"-O{rng.randint(0, 3)}"]
        if rng.random() < 0.2:
            opts += [rng.choice(["--fast-math", "--no-fma"])]
        if self.vendor == "nvidia":
            for flag in ["--no-tma", "--no-cp-async", "--no-wgmma", "--no-warp-specialize"]:
                if rng.random() < 0.12:
                    opts.append(flag)
        if rng.random() < 0.1:
            opts.append("--no-verify")
        return opts, kind

    # The file.
    def generate(self):
        rng = self.rng
        self.choose_target()
        count = rng.choices([1, 2, 3], [70, 25, 5])[0]
        kernels = []
        kernel_names = []
        for _ in range(count):
            if rng.random() < 0.3:
                name = rng.choice(ODD_NAMES)
                name = self.names.take(name)
            else:
                name = self.names.take(rng.choice(KERNEL_NAMES))
            name = name or self.names.fresh("kernel")
            kernel_names.append(name)
        public = []
        for name in kernel_names:
            kernels.append(self.kernel(name))
            public.append(self.public_name)
        opts, kind = self.options()
        if count > 1 and rng.random() < 0.15:
            opts += ["--kernel", rng.choice(public)]
        for name, value in self.defines:
            opts += ["-D", f"{name}={value}"]
        head = [f"# {' '.join(opts)}",
                f"# Random kernel {self.seed} (test/fuzz/random_kernels.py {self.command()}).",
                "import tilelang.language as T"]
        if self.needs_tilelang_import:
            head.append("import tilelang")
        if self.needs_layout_import:
            head.append("from tilelang.layout import make_swizzled_layout")
        body = head + [""] + self.module_lines
        for lines in kernels:
            body += ["", ""] + lines
        return "\n".join(body) + "\n"

    def helper(self):
        """A compile-time function that kernels call in expressions."""
        if not hasattr(self, "helper_name"):
            self.helper_name = self.names.fresh(self.rng.choice(["twice", "affine", "f"]))
            body = self.rng.choice(["x * 2 + 1", "x - x * 0.5", "(x + 1) * 3"])
            self.module_lines += ["", "", f"def {self.helper_name}(x):",
                                  f"    return {body}", ""]
        return self.helper_name

    def flag(self):
        """A module constant that a compile-time if tests."""
        name = self.names.fresh(self.rng.choice(["FLAG", "use_bias", "DEBUG", "fast"]))
        self.module_lines.append(f"{name} = {self.rng.choice([True, False])}")
        return name

    def macro(self, rank):
        """A @T.macro that scales a buffer of `rank` dimensions in place."""
        key = f"macro{rank}"
        if not hasattr(self, key):
            name = self.names.fresh(self.rng.choice(["scale_tile", "bump", "update"]))
            loop = ("for i, j in T.Parallel(buf.shape[0], buf.shape[1]):" if rank == 2
                    else "for i in T.Parallel(buf.shape[0]):")
            index = "i, j" if rank == 2 else "i"
            self.module_lines += ["", "", "@T.macro", f"def {name}(buf, factor):",
                                  f"    {loop}",
                                  f"        buf[{index}] = buf[{index}] * factor", ""]
            setattr(self, key, name)
        return getattr(self, key)

    def constant(self, base, value):
        name = self.names.fresh(base)
        self.module_lines.append(f"{name} = {value!r}")
        return name

    def dynamic(self):
        for _ in range(5):
            name = self.rng.choice(DYNAMIC_NAMES)
            # A run-time extent is a parameter too: its name is no other's.
            if name not in self.dynamics and (name not in self.names.used or
                                              not name.isidentifier()):
                self.names.used.add(name)
                var = self.names.fresh("dyn")
                self.dynamics[name] = var
                call = "T.symbolic" if self.rng.random() < 0.2 else "T.dynamic"
                self.module_lines.append(f"{var} = {call}({name!r})")
                return var
        return None

    def dim(self, value, base, allow_dynamic=True, inline=False):
        if allow_dynamic and self.rng.random() < 0.2:
            var = self.dynamic()
            if var:
                return Dim(var, None)
        if inline or self.rng.random() < 0.3:
            return Dim(str(value), value)
        return Dim(self.constant(base, value), value)

    def kernel(self, name):
        rng = self.rng
        k = Kernel(self, name)
        k.scalars = []
        k.form = rng.choices(["prim", "factory", "jit"], [65, 20, 15])[0]
        if k.form == "jit":
            self.needs_tilelang_import = True
        has_gemm = rng.random() < 0.35
        if has_gemm:
            k.threads = rng.choice([32, 64, 128, 128, 128, 256])
            k.rank = 2 if rng.random() < 0.85 else 3
            k.bM = rng.choice([16, 32, 64, 64, 128])
            k.bN = rng.choice([16, 32, 64, 64, 128])
            while k.bM * k.bN // k.threads > 64:
                k.threads *= 2
            if rng.random() < 0.15:
                k.bM = rng.choice([8, 24, 48])
            if rng.random() < 0.15:
                k.bN = rng.choice([8, 24, 40])
            while k.bM * k.bN // k.threads > 64:
                k.threads *= 2
        else:
            k.threads = rng.choice([32, 64, 128, 128, 128, 256, 96, 160, 33, 1, 7, 512,
                                    1024, 48, 200])
            k.rank = rng.choices([1, 2, 3], [25, 60, 15])[0]
            p2 = pow2_floor(k.threads)
            while True:
                k.bN = rng.choice([1, 2, 4, 8, 16, 32, 64, 64, 128, 256, 24, 40, 7, 100])
                k.bM = 1 if k.rank == 1 else rng.choice([1, 2, 4, 8, 16, 32, 3, 12, 64])
                if k.bM * k.bN <= 32 * p2:
                    break
        k.frag_budget = rng.choice([64, 128, 192])
        # Problem sizes: multiples of the tile, or with tails.
        def extent(block):
            r = rng.random()
            if r < 0.35:
                return block * rng.randint(1, 4)
            if r < 0.5:
                return rng.choice([1, 2, 3, 7])
            return rng.randint(1, 3 * block + 50)
        Mv = extent(k.bM) if k.rank > 1 else 1
        Nv = extent(k.bN)
        k.factory_params = []
        k.consts = []
        if k.form != "prim":
            k.M = self.factory_dim(k, "M", Mv) if k.rank > 1 else None
            k.N = self.factory_dim(k, "N", Nv)
        else:
            k.M = self.dim(Mv, "M") if k.rank > 1 else None
            k.N = self.dim(Nv, "N")
        k.B = Dim(str(rng.randint(1, 3)), None) if k.rank == 3 else None
        if k.B is not None:
            k.B.value = int(k.B.code)
        k.bx, k.by, k.bz = "bx", "by", "bz"
        if rng.random() < 0.1:
            k.bx, k.by, k.bz = k.local("x0"), k.local("y0"), k.local("z0")
        grid = [f"T.ceildiv({k.N.code}, {k.bN})"]
        binds = [k.bx]
        if k.rank >= 2:
            grid.append(f"T.ceildiv({k.M.code}, {k.bM})")
            binds.append(k.by)
        if k.rank == 3:
            grid.append(k.B.code)
            binds.append(k.bz)
        threads = str(k.threads)
        if k.threads % 32 == 0 and k.threads >= 64 and rng.random() < 0.1:
            threads = f"({32}, {k.threads // 32})"
        bind = binds[0] if len(binds) == 1 and rng.random() < 0.7 else f"({', '.join(binds)})"
        k.emit(1, f"with T.Kernel({', '.join(grid)}, threads={threads}) as {bind}:")
        if k.rank >= 2 and rng.random() < 0.1:
            k.emit(2, f"T.use_swizzle(panel_size={rng.choice([2, 4, 10])})")
        for d in (k.M, k.N):
            if d is not None and d.dynamic and rng.random() < 0.3:
                block = k.bM if d is k.M else k.bN
                k.emit(2, f"T.assume({d.code} % {block} == 0)")
                d.assumed = True
        sections = []
        if has_gemm:
            sections.append(self.section_gemm)
        choices = [self.section_elementwise, self.section_direct, self.section_reduce,
                   self.section_serial, self.section_var, self.section_atomic,
                   self.section_local, self.section_pipelined_sum]
        weights = [30, 20, 15, 8, 8, 6, 6, 8]
        for _ in range(rng.choices([1, 2, 3], [50, 35, 15])[0]):
            sections.append(rng.choices(choices, weights)[0])
        if has_gemm and rng.random() < 0.5:
            sections = sections[:1]
        done = 0
        for section in sections:
            before = len(k.lines)
            if section(k):
                done += 1
            else:
                del k.lines[before:]
        if not done:
            self.section_direct(k)
        return self.wrap_kernel(k)

    def factory_dim(self, k, base, value):
        """A dimension given by -D: a factory's parameter (with a default
        that -D may replace) or an eager kernel's T.const."""
        name = self.names.fresh(base)
        if k.form == "jit":
            self.defines.append((name, value))
            k.consts.append(name)
            return Dim(name, value)
        if self.rng.random() < 0.5:
            default = value
            self.defines.append((name, value))
            # A default that -D replaces.
            default = self.rng.choice([value, 64, 128])
        else:
            default = value
        k.factory_params.append(f"{name}={default}")
        return Dim(name, value)

    def wrap_kernel(self, k):
        k.lines[1:1] = k.decls
        params = ", ".join(f"{n}: {a}" for n, a in k.params)
        if k.form == "factory":
            factory = self.names.fresh(self.rng.choice(["make", "build", "factory"]))
            # A factory's kernel is known by the factory's name.
            self.public_name = factory
            inner = k.name
            lines = [f"def {factory}({', '.join(k.factory_params)}):",
                     "    @T.prim_func",
                     f"    def {inner}({params}):"]
            lines += ["    " + line for line in k.lines]
            lines += ["", f"    return {inner}"]
            return lines
        self.public_name = k.name
        if k.form == "jit":
            decorator = self.rng.choice(["@tilelang.jit", "@tilelang.jit",
                                         "@tilelang.jit(out_idx=[-1])"])
            lines = [decorator, f"def {k.name}({', '.join(n for n, _ in k.params)}):"]
            if k.consts:
                names = ", ".join(k.consts)
                lines.append(f"    {names} = T.const({names!r})")
            lines += [f"    {n}: {a}" for n, a in k.params]
            lines += [f"    {n} = {call}" for n, call in k.outputs]
            lines += k.lines
            if k.outputs:
                lines.append(f"    return {', '.join(n for n, _ in k.outputs)}")
            return lines
        lines = ["@T.prim_func", f"def {k.name}({params}):"]
        return lines + k.lines

    # Indexing helpers.
    def origin(self, k, name, slice_form=None):
        """The element origin of this block's tile in a tensor of k's shape."""
        rng = self.rng
        if slice_form is None:
            slice_form = rng.random() < 0.3
        parts = []
        if k.rank == 3:
            parts.append(k.bz)
        if k.rank >= 2:
            parts.append(f"{k.by} * {k.bM}" if not slice_form else
                         f"{k.by} * {k.bM}:({k.by} + 1) * {k.bM}")
        parts.append(f"{k.bx} * {k.bN}" if not slice_form else
                     f"{k.bx} * {k.bN}:({k.bx} + 1) * {k.bN}")
        return f"{name}[{', '.join(parts)}]"

    def full_shape(self, k):
        shape = []
        if k.rank == 3:
            shape.append(k.B)
        if k.rank >= 2:
            shape.append(k.M)
        shape.append(k.N)
        return shape

    def tile(self, k):
        return [k.bM, k.bN] if k.rank >= 2 else [k.bN]

    def loop_vars(self, k):
        i, j = k.local("i"), k.local("j")
        if k.rank >= 2:
            return [i, j], f"for {i}, {j} in T.Parallel({k.bM}, {k.bN}):"
        return [j], f"for {j} in T.Parallel({k.bN}):"

    def global_index(self, k, ivars):
        parts = []
        if k.rank == 3:
            parts.append(k.bz)
        if k.rank >= 2:
            parts.append(f"{k.by} * {k.bM} + {ivars[0]}")
        parts.append(f"{k.bx} * {k.bN} + {ivars[-1]}")
        return ", ".join(parts)

    def guard(self, k, ivars, tensor=None):
        """The condition that keeps a tile's element inside the tensors, by
        their extents or by `tensor`'s .shape."""
        conds = []
        rows = cols = None
        if k.rank >= 2:
            rows = f"{tensor}.shape[{k.rank - 2}]" if tensor else k.M.code
        cols = f"{tensor}.shape[{k.rank - 1}]" if tensor else k.N.code
        if k.rank >= 2 and not self.tile_divides(k.M, k.bM):
            conds.append(f"{k.by} * {k.bM} + {ivars[0]} < {rows}")
        if not self.tile_divides(k.N, k.bN):
            conds.append(f"{k.bx} * {k.bN} + {ivars[-1]} < {cols}")
        return " and ".join(conds)

    def tile_divides(self, d, block):
        if d.dynamic:
            return getattr(d, "assumed", False)
        return d.value % block == 0

    # Expressions.
    def expr(self, k, leaves, depth=0, want_float=None):
        """A random expression over `leaves` [(code, kind)], kind 'f', 'i' or
        'x' (index); returns (code, kind)."""
        rng = self.rng
        if depth >= 3 or rng.random() < 0.3 + 0.15 * depth:
            r = rng.random()
            if r < 0.75 and leaves:
                return rng.choice(leaves)
            if r < 0.85 and k.scalars:
                name, dtype = rng.choice(k.scalars)
                return name, ("f" if is_float(dtype) else "i")
            if want_float or (want_float is None and rng.random() < 0.6):
                return rng.choice(["0.5", "2.0", "-1.25", "3.0", "1e-3", "0.0"]), "f"
            # No negative ones: with an unsigned value, they would not fit.
            return rng.choice(["1", "2", "3", "7", "0"]), "i"
        a, ka = self.expr(k, leaves, depth + 1, want_float)
        r = rng.random()
        if r < 0.45:
            b, kb = self.expr(k, leaves, depth + 1, want_float)
            kind = "f" if "f" in (ka, kb) else ("x" if "x" in (ka, kb) else "i")
            ops = ["+", "-", "*"]
            if kind == "f":
                ops.append("/")
            op = rng.choice(ops)
            if op == "/" and not self.reads_runtime(k, leaves, b):
                # A constant divisor is folded: never zero.
                b = rng.choice(["3.0", "0.25", "-2.0"])
            return f"({a} {op} {b})", kind
        if r < 0.6:
            b, kb = self.expr(k, leaves, depth + 1, want_float)
            fn = rng.choice(["T.max", "T.min"])
            if (ka == "x") != (kb == "x"):
                # Mixed index and fixed-width: compare as the index.
                return f"({a} + {b})", "x" if "f" not in (ka, kb) else "f"
            kind = "f" if "f" in (ka, kb) else ka
            return f"{fn}({a}, {b})", kind
        if r < 0.8:
            if ka != "f":
                if ka == "i" and rng.random() < 0.5:
                    op = rng.choice(["//", "%", "&", "|", "^", "<<", ">>"])
                    c = rng.randint(1, 3) if op in ("<<", ">>") else rng.randint(1, 9)
                    return f"({a} {op} {c})", "i"
                if ka == "x" and rng.random() < 0.5:
                    op = rng.choice(["//", "%"])
                    return f"({a} {op} {rng.randint(1, 9)})", "x"
                if ka == "i" and rng.random() < 0.3:
                    return f"T.abs({a})", "i"
                if ka == "i" and rng.random() < 0.2:
                    return f"(~{a})", "i"
                a = f"T.cast({a}, {q(rng.choice(['float32', 'float16', 'float32']))})"
            fn = rng.choice(["exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sigmoid",
                             "tanh", "floor", "ceil", "abs", "neg", "sq", "cube", "helper",
                             "float32"])
            if fn == "helper":
                return f"{self.helper()}({a})", "f"
            if fn == "float32":
                return f"T.float32({a})", "f"
            if fn in ("log", "log2", "rsqrt"):
                return f"T.{fn}(T.abs({a}) + 1.0)", "f"
            if fn == "sqrt":
                return f"T.sqrt(T.abs({a}))", "f"
            if fn == "neg":
                return f"(-{a})", "f"
            if fn == "sq":
                return f"({a} ** {rng.choice([2, 2, 3, 4])})", "f"
            if fn == "cube":
                return f"({a} * {a} * {a})", "f"
            return f"T.{fn}({a})", "f"
        if r < 0.9:
            b, kb = self.expr(k, leaves, depth + 1, want_float)
            cond = self.cond(k, leaves)
            kind = "f" if "f" in (ka, kb) else ("x" if "x" in (ka, kb) else "i")
            if rng.random() < 0.5:
                return f"T.if_then_else({cond}, {a}, {b})", kind
            return f"({a} if {cond} else {b})", kind
        dtype = rng.choice(["float32", "float16", "int32", "bfloat16", "float32"])
        if ka == "x" and not is_float(dtype):
            dtype = "float32"
        return f"T.cast({a}, {q(dtype)})", ("f" if is_float(dtype) else "i")

    def cond(self, k, leaves):
        rng = self.rng
        r = rng.random()
        idx = [code for code, kind in leaves if kind == "x"]
        if r < 0.3 and idx:
            return f"{rng.choice(idx)} % 2 == {rng.randint(0, 1)}"
        if r < 0.45:
            return f"{k.bx} % {rng.randint(2, 3)} == 0"
        compare = ['<', '<=', '>', '>=', '==', '!=']
        a, _ = self.expr(k, leaves, 2)
        b, _ = self.expr(k, leaves, 2)
        c = f"{a} {rng.choice(compare)} {b}"
        if rng.random() < 0.1:
            # Chained, as Python reads it: a < b and b <= d.
            d, _ = self.expr(k, leaves, 2)
            c = f"{c} {rng.choice(compare)} {d}"
        if rng.random() < 0.2:
            c = f"not ({c})"
        r = rng.random()
        if r < 0.15:
            c = f"({c}) and {k.bx} >= 0"
        elif r < 0.25:
            c = f"({c}) or {k.bx} % 2 == 1"
        return c

    def value(self, k, leaves, dtype, depth=0):
        """An expression to store into `dtype`: a constant one only where it
        fits (a float constant, or a negative one for an unsigned type, is
        an error in an integer store)."""
        value, _ = self.expr(k, leaves, depth, want_float=is_float(dtype) or None)
        if is_float(dtype) or self.reads_runtime(k, leaves, value):
            return value
        return str(self.rng.randint(0, 1 if dtype == "bool" else 7))

    def reads_runtime(self, k, leaves, code):
        """Whether an expression reads anything known only at run time."""
        runtime = set(k.scalar_names) | {k.bx, k.by, k.bz}
        for leaf, _ in leaves:
            runtime.update(IDENTIFIER.findall(leaf))
        runtime.discard("T")
        return bool(runtime & set(IDENTIFIER.findall(code)))

    def assign(self, k, depth, target, dtype, leaves):
        rng = self.rng
        value = self.value(k, leaves, dtype)
        op = "="
        if rng.random() < 0.2:
            op = rng.choice(["+=", "-=", "*="])
        k.emit(depth, f"{target} {op} {value}")

    def maybe_scalar(self, k):
        # An eager kernel's parameters are tensors; its scalars come from -D.
        if self.rng.random() < 0.3 and k.form != "jit":
            k.scalar(self.rng.choice(SCALAR_DTYPES))

    # Sections. Each writes tensors of its own, so that no two write one
    # element; each returns False when it does not fit what is left.
    def section_elementwise(self, k):
        rng = self.rng
        tile = self.tile(k)
        n_in = rng.randint(1, 3)
        compute = rng.choice(ACCUM_DTYPES)
        if not k.fits_fragment(tile, compute):
            return False
        self.maybe_scalar(k)
        frags = []                # (buffer, its dtype)
        for _ in range(n_in):
            dtype = rng.choice(ELEMENT_DTYPES)
            if rng.random() < 0.05:
                dtype = rng.choice(SUBBYTE_DTYPES)
            x = k.tensor(self.full_shape(k), dtype)
            src = self.origin(k, x)
            if rng.random() < 0.3 and k.fits_shared(tile, dtype):
                s = k.shared("s", tile, dtype)
                k.emit(2, f"T.copy({src}, {s})")
                other = rng.choice(ELEMENT_DTYPES)
                if rng.random() < 0.15 and k.fits_shared(tile, other):
                    # Shared to shared, converting.
                    s2 = k.shared("s", tile, other)
                    k.emit(2, f"T.copy({s}, {s2})")
                    s, dtype = s2, other
                if rng.random() < 0.5:
                    frags.append((s, dtype))
                    continue
                src = s
            fdtype = dtype if rng.random() < 0.5 else compute
            if not k.fits_fragment(tile, fdtype):
                continue
            f = k.fragment("frag", tile, fdtype)
            k.emit(2, f"T.copy({src}, {f})")
            other = rng.choice(ACCUM_DTYPES + ELEMENT_DTYPES)
            if rng.random() < 0.15 and k.fits_fragment(tile, other):
                # Fragment to fragment, converting.
                f2 = k.fragment("frag", tile, other)
                k.emit(2, f"T.copy({f}, {f2})")
                f, fdtype = f2, other
            frags.append((f, fdtype))
        if not frags:
            return False
        out_dtype = rng.choice(ELEMENT_DTYPES)
        y = k.tensor(self.full_shape(k), out_dtype, output=True)
        res = k.fragment("res", tile, compute)
        if rng.random() < 0.3:
            if is_float(compute):
                fill = rng.choice(["0", "1.5", "-1", f"T.infinity({q(compute)})"])
            else:
                fill = rng.randint(-3, 3)
            k.emit(2, f"T.fill({res}, {fill})")
        elif rng.random() < 0.2:
            k.emit(2, f"T.clear({res})")
        ivars, header = self.loop_vars(k)
        index = ", ".join(ivars)
        leaves = [leaf(f"{f}[{index}]", d) for f, d in frags]
        leaves += [(v, "x") for v in ivars]
        depth = 2
        wrap = rng.random()
        if wrap < 0.15:
            k.emit(2, f"if {self.cond(k, [])}:")
            depth = 3
        elif wrap < 0.25:
            u = k.local("u")
            k.emit(2, f"for {u} in T.unroll({rng.randint(1, 3)}):")
            leaves.append((u, "x"))
            depth = 3
        k.emit(depth, header)
        if rng.random() < 0.2:
            cond = self.cond(k, leaves)
            k.emit(depth + 1, f"if {cond}:")
            self.assign(k, depth + 2, f"{res}[{index}]", compute, leaves)
            k.emit(depth + 1, "else:")
            self.assign(k, depth + 2, f"{res}[{index}]", compute, leaves)
        else:
            self.assign(k, depth + 1, f"{res}[{index}]", compute, leaves)
        if depth == 3 and wrap < 0.15 and rng.random() < 0.5:
            k.emit(2, "else:")
            k.emit(3, f"T.fill({res}, 0)")
        if rng.random() < 0.15:
            k.emit(2, f"{self.macro(len(tile))}({res}, 2)")
        if rng.random() < 0.3:
            ivars2, header2 = self.loop_vars(k)
            if rng.random() < 0.3:
                # Compiled or not as the flag says.
                k.emit(2, f"if {'not ' if rng.random() < 0.3 else ''}{self.flag()}:")
                k.emit(3, header2)
                idx2 = ", ".join(ivars2)
                leaves2 = [(f"{res}[{idx2}]", kind_of(compute))]
                self.assign(k, 4, f"{res}[{idx2}]", compute, leaves2)
                ivars2, header2 = self.loop_vars(k)
            idx2 = ", ".join(ivars2)
            leaves2 = [(f"{res}[{idx2}]", "f" if is_float(compute) else "i")]
            leaves2 += [leaf(f"{f}[{idx2}]", d) for f, d in frags]
            if rng.random() < 0.3:
                # A loop over a tuple, unrolled at compile time.
                w = k.local("w")
                weights = "(0.5, 2.0, -1.0)" if is_float(compute) else "(1, 2)"
                k.emit(2, f"for {w} in {weights}:")
                k.emit(3, header2)
                value = self.value(k, leaves2, compute, 1)
                k.emit(4, f"{res}[{idx2}] += {w} * {value}")
            else:
                k.emit(2, header2)
                self.assign(k, 3, f"{res}[{idx2}]", compute, leaves2)
        dst = self.origin(k, y)
        if rng.random() < 0.2 and k.fits_shared(tile, out_dtype):
            s = k.shared("stage", tile, out_dtype)
            k.emit(2, f"T.copy({res}, {s})")
            k.emit(2, f"T.copy({s}, {dst})")
        else:
            k.emit(2, f"T.copy({res}, {dst})")
        return True

    def section_direct(self, k):
        rng = self.rng
        self.maybe_scalar(k)
        ins = []
        def dtype():
            if rng.random() < 0.08:
                return rng.choice(SUBBYTE_DTYPES)
            return rng.choice(ELEMENT_DTYPES)
        for _ in range(rng.randint(1, 2)):
            in_dtype = dtype()
            ins.append((k.tensor(self.full_shape(k), in_dtype), in_dtype))
        out_dtype = dtype()
        y = k.tensor(self.full_shape(k), out_dtype)
        ivars, header = self.loop_vars(k)
        k.emit(2, header)
        g = self.global_index(k, ivars)
        guard = self.guard(k, ivars, y if rng.random() < 0.3 else None)
        depth = 3
        if guard:
            k.emit(3, f"if {guard}:")
            depth = 4
        leaves = [leaf(f"{x}[{g}]", d) for x, d in ins]
        leaves += [(v, "x") for v in ivars]
        if rng.random() < 0.3:
            v = k.local("v")
            value, kind = self.expr(k, leaves, 1)
            k.emit(depth, f"{v} = {value}")
            if self.reads_runtime(k, leaves, value):
                # A constant one would be folded: never a divisor.
                leaves.append((v, kind))
        r = rng.random()
        if r < 0.2:
            # A chain of run-time conditions.
            k.emit(depth, f"if {self.cond(k, leaves)}:")
            self.assign(k, depth + 1, f"{y}[{g}]", out_dtype, leaves)
            for _ in range(rng.randint(0, 2)):
                k.emit(depth, f"elif {self.cond(k, leaves)}:")
                self.assign(k, depth + 1, f"{y}[{g}]", out_dtype, leaves)
            if rng.random() < 0.7:
                k.emit(depth, "else:")
                self.assign(k, depth + 1, f"{y}[{g}]", out_dtype, leaves)
        elif r < 0.35:
            # An inner loop that every thread runs for its own element.
            u = k.local("u")
            loop = rng.choice([f"T.unroll({rng.randint(1, 4)})",
                               f"T.serial({rng.randint(1, 4)})",
                               f"T.serial(1, {rng.randint(2, 5)}, 2)",
                               f"range({rng.randint(1, 3)})"])
            k.emit(depth, f"{y}[{g}] = 0")
            k.emit(depth, f"for {u} in {loop}:")
            value = self.value(k, leaves + [(u, "x")], out_dtype, 1)
            k.emit(depth + 1, f"{y}[{g}] += {value}")
        else:
            self.assign(k, depth, f"{y}[{g}]", out_dtype, leaves)
        return True

    def section_reduce(self, k):
        rng = self.rng
        if k.rank == 1:
            return False
        tile = self.tile(k)
        dtype = rng.choice(["float32", "float32", "float16", "bfloat16", "int32", "float64"])
        if not k.fits_fragment(tile, dtype):
            return False
        in_dtype = rng.choice(ELEMENT_DTYPES)
        x = k.tensor(self.full_shape(k), in_dtype)
        f = k.fragment("tile", tile, dtype)
        k.emit(2, f"T.copy({self.origin(k, x)}, {f})")
        if rng.random() < 0.4:
            ivars, header = self.loop_vars(k)
            k.emit(2, header)
            idx = ", ".join(ivars)
            self.assign(k, 3, f"{f}[{idx}]", dtype,
                        [(f"{f}[{idx}]", "f" if is_float(dtype) else "i")] +
                        [(v, "x") for v in ivars])
        # GPU targets reduce over the last dimension only (an error
        # otherwise, which says so).
        dim = 0 if self.vendor == "host" and rng.random() < 0.3 else 1
        keep = tile[1 - dim]
        r = k.fragment("red", [keep], dtype)
        kind = rng.choice(REDUCTIONS)
        clear = rng.random() < 0.7
        if not clear:
            fill = "0"
            if is_float(dtype):
                fill = rng.choice(["0", "1", f"-T.infinity({q(dtype)})"])
            k.emit(2, f"T.fill({r}, {fill})")
        args = [f, r]
        if dim == 1 and rng.random() < 0.5:
            args.append(rng.choice(["dim=1", "dim=-1", "1"]))
        else:
            args.append(f"dim={dim}")
        if not clear:
            args.append("clear=False")
        k.emit(2, f"T.{kind}({', '.join(args)})")
        if rng.random() < 0.4:
            ii = k.local("i")
            k.emit(2, f"for {ii} in T.Parallel({keep}):")
            self.assign(k, 3, f"{r}[{ii}]", dtype,
                        [(f"{r}[{ii}]", "f" if is_float(dtype) else "i"), (ii, "x")])
        out_dtype = rng.choice(["float32", "float16", dtype, "int32", "bfloat16"])
        rr = k.tensor(self.full_shape(k), out_dtype, output=True)
        lead = f"{k.bz}, " if k.rank == 3 else ""
        if dim == 1:
            dst = f"{rr}[{lead}{k.by} * {k.bM}:({k.by} + 1) * {k.bM}, {k.bx} * {k.bN}]"
        else:
            dst = f"{rr}[{lead}{k.by} * {k.bM}, {k.bx} * {k.bN}:({k.bx} + 1) * {k.bN}]"
        k.emit(2, f"T.copy({r}, {dst})")
        return True

    def section_serial(self, k):
        """A fragment accumulated over a run-time or constant serial loop."""
        rng = self.rng
        tile = self.tile(k)
        dtype = rng.choice(["float32", "float32", "int32", "float16"])
        if not k.fits_fragment(tile, dtype):
            return False
        x_dtype = rng.choice(ELEMENT_DTYPES)
        x = k.tensor(self.full_shape(k), x_dtype)
        acc = k.fragment("acc", tile, dtype)
        k.emit(2, f"T.clear({acc})")
        if rng.random() < 0.5 and k.form != "jit":
            n = k.scalar(rng.choice(["int32", "int32", "int64", "uint32"]))
            bound = n if rng.random() < 0.5 else f"T.min({n}, 8)"
        else:
            bound = str(rng.randint(1, 6))
        s = k.local("s")
        loop = rng.choice(["T.serial", "T.serial", "range", "T.Serial"])
        if loop == "T.serial" and rng.random() < 0.3:
            k.emit(2, f"for {s} in T.serial(0, {bound}, {rng.randint(1, 2)}):")
        else:
            k.emit(2, f"for {s} in {loop}({bound}):")
        ivars, header = self.loop_vars(k)
        k.emit(3, header)
        g = self.global_index(k, ivars)
        guard = self.guard(k, ivars)
        idx = ", ".join(ivars)
        leaves = [(f"{acc}[{idx}]", "f" if is_float(dtype) else "i"), (s, "x")]
        leaves += [(v, "x") for v in ivars]
        if guard:
            k.emit(4, f"if {guard}:")
            leaves.append((f"{x}[{g}]", kind_of(x_dtype)))
            self.assign(k, 5, f"{acc}[{idx}]", dtype, leaves)
        else:
            leaves.append((f"{x}[{g}]", kind_of(x_dtype)))
            self.assign(k, 4, f"{acc}[{idx}]", dtype, leaves)
        y = k.tensor(self.full_shape(k), rng.choice(ELEMENT_DTYPES), output=True)
        k.emit(2, f"T.copy({acc}, {self.origin(k, y)})")
        return True

    def section_pipelined_sum(self, k):
        """Tiles of a longer row staged through shared memory by a pipelined
        loop and summed in a fragment."""
        rng = self.rng
        if k.rank == 1:
            return False
        bL = rng.choice([8, 16, 32, 64])
        dtype = rng.choice(["float16", "float32", "bfloat16", "int8", "float8_e4m3"])
        stages = rng.choice([1, 2, 3])
        tile = [k.bM, bL]
        if not k.fits_fragment(tile) or not k.fits_shared(tile, dtype, stages):
            return False
        L = self.dim(rng.randint(1, 4 * bL), "L")
        shape = [k.M, L] if k.rank == 2 else [k.B, k.M, L]
        x = k.tensor(shape, dtype)
        s = k.shared("X_s", tile, dtype, stages)
        acc = k.fragment("acc", tile, "float32")
        k.emit(2, f"T.clear({acc})")
        ko = k.local("ko")
        if rng.random() < 0.8:
            schedule = ""
            if stages >= 2 and rng.random() < 0.25:
                # A hand-written schedule of the body's two statements.
                order = rng.choice([[0, 1], [1, 0]])
                schedule = f", order={order}, stage={[0, rng.randint(0, stages - 1)]}"
            k.emit(2, f"for {ko} in T.Pipelined(T.ceildiv({L.code}, {bL}), "
                      f"num_stages={stages}{schedule}):")
        else:
            k.emit(2, f"for {ko} in T.serial(T.ceildiv({L.code}, {bL})):")
        lead = f"{k.bz}, " if k.rank == 3 else ""
        k.emit(3, f"T.copy({x}[{lead}{k.by} * {k.bM}, {ko} * {bL}], {s})")
        i, j = k.local("i"), k.local("j")
        k.emit(3, f"for {i}, {j} in T.Parallel({k.bM}, {bL}):")
        leaves = [(f"{s}[{i}, {j}]", "f" if is_float(dtype) else "i")]
        k.emit(4, f"{acc}[{i}, {j}] += {self.expr(k, leaves, 1)[0]}")
        r = k.fragment("row", [k.bM], "float32")
        k.emit(2, f"T.{rng.choice(REDUCTIONS)}({acc}, {r}, dim=1)")
        out = k.tensor(self.full_shape(k), rng.choice(["float32", "float16", "bfloat16"]),
                       output=True)
        rows = f"{k.by} * {k.bM}:({k.by} + 1) * {k.bM}"
        k.emit(2, f"T.copy({r}, {out}[{lead}{rows}, {k.bx} * {k.bN}])")
        return True

    def section_var(self, k):
        """A scalar variable, the same in every thread, written once per block."""
        rng = self.rng
        dtype = rng.choice(["float32", "int32", "float32", "int64", "float16"])
        x_dtype = rng.choice(ELEMENT_DTYPES)
        x = k.tensor(self.full_shape(k), x_dtype)
        v = k.local("v")
        init = f", init={rng.choice(['0', '1', '2'])}" if rng.random() < 0.8 else ""
        k.emit(2, f"{v} = T.alloc_var({q(dtype)}{init})")
        if not init:
            k.emit(2, f"{v} = 0")
        s = k.local("s")
        steps = rng.randint(1, 8)
        k.emit(2, f"for {s} in T.serial({steps}):")
        lead = f"{k.bz}, " if k.rank == 3 else ""
        row = f"{k.by} * {k.bM}, " if k.rank >= 2 else ""
        # Columns of the block's first row (which the grid keeps in the
        # tensor); the guard keeps the columns in it too.
        col = f"{k.bx} * {k.bN} + {s} % {k.bN}"
        conds = []
        if k.N.dynamic or (k.N.value % k.bN) != 0 or k.bN < steps:
            conds.append(f"{col} < {k.N.code}")
        leaves = [(v, kind_of(dtype)), (f"{x}[{lead}{row}{col}]", kind_of(x_dtype)), (s, "x")]
        depth = 3
        if conds:
            k.emit(3, f"if {' and '.join(conds)}:")
            depth = 4
        value = self.value(k, leaves, dtype, 1)
        k.emit(depth, f"{v} {rng.choice(['+=', '=', '-='])} {value}")
        if rng.random() < 0.3:
            k.emit(depth, f"if {v} > {rng.randint(1, 100)}:")
            k.emit(depth + 1, f"{v} = {v} {'* 0.5' if is_float(dtype) else '// 2'}")
        y = k.tensor(self.full_shape(k), rng.choice(["float32", "int32", "float16", "int64"]))
        store = f"{y}[{lead}{row}{k.bx} * {k.bN}] = {v}"
        k.emit(2, store)
        return True

    def section_atomic(self, k):
        rng = self.rng
        dtype = rng.choice(["float32", "float32", "int32", "float16", "bfloat16", "float64"])
        x_dtype = rng.choice(ELEMENT_DTYPES)
        x = k.tensor(self.full_shape(k), x_dtype)
        if rng.random() < 0.5:
            slots = rng.choice([1, 4, 8])
            acc = k.tensor([Dim(str(slots), slots)], dtype)
            ivars, header = self.loop_vars(k)
            k.emit(2, header)
            g = self.global_index(k, ivars)
            guard = self.guard(k, ivars)
            depth = 3
            if guard:
                k.emit(3, f"if {guard}:")
                depth = 4
            value = self.value(k, [(f"{x}[{g}]", kind_of(x_dtype)), (ivars[-1], "x")], dtype, 1)
            slot = "0" if slots == 1 else f"({ivars[-1]}) % {slots}"
            k.emit(depth, f"T.atomic_add({acc}[{slot}], {value})")
            return True
        tile = self.tile(k)
        if not k.fits_fragment(tile, dtype):
            return False
        f = k.fragment("part", tile, dtype)
        k.emit(2, f"T.copy({self.origin(k, x)}, {f})")
        out = k.tensor(self.full_shape(k), dtype)
        k.emit(2, f"T.atomic_add({self.origin(k, out, slice_form=False)}, {f})")
        return True

    def section_local(self, k):
        rng = self.rng
        size = rng.choice([2, 4, 8, 16])
        dtype = rng.choice(["float32", "int32", "float16"])
        table = k.tensor([Dim(str(size), size)], dtype)
        t = k.local("tab")
        k.emit(2, f"{t} = T.alloc_local(({size},), {q(dtype)})")
        k.emit(2, f"T.copy({table}, {t})")
        if rng.random() < 0.6:
            u = k.local("u")
            k.emit(2, f"for {u} in T.Parallel({size}):")
            self.assign(k, 3, f"{t}[{u}]", dtype, [(f"{t}[{u}]", "f" if is_float(dtype) else "i"),
                                                  (u, "x")])
        x_dtype = rng.choice(ELEMENT_DTYPES)
        x = k.tensor(self.full_shape(k), x_dtype)
        y_dtype = rng.choice(ELEMENT_DTYPES)
        y = k.tensor(self.full_shape(k), y_dtype)
        ivars, header = self.loop_vars(k)
        k.emit(2, header)
        g = self.global_index(k, ivars)
        guard = self.guard(k, ivars)
        depth = 3
        if guard:
            k.emit(3, f"if {guard}:")
            depth = 4
        leaves = [(f"{x}[{g}]", kind_of(x_dtype)),
                  (f"{t}[({' + '.join(ivars)}) % {size}]", kind_of(dtype))]
        self.assign(k, depth, f"{y}[{g}]", y_dtype, leaves)
        return True

    def section_gemm(self, k):
        rng = self.rng
        in_dtype, acc_dtype = rng.choice([
            ("float16", "float32"), ("float16", "float32"), ("float16", "float16"),
            ("bfloat16", "float32"), ("bfloat16", "float32"), ("float32", "float32"),
            ("int8", "int32"), ("float8_e4m3", "float32"), ("float8_e5m2", "float32"),
            ("float8_e4m3fnuz", "float32")])
        bK = rng.choice([16, 32, 32, 64])
        if rng.random() < 0.1:
            bK = rng.choice([8, 24])
        per_thread = k.per_thread(k.bM * k.bN)
        # Multiply-adds per thread of a gemm on CUDA cores or vector ALUs
        # (docs/robustness.md).
        limit = 4096
        if per_thread * bK > limit or not k.fits_fragment([k.bM, k.bN], acc_dtype):
            bK = 16
            if per_thread * bK > limit or not k.fits_fragment([k.bM, k.bN], acc_dtype):
                return False
        stages = rng.choice([1, 2, 3, 4])
        trans_A = rng.random() < 0.25
        trans_B = rng.random() < 0.35
        a_tile = [bK, k.bM] if trans_A else [k.bM, bK]
        b_tile = [k.bN, bK] if trans_B else [bK, k.bN]
        while stages > 1 and not k.fits_shared([k.bM * bK + k.bN * bK], in_dtype, stages):
            stages -= 1
        if not k.fits_shared([k.bM * bK + k.bN * bK], in_dtype, stages):
            return False
        # A second gemm whose A operand is the first one's accumulator, cast
        # to f16, as FlashAttention's P @ V: tensor cores only, so whole
        # 16-row tiles per warp (wave) under FullRow.
        chain = None
        warp = {"gfx90a": 64, "gfx942": 64}.get(k.target, 32)
        warps = max(1, k.threads // warp)
        if (in_dtype == "float16" and acc_dtype == "float32" and not trans_A and bK % 16 == 0 and
                k.target not in ("gfx1100", "host") and k.threads % warp == 0 and
                k.bM % (16 * warps) == 0 and k.bN % 16 == 0 and rng.random() < 0.3):
            bN2 = rng.choice([16, 32, 64])
            if (k.fits_fragment([k.bM, k.bN + bN2 * 2], "float32") and
                    k.fits_shared([k.bM * bK + k.bN * bK + k.bN * bN2], in_dtype, stages) and
                    k.per_thread(k.bM * bN2) * k.bN <= 4096):
                chain = bN2
        Kv = rng.choice([bK, 2 * bK, 4 * bK, rng.randint(1, 5 * bK)])
        # Constant origins are checked against static extents: one step
        # only where K is exactly one tile.
        single = Kv == bK and rng.random() < 0.5
        if k.form != "prim":
            Kd = self.factory_dim(k, "K", Kv)
        else:
            Kd = self.dim(Kv, "K", allow_dynamic=not single)
        lead = [k.B] if k.rank == 3 else []
        a_shape = lead + ([Kd, k.M] if trans_A else [k.M, Kd])
        b_shape = lead + ([k.N, Kd] if trans_B else [Kd, k.N])
        A = k.tensor(a_shape, in_dtype)
        Bt = k.tensor(b_shape, in_dtype)
        out_dtype = rng.choice(["float16", "float32", "bfloat16", acc_dtype])
        C = k.tensor(self.full_shape(k), out_dtype, output=True)
        A_s = k.shared("A_shared", a_tile, in_dtype, 1 if single else stages)
        B_s = k.shared("B_shared", b_tile, in_dtype, 1 if single else stages)
        C_f = k.fragment("C_local", [k.bM, k.bN], acc_dtype)
        policy = "FullRow" if chain else rng.choice(["", "", "Square", "FullRow", "FullCol"])
        extra = ""
        if trans_A:
            both = trans_B and rng.random() < 0.5
            # Positional flags: transpose_A, then transpose_B.
            extra += ", True" if both else ", transpose_A=True"
        if trans_B:
            extra += ", True" if extra == ", True" else ", transpose_B=True"
        if policy:
            extra += f", policy=T.GemmWarpPolicy.{policy}"
        if rng.random() < 0.1:
            extra += rng.choice([", k_pack=1", ", wg_wait=0"])
        lb = f"{k.bz}, " if k.rank == 3 else ""
        ko = k.local("ko")
        a_org = f"{ko} * {bK}, {k.by} * {k.bM}" if trans_A else f"{k.by} * {k.bM}, {ko} * {bK}"
        b_org = f"{k.bx} * {k.bN}, {ko} * {bK}" if trans_B else f"{ko} * {bK}, {k.bx} * {k.bN}"
        if single:
            # All of K in one step.
            a_org, b_org = a_org.replace(f"{ko} * {bK}", "0"), b_org.replace(f"{ko} * {bK}", "0")
            k.emit(2, f"T.copy({A}[{lb}{a_org}], {A_s})")
            k.emit(2, f"T.copy({Bt}[{lb}{b_org}], {B_s})")
            k.emit(2, f"T.gemm({A_s}, {B_s}, {C_f}{extra}, clear_accum=True)")
        else:
            k.emit(2, f"T.clear({C_f})" if rng.random() < 0.7 else f"T.fill({C_f}, 0)")
            loop = rng.random()
            steps = f"T.ceildiv({Kd.code}, {bK})"
            if loop < 0.6:
                k.emit(2, f"for {ko} in T.Pipelined({steps}, num_stages={stages}):")
            elif loop < 0.85:
                k.emit(2, f"for {ko} in T.serial({steps}):")
            else:
                k.emit(2, f"for {ko} in T.Pipelined(0, {steps}, num_stages={stages}):")
            k.emit(3, f"T.copy({A}[{lb}{a_org}], {A_s})")
            k.emit(3, f"T.copy({Bt}[{lb}{b_org}], {B_s})")
            k.emit(3, f"T.gemm({A_s}, {B_s}, {C_f}{extra})")
        if chain:
            bN2 = chain
            # Read from column 0: a static extent of at least one tile.
            V = k.tensor(lead + [k.N, self.dim(rng.randint(bN2, 3 * bN2), "N2",
                                               allow_dynamic=False)], "float16")
            P = k.fragment("P", [k.bM, k.bN], "float16")
            V_s = k.shared("V_shared", [k.bN, bN2], "float16")
            O = k.fragment("O", [k.bM, bN2], "float32")
            k.emit(2, f"T.copy({C_f}, {P})")
            k.emit(2, f"T.copy({V}[{lb}{k.bx} * {k.bN}, 0], {V_s})")
            k.emit(2, f"T.clear({O})")
            k.emit(2, f"T.gemm({P}, {V_s}, {O}, policy=T.GemmWarpPolicy.FullRow)")
            out2 = k.tensor(lead + [k.M, Dim(str(bN2), bN2)], "float32")
            # Every block along N adds its part of the product.
            k.emit(2, f"T.atomic_add({out2}[{lb}{k.by} * {k.bM}, 0], {O})")
        if rng.random() < 0.4:
            ivars, header = self.loop_vars(k)
            k.emit(2, header)
            idx = ", ".join(ivars)
            leaves = [(f"{C_f}[{idx}]", kind_of(acc_dtype))]
            leaves += [(v, "x") for v in ivars]
            if rng.random() < 0.3:
                bias = k.tensor([k.N], rng.choice(["float32", "float16"]))
                col = f"{k.bx} * {k.bN} + {ivars[-1]}"
                if self.tile_divides(k.N, k.bN):
                    leaves.append((f"{bias}[{col}]", "f"))
                else:
                    leaves.append((f"T.if_then_else({col} < {k.N.code}, "
                                   f"{bias}[T.min({col}, {k.N.code} - 1)], 0)", "f"))
            self.assign(k, 3, f"{C_f}[{idx}]", acc_dtype, leaves)
        dst = self.origin(k, C, slice_form=False)
        if rng.random() < 0.25 and k.fits_shared([k.bM, k.bN], out_dtype):
            C_s = k.shared("C_shared", [k.bM, k.bN], out_dtype)
            k.emit(2, f"T.copy({C_f}, {C_s})")
            k.emit(2, f"T.copy({C_s}, {dst})")
        else:
            k.emit(2, f"T.copy({C_f}, {dst})")
        return True


def vendor_of(target):
    """nvidia, amd or host, for an --arch list or `host`."""
    if target == "host":
        return "host"
    return "amd" if target.startswith("gfx") else "nvidia"


def generate(seed, avoid_known=True, target=None):
    """The file of `seed`; `target` (an --arch value, or host) replaces the
    one the seed draws."""
    return Generator(seed, avoid_known, target).generate()


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("seed", type=int)
    parser.add_argument("-o", "--output", help="file to write (default: standard output)")
    parser.add_argument("--known-bugs", action="store_true",
                        help="also write what KNOWN_BUGS says tilec gets wrong")
    parser.add_argument("--target", metavar="ARCH",
                        help="compile for this target (an --arch value, or host) rather "
                             "than the one the seed draws")
    args = parser.parse_args()
    text = generate(args.seed, avoid_known=not args.known_bugs, target=args.target)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
