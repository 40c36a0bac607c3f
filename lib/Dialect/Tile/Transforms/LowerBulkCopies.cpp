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
  std::optional<TmaPanels> panels =
      kernel ? createTmaPanels(kernel, copy.getLoc(), copy.getDest(),
                               copy.getDestExtents(), copy.getSource())
             : std::nullopt;
  if (!panels)
    return copy.emitOpError() << "is bulk but does not read a 2-D shared tile "
                                 "in a layout TMA reads";

  // The first thread of the block is a consumer where a producer
  // warpgroup exists: that warpgroup comes after the kernel's threads.
  Location loc = copy.getLoc();
  OpBuilder b(copy);
  auto ifOp = scf::IfOp::create(
      b, loc, emitIsFirstThread(b, loc, kernel.getThreads()), false);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  emitPerTmaPanel(b, loc, *panels, copy.getMixedDestOffsets(), copy.getSource(),
                  [&](ValueRange coordinates, Value panel) {
                    TmaStoreOp::create(b, loc, panels->map, coordinates, panel);
                  });
  BulkCommitGroupOp::create(b, loc);
  // Waiting for the reads only: the writes reach global memory by the end
  // of the kernel, and nothing in it reads the tensor (tile-lower-copies
  // checked).
  BulkWaitGroupOp::create(b, loc, /*pending=*/0, /*read=*/true);
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
