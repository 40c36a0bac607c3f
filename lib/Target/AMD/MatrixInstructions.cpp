//===- MatrixInstructions.cpp - MFMA for tile.gemm ------------------------===//
//
// Part of tilec. The model of #tile.mfma: which gemms AMD's matrix cores
// run, the layouts they give them, and the emitter (Mfma.cpp).
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/AMD/MatrixInstructions.h"
#include "Mfma.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// Why a gemm of 8-bit floats does not run on matrix cores that take FNUZ
/// ones if `fp8` is set and none otherwise, or nullopt for other gemms and
/// those that do.
std::optional<std::string> whyNotMfmaFp8(GemmOp gemm, bool fp8) {
  auto elementOf = [](Value v) {
    return cast<MemRefType>(v.getType()).getElementType();
  };
  Type a = elementOf(gemm.getA()), b = elementOf(gemm.getB());
  if (isOcpFp8Type(a) || isOcpFp8Type(b))
    return std::string(fp8 ? "this chip's matrix cores take the FNUZ "
                             "8-bit floats (float8_e4m3fnuz, "
                             "float8_e5m2fnuz), not OCP's"
                           : "this chip's matrix cores take no 8-bit "
                             "floats");
  if (!isFnuzFp8Type(a) || !isFnuzFp8Type(b))
    return std::nullopt;
  if (!fp8)
    return std::string("this chip's matrix cores take no 8-bit floats "
                       "(gfx942's do)");
  if (!isMfmaFp8Gemm(gemm))
    return std::string("8-bit float gemms need both operands in shared "
                       "memory and K a multiple of 32");
  return std::nullopt;
}

/// The split of the accumulator over the block's waves in whole 16x16
/// tiles; the message says why there is none.
FailureOr<WarpPartition> getMfmaPartition(GemmOp gemm, std::string &message) {
  return computeGemmWarpPartition(gemm, /*atomN=*/16, "wave", message);
}

constexpr llvm::StringLiteral kNotOnMfma =
    "T.gemm runs on the vector ALUs, not matrix cores (MFMA): ";

struct MfmaModel
    : public MatrixInstructionAttrInterface::ExternalModel<MfmaModel,
                                                           MfmaAttr> {
  bool runsGemm(Attribute, Operation *op, std::string &warning) const {
    auto gemm = cast<GemmOp>(op);
    bool fp8 = TargetAttr::lookup(gemm).has(TargetFeature::MfmaFp8Fnuz);
    if (!isMfmaGemm(gemm) || (!fp8 && isMfmaFp8Gemm(gemm))) {
      if (std::optional<std::string> why = whyNotMfmaFp8(gemm, fp8))
        warning = (kNotOnMfma + *why).str();
      return false;
    }
    std::string message;
    if (failed(getMfmaPartition(gemm, message))) {
      warning = (kNotOnMfma + message).str();
      return false;
    }
    return true;
  }

  FragmentLayoutAttr getAccumulatorLayout(Attribute, Operation *op) const {
    auto gemm = cast<GemmOp>(op);
    std::string message;
    FailureOr<WarpPartition> partition = getMfmaPartition(gemm, message);
    if (failed(partition))
      return {};
    auto cType = cast<MemRefType>(gemm.getC().getType());
    return makeMfmaAccumulatorLayout(gemm.getContext(), cType.getDimSize(0),
                                     cType.getDimSize(1), *partition);
  }

  FragmentLayoutAttr getOperandALayout(Attribute, Operation *op) const {
    auto gemm = cast<GemmOp>(op);
    std::string message;
    FailureOr<WarpPartition> partition = getMfmaPartition(gemm, message);
    if (failed(partition) || gemm.getTransposeA())
      return {};
    auto aType = cast<MemRefType>(gemm.getA().getType());
    return makeMfmaOperandALayout(gemm.getContext(), aType.getDimSize(0),
                                  aType.getDimSize(1), *partition);
  }

  void chooseSharedLayouts(Attribute, Operation *op) const {
    // The swizzle the LDS bank model finds best for the lanes' reads.
    auto gemm = cast<GemmOp>(op);
    for (bool isA : {true, false}) {
      AllocSharedOp alloc = getSharedAlloc(isA ? gemm.getA() : gemm.getB());
      if (!alloc || alloc.getLayoutAttr() || isAnnotated(alloc))
        continue;
      std::optional<MfmaOperandTile> tile = getMfmaOperandTile(gemm, isA);
      if (!tile)
        continue;
      if (SwizzleAttr swizzle =
              chooseMfmaSharedSwizzle(gemm.getContext(), *tile))
        setSwizzledLayout(alloc, swizzle);
    }
  }

  LogicalResult emitGemm(Attribute, OpBuilder &builder, Operation *op,
                         Value threadId, Value cRegisters,
                         Value aRegisters) const {
    auto gemm = cast<GemmOp>(op);
    std::string message;
    FailureOr<WarpPartition> partition = getMfmaPartition(gemm, message);
    if (failed(partition))
      return gemm.emitError() << "T.gemm does not run on MFMA: " << message;
    emitMfmaGemm(builder, gemm, *partition, threadId, cRegisters, aRegisters);
    return success();
  }
};

} // namespace

void tilec::amd::registerMatrixInstructionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, TileDialect *) {
    MfmaAttr::attachInterface<MfmaModel>(*context);
  });
}
