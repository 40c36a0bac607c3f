//===- ExpandFp8.cpp - 8-bit float conversions as integer arithmetic ------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace tilec {
#define GEN_PASS_DEF_TILECEXPANDFP8
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

/// The fields of an 8-bit float format with a sign bit.
struct Fp8Format {
  unsigned mantissaBits;
  int bias;
  /// IEEE-style specials (all-ones exponent: infinity or NaN) as in
  /// f8E5M2; otherwise only the all-ones magnitude is NaN, as in f8E4M3FN.
  bool ieeeSpecials;
  /// The largest finite magnitude's bits.
  unsigned maxFinite;
  /// FNUZ (gfx942's matrix cores): no infinities and no negative zero; its
  /// bits, 0x80, are the one NaN.
  bool fnuz = false;
};

std::optional<Fp8Format> getFp8Format(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return Fp8Format{3, 7, false, 0x7E};
  if (isa<Float8E5M2Type>(type))
    return Fp8Format{2, 15, true, 0x7B};
  if (isa<Float8E4M3FNUZType>(type))
    return Fp8Format{3, 8, false, 0x7F, /*fnuz=*/true};
  if (isa<Float8E5M2FNUZType>(type))
    return Fp8Format{2, 16, false, 0x7F, /*fnuz=*/true};
  return std::nullopt;
}

/// Builds scalar-or-vector integer and float arithmetic of one shape.
class ElementwiseBuilder {
public:
  ElementwiseBuilder(RewriterBase &rewriter, Location loc, Type shapeOf)
      : b(rewriter), loc(loc), shapeOf(shapeOf) {}

  Type get(Type element) const {
    if (auto shaped = dyn_cast<ShapedType>(shapeOf))
      return shaped.clone(element);
    return element;
  }

  Value constantInt(Type element, uint64_t value) {
    Type type = get(element);
    return arith::ConstantOp::create(
        b, loc, type,
        cast<TypedAttr>(splat(type, b.getIntegerAttr(element, value))));
  }

  Value constantFloat(Type element, double value) {
    Type type = get(element);
    return arith::ConstantOp::create(
        b, loc, type,
        cast<TypedAttr>(splat(type, b.getFloatAttr(element, value))));
  }

  OpBuilder &builder() { return b; }
  Location location() const { return loc; }

private:
  static Attribute splat(Type type, Attribute element) {
    if (auto shaped = dyn_cast<ShapedType>(type))
      return SplatElementsAttr::get(shaped, element);
    return element;
  }

  RewriterBase &b;
  Location loc;
  Type shapeOf;
};

/// Decodes 8-bit floats (as i8) into f32, exactly.
Value decodeToF32(ElementwiseBuilder &e, const Fp8Format &format, Value byte) {
  OpBuilder &b = e.builder();
  Location loc = e.location();
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto c = [&](uint64_t v) { return e.constantInt(i32, v); };
  Value bits = arith::ExtUIOp::create(b, loc, e.get(i32), byte);
  Value sign = arith::ShLIOp::create(
      b, loc, arith::AndIOp::create(b, loc, bits, c(0x80)), c(24));
  Value magnitude = arith::AndIOp::create(b, loc, bits, c(0x7F));
  // Normal numbers: the exponent and mantissa fields move up into f32's
  // and the exponent is rebiased.
  Value normal = arith::AddIOp::create(
      b, loc,
      arith::ShLIOp::create(b, loc, magnitude, c(23 - format.mantissaBits)),
      c(uint64_t(127 - format.bias) << 23));
  // Subnormals (exponent field 0) are the magnitude in units of the
  // smallest subnormal, which f32 holds exactly.
  Value scaled = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, e.get(f32), magnitude),
      e.constantFloat(
          f32, std::ldexp(1.0, 1 - format.bias - int(format.mantissaBits))));
  Value isSubnormal =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, magnitude,
                            c(1u << format.mantissaBits));
  Value result = arith::SelectOp::create(
      b, loc, isSubnormal, arith::BitcastOp::create(b, loc, e.get(i32), scaled),
      normal);
  if (format.ieeeSpecials) {
    unsigned infinity = 0x7F & ~((1u << format.mantissaBits) - 1);
    Value special = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, magnitude,
                              c(infinity)),
        c(0x7F800000), c(0x7FC00000));
    result = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, magnitude,
                              c(infinity)),
        special, result);
  } else if (!format.fnuz) {
    result = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, magnitude,
                              c(0x7F)),
        c(0x7FC00000), result);
  }
  result = arith::OrIOp::create(b, loc, result, sign);
  if (format.fnuz)
    result = arith::SelectOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bits, c(0x80)),
        c(0x7FC00000), result);
  return arith::BitcastOp::create(b, loc, e.get(f32), result);
}

/// Encodes f32 values as 8-bit floats (as i8): round to nearest even,
/// saturate to the largest finite value, NaN to NaN.
Value encodeFromF32(ElementwiseBuilder &e, const Fp8Format &format,
                    Value value) {
  OpBuilder &b = e.builder();
  Location loc = e.location();
  Type i32 = b.getI32Type();
  auto c = [&](uint64_t v) { return e.constantInt(i32, v); };
  auto shr = [&](Value v, Value s) {
    return arith::ShRUIOp::create(b, loc, v, s);
  };
  unsigned m = format.mantissaBits;
  unsigned shift = 23 - m;
  Value bits = arith::BitcastOp::create(b, loc, e.get(i32), value);
  Value sign = arith::AndIOp::create(b, loc, shr(bits, c(24)), c(0x80));
  Value magnitude = arith::AndIOp::create(b, loc, bits, c(0x7FFFFFFF));
  Value isNaN = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                      magnitude, c(0x7F800000));
  // Saturation first: the largest finite value is exact, so rounding it
  // cannot carry past it.
  uint64_t maxBits = (uint64_t(format.maxFinite) << shift) +
                     (uint64_t(127 - format.bias) << 23);
  Value clamped = arith::MinUIOp::create(b, loc, magnitude, c(maxBits));
  // Round half to even at the target's last mantissa bit.
  auto roundShift = [&](Value v, Value s, Value half) {
    Value odd = arith::AndIOp::create(b, loc, shr(v, s), c(1));
    Value bias = arith::AddIOp::create(
        b, loc, arith::SubIOp::create(b, loc, half, c(1)), odd);
    return shr(arith::AddIOp::create(b, loc, v, bias), s);
  };
  // Normal results: round, then rebias the exponent; a carry out of the
  // mantissa correctly bumps the exponent.
  Value normal = arith::SubIOp::create(
      b, loc, roundShift(clamped, c(shift), c(1u << (shift - 1))),
      c(uint64_t(127 - format.bias) << m));
  // Subnormal results count units of the smallest subnormal,
  // 2^(1 - bias - m): the f32 significand shifted right by
  // (151 - bias - m) - exponent, at most 31 (which leaves 0).
  Value exponent = shr(clamped, c(23));
  Value significand = arith::OrIOp::create(
      b, loc, arith::AndIOp::create(b, loc, clamped, c(0x7FFFFF)), c(0x800000));
  Value subShift = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, c(151 - format.bias - m), exponent),
      c(31));
  Value half = arith::ShLIOp::create(
      b, loc, c(1), arith::SubIOp::create(b, loc, subShift, c(1)));
  Value subnormal = roundShift(significand, subShift, half);
  uint64_t minNormal = uint64_t(127 + 1 - format.bias) << 23;
  Value isSubnormal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            clamped, c(minNormal));
  Value result =
      arith::SelectOp::create(b, loc, isSubnormal, subnormal, normal);
  if (format.fnuz) {
    // No negative zero: a result that rounds to zero keeps no sign, and
    // NaN is the sign bit alone.
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, result, c(0));
    sign = arith::SelectOp::create(b, loc, isZero, c(0), sign);
    result = arith::OrIOp::create(b, loc, result, sign);
    result = arith::SelectOp::create(b, loc, isNaN, c(0x80), result);
  } else {
    result = arith::SelectOp::create(b, loc, isNaN, c(0x7F), result);
    result = arith::OrIOp::create(b, loc, result, sign);
  }
  return arith::TruncIOp::create(b, loc, e.get(b.getI8Type()), result);
}

/// Replaces an arith.extf from an 8-bit float.
void expandExtF(RewriterBase &rewriter, arith::ExtFOp op,
                const Fp8Format &format) {
  Location loc = op.getLoc();
  Type resultType = op.getType();
  ElementwiseBuilder e(rewriter, loc, resultType);
  Value byte = arith::BitcastOp::create(
      rewriter, loc, e.get(rewriter.getI8Type()), op.getIn());
  Value wide = decodeToF32(e, format, byte);
  // f16 and bf16 hold every 8-bit float exactly, so narrowing is exact.
  unsigned width = getElementTypeOrSelf(resultType).getIntOrFloatBitWidth();
  if (width < 32)
    wide = arith::TruncFOp::create(rewriter, loc, resultType, wide);
  else if (width > 32)
    wide = arith::ExtFOp::create(rewriter, loc, resultType, wide);
  rewriter.replaceOp(op, wide);
}

/// Replaces an arith.truncf to an 8-bit float.
void expandTruncF(RewriterBase &rewriter, arith::TruncFOp op,
                  const Fp8Format &format) {
  Location loc = op.getLoc();
  Type resultType = op.getType();
  ElementwiseBuilder e(rewriter, loc, resultType);
  Value value = op.getIn();
  Type f32 = e.get(rewriter.getF32Type());
  Type source = getElementTypeOrSelf(value.getType());
  if (std::optional<Fp8Format> from = getFp8Format(source))
    value = decodeToF32(e, *from,
                        arith::BitcastOp::create(
                            rewriter, loc, e.get(rewriter.getI8Type()), value));
  else if (source.getIntOrFloatBitWidth() < 32)
    value = arith::ExtFOp::create(rewriter, loc, f32, value);
  else if (source.getIntOrFloatBitWidth() > 32)
    value = arith::TruncFOp::create(rewriter, loc, f32, value);
  Value byte = encodeFromF32(e, format, value);
  rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, resultType, byte);
}

struct ExpandFp8Pass : public tilec::impl::TilecExpandFp8Base<ExpandFp8Pass> {
  void runOnOperation() override {
    // A walk rather than patterns: the greedy driver would fold conversions
    // of constants with APFloat first, which neither saturates nor keeps
    // NaN's bits as the expansion does.
    SmallVector<Operation *> conversions;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(op))
        conversions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : conversions) {
      rewriter.setInsertionPoint(op);
      if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
        if (std::optional<Fp8Format> format =
                getFp8Format(getElementTypeOrSelf(ext.getIn().getType())))
          expandExtF(rewriter, ext, *format);
        continue;
      }
      auto trunc = cast<arith::TruncFOp>(op);
      if (std::optional<Fp8Format> format =
              getFp8Format(getElementTypeOrSelf(trunc.getType())))
        expandTruncF(rewriter, trunc, *format);
    }
  }
};

} // namespace
