//===- VerifyLayouts.cpp - Layouts proved one-to-one ----------------------===//
//
// Part of tilec. A layout that puts two elements in one place silently
// loses one of them. Every layout of the kernel is checked here: no two
// elements of a buffer share an offset (shared, after the swizzle) or a
// thread's register (fragments and the loops they partition), every
// element lands inside the buffer or in the block's threads and their
// registers, and a fragment layout's inverse, which partitioned loops run,
// gives back each element exactly once. The layouts a program annotates
// are proved with Z3, whose counter-examples name the user's elements; the
// ones tilec chooses are gone through element by element, which for tiles
// of at most 2^20 elements is cheaper than Z3 (two copies of an index
// under divisions and remainders) and as complete.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/IndexFormulas.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"
#include "tilec/Verification/Passes.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILEVERIFYLAYOUTS
#include "tilec/Verification/Passes.h.inc"
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
  /// Checks a layout tilec chose, by going through its elements.
  LogicalResult checkChosen(Operation *at, StringRef what,
                            FragmentLayoutAttr layout);
  LogicalResult checkChosen(Operation *at, StringRef what,
                            SharedLayoutAttr layout);
  /// The values of `map`'s results over every element of `extents` (the
  /// first dimension slowest), or nullopt where the map cannot be read or
  /// the elements are too many.
  std::optional<SmallVector<std::vector<int64_t>>>
  tabulate(IndexFormulas &f, AffineMap map, ArrayRef<int64_t> extents);
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

/// At most this many elements are gone through per layout.
static constexpr int64_t kMaxElements = int64_t(1) << 20;

/// "[3, 5]" for the element of linear index `n` of `extents` (the first
/// dimension slowest), "[3, 5] (replica 1)" past the shape's rank.
static std::string describeLinear(int64_t n, ArrayRef<int64_t> extents,
                                  size_t rank) {
  SmallVector<int64_t> index(extents.size());
  for (int64_t dim = extents.size() - 1; dim >= 0; --dim) {
    index[dim] = n % extents[dim];
    n /= extents[dim];
  }
  SmallVector<std::string> parts;
  for (int64_t value : ArrayRef<int64_t>(index).take_front(rank))
    parts.push_back(std::to_string(value));
  std::string text = "[" + llvm::join(parts, ", ") + "]";
  if (index.size() > rank)
    text += " (replica " + std::to_string(index.back()) + ")";
  return text;
}

std::optional<SmallVector<std::vector<int64_t>>>
LayoutVerifier::tabulate(IndexFormulas &f, AffineMap map,
                         ArrayRef<int64_t> extents) {
  SmallVector<Formula> dims;
  SmallVector<unsigned> variables;
  for (int64_t extent : extents) {
    Formula d = f.variable("", VariableKind::ElementIndex, 0, extent - 1);
    dims.push_back(d);
    variables.push_back(d.variables.front());
  }
  // Tables run the first variable fastest; the elements' order is the
  // first dimension slowest.
  std::reverse(variables.begin(), variables.end());
  SmallVector<std::vector<int64_t>> results;
  for (AffineExpr expr : map.getResults()) {
    Formula formula = f.affine(expr, dims);
    if (!formula)
      return std::nullopt;
    std::optional<ArrayRef<int64_t>> table =
        f.tabulate(formula, variables, kMaxElements);
    if (!table)
      return std::nullopt;
    results.push_back(std::vector<int64_t>(table->begin(), table->end()));
  }
  return results;
}

LogicalResult LayoutVerifier::checkChosen(Operation *at, StringRef what,
                                          FragmentLayoutAttr layout) {
  IndexFormulas f(resourceLimit);
  SmallVector<int64_t> extents(layout.getShape());
  if (layout.getReplicate() > 1)
    extents.push_back(layout.getReplicate());
  auto places = tabulate(f, layout.getMap(), extents);
  if (!places)
    return success();
  int64_t threads = layout.getThreads(), slots = layout.getSlots();
  auto fail =
      [&](const Twine &message) {
        return at->emitError()
               << "internal error: the layout tilec chose for " << what << " "
               << message << " (" << layout
               << "); this is a bug in tilec: please report it with the input "
                  "file and the command line";
      };
  // Every element and replica in its own register of a thread.
  size_t rank = layout.getShape().size();
  std::vector<int64_t> owner(threads * slots, -1);
  const std::vector<int64_t> &thread = (*places)[0], &slot = (*places)[1];
  for (size_t n = 0; n < thread.size(); ++n) {
    if (thread[n] < 0 || thread[n] >= threads || slot[n] < 0 ||
        slot[n] >= slots)
      return fail("puts element " + describeLinear(n, extents, rank) +
                  " at thread " + std::to_string(thread[n]) + ", register " +
                  std::to_string(slot[n]) + ", outside its " +
                  std::to_string(threads) + " threads of " +
                  std::to_string(slots) + " registers");
    int64_t &held = owner[thread[n] * slots + slot[n]];
    if (held >= 0)
      return fail("puts elements " + describeLinear(held, extents, rank) +
                  " and " + describeLinear(n, extents, rank) +
                  " in the same place (thread " + std::to_string(thread[n]) +
                  ", register " + std::to_string(slot[n]) + ")");
    held = n;
  }
  // The inverse, where there is one, gives back each element: the one in
  // each used register, and none in the others.
  AffineMap inverse = layout.getInverse();
  if (!inverse)
    return success();
  auto elements = tabulate(f, inverse, {threads, slots});
  if (!elements)
    return success();
  for (int64_t pair = 0; pair < threads * slots; ++pair) {
    SmallVector<int64_t> index;
    bool inside = true;
    for (auto [dim, extent] : llvm::enumerate(extents)) {
      int64_t value = (*elements)[dim][pair];
      inside &= value >= 0 && value < extent;
      index.push_back(value);
    }
    int64_t expected = owner[pair];
    int64_t found = -1;
    if (inside) {
      found = 0;
      for (auto [value, extent] : llvm::zip(index, extents))
        found = found * extent + value;
    }
    if (found == expected)
      continue;
    std::string where = "thread " + std::to_string(pair / slots) +
                        ", register " + std::to_string(pair % slots);
    if (expected < 0)
      return fail("has an inverse that gives element " +
                  describeLinear(found, extents, rank) + " for " + where +
                  ", which holds none");
    return fail("has an inverse that gives " +
                (found < 0
                     ? std::string("no element")
                     : "element " + describeLinear(found, extents, rank)) +
                " for " + where + ", which holds " +
                describeLinear(expected, extents, rank));
  }
  return success();
}

LogicalResult LayoutVerifier::checkChosen(Operation *at, StringRef what,
                                          SharedLayoutAttr layout) {
  IndexFormulas f(resourceLimit);
  auto offsets = tabulate(f, layout.getMap(), layout.getShape());
  if (!offsets)
    return success();
  ArrayRef<int64_t> shape = layout.getShape();
  int64_t size = (*offsets)[0].size();
  std::vector<int64_t> owner(size, -1);
  SwizzleAttr swizzle = layout.getSwizzle();
  for (int64_t n = 0; n < size; ++n) {
    int64_t offset = (*offsets)[0][n];
    if (swizzle && offset >= 0)
      offset = swizzle.apply(offset);
    auto fail = [&](const Twine &message) {
      return at->emitError()
             << "internal error: the layout tilec chose for " << what << " "
             << message << " (" << layout
             << "); this is a bug in tilec: please report it with the input "
                "file and the command line";
    };
    if (offset < 0 || offset >= size)
      return fail("puts element " + describeLinear(n, shape, shape.size()) +
                  " at offset " + std::to_string(offset) + ", outside its " +
                  std::to_string(size) + " elements");
    if (owner[offset] >= 0)
      return fail("puts elements " +
                  describeLinear(owner[offset], shape, shape.size()) + " and " +
                  describeLinear(n, shape, shape.size()) +
                  " at the same offset, " + std::to_string(offset));
    owner[offset] = n;
  }
  return success();
}

LogicalResult LayoutVerifier::run() {
  // Annotated layouts first: their errors are the program's.
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
  if (result.wasInterrupted())
    return failure();
  // Then every layout of the kernel, once each.
  DenseSet<Attribute> checked;
  result = func.walk([&](Operation *op) -> WalkResult {
    auto layout = op->getAttr("layout");
    if (!layout || !checked.insert(layout).second)
      return WalkResult::advance();
    if (auto shared = dyn_cast<SharedLayoutAttr>(layout)) {
      std::string name = "a shared buffer";
      if (auto loc = dyn_cast<NameLoc>(op->getLoc()))
        name = ("shared buffer '" + loc.getName().getValue() + "'").str();
      return checkChosen(op, name, shared);
    }
    if (auto fragment = dyn_cast<FragmentLayoutAttr>(layout)) {
      std::string name = isa<ParallelOp>(op)
                             ? std::string("a T.Parallel loop")
                             : describeFragment(op->getResult(0));
      return checkChosen(op, name, fragment);
    }
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
