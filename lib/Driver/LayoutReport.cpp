//===- LayoutReport.cpp - Buffer layouts in words (--emit=layouts) --------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"
#include "tilec/Driver/Compiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

/// The .tile name and line of a buffer, from its location.
static std::string describeName(Operation *alloc) {
  std::string name = "(unnamed)";
  Location loc = alloc->getLoc();
  if (auto named = dyn_cast<NameLoc>(loc)) {
    name = named.getName().str();
    loc = named.getChildLoc();
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    name += llvm::formatv(" (line {0})", file.getLine()).str();
  return name;
}

static std::string describeShape(MemRefType type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(type.getShape(), os, "x");
  os << " " << type.getElementType();
  return text;
}

static std::string describeFragmentLayout(FragmentLayoutAttr layout) {
  if (!layout)
    return "no layout";
  std::string registers =
      llvm::formatv("{0} register{1} per thread", layout.getSlots(),
                    layout.getSlots() == 1 ? "" : "s")
          .str();
  if (std::optional<WarpPartition> p = matchMmaAccumulatorLayout(layout))
    return llvm::formatv("mma.sync accumulator, {0}x{1} warps, {2}", p->warpM,
                         p->warpN, registers);
  if (std::optional<WarpgroupPartition> p = matchWgmmaAccumulatorLayout(layout))
    return llvm::formatv("wgmma accumulator, {0}x{1} warpgroups, {2}", p->m,
                         p->n, registers);
  if (std::optional<WarpPartition> p = matchMmaOperandALayout(layout))
    return llvm::formatv("mma.sync A operand, {0}x{1} warps, {2}", p->warpM,
                         p->warpN, registers);
  if (std::optional<WarpPartition> p = matchMfmaAccumulatorLayout(layout))
    return llvm::formatv("MFMA accumulator, {0}x{1} waves, {2}", p->warpM,
                         p->warpN, registers);
  if (std::optional<WarpPartition> p = matchMfmaOperandALayout(layout))
    return llvm::formatv("MFMA A operand, {0}x{1} waves, {2}", p->warpM,
                         p->warpN, registers);
  if (std::optional<GridLayoutParams> p = matchGridLayout(layout)) {
    int64_t idle = layout.getThreads() - p->usedThreads();
    std::string idleText =
        idle ? llvm::formatv(", {0} idle", idle).str() : std::string();
    return llvm::formatv("grid: runs of {0}, {1}x{2} threads (rows x "
                         "columns){3}, {4}",
                         p->vector, p->threadRows, p->threadCols, idleText,
                         registers);
  }
  // The rows of an accumulator, as a reduction over its columns leaves
  // them: each row on the four lanes of its lane group, in every warp of
  // its row of warps.
  ArrayRef<int64_t> shape = layout.getShape();
  int64_t warps = layout.getThreads() / 32;
  for (int64_t warpM = 1; shape.size() == 1 && warpM <= warps; ++warpM) {
    if (warps % warpM != 0 || shape[0] % (16 * warpM) != 0)
      continue;
    WarpPartition p{warpM, warps / warpM};
    FailureOr<FragmentLayoutAttr> rows =
        dropLastDimension(makeMmaAccumulatorLayout(layout.getContext(),
                                                   shape[0], 8 * p.warpN, p));
    if (succeeded(rows) && areEquivalentLayouts(*rows, layout))
      return llvm::formatv("rows of an mma.sync accumulator of {0}x{1} "
                           "warps, each on the {2} threads of its lane "
                           "group{3}, {4}",
                           p.warpM, p.warpN, 4 * p.warpN,
                           p.warpN > 1 ? "s" : "", registers);
  }
  // The same of an MFMA accumulator: four lanes of each wave of 64.
  int64_t waves = layout.getThreads() / kWaveLanes;
  for (int64_t waveM = 1; shape.size() == 1 && waveM <= waves; ++waveM) {
    if (waves % waveM != 0 || shape[0] % (16 * waveM) != 0 ||
        layout.getThreads() % kWaveLanes != 0)
      continue;
    WarpPartition p{waveM, waves / waveM};
    FailureOr<FragmentLayoutAttr> rows =
        dropLastDimension(makeMfmaAccumulatorLayout(layout.getContext(),
                                                    shape[0], 16 * p.warpN, p));
    if (succeeded(rows) && areEquivalentLayouts(*rows, layout))
      return llvm::formatv("rows of an MFMA accumulator of {0}x{1} waves, "
                           "each on {2} threads (lanes 16 apart), {3}",
                           p.warpM, p.warpN, 4 * p.warpN, registers);
  }
  if (layout.getReplicate() == layout.getThreads())
    return registers + ", every thread holds all of it";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << registers;
  if (layout.getReplicate() > 1)
    os << ", each element on " << layout.getReplicate() << " threads";
  os << ": " << layout.getMap();
  return text;
}

static std::string describeSharedLayout(SharedLayoutAttr layout,
                                        MemRefType type) {
  if (!layout || !layout.getSwizzle())
    return "row-major";
  std::optional<PanelledTile> tile =
      matchPanelledLayout(layout, type.getElementTypeBitWidth() / 8);
  if (tile && tile->numPanels() > 1)
    return llvm::formatv("{0} panels of {1} columns, {2}-byte swizzle",
                         tile->numPanels(), tile->panelCols(),
                         tile->swizzleBytes);
  if (tile)
    return llvm::formatv("row-major, {0}-byte swizzle", tile->swizzleBytes);
  SwizzleAttr swizzle = layout.getSwizzle();
  return llvm::formatv("row-major, XOR swizzle <bits = {0}, base = {1}, "
                       "shift = {2}>",
                       swizzle.getBits(), swizzle.getBase(),
                       swizzle.getShift());
}

/// A line for a loop that layout inference inserted to move a fragment
/// through shared memory: where, what and why.
static void describeConversion(ParallelOp loop, llvm::raw_ostream &os) {
  auto reason = loop->getAttrOfType<StringAttr>(kLayoutConversionAttrName);
  if (!reason)
    return;
  auto nameOf = [](Value buffer) {
    Operation *def = buffer.getDefiningOp();
    if (auto named = def ? dyn_cast<NameLoc>(def->getLoc()) : NameLoc())
      return named.getName().str();
    return std::string("(unnamed)");
  };
  Value from, to;
  loop.getBody().walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      from = load.getMemRef();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      to = store.getMemRef();
  });
  if (!from || !to)
    return;
  os << "  conversion";
  if (auto file = dyn_cast<FileLineColLoc>(loop.getLoc()))
    os << " at line " << file.getLine();
  os << ": " << nameOf(from) << " to " << nameOf(to) << ", because "
     << reason.getValue() << "\n";
}

void tilec::printLayouts(ModuleOp module, llvm::raw_ostream &os) {
  module.walk([&](KernelOp kernel) {
    auto func = kernel->getParentOfType<func::FuncOp>();
    os << "kernel " << (func ? func.getSymName() : "?") << ", "
       << kernel.getNumThreads() << " threads";
    if (!kernel.getBody().front().getOps<WarpSpecializeOp>().empty())
      os << " and a producer warpgroup of 128";
    os << "\n";
    kernel.walk([&](Operation *op) {
      if (auto fragment = dyn_cast<AllocFragmentOp>(op)) {
        os << "  " << describeName(op) << ": fragment "
           << describeShape(fragment.getType()) << ", "
           << describeFragmentLayout(fragment.getLayoutAttr()) << "\n";
      } else if (auto shared = dyn_cast<AllocSharedOp>(op)) {
        os << "  " << describeName(op) << ": shared "
           << describeShape(shared.getType()) << ", "
           << describeSharedLayout(shared.getLayoutAttr(), shared.getType())
           << "\n";
      } else if (auto local = dyn_cast<AllocLocalOp>(op)) {
        os << "  " << describeName(op) << ": local "
           << describeShape(local.getType()) << ", each thread's own\n";
      } else if (auto loop = dyn_cast<ParallelOp>(op)) {
        describeConversion(loop, os);
      }
    });
  });
}
