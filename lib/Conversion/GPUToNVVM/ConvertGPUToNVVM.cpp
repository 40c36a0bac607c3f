//===- ConvertGPUToNVVM.cpp - gpu, nvgpu and vector to NVVM in one go -----===//
//
// Part of tilec. Upstream's convert-gpu-to-nvvm uses one type converter for
// the dialects it covers; nvgpu and vector ops converted by their own passes
// would get another (with 64-bit indices), and the casts between the two
// could not be reconciled. This pass converts them all together.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTGPUTONVVM
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct ConvertGPUToNVVMPass
    : public tilec::impl::ConvertGPUToNVVMBase<ConvertGPUToNVVMPass> {
  using ConvertGPUToNVVMBase::ConvertGPUToNVVMBase;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    MLIRContext *context = &getContext();

    // Ops that lower within their dialects first: gpu's all-reduce and
    // shuffle helpers, arith's floor and ceil divisions, and n-D
    // vector.from_elements.
    {
      RewritePatternSet patterns(context);
      populateGpuRewritePatterns(patterns);
      arith::populateCeilFloorDivExpandOpsPatterns(patterns);
      vector::populateVectorFromElementsUnrollPatterns(patterns);
      if (failed(applyPatternsGreedily(module, std::move(patterns))))
        return signalPassFailure();
    }

    LowerToLLVMOptions options(context);
    options.overrideIndexBitwidth(indexBitwidth);
    options.useBarePtrCallConv = true;
    LLVMTypeConverter converter(context, options);
    configureGpuToNVVMTypeConverter(converter);
    nvgpu::populateCommonGPUTypeAndAttributeConversions(converter);
    // cp.async tokens only order the waits; they have no value on NVVM.
    converter.addConversion([&](nvgpu::DeviceAsyncTokenType type) -> Type {
      return converter.convertType(IntegerType::get(type.getContext(), 32));
    });

    RewritePatternSet patterns(context);
    LLVMConversionTarget target(*context);
    // gpu's patterns first: they lower math to libdevice and know the
    // kernel attributes.
    populateGpuToNVVMConversionPatterns(converter, patterns, /*benefit=*/10);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    configureGpuToNVVMConversionLegality(target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
