//===- Passes.h - Conversions out of the tile dialect -----------*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_PASSES_H
#define TILEC_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace tilec {

#define GEN_PASS_DECL
#include "tilec/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tilec/Conversion/Passes.h.inc"

/// The name of the gpu.module that holds the kernels.
inline constexpr llvm::StringLiteral kKernelModuleName = "tilec_kernels";
/// The gpu.func attribute with the bytes of dynamic shared memory a kernel
/// needs.
inline constexpr llvm::StringLiteral kSharedMemoryBytesAttr =
    "tile.shared_memory_bytes";
/// The attribute of a gpu.func argument that is a TMA tensor map the host
/// encodes: {tensor = the index of the tensor's argument, box, swizzle}.
inline constexpr llvm::StringLiteral kTensorMapAttr = "tile.tensor_map";

} // namespace tilec

#endif // TILEC_CONVERSION_PASSES_H
