//===- VerifyLayouts.cpp - Layouts proved one-to-one with Z3 --------------===//
//
// Part of tilec. A layout that puts two elements in one place silently
// loses one of them. The layouts a program annotates are checked here: no
// two elements of the buffer share an offset (shared) or a thread's
// register (fragments), and every element lands in the block's threads and
// their registers. The layouts tilec chooses come from a few families
// (grid, mma.sync, wgmma, their reductions) that the unit tests check by
// enumeration over their parameters; proving them for every kernel would
// cost Z3 seconds (two copies of an index under divisions and remainders).
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/IndexFormulas.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "llvm/ADT/StringExtras.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEVERIFYLAYOUTS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// An element of a buffer of `shape` (plus a replica, for replicated
/// fragment layouts) as variables in range.
struct Element {
  SmallVector<Formula> dims;
  SmallVector<Formula> inRange;
};

Element makeElement(IndexFormulas &f, ArrayRef<int64_t> shape,
                    int64_t replicate, StringRef prefix) {
  Element element;
  SmallVector<int64_t> extents(shape);
  if (replicate > 1)
    extents.push_back(replicate);
  for (auto [i, extent] : llvm::enumerate(extents)) {
    Formula d = f.variable((prefix + Twine(i)).str(),
                           VariableKind::ElementIndex, 0, extent - 1);
    element.inRange.push_back(f.le(f.constant(0), d));
    element.inRange.push_back(f.lt(d, f.constant(extent)));
    element.dims.push_back(d);
  }
  return element;
}

/// "[3, 5]", or "[3, 5] (replica 1)" for replicated layouts, from a
/// counter-example.
std::string describeElement(const Element &element,
                            const CounterExample &example, size_t rank) {
  SmallVector<std::string> values;
  for (const Formula &dim : element.dims) {
    int64_t value = 0;
    for (auto [index, v] : example.variables)
      if (index == dim.variables.front())
        value = v;
    values.push_back(std::to_string(value));
  }
  std::string text =
      "[" + llvm::join(ArrayRef<std::string>(values).take_front(rank), ", ") +
      "]";
  if (values.size() > rank)
    text += " (replica " + values.back() + ")";
  return text;
}

class LayoutVerifier {
public:
  LayoutVerifier(func::FuncOp func, unsigned resourceLimit)
      : func(func), resourceLimit(resourceLimit) {}

  LogicalResult run();

private:
  /// Checks `results` of the layout map, over the element space of
  /// `shape` (and `replicate`), for two elements that share a place, and
  /// for places outside `limits` (one per result, 0 for none).
  LogicalResult check(Operation *at, StringRef what, ArrayRef<int64_t> shape,
                      int64_t replicate, AffineMap map,
                      ArrayRef<int64_t> limits, ArrayRef<StringRef> limitNames,
                      StringRef placeName);

  func::FuncOp func;
  unsigned resourceLimit;
};

LogicalResult LayoutVerifier::check(Operation *at, StringRef what,
                                    ArrayRef<int64_t> shape, int64_t replicate,
                                    AffineMap map, ArrayRef<int64_t> limits,
                                    ArrayRef<StringRef> limitNames,
                                    StringRef placeName) {
  IndexFormulas f(resourceLimit);
  Element x = makeElement(f, shape, replicate, "x");
  Element y = makeElement(f, shape, replicate, "y");
  SmallVector<Formula> px, py;
  for (AffineExpr result : map.getResults()) {
    px.push_back(f.affine(result, x.dims));
    py.push_back(f.affine(result, y.dims));
    // A map tilec cannot read is one it cannot have made or lowered.
    if (!px.back() || !py.back())
      return success();
  }
  auto fail =
      [&](const Twine &message) {
        return at->emitError()
               << "the layout annotated for " << what << " " << message
               << "; a layout must give every element a place of its own";
      };

  // Every place inside its limits.
  for (auto [i, place] : llvm::enumerate(px)) {
    if (!limits[i])
      continue;
    Formula inside = f.logicalAnd(f.le(f.constant(0), place),
                                  f.lt(place, f.constant(limits[i])));
    CounterExample example;
    if (f.prove(x.inRange, inside, &example, {place}) == Proof::Refuted)
      return fail("puts element " + describeElement(x, example, shape.size()) +
                  " at " + std::to_string(example.values[0]) +
                  ", outside the " + std::to_string(limits[i]) + " " +
                  limitNames[i]);
  }

  // No two elements in one place.
  SmallVector<Formula> assumptions(x.inRange);
  llvm::append_range(assumptions, y.inRange);
  Formula differ = f.boolean(false);
  for (auto [a, b] : llvm::zip(x.dims, y.dims))
    differ = f.logicalOr(differ, f.logicalNot(f.eq(a, b)));
  assumptions.push_back(differ);
  Formula distinct = f.boolean(false);
  for (auto [a, b] : llvm::zip(px, py))
    distinct = f.logicalOr(distinct, f.logicalNot(f.eq(a, b)));
  CounterExample example;
  SmallVector<Formula> evaluate(px);
  if (f.prove(assumptions, distinct, &example, evaluate) == Proof::Refuted) {
    SmallVector<std::string> place;
    for (int64_t v : example.values)
      place.push_back(std::to_string(v));
    return fail("puts elements " + describeElement(x, example, shape.size()) +
                " and " + describeElement(y, example, shape.size()) +
                " in the same place (" + placeName + " " +
                llvm::join(place, ", ") + ")");
  }
  return success();
}

LogicalResult LayoutVerifier::run() {
  WalkResult result = func.walk([&](AnnotateLayoutOp op) -> WalkResult {
    Value buffer = op.getBuffer();
    if (auto layout = dyn_cast<SharedLayoutAttr>(op.getLayout())) {
      std::string name = "a shared buffer";
      if (Operation *def = buffer.getDefiningOp())
        if (auto loc = dyn_cast<NameLoc>(def->getLoc()))
          name = ("shared buffer '" + loc.getName().getValue() + "'").str();
      // The swizzle permutes offsets; the map alone decides.
      return check(op, name, layout.getShape(), 1, layout.getMap(), {0},
                   {"offsets"}, "offset");
    }
    if (auto layout = dyn_cast<FragmentLayoutAttr>(op.getLayout()))
      return check(op, describeFragment(buffer), layout.getShape(),
                   layout.getReplicate(), layout.getMap(),
                   {layout.getThreads(), layout.getSlots()},
                   {"threads", "registers"}, "thread and register");
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

struct VerifyLayoutsPass
    : public tilec::tile::impl::TileVerifyLayoutsBase<VerifyLayoutsPass> {
  using TileVerifyLayoutsBase::TileVerifyLayoutsBase;

  void runOnOperation() override {
    if (failed(LayoutVerifier(getOperation(), resourceLimit).run()))
      signalPassFailure();
  }
};

} // namespace
