//===- SharedMemoryPlan.cpp - Offsets of shared buffers by liveness -------===//
//
// Part of tilec. A buffer is live from the first to the last top-level
// statement of the kernel that uses it or anything computed from it (views,
// pipeline stages, addresses); nested code counts as its top-level
// statement, so a buffer used in a loop is live over the whole loop. Two
// buffers whose live ranges are disjoint may share bytes once every thread
// is past the last use of the first: a block barrier between them, which
// top-level code, run by every thread, can always hold. Sharing is free
// where a barrier is already there; inserting one is worth it only to fit
// the target's shared memory. Asynchronous copies into shared memory are
// waited for where their data is read, and bulk stores wait for their reads
// where they are issued, so no copy is in flight past a buffer's last use.
//
//===----------------------------------------------------------------------===//

#include "SharedMemoryPlan.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The first and last top-level statements (by position) that use a buffer.
struct LiveRange {
  int64_t first;
  int64_t last;
};

/// Whether a value computed from a buffer can carry its address on: views,
/// pointers and index arithmetic do; the data loaded from it does not.
bool carriesAddress(Operation *user, Value result) {
  if (isa<memref::LoadOp, vector::LoadOp>(user))
    return false;
  return isa<MemRefType, LLVM::LLVMPointerType, IndexType, IntegerType>(
      result.getType());
}

/// The live range of `alloc` in `body`, whose statements `position`
/// numbers; none for a buffer nothing uses.
std::optional<LiveRange>
liveRange(AllocSharedOp alloc, Block &body,
          const DenseMap<Operation *, int64_t> &position) {
  std::optional<LiveRange> range;
  SmallVector<Value> work{alloc.getResult()};
  SmallPtrSet<Operation *, 32> seen;
  while (!work.empty()) {
    Value value = work.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (!seen.insert(user).second)
        continue;
      if (Operation *top = body.findAncestorOpInBlock(*user)) {
        int64_t at = position.lookup(top);
        range = range ? LiveRange{std::min(range->first, at),
                                  std::max(range->last, at)}
                      : LiveRange{at, at};
      }
      for (Value result : user->getResults())
        if (carriesAddress(user, result))
          work.push_back(result);
    }
  }
  return range;
}

} // namespace

int64_t tilec::planSharedOffsets(gpu::GPUFuncOp func,
                                 ArrayRef<AllocSharedOp> allocs, int64_t limit,
                                 SmallVectorImpl<int64_t> &offsets) {
  offsets.assign(allocs.size(), 0);
  auto inOrder = [&] {
    int64_t offset = 0;
    for (auto [i, alloc] : llvm::enumerate(allocs)) {
      offset = llvm::alignTo(offset, getSharedAlignment(alloc));
      offsets[i] = offset;
      offset += getSharedBytes(alloc);
    }
    return offset;
  };
  if (!func.getBody().hasOneBlock())
    return inOrder();

  Block &body = func.getBody().front();
  DenseMap<Operation *, int64_t> position;
  SmallVector<int64_t> barriers;
  for (auto [i, op] : llvm::enumerate(body)) {
    position[&op] = i;
    if (isa<gpu::BarrierOp>(op))
      barriers.push_back(i);
  }
  SmallVector<std::optional<LiveRange>> ranges;
  for (AllocSharedOp alloc : allocs)
    ranges.push_back(liveRange(alloc, body, position));
  // Whether the live ranges of two used buffers are disjoint, and whether
  // a barrier already separates them.
  auto disjoint = [&](size_t a, size_t b) {
    return ranges[a]->last < ranges[b]->first ||
           ranges[b]->last < ranges[a]->first;
  };
  auto separated = [&](size_t a, size_t b) {
    LiveRange before = *ranges[a], after = *ranges[b];
    if (after.last < before.first)
      std::swap(before, after);
    return llvm::any_of(barriers, [&](int64_t at) {
      return before.last < at && at < after.first;
    });
  };

  auto bytesOverlap = [&](int64_t offsetA, size_t a, int64_t offsetB,
                          size_t b) {
    return offsetA < offsetB + getSharedBytes(allocs[b]) &&
           offsetB < offsetA + getSharedBytes(allocs[a]);
  };

  // First fit, in allocation order: the lowest offset, at the start or at
  // the end of a placed buffer, that overlaps no placed buffer this one may
  // not share with. A buffer nothing uses overlaps nothing.
  auto firstFit = [&](function_ref<bool(size_t, size_t)> mayShare) {
    int64_t total = 0;
    for (size_t i = 0; i < allocs.size(); ++i) {
      int64_t bytes = getSharedBytes(allocs[i]);
      int64_t align = getSharedAlignment(allocs[i]);
      SmallVector<int64_t> candidates{0};
      for (size_t j = 0; j < i; ++j)
        candidates.push_back(
            llvm::alignTo(offsets[j] + getSharedBytes(allocs[j]), align));
      llvm::sort(candidates);
      for (int64_t candidate : candidates) {
        bool fits = llvm::all_of(llvm::seq<size_t>(0, i), [&](size_t j) {
          return !bytesOverlap(candidate, i, offsets[j], j) || !ranges[i] ||
                 !ranges[j] || mayShare(i, j);
        });
        if (fits) {
          offsets[i] = candidate;
          break;
        }
      }
      total = std::max(total, offsets[i] + bytes);
    }
    return total;
  };

  // Bytes are shared for free where a barrier already separates the uses.
  auto free = [&](size_t a, size_t b) {
    return disjoint(a, b) && separated(a, b);
  };
  bool anyFree = false;
  for (size_t a = 0; a < allocs.size(); ++a)
    for (size_t b = a + 1; b < allocs.size(); ++b)
      anyFree |= ranges[a] && ranges[b] && free(a, b);
  // Where nothing can share for free, the plain layout, the same code as
  // ever, unless it does not fit.
  int64_t total = anyFree ? firstFit(free) : inOrder();
  if (limit <= 0 || total <= limit)
    return total;

  // Past the limit, disjoint buffers share too, with a barrier inserted
  // before the first use of the later one where none separates them.
  SmallVector<int64_t> unshared(offsets.begin(), offsets.end());
  int64_t sharedTotal = firstFit(disjoint);
  if (sharedTotal >= total) {
    offsets.assign(unshared.begin(), unshared.end());
    return total;
  }
  SmallVector<Operation *> statements =
      llvm::map_to_vector(body, [](Operation &op) { return &op; });
  SmallPtrSet<Operation *, 4> needBarrier;
  for (size_t a = 0; a < allocs.size(); ++a)
    for (size_t b = a + 1; b < allocs.size(); ++b) {
      if (!ranges[a] || !ranges[b] || separated(a, b) ||
          !bytesOverlap(offsets[a], a, offsets[b], b))
        continue;
      needBarrier.insert(
          statements[std::max(ranges[a]->first, ranges[b]->first)]);
    }
  for (Operation *op : needBarrier) {
    OpBuilder b(op);
    gpu::BarrierOp::create(b, op->getLoc());
  }
  return sharedTotal;
}
