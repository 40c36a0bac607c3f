//===- ConvertFp8ToNVVM.cpp - 8-bit float conversions by paired cvt -------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTFP8TONVVM
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

/// The 8-bit float formats sm_89's cvt converts.
bool isPairedCvtFormat(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// `shapeOf`'s shape (scalar or vector) with `element` elements.
Type withElement(Type shapeOf, Type element) {
  if (auto vector = dyn_cast<VectorType>(shapeOf))
    return vector.clone(element);
  return element;
}

/// The elements of `value`, a scalar or a 1-D vector.
SmallVector<Value> unpack(OpBuilder &b, Location loc, Value value) {
  auto vector = dyn_cast<VectorType>(value.getType());
  if (!vector)
    return {value};
  SmallVector<Value> elements;
  for (int64_t i = 0, e = vector.getNumElements(); i < e; ++i)
    elements.push_back(vector::ExtractOp::create(b, loc, value, i));
  return elements;
}

/// `elements` as a value of `shapeOf`'s shape (scalar or 1-D vector).
Value pack(OpBuilder &b, Location loc, Type shapeOf, ArrayRef<Value> elements) {
  auto vector = dyn_cast<VectorType>(shapeOf);
  if (!vector)
    return elements.front();
  return vector::FromElementsOp::create(
      b, loc, vector.clone(elements.front().getType()), elements);
}

/// The one vector shape cvt pairs work on: scalars and 1-D vectors.
bool isScalarOrVector1D(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  return !vector || (vector.getRank() == 1 && !vector.isScalable());
}

/// Replaces `op`, an arith.extf from an 8-bit float, by cvt to f16 pairs,
/// then an exact conversion to the result type.
void convertExtF(RewriterBase &rewriter, arith::ExtFOp op) {
  Location loc = op.getLoc();
  Type source = op.getIn().getType();
  Type format = getElementTypeOrSelf(source);
  Type i8 = rewriter.getI8Type();
  Type f16 = rewriter.getF16Type();
  Value bytes = arith::BitcastOp::create(rewriter, loc, withElement(source, i8),
                                         op.getIn());
  SmallVector<Value> in = unpack(rewriter, loc, bytes);
  auto pairType = VectorType::get({2}, i8);
  auto halvesType = VectorType::get({2}, f16);
  SmallVector<Value> halves;
  for (size_t i = 0; i < in.size(); i += 2) {
    // An odd last element converts beside a copy of itself.
    Value second = i + 1 < in.size() ? in[i + 1] : in[i];
    Value pair = vector::FromElementsOp::create(rewriter, loc, pairType,
                                                {in[i], second});
    Value converted = NVVM::ConvertF8x2ToF16x2Op::create(
        rewriter, loc, halvesType, pair, /*relu=*/false, format);
    halves.push_back(vector::ExtractOp::create(rewriter, loc, converted, 0));
    if (i + 1 < in.size())
      halves.push_back(vector::ExtractOp::create(rewriter, loc, converted, 1));
  }
  Value wide = pack(rewriter, loc, source, halves);
  // f16, f32 and bf16 all hold every e4m3 and e5m2 value: the steps below
  // are exact.
  Type result = op.getType();
  Type resultElement = getElementTypeOrSelf(result);
  if (resultElement.isBF16()) {
    wide = arith::ExtFOp::create(
        rewriter, loc, withElement(result, rewriter.getF32Type()), wide);
    wide = arith::TruncFOp::create(rewriter, loc, result, wide);
  } else if (!resultElement.isF16()) {
    wide = arith::ExtFOp::create(rewriter, loc, result, wide);
  }
  rewriter.replaceOp(op, wide);
}

/// Replaces `op`, an arith.truncf from f16, bf16 or f32 to an 8-bit float,
/// by cvt.rn.satfinite of f32 pairs.
void convertTruncF(RewriterBase &rewriter, arith::TruncFOp op) {
  Location loc = op.getLoc();
  Type result = op.getType();
  Type format = getElementTypeOrSelf(result);
  Type f32 = rewriter.getF32Type();
  Value value = op.getIn();
  if (!getElementTypeOrSelf(value.getType()).isF32())
    value = arith::ExtFOp::create(rewriter, loc,
                                  withElement(value.getType(), f32), value);
  SmallVector<Value> in = unpack(rewriter, loc, value);
  auto pairType = VectorType::get({2}, rewriter.getI8Type());
  auto rn = NVVM::FPRoundingMode::RN;
  auto satfinite = NVVM::SaturationMode::SATFINITE;
  SmallVector<Value> bytes;
  for (size_t i = 0; i < in.size(); i += 2) {
    Value second = i + 1 < in.size() ? in[i + 1] : in[i];
    // The first operand goes to the high byte, element 1 of the pair.
    Value pair = NVVM::ConvertF32x2ToF8x2Op::create(
        rewriter, loc, pairType, second, in[i], rn, satfinite,
        /*relu=*/false, format);
    bytes.push_back(vector::ExtractOp::create(rewriter, loc, pair, 0));
    if (i + 1 < in.size())
      bytes.push_back(vector::ExtractOp::create(rewriter, loc, pair, 1));
  }
  rewriter.replaceOpWithNewOp<arith::BitcastOp>(
      op, result, pack(rewriter, loc, result, bytes));
}

struct ConvertFp8ToNVVMPass
    : public tilec::impl::ConvertFp8ToNVVMBase<ConvertFp8ToNVVMPass> {
  void runOnOperation() override {
    // A walk rather than patterns, as in tilec-expand-fp8: folding
    // conversions of constants first would neither saturate nor keep NaN.
    SmallVector<Operation *> conversions;
    getOperation()->walk([&](Operation *op) {
      if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
        if (isPairedCvtFormat(getElementTypeOrSelf(ext.getIn().getType())) &&
            isScalarOrVector1D(ext.getType()))
          conversions.push_back(op);
      } else if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
        Type source = getElementTypeOrSelf(trunc.getIn().getType());
        if (isPairedCvtFormat(getElementTypeOrSelf(trunc.getType())) &&
            (source.isF16() || source.isBF16() || source.isF32()) &&
            isScalarOrVector1D(trunc.getType()))
          conversions.push_back(op);
      }
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : conversions) {
      rewriter.setInsertionPoint(op);
      if (auto ext = dyn_cast<arith::ExtFOp>(op))
        convertExtF(rewriter, ext);
      else
        convertTruncF(rewriter, cast<arith::TruncFOp>(op));
    }
  }
};

} // namespace
