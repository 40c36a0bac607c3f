//===- FragmentSlots.cpp - Which thread holds a fragment element ----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "FragmentSlots.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

std::optional<int64_t> IndexEvaluator::eval(Value value) {
  auto it = env.find(value);
  if (it != env.end())
    return it->second;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(op))
    return eval(op->getOperand(0));
  if (op->getNumOperands() != 2)
    return std::nullopt;
  std::optional<int64_t> a = eval(op->getOperand(0));
  std::optional<int64_t> b = eval(op->getOperand(1));
  if (!a || !b)
    return std::nullopt;
  return TypeSwitch<Operation *, std::optional<int64_t>>(op)
      .Case([&](arith::AddIOp) { return *a + *b; })
      .Case([&](arith::SubIOp) { return *a - *b; })
      .Case([&](arith::MulIOp) { return *a * *b; })
      .Case<arith::DivUIOp, arith::DivSIOp>(
          [&](auto) -> std::optional<int64_t> {
            if (*b == 0)
              return std::nullopt;
            return *a / *b;
          })
      .Case<arith::RemUIOp, arith::RemSIOp>(
          [&](auto) -> std::optional<int64_t> {
            if (*b == 0)
              return std::nullopt;
            return *a % *b;
          })
      .Case([&](arith::FloorDivSIOp) -> std::optional<int64_t> {
        if (*b == 0)
          return std::nullopt;
        return llvm::divideFloorSigned(*a, *b);
      })
      .Case([&](arith::CeilDivSIOp) -> std::optional<int64_t> {
        if (*b == 0)
          return std::nullopt;
        return llvm::divideCeilSigned(*a, *b);
      })
      .Case<arith::MinSIOp, arith::MinUIOp>(
          [&](auto) { return std::min(*a, *b); })
      .Case<arith::MaxSIOp, arith::MaxUIOp>(
          [&](auto) { return std::max(*a, *b); })
      .Default([](Operation *) { return std::nullopt; });
}

int64_t tilec::tile::linearizeIndex(ArrayRef<int64_t> index,
                                    ArrayRef<int64_t> shape) {
  int64_t position = 0;
  for (auto [i, extent] : llvm::zip(index, shape)) {
    if (i < 0 || i >= extent)
      return -1;
    position = position * extent + i;
  }
  return position;
}

std::optional<int64_t> SlotFinder::find(FragmentLayoutAttr layout,
                                        ArrayRef<int64_t> index,
                                        int64_t thread) {
  if (!layout.getInverse()) {
    for (int64_t replica = 0; replica < layout.getReplicate(); ++replica) {
      std::optional<std::pair<int64_t, int64_t>> place =
          layout.apply(index, replica);
      if (place && place->first == thread)
        return place->second;
    }
    return std::nullopt;
  }
  ArrayRef<int64_t> shape = layout.getShape();
  auto [it, inserted] = tables.try_emplace(layout);
  DenseMap<std::pair<int64_t, int64_t>, int64_t> &table = it->second;
  if (inserted) {
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t slot = 0; slot < layout.getSlots(); ++slot)
        if (std::optional<SmallVector<int64_t>> held =
                layout.applyInverse(t, slot))
          table.try_emplace(
              {t,
               linearizeIndex(ArrayRef(*held).take_front(shape.size()), shape)},
              slot);
  }
  int64_t element = linearizeIndex(index, shape);
  if (element < 0)
    return std::nullopt;
  auto found = table.find({thread, element});
  if (found == table.end())
    return std::nullopt;
  return found->second;
}
