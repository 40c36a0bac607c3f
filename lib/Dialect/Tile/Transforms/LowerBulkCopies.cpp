//===- LowerBulkCopies.cpp - Shared tiles to global memory by TMA ---------===//
//
// Part of tilec. Lowers the copies of shared tiles to global memory that
// tile-lower-copies left to the bulk tensor copy engine: one thread issues
// a TMA store per panel of the tile and waits until the engine has read
// the tile, so that the block's barriers order the tile's reuse as they
// would a copy made by that thread.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILELOWERBULKCOPIES
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

LogicalResult lowerBulkCopy(CopyOp copy) {
  auto kernel = copy->getParentOfType<KernelOp>();
  auto srcType = cast<MemRefType>(copy.getSource().getType());
  AllocSharedOp alloc = getSharedAlloc(copy.getSource());
  if (!kernel || !alloc || srcType.getRank() != 2)
    return copy.emitOpError() << "is bulk but does not read a 2-D shared tile";
  int64_t elementBytes = srcType.getElementTypeBitWidth() / 8;
  int64_t rows = srcType.getDimSize(0), cols = srcType.getDimSize(1);
  std::optional<PanelledTile> tile =
      matchPanelledLayout(alloc.getLayoutAttr(), elementBytes);
  if (!tile && alloc.getLayoutAttr())
    return copy.emitOpError()
           << "is bulk but its tile's layout is not one TMA writes from";
  int64_t panelCols = tile ? tile->panelCols() : cols;
  int64_t panels = cols / panelCols;

  MLIRContext *context = copy.getContext();
  Location loc = copy.getLoc();
  SmallVector<int64_t> box(copy.getDestExtents());
  box.back() = panelCols;
  OpBuilder kb = OpBuilder::atBlockBegin(&kernel.getBody().front());
  Value map =
      TensorMapOp::create(kb, loc, LLVM::LLVMPointerType::get(context),
                          copy.getDest(), box, tile ? tile->swizzleBytes : 0);

  // The first thread of the block is a consumer where a producer
  // warpgroup exists: that warpgroup comes after the kernel's threads.
  OpBuilder b(copy);
  auto ifOp = scf::IfOp::create(
      b, loc, emitIsFirstThread(b, loc, kernel.getThreads()), false);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  // Coordinates go innermost first.
  SmallVector<Value> coordinates;
  for (OpFoldResult offset : llvm::reverse(copy.getMixedDestOffsets()))
    coordinates.push_back(arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        getValueOrCreateConstantIndexOp(b, loc, offset)));
  Value inner = coordinates.front();
  int64_t panelBytes = rows * panelCols * elementBytes;
  for (int64_t p = 0; p < panels; ++p) {
    coordinates.front() = b.createOrFold<arith::AddIOp>(
        loc, inner, arith::ConstantIntOp::create(b, loc, p * panelCols, 32));
    Value src = emitSharedPointer(
        b, loc, copy.getSource(),
        arith::ConstantIndexOp::create(b, loc, p * panelBytes));
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        b, loc, map, src, coordinates, /*l2CacheHint=*/Value(),
        NVVM::TMAStoreMode::TILE, /*predicate=*/Value());
  }
  NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  // Waiting for the reads only: the writes reach global memory by the end
  // of the kernel, and nothing in it reads the tensor (tile-lower-copies
  // checked).
  NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, 0, b.getUnitAttr());
  copy.erase();
  return success();
}

struct LowerBulkCopiesPass
    : public tilec::tile::impl::TileLowerBulkCopiesBase<LowerBulkCopiesPass> {
  void runOnOperation() override {
    SmallVector<CopyOp> copies;
    getOperation().walk([&](CopyOp copy) {
      if (copy.getBulk())
        copies.push_back(copy);
    });
    for (CopyOp copy : copies)
      if (failed(lowerBulkCopy(copy)))
        return signalPassFailure();
  }
};

} // namespace
