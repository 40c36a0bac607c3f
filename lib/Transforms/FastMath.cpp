//===- FastMath.cpp - Approximate math and f32 denormal flushing ----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Passes.h"

namespace tilec {
#define GEN_PASS_DEF_TILECFASTMATH
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct FastMathPass : public tilec::impl::TilecFastMathBase<FastMathPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    auto fast =
        arith::FastMathFlagsAttr::get(context, arith::FastMathFlags::fast);
    getOperation().walk([&](Operation *op) {
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
  }
};

} // namespace
