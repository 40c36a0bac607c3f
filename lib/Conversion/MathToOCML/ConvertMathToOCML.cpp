//===- ConvertMathToOCML.cpp - Math the AMDGPU back end cannot select -----===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToROCDL/MathToROCDL.h"
#include "mlir/Dialect/AMDGPU/Utils/Chipset.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTMATHTOOCML
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct ConvertMathToOCMLPass
    : public tilec::impl::ConvertMathToOCMLBase<ConvertMathToOCMLPass> {
  using ConvertMathToOCMLBase::ConvertMathToOCMLBase;

  void runOnOperation() override {
    FailureOr<amdgpu::Chipset> chip = amdgpu::Chipset::parse(chipset);
    if (failed(chip)) {
      getOperation().emitError("invalid AMD chipset '") << chipset << "'";
      return signalPassFailure();
    }
    MLIRContext *context = &getContext();
    LLVMTypeConverter converter(context);
    RewritePatternSet patterns(context);
    populateMathToROCDLConversionPatterns(converter, patterns, *chip);
    // Only the ops the back end cannot select become calls: the others
    // keep the intrinsics convert-gpu-to-rocdl gives them.
    ConversionTarget target(*context);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    target.addIllegalOp<math::TanhOp>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
