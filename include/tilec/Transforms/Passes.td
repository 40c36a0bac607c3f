//===- Passes.td - tilec's passes on upstream dialects -----*- tablegen -*-===//
//
// Part of tilec. Passes that work on the gpu.module after the tile dialect
// is gone.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TRANSFORMS_PASSES_TD
#define TILEC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TilecFastMath : Pass<"tilec-fast-math"> {
  let summary = "Allow approximate math and flush f32 denormals to zero";
  let description = [{
    What `tilec --fast-math` asks for, applied to the kernels of a
    gpu.module before it is lowered to NVVM or ROCDL (or to the host
    target's functions), and what nvcc's
    `--use_fast_math` means: every floating-point `arith` and `math` op gets
    the `afn`, `arcp` and `contract` fast-math flags, so that division and
    square root become their approximate instructions, `math.exp`,
    `math.log` and the like call the fast device-library variants
    (`__nv_fast_expf`, ...) and multiplies fuse with adds; and every kernel
    flushes f32 denormals to zero (`denormal_fp_math_f32 =
    "preserve-sign,preserve-sign"` on the `gpu.func`, which becomes the LLVM
    function attribute). It does not assume the absence of NaNs or
    infinities, nor reassociate: kernels mask with `-inf` on purpose.

    With `nvvm-ftz`, a gpu.module also gets the `nvvm-reflect-ftz` module
    flag, through which libdevice's functions (`__nv_exp2f`, ...) choose
    their flushing variants (`ex2.approx.ftz.f32`).
  }];
  let options = [
    Option<"nvvmFtz", "nvvm-ftz", "bool", "false",
           "Set libdevice's __CUDA_FTZ (NVIDIA targets)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def TilecContractFloat : Pass<"tilec-contract-float"> {
  let summary = "Let floating-point multiplies and adds fuse into FMAs";
  let description = [{
    Adds the `contract` fast-math flag to every floating-point `arith` op of
    the kernels it runs on, so that LLVM fuses `a * b + c` into one fused
    multiply-add, rounded once, as nvcc (`-fmad=true`), hipcc and Triton do
    by default. Without it the NVPTX backend keeps each multiply and add
    rounded on its own (`mul.rn`, `add.rn`). tilec runs it unless
    `--no-fma` is given; `--fast-math` implies it.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TilecMergeReads : Pass<"tilec-merge-reads"> {
  let summary = "Merge repeated reads of one place in a block, in linear time";
  let description = [{
    Replaces an operation that only reads memory (a `memref.load`, say) by
    an identical one earlier in its block when nothing between them may
    write: what `cse` does for such reads, but in one pass over the block.
    Upstream CSE scans from the earlier read to the later one for every
    repeat, which takes time quadratic in the block's length: a statement
    that reads `A[i]` 6,000 times spent 1.6 s in CSE, 30,000 times a
    minute. tilec runs it before the first `cse` after the front end, which
    is where a kernel's repeated reads come from.
  }];
}

def TilecExpandFp8 : Pass<"tilec-expand-fp8"> {
  let summary = "Convert to and from 8-bit floats with integer arithmetic";
  let description = [{
    LLVM has no 8-bit float types, so neither the NVPTX, AMDGPU nor x86
    backend takes an `arith.extf` from, or an `arith.truncf` to,
    `f8E4M3FN` or `f8E5M2`. This pass rewrites both into integer arithmetic
    on the bytes (scalars or vectors), through f32:

    - Widening is exact: normal numbers move their exponent and mantissa
      fields, subnormals are scaled from an integer, and NaN (and, for
      `f8E5M2`, infinity) map to themselves.
    - Narrowing rounds to nearest, ties to even, and saturates to the
      largest finite value (448 for `f8E4M3FN`, 57344 for `f8E5M2`),
      infinities included; NaN stays NaN. This is what PTX's
      `cvt.rn.satfinite` does, and what CUDA kernels written for TileLang
      get. An f64 operand is rounded to f32 first.

    Arithmetic on 8-bit floats is left to
    `arith-emulate-unsupported-floats`, run before this pass, which widens
    it to f32 around `arith.extf` and `arith.truncf`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TilecGpuModuleToBinary : Pass<"tilec-gpu-module-to-binary"> {
  let summary = "Compile gpu.modules to binaries, around back-end problems";
  let description = [{
    Upstream's `gpu-module-to-binary` (each `gpu.module` through LLVM's
    NVPTX or AMDGPU back end, then ptxas or lld, into a `gpu.binary`), with
    repairs of the optimized LLVM module before code generation where a
    back end gets it wrong:

    - `bf16-compares-in-f32` makes bf16 comparisons in f32, to which bf16
      values extend exactly: LLVM 22's NVPTX back end gives bf16
      comparisons the f32 flushing modifier in kernels that flush
      (`--fast-math`), and ptxas rejects `setp.gt.ftz.bf16`. It cannot be
      done earlier, as the optimizer folds a comparison of extended values
      back into a bf16 one.
  }];
  let options = [
    Option<"toolkit", "toolkit", "std::string", /*default=*/"\"\"",
           "The CUDA toolkit or the ROCm directory">,
    Option<"format", "format", "std::string", /*default=*/"\"bin\"",
           "What to make: bin (cubin, hsaco), isa (PTX, AMDGPU assembly), "
           "or the LLVM IR code generation starts from, as text (ll) or "
           "bitcode (bc)">,
    Option<"assemblerOptions", "assembler-options", "std::string",
           /*default=*/"\"\"",
           "Options for the device assembler (ptxas), space-separated">,
    Option<"bf16ComparesInF32", "bf16-compares-in-f32", "bool",
           /*default=*/"false",
           "Make bf16 comparisons in f32 (NVIDIA, flushing kernels)">,
  ];
}

def TilecTestInjectFault : Pass<"tilec-test-inject-fault", "mlir::ModuleOp"> {
  let summary = "Break the compiler on purpose, to test internal errors";
  let description = [{
    For tilec's own tests of how internal errors are reported (`tilec
    --debug-inject-fault=KIND`): `invalid-ir` leaves IR that does not
    verify (a `func.return` at module level), `silent-failure` fails
    without a diagnostic, `reported` fails with an error that says it is an
    internal one (as a pass that finds a bug of tilec's does),
    `generated-code-error` fails with a plain error (as an upstream
    conversion does on code it cannot lower), and `crash` stops the process
    with a trap instruction. No pipeline of tilec's runs
    it otherwise.
  }];
  let options = [
    Option<"kind", "kind", "std::string", /*default=*/"\"invalid-ir\"",
           "The fault: invalid-ir, silent-failure, reported, "
           "generated-code-error or crash">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // TILEC_TRANSFORMS_PASSES_TD
