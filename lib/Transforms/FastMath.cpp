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
    if (!nvvmFtz)
      return;
    compareBf16InF32();
    auto module = dyn_cast<gpu::GPUModuleOp>(getOperation());
    if (!module)
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

  /// NVPTX gives a bf16 comparison the f32 flushing modifier, which PTX
  /// does not have for bf16 (`setp.gt.ftz.bf16`): compare in f32, which
  /// every bf16 value converts to exactly. The conversion is made of
  /// integer operations, which LLVM does not fold back into a bf16
  /// comparison as it does an fpext.
  void compareBf16InF32() {
    SmallVector<arith::CmpFOp> compares;
    getOperation()->walk([&](arith::CmpFOp compare) {
      if (getElementTypeOrSelf(compare.getLhs().getType()).isBF16())
        compares.push_back(compare);
    });
    for (arith::CmpFOp compare : compares) {
      OpBuilder b(compare);
      Location loc = compare.getLoc();
      auto like = [&](Type element) -> Type {
        if (auto vector = dyn_cast<VectorType>(compare.getLhs().getType()))
          return vector.clone(element);
        return element;
      };
      Type bits16 = like(b.getI16Type());
      Type bits32 = like(b.getI32Type());
      TypedAttr shift = b.getI32IntegerAttr(16);
      if (auto vector = dyn_cast<VectorType>(bits32))
        shift = DenseElementsAttr::get(vector, shift);
      Value sixteen = arith::ConstantOp::create(b, loc, shift);
      auto widen = [&](Value value) -> Value {
        Value bits = arith::BitcastOp::create(b, loc, bits16, value);
        Value wide = arith::ExtUIOp::create(b, loc, bits32, bits);
        Value high = arith::ShLIOp::create(b, loc, wide, sixteen);
        return arith::BitcastOp::create(b, loc, like(b.getF32Type()), high);
      };
      compare.getLhsMutable().assign(widen(compare.getLhs()));
      compare.getRhsMutable().assign(widen(compare.getRhs()));
    }
  }
};

} // namespace
