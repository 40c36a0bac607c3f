//===- TileOps.h - Operations of the tile dialect ---------------*- C++ -*-===//
//
// Part of tilec. Declares the ops of the tile dialect.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEOPS_H
#define TILEC_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tilec/Dialect/Tile/IR/TileDialect.h"

namespace tilec::tile {
/// The alignment, in bytes, of a tensor argument's pointer: the widest
/// vector access. The generated header checks it before each launch.
inline constexpr int64_t kTensorAlignment = 16;

/// The unit attribute on a kernel function's argument that is a buffer of
/// its workspace (T.alloc_global) rather than a parameter: the generated
/// header passes a part of the caller's workspace pointer for it.
inline constexpr llvm::StringLiteral kWorkspaceAttrName = "tile.workspace";
/// The alignment, in bytes, at which every shared buffer starts (more for
/// swizzled ones, at a multiple of their swizzle's period, which TMA and
/// wgmma compute from addresses).
inline constexpr int64_t kSharedAlignment = 128;

/// The kernel ABI's view of tensor argument `index` of kernel function
/// `func`: `pointer` (the bare pointer passed in its place) re-shaped as a
/// row-major tensor of `func`'s type for it, in `memorySpace`, its dynamic
/// extents read from the arguments `tile.dims` names among `arguments`.
/// Built at `builder`'s insertion point; fails, with an error, when an
/// extent is dynamic and the argument has no `tile.dims`.
mlir::FailureOr<mlir::Value>
reshapeTensorArgument(mlir::OpBuilder &builder, mlir::FunctionOpInterface func,
                      unsigned index, mlir::Value pointer,
                      mlir::ValueRange arguments, mlir::Attribute memorySpace);

/// One access of an op of the IndexedAccessOpInterface: `elements`
/// consecutive elements along the last dimension of `memref` from
/// `indices`.
struct IndexedAccess {
  IndexedAccess(mlir::Value memref, mlir::MutableOperandRange indices,
                int64_t elements, bool isWrite)
      : memref(memref), indices(indices), elements(elements), isWrite(isWrite) {
  }

  mlir::Value memref;
  /// The indices, which passes that re-lay out a buffer rewrite.
  mlir::MutableOperandRange indices;
  int64_t elements;
  bool isWrite;
  /// It lands after the op, ordered with the thread's later accesses only
  /// by the ops that wait for asynchronous copies.
  bool isAsync = false;
  /// The bytes the address must be a multiple of, which the instruction
  /// fixes; 0 when an element's alignment is enough.
  int64_t requiredAlignment = 0;
  /// The op's guardAccess can make it touch nothing out of bounds.
  bool guardable = false;
  /// The lanes of a warp access 16-byte rows of a tile together, one lane a
  /// row: unswizzled rows a multiple of 128 bytes long share their banks.
  bool rowsAcrossLanes = false;
  /// What it is, for messages: "asynchronous copy read of".
  llvm::StringRef description;
};

/// Fails with a diagnostic unless `op` is nested in a `tile.kernel`.
mlir::LogicalResult verifyInKernel(mlir::Operation *op);

/// The 8-bit float formats of OCP (NVIDIA's, gfx950's): f8E4M3FN, f8E5M2.
bool isOcpFp8Type(mlir::Type type);
/// The FNUZ 8-bit float formats of gfx942's matrix cores: f8E4M3FNUZ,
/// f8E5M2FNUZ.
bool isFnuzFp8Type(mlir::Type type);

namespace OpTrait {
/// The op runs on the threads of a block, so it must be inside a kernel.
template <typename ConcreteType>
class InKernel : public mlir::OpTrait::TraitBase<ConcreteType, InKernel> {
public:
  static mlir::LogicalResult verifyTrait(mlir::Operation *op) {
    return verifyInKernel(op);
  }
};

/// The op orders memory accesses between the threads of a block, as a
/// barrier does.
template <typename ConcreteType>
class Synchronizes
    : public mlir::OpTrait::TraitBase<ConcreteType, Synchronizes> {};
} // namespace OpTrait
} // namespace tilec::tile

#include "tilec/Dialect/Tile/IR/TileAttrInterfaces.h.inc"
#include "tilec/Dialect/Tile/IR/TileOpInterfaces.h.inc"

#define GET_OP_CLASSES
#include "tilec/Dialect/Tile/IR/TileOps.h.inc"

namespace tilec::tile {
/// The bytes of `alloc`'s buffer.
int64_t getSharedBytes(AllocSharedOp alloc);
/// The alignment, in bytes, at which `alloc`'s buffer starts:
/// kSharedAlignment, or its swizzle's period if that is larger.
int64_t getSharedAlignment(AllocSharedOp alloc);
} // namespace tilec::tile

#endif // TILEC_DIALECT_TILE_IR_TILEOPS_H
