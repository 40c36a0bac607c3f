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
#include "tilec/Dialect/Tile/Transforms/WarpTiledInstruction.h"

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

constexpr llvm::StringLiteral kNotOnMfma =
    "T.gemm runs on the vector ALUs, not matrix cores (MFMA): ";

struct MfmaModel : public WarpTiledInstructionModel<MfmaModel, MfmaAttr> {
  static constexpr llvm::StringLiteral kName = "MFMA";
  static constexpr int64_t kAtomN = 16;
  static constexpr llvm::StringLiteral kUnit = "wave";
  static constexpr auto makeAccumulatorLayout = makeMfmaAccumulatorLayout;
  static constexpr auto makeOperandALayout = makeMfmaOperandALayout;
  static constexpr auto emit = emitMfmaGemm;

  bool runsGemm(Attribute, Operation *op, std::string &warning) const {
    auto gemm = cast<GemmOp>(op);
    bool fp8 = TargetAttr::lookup(gemm).has(TargetFeature::MfmaFp8Fnuz);
    if (!isMfmaGemm(gemm) || (!fp8 && isMfmaFp8Gemm(gemm))) {
      if (std::optional<std::string> why = whyNotMfmaFp8(gemm, fp8))
        warning = (kNotOnMfma + *why).str();
      return false;
    }
    std::string message;
    if (failed(getPartition(gemm, message))) {
      warning = (kNotOnMfma + message).str();
      return false;
    }
    return true;
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
};

} // namespace

void tilec::amd::registerMatrixInstructionModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, TileDialect *) {
    MfmaAttr::attachInterface<MfmaModel>(*context);
  });
}
