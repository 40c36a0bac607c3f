//===- MemoryAccess.cpp - How the verifiers see an access -----------------===//
//
// Part of tilec. One matcher per kind of op: upstream's memref and vector
// loads and stores and memref atomics here, and every other op through the
// tile dialect's IndexedAccessOpInterface.
//
//===----------------------------------------------------------------------===//

#include "tilec/Verification/MemoryAccess.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

MemoryAccess scalarAccess(Operation *op, Value memref, ValueRange indices) {
  MemoryAccess access;
  access.op = op;
  access.memref = memref;
  access.indices.assign(indices.begin(), indices.end());
  access.guardable = true;
  return access;
}

/// A vector access, with the alignment it declares beyond its element's.
MemoryAccess vectorAccess(Operation *op, Value memref, ValueRange indices,
                          VectorType type, std::optional<uint64_t> declared,
                          bool isWrite) {
  MemoryAccess access = scalarAccess(op, memref, indices);
  access.vectorType = type;
  access.elements = type.getRank() == 1 ? type.getNumElements() : 1;
  access.isWrite = isWrite;
  int64_t elementBytes = llvm::divideCeil(
      cast<MemRefType>(memref.getType()).getElementTypeBitWidth(), 8);
  if (declared && int64_t(*declared) > elementBytes) {
    access.alignment = *declared;
    access.alignmentAdjustable = true;
  }
  access.description = isWrite ? "vector write to" : "vector read of";
  return access;
}

} // namespace

SmallVector<MemoryAccess, 2> tilec::tile::matchMemoryAccesses(Operation *op) {
  SmallVector<MemoryAccess, 2> accesses;
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    accesses.push_back(scalarAccess(op, load.getMemRef(), load.getIndices()));
  } else if (auto store = dyn_cast<memref::StoreOp>(op)) {
    MemoryAccess &access = accesses.emplace_back(
        scalarAccess(op, store.getMemRef(), store.getIndices()));
    access.isWrite = true;
    access.stored = store.getValueToStore();
  } else if (auto atomic = dyn_cast<memref::AtomicRMWOp>(op)) {
    MemoryAccess &access = accesses.emplace_back(
        scalarAccess(op, atomic.getMemref(), atomic.getIndices()));
    access.isWrite = true;
    access.atomic = true;
  } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
    accesses.push_back(vectorAccess(op, load.getBase(), load.getIndices(),
                                    load.getVectorType(), load.getAlignment(),
                                    /*isWrite=*/false));
  } else if (auto store = dyn_cast<vector::StoreOp>(op)) {
    MemoryAccess &access = accesses.emplace_back(vectorAccess(
        op, store.getBase(), store.getIndices(), store.getVectorType(),
        store.getAlignment(), /*isWrite=*/true));
    access.stored = store.getValueToStore();
  } else if (auto store = dyn_cast<vector::MaskedStoreOp>(op)) {
    MemoryAccess &access = accesses.emplace_back(
        vectorAccess(op, store.getBase(), store.getIndices(),
                     store.getVectorType(), std::nullopt, /*isWrite=*/true));
    access.stored = store.getValueToStore();
    access.masked = true;
  } else if (auto indexed = dyn_cast<IndexedAccessOpInterface>(op)) {
    for (auto [position, indexedAccess] :
         llvm::enumerate(indexed.getIndexedAccesses())) {
      MemoryAccess &access = accesses.emplace_back(scalarAccess(
          op, indexedAccess.memref, ValueRange(indexedAccess.indices)));
      access.elements = indexedAccess.elements;
      access.isWrite = indexedAccess.isWrite;
      access.isAsync = indexedAccess.isAsync;
      access.alignment = indexedAccess.requiredAlignment;
      access.guardable = indexedAccess.guardable;
      access.indexedPosition = position;
      access.description = indexedAccess.description;
    }
  }
  return accesses;
}
