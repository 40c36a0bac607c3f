//===- Utils.h - Helpers shared by the tile passes --------------*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_UTILS_H
#define TILEC_DIALECT_TILE_TRANSFORMS_UTILS_H

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <optional>
#include <string>

namespace tilec::tile {

/// Converts a scalar between element types the way a copy does: floats
/// extend or truncate, integers sign-extend or truncate, and integers and
/// floats convert as signed values.
mlir::Value convertElement(mlir::OpBuilder &builder, mlir::Location loc,
                           mlir::Value value, mlir::Type to);

/// The identity and the combining step of a reduction (T.reduce_*) of
/// elements of `type`.
struct Reduction {
  ReduceKind kind;
  mlir::Type type;

  /// What combines with anything to give it back: -inf for max, 0 for a
  /// sum (and for absolute maxima, which are never negative).
  mlir::Value identity(mlir::OpBuilder &builder, mlir::Location loc) const;
  /// The value a source element contributes: itself, or its absolute
  /// value for absmax and abssum.
  mlir::Value element(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Value value) const;
  mlir::Value combine(mlir::OpBuilder &builder, mlir::Location loc,
                      mlir::Value lhs, mlir::Value rhs) const;
};

/// Whether `op` gives each thread of a block its own value (the thread or
/// lane index, a warp shuffle) or synchronizes part of the block.
bool isThreadLevelOp(mlir::Operation *op);

/// Whether `value` may differ between the threads of a block: it derives
/// from the thread index or a warp shuffle, directly or through a
/// thread's own variables (what is stored into them, and the control
/// under which it is).
bool variesAcrossThreads(mlir::Value value);

/// The threads that run `op` together: those of its innermost
/// tile.thread_range (`range`), or the block's (`range` null).
struct ThreadScope {
  int64_t first = 0;
  int64_t count = 0;
  ThreadRangeOp range;
};
ThreadScope threadScopeOf(mlir::Operation *op);
/// The threads that run the body of `range`.
ThreadScope threadScopeOf(ThreadRangeOp range);
/// A barrier among the threads of `scope`: the block's, or the named
/// barrier of its range (its `barrier_id`, which tile-insert-barriers
/// sets).
void createScopeBarrier(mlir::OpBuilder &builder, mlir::Location loc,
                        const ThreadScope &scope);

/// Whether the threads of a block may take different paths through `op`:
/// an `if` on a condition, or a loop on bounds, that differs between them
/// (`if tx == 0:`).
bool hasDivergentControl(mlir::Operation *op);

/// Inserts the barriers that `kernel`'s shared-memory accesses need
/// (tile-insert-barriers), with async-proxy fences before gemms when
/// `proxyFences`.
mlir::LogicalResult insertBlockBarriers(KernelOp kernel, bool proxyFences);

/// The constant zero of a scalar type.
mlir::Value createZero(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Type type);

/// Emits `expr` over non-negative index values `dims` with unsigned
/// division and remainder: layout maps only see thread ids and slots.
mlir::Value emitNonNegativeAffine(mlir::OpBuilder &builder, mlir::Location loc,
                                  mlir::AffineExpr expr, mlir::ValueRange dims);

/// A number that `value` (an integer or index) is known to be a multiple
/// of, from the arithmetic that computes it: 64 for `bx * 64 + 128`, 1 when
/// nothing is known. Zero is a multiple of everything (2^62 stands for it).
int64_t getKnownDivisor(mlir::Value value);

/// A known divisor of x * y from known divisors `a` of x and `b` of y (both
/// positive): a * b, or the power of two it holds when that overflows.
int64_t multiplyKnownDivisors(int64_t a, int64_t b);

/// The shared allocation `view` is, or a view (a pipeline stage, a cast)
/// of; null when it is neither.
AllocSharedOp getSharedAlloc(mlir::Value view);

/// Whether `tile.annotate_layout` fixes `alloc`'s layout.
bool isAnnotated(AllocSharedOp alloc);

/// Gives `alloc` the row-major layout with `swizzle`.
void setSwizzledLayout(AllocSharedOp alloc, SwizzleAttr swizzle);

/// The split of `gemm`'s accumulator over its block's warps (of the target's
/// warp size; `unit` names them in messages) in whole 16 x `atomN` tiles,
/// as its policy asks; the message says why there is none.
mlir::FailureOr<WarpPartition> computeGemmWarpPartition(GemmOp gemm,
                                                        int64_t atomN,
                                                        llvm::StringRef unit,
                                                        std::string &message);

/// Marks the pipeline stage (a memref.subview) that tile-pipeline fills
/// for a later iteration and synchronizes itself; tile-insert-barriers
/// leaves its writes alone.
inline constexpr llvm::StringLiteral kFilledAheadAttr = "tile.filled_ahead";

/// Whether the bulk tensor copy engine (TMA) can copy between the region of
/// `extents` of the global `tensor` and the whole 2-D shared tile `buffer`
/// (an allocation): a tensor that is a parameter of the kernel's function
/// (whose tensor map the launch builds; not a view of one), the same
/// element type of 1, 2 or 4 bytes, a tensor of
/// rank 5 at most and identity layout whose strides are statically known
/// multiples of 16 bytes below 2^40, the region's innermost extent the
/// tile's columns, boxes of at most 256 elements, and no layout annotated
/// for the tile. On success `panels` is the panelled layout to give the
/// tile, or nullopt for an unswizzled row-major one.
bool qualifiesForTma(mlir::Value tensor, llvm::ArrayRef<int64_t> extents,
                     mlir::Value buffer, std::optional<PanelledTile> &panels);

/// How the bulk tensor copy engine moves a 2-D shared tile: one box per
/// panel of its panelled layout, or one box for a plain tile.
struct TmaPanels {
  /// The tensor map whose box is one panel.
  mlir::Value map;
  int64_t count;
  int64_t cols;
  int64_t bytes;
};

/// The panels of `tile` (a shared allocation or a stage of one), with the
/// tensor map of `tensor` for a region of `extents`, narrowed to a panel's
/// columns, made at the start of `kernel`. Nullopt, and nothing made, when
/// the tile's layout is neither panelled nor plain.
std::optional<TmaPanels> createTmaPanels(KernelOp kernel, mlir::Location loc,
                                         mlir::Value tensor,
                                         llvm::ArrayRef<int64_t> extents,
                                         mlir::Value tile);

/// Calls `emit` for each panel with its coordinates in the tensor (i32,
/// innermost first, from the region's `offsets`) and the shared-memory
/// pointer to it in `tile`.
void emitPerTmaPanel(
    mlir::OpBuilder &builder, mlir::Location loc, const TmaPanels &panels,
    llvm::ArrayRef<mlir::OpFoldResult> offsets, mlir::Value tile,
    llvm::function_ref<void(mlir::ValueRange coordinates, mlir::Value panel)>
        emit);

/// The linear index of the calling thread in its block (x fastest), for a
/// block of `threads` (one to three extents).
mlir::Value emitLinearThreadId(mlir::OpBuilder &builder, mlir::Location loc,
                               llvm::ArrayRef<int64_t> threads);

/// Whether the calling thread is the first of its block: the one that
/// issues the block's bulk copies and initializes its mbarriers.
mlir::Value emitIsFirstThread(mlir::OpBuilder &builder, mlir::Location loc,
                              llvm::ArrayRef<int64_t> threads);

/// The byte address in shared memory of the first element of `view`, a
/// shared buffer or a strided view of one, as an index.
mlir::Value emitSharedAddress(mlir::OpBuilder &builder, mlir::Location loc,
                              mlir::Value view);

/// `emitSharedAddress` plus `byteOffset`, as a shared-memory pointer
/// (!llvm.ptr<3>) for the NVVM ops that take one.
mlir::Value emitSharedPointer(mlir::OpBuilder &builder, mlir::Location loc,
                              mlir::Value view, mlir::Value byteOffset);

/// Where a swizzled tile of `cols` columns keeps the element at `offset`
/// in its unswizzled layout: (row, column) of `swizzle(offset)`.
std::pair<mlir::Value, mlir::Value>
emitSwizzledTileIndices(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value offset, SwizzleAttr swizzle, int64_t cols);

/// The unswizzled offset and the swizzle of a row and column that
/// emitSwizzledTileIndices made for a tile of `cols` columns.
struct SwizzledOffset {
  mlir::Value offset;
  SwizzleAttr swizzle;
};
std::optional<SwizzledOffset>
matchSwizzledTileIndices(mlir::Value row, mlir::Value column, int64_t cols);

/// How a diagnostic names a fragment: "fragment 'acc'" when the front end
/// named it, "a fragment" otherwise.
std::string describeFragment(mlir::Value fragment);

/// The string attribute that marks the tile.parallel loops layout inference
/// inserts to move a fragment through shared memory, with the reason.
inline constexpr llvm::StringLiteral kLayoutConversionAttrName =
    "tile.layout_conversion";

} // namespace tilec::tile

#endif // TILEC_DIALECT_TILE_TRANSFORMS_UTILS_H
