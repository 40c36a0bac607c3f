//===- MatrixInstructions.cpp - mma.sync and wgmma for tile.gemm ----------===//
//
// Part of tilec. The models of #tile.mma_sync and #tile.wgmma: which gemms
// each runs, the layouts it gives them, and its emitter (MmaSync.cpp,
// Wgmma.cpp).
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/NVIDIA/MatrixInstructions.h"
#include "MmaSync.h"
#include "Wgmma.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"
#include "tilec/Dialect/Tile/Transforms/WarpTiledInstruction.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The threads that run `gemm`: the block's, or those of its T.ws.
int64_t getBlockThreads(GemmOp gemm) { return threadScopeOf(gemm).count; }

std::pair<int64_t, int64_t> getAccumulatorShape(GemmOp gemm) {
  auto type = cast<MemRefType>(gemm.getC().getType());
  return {type.getDimSize(0), type.getDimSize(1)};
}

struct MmaSyncModel
    : public WarpTiledInstructionModel<MmaSyncModel, MmaSyncAttr> {
  static constexpr llvm::StringLiteral kName = "mma.sync";
  static constexpr int64_t kAtomN = 8;
  static constexpr llvm::StringLiteral kUnit = "warp";
  static constexpr auto makeAccumulatorLayout = makeMmaAccumulatorLayout;
  static constexpr auto makeOperandALayout = makeMmaOperandALayout;
  static constexpr auto emit = emitMmaGemm;

  bool runsGemm(Attribute, Operation *op, std::string &warning) const {
    auto gemm = cast<GemmOp>(op);
    if (!isMmaSyncGemm(gemm))
      return false;
    std::string message;
    if (failed(getPartition(gemm, message))) {
      warning = "T.gemm runs on CUDA cores, not tensor cores: " + message;
      return false;
    }
    return true;
  }

  void chooseSharedLayouts(Attribute, Operation *op) const {
    // ldmatrix reads 16-byte rows: a swizzle spreads them over the banks.
    auto gemm = cast<GemmOp>(op);
    for (Value operand : {gemm.getA(), gemm.getB()}) {
      AllocSharedOp alloc = getSharedAlloc(operand);
      if (!alloc || alloc.getLayoutAttr() || isAnnotated(alloc))
        continue;
      MemRefType type = alloc.getType();
      if (SwizzleAttr swizzle =
              chooseSharedSwizzle(gemm.getContext(), type.getShape().back(),
                                  type.getElementTypeBitWidth() / 8))
        setSwizzledLayout(alloc, swizzle);
    }
  }
};

struct WgmmaModel
    : public MatrixInstructionAttrInterface::ExternalModel<WgmmaModel,
                                                           WgmmaAttr> {
  bool runsGemm(Attribute, Operation *op, std::string &) const {
    auto gemm = cast<GemmOp>(op);
    // A warpgroup is four warps from a multiple of 128 threads.
    if (threadScopeOf(gemm).first % 128 != 0)
      return false;
    return planWgmmaGemm(gemm, getBlockThreads(gemm), /*requireLayouts=*/false)
        .has_value();
  }

  FragmentLayoutAttr getAccumulatorLayout(Attribute, Operation *op) const {
    auto gemm = cast<GemmOp>(op);
    std::optional<WgmmaPlan> plan =
        planWgmmaGemm(gemm, getBlockThreads(gemm), /*requireLayouts=*/false);
    if (!plan)
      return {};
    auto [m, n] = getAccumulatorShape(gemm);
    return makeWgmmaAccumulatorLayout(gemm.getContext(), m, n, plan->partition);
  }

  FragmentLayoutAttr getOperandALayout(Attribute, Operation *op) const {
    auto gemm = cast<GemmOp>(op);
    std::optional<WgmmaPlan> plan =
        planWgmmaGemm(gemm, getBlockThreads(gemm), /*requireLayouts=*/false);
    if (!plan || plan->a)
      return {};
    return getWgmmaOperandALayout(gemm, *plan);
  }

  void chooseSharedLayouts(Attribute, Operation *op) const {
    // The operand tiles in the layout wgmma reads (which TMA, when it fills
    // them, has given them already).
    auto gemm = cast<GemmOp>(op);
    std::optional<WgmmaPlan> plan =
        planWgmmaGemm(gemm, getBlockThreads(gemm), /*requireLayouts=*/false);
    if (!plan)
      return;
    SmallVector<std::pair<Value, PanelledTile>> tiles = {
        {gemm.getB(), plan->b}};
    if (plan->a)
      tiles.push_back({gemm.getA(), *plan->a});
    for (auto [operand, tile] : tiles) {
      AllocSharedOp alloc = getSharedAlloc(operand);
      if (!alloc.getLayoutAttr())
        alloc.setLayoutAttr(makePanelledLayout(
            gemm.getContext(), alloc.getType().getShape(), tile));
    }
  }

  LogicalResult emitGemm(Attribute, OpBuilder &builder, Operation *op,
                         Value threadId, Value cRegisters,
                         Value aRegisters) const {
    auto gemm = cast<GemmOp>(op);
    std::optional<WgmmaPlan> plan =
        planWgmmaGemm(gemm, getBlockThreads(gemm), /*requireLayouts=*/true);
    if (!plan)
      return gemm.emitError() << "T.gemm does not run on wgmma: its operands "
                                 "are not in the shared layouts wgmma reads";
    emitWgmmaGemm(builder, gemm, *plan, threadId, cRegisters, aRegisters);
    return success();
  }
};

} // namespace

void tilec::nvidia::registerMatrixInstructionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, TileDialect *) {
    MmaSyncAttr::attachInterface<MmaSyncModel>(*context);
    WgmmaAttr::attachInterface<WgmmaModel>(*context);
  });
}
