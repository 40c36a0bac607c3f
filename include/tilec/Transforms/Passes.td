//===- Passes.td - tilec's passes on upstream dialects -----*- tablegen -*-===//
//
// Part of tilec. Passes that work on the gpu.module after the tile dialect
// is gone.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TRANSFORMS_PASSES_TD
#define TILEC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TilecFastMath : Pass<"tilec-fast-math", "mlir::gpu::GPUModuleOp"> {
  let summary = "Allow approximate math and flush f32 denormals to zero";
  let description = [{
    What `tilec --fast-math` asks for, applied to the kernels of a
    gpu.module before it is lowered to NVVM or ROCDL: every floating-point
    `arith` and `math` op gets the `fast` fast-math flags, so that division
    and square root become their approximate instructions and `math.exp`,
    `math.log` and the like call the fast device-library variants
    (`__nv_fast_expf`, ...); and every kernel flushes f32 denormals to zero
    (`denormal_fp_math_f32 = "preserve-sign,preserve-sign"` on the
    `gpu.func`, which becomes the LLVM function attribute).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TilecTestInjectFault : Pass<"tilec-test-inject-fault", "mlir::ModuleOp"> {
  let summary = "Break the compiler on purpose, to test internal errors";
  let description = [{
    For tilec's own tests of how internal errors are reported (`tilec
    --debug-inject-fault=KIND`): `invalid-ir` leaves IR that does not
    verify (a `func.return` at module level), `silent-failure` fails
    without a diagnostic and `crash` stops the process with a trap
    instruction. No pipeline of tilec's runs it otherwise.
  }];
  let options = [
    Option<"kind", "kind", "std::string", /*default=*/"\"invalid-ir\"",
           "The fault: invalid-ir, silent-failure or crash">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

#endif // TILEC_TRANSFORMS_PASSES_TD
