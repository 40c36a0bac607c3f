//===- FragmentSlots.h - Which thread holds a fragment element --*- C++ -*-===//
//
// Part of tilec. Used by tile-infer-layouts, to find the fragment accesses
// its layouts leave out of reach, and by tile-distribute, to give each
// access its register slot.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_DIALECT_TILE_TRANSFORMS_FRAGMENTSLOTS_H
#define TILEC_LIB_DIALECT_TILE_TRANSFORMS_FRAGMENTSLOTS_H

#include "tilec/Dialect/Tile/IR/TileAttrs.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace tilec::tile {

/// Evaluates an index computation at integer values of some of the values
/// it depends on. Fails on anything but integer arithmetic.
class IndexEvaluator {
public:
  explicit IndexEvaluator(const llvm::DenseMap<mlir::Value, int64_t> &env)
      : env(env) {}

  std::optional<int64_t> eval(mlir::Value value);

private:
  const llvm::DenseMap<mlir::Value, int64_t> &env;
};

/// The row-major position of `index` in `shape`, or -1 outside it.
int64_t linearizeIndex(llvm::ArrayRef<int64_t> index,
                       llvm::ArrayRef<int64_t> shape);

/// Finds the register slot at which a thread holds a fragment element.
class SlotFinder {
public:
  explicit SlotFinder(int64_t threads) : threads(threads) {}

  /// The slot at which `thread` holds the element of `layout` at `index`,
  /// if it holds it. Looked up in a table of the layout's inverse, built
  /// once: searching the replicas of every element for every thread would
  /// take time quadratic in the block's threads.
  std::optional<int64_t> find(FragmentLayoutAttr layout,
                              llvm::ArrayRef<int64_t> index, int64_t thread);

private:
  int64_t threads;
  /// For each layout with an inverse: (thread, row-major element) -> slot.
  llvm::DenseMap<mlir::Attribute,
                 llvm::DenseMap<std::pair<int64_t, int64_t>, int64_t>>
      tables;
};

} // namespace tilec::tile

#endif // TILEC_LIB_DIALECT_TILE_TRANSFORMS_FRAGMENTSLOTS_H
