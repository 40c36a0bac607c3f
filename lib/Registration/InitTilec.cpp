//===- InitTilec.cpp - Register tilec's dialects and passes ---------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/InitTilec.h"
#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Target/AMD/MatrixInstructions.h"
#include "tilec/Target/NVIDIA/IndexedAccesses.h"
#include "tilec/Target/NVIDIA/MatrixInstructions.h"
#include "tilec/Transforms/Passes.h"
#include "tilec/Verification/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/ROCDL/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/Passes.h"

void tilec::registerDialects(mlir::DialectRegistry &registry) {
  registry.insert<tile::TileDialect, mlir::affine::AffineDialect,
                  mlir::amdgpu::AMDGPUDialect, mlir::arith::ArithDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::index::IndexDialect,
                  mlir::LLVM::LLVMDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect, mlir::NVVM::NVVMDialect,
                  mlir::nvgpu::NVGPUDialect, mlir::ROCDL::ROCDLDialect,
                  mlir::scf::SCFDialect, mlir::vector::VectorDialect>();
  // The matrix instructions tile.gemm runs on, one model per vendor.
  nvidia::registerMatrixInstructionModels(registry);
  nvidia::registerIndexedAccessModels(registry);
  amd::registerMatrixInstructionModels(registry);
  // Lowering to LLVM and serializing to cubins and hsacos go through
  // dialect extensions (conversion interfaces, GPU targets, translations).
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  mlir::ROCDL::registerROCDLTargetInterfaceExternalModels(registry);
}

void tilec::registerPasses() {
  tile::registerTilePasses();
  tile::registerVerificationPasses();
  registerTilecConversionPasses();
  registerTilecPasses();
  // The upstream passes of the device pipelines.
  mlir::registerConversionPasses();
  mlir::registerGPUPasses();
  mlir::arith::registerArithPasses();
  mlir::memref::registerMemRefPasses();
  mlir::math::registerMathPasses();
  // Canonicalization, CSE, inlining, symbol DCE and the other generic
  // transformations the pipelines are built from.
  mlir::registerTransformsPasses();
}
