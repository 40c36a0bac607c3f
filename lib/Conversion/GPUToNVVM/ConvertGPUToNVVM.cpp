//===- ConvertGPUToNVVM.cpp - gpu, nvgpu and vector to NVVM in one go -----===//
//
// Part of tilec. Upstream's convert-gpu-to-nvvm uses one type converter for
// the dialects it covers; nvgpu and vector ops converted by their own passes
// would get another (with 64-bit indices), and the casts between the two
// could not be reconciled. This pass converts them all together.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
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

    // The conversion drops the attributes of the tensor-map arguments; they
    // are restored as by-value kernel parameters below.
    llvm::StringMap<SmallVector<unsigned>> tensorMapArgs;
    for (auto func : module.getOps<gpu::GPUFuncOp>())
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (func.getArgAttr(i, tilec::kTensorMapAttr))
          tensorMapArgs[func.getName()].push_back(i);

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
    // The rest of math (integer abs of any width) as LLVM intrinsics.
    populateMathToLLVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    populateNVGPUToNVVMConversionPatterns(converter, patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    configureGpuToNVVMConversionLegality(target);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();

    // NVVM ops without an LLVM intrinsic (wgmma, mbarrier waits) become
    // their inline PTX.
    bool needsPtx = module
                        .walk([](NVVM::BasicPtxBuilderInterface op) {
                          return op.hasIntrinsic() ? WalkResult::advance()
                                                   : WalkResult::interrupt();
                        })
                        .wasInterrupted();
    if (needsPtx) {
      RewritePatternSet ptx(context);
      populateNVVMToLLVMConversionPatterns(ptx);
      if (failed(applyPatternsGreedily(module, std::move(ptx))))
        return signalPassFailure();
    }

    // A tensor map is a 128-byte, 64-byte aligned __grid_constant__
    // parameter: the kernel reads it where the launch put it, and TMA takes
    // its generic address.
    OpBuilder b(context);
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      auto it = tensorMapArgs.find(func.getName());
      if (it == tensorMapArgs.end())
        continue;
      for (unsigned i : it->second) {
        func.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                        TypeAttr::get(LLVM::LLVMArrayType::get(
                            IntegerType::get(context, 8), 128)));
        func.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(64));
        func.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                        b.getUnitAttr());
      }
    }
    // Swizzled tiles sit at multiples of their swizzle's period (up to 1024
    // bytes) from the start of dynamic shared memory, which must then be
    // aligned as much.
    for (auto global : module.getOps<LLVM::GlobalOp>())
      if (global.getAddrSpace() == 3 &&
          global.getSymName().starts_with("__dynamic_shmem__"))
        global.setAlignment(1024);
  }
};

} // namespace
