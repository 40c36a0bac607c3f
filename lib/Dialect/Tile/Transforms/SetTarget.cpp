//===- SetTarget.cpp - Give the module its #tile.target -------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileAttrs.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILESETTARGET
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec::tile;

namespace {

struct SetTargetPass
    : public tilec::tile::impl::TileSetTargetBase<SetTargetPass> {
  using TileSetTargetBase::TileSetTargetBase;

  void runOnOperation() override {
    TargetFeature all = TargetFeature::None;
    for (const std::string &name : features) {
      std::optional<TargetFeature> feature = symbolizeTargetFeature(name);
      if (!feature) {
        getOperation().emitError()
            << "unknown target feature '" << name
            << "'; the features are mma_sync, async_copy, tma, wgmma, "
               "warp_specialization, mfma and mfma_fp8_fnuz";
        return signalPassFailure();
      }
      all = all | *feature;
    }
    getOperation()->setAttr(TargetAttr::kAttrName,
                            TargetAttr::get(&getContext(), chip, warpSize,
                                            sharedMemory, registers, all));
  }
};

} // namespace
