//===- FastMath.cpp - Approximate math and f32 denormal flushing ----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace tilec {
#define GEN_PASS_DEF_TILECFASTMATH
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct FastMathPass : public tilec::impl::TilecFastMathBase<FastMathPass> {
  using TilecFastMathBase::TilecFastMathBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    // What nvcc's --use_fast_math allows: approximate functions and
    // reciprocals, contraction. Not the assumptions of `fast` (no NaNs, no
    // infinities, reassociation): kernels mask with -inf on purpose.
    auto fast = arith::FastMathFlagsAttr::get(
        context, arith::FastMathFlags::afn | arith::FastMathFlags::arcp |
                     arith::FastMathFlags::contract);
    getOperation()->walk([&](Operation *op) {
      if (auto func = dyn_cast<gpu::GPUFuncOp>(op)) {
        // The gpu.func's attributes carry over to the llvm.func, where this
        // one is the "denormal-fp-math-f32" function attribute.
        func->setAttr("denormal_fp_math_f32",
                      StringAttr::get(context, "preserve-sign,preserve-sign"));
        return;
      }
      if (auto math = dyn_cast<arith::ArithFastMathInterface>(op))
        op->setAttr(math.getFastMathAttrName(), fast);
    });
    auto module = dyn_cast<gpu::GPUModuleOp>(getOperation());
    if (!nvvmFtz || !module)
      return;
    // libdevice's functions (__nv_exp2f, ...) pick their flushing variants
    // by __nvvm_reflect("__CUDA_FTZ"), which reads this module flag.
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    LLVM::ModuleFlagsOp::create(
        b, module.getLoc(),
        b.getArrayAttr({LLVM::ModuleFlagAttr::get(
            context, LLVM::ModFlagBehavior::Override,
            b.getStringAttr("nvvm-reflect-ftz"), b.getI32IntegerAttr(1))}));
  }
};

} // namespace
