//===- LowerLoops.cpp - Serial, unrolled and pipelined loops to scf -------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILELOWERLOOPS
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec::tile;

namespace {

/// Replaces `loop` by an scf.for running its body.
void toScfFor(Operation *loop, Value lb, Value ub, Value step) {
  OpBuilder b(loop);
  auto forOp = scf::ForOp::create(b, loop->getLoc(), lb, ub, step);
  Block &oldBody = loop->getRegion(0).front();
  Block &newBody = *forOp.getBody();
  oldBody.getArgument(0).replaceAllUsesWith(forOp.getInductionVar());
  oldBody.getTerminator()->erase();
  newBody.getOperations().splice(newBody.begin(), oldBody.getOperations());
  loop->erase();
}

/// Unrolls `loop`; `copiedOps` counts the operations unrolling has copied
/// so far, in this and the other loops of the kernel.
LogicalResult unroll(UnrollOp loop, uint64_t &copiedOps) {
  APInt lb, ub, step;
  if (!matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) ||
      !matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) ||
      !matchPattern(loop.getStep(), m_ConstantInt(&step)))
    return loop.emitError() << "T.unroll needs bounds known at compile time";
  int64_t first = lb.getSExtValue(), end = ub.getSExtValue(),
          stride = step.getSExtValue();
  // The verifier ensures a positive constant step. Counted without
  // iterating: the bounds may be far apart.
  uint64_t trips = end <= first
                       ? 0
                       : llvm::divideCeil(static_cast<uint64_t>(end) -
                                              static_cast<uint64_t>(first),
                                          static_cast<uint64_t>(stride));
  if (trips > 4096)
    return loop.emitError() << "T.unroll of " << trips
                            << " iterations; use T.serial for long loops";
  // Inner loops are unrolled already: nested unrolls multiply, and so do
  // unrolls inside T.Parallel loops, whose bodies each thread's share has
  // copied. 2^18 copied operations took 5 s to the LLVM dialect.
  constexpr uint64_t kMaxUnrolledOps = uint64_t(1) << 16;
  uint64_t bodyOps = 0;
  loop.getBody().walk([&](Operation *) { ++bodyOps; });
  if (trips * bodyOps > kMaxUnrolledOps)
    return loop.emitError()
           << "T.unroll would copy its body of " << bodyOps << " operations "
           << trips << " times, more than " << kMaxUnrolledOps
           << " in all; use T.serial for this loop or the loops inside it";
  copiedOps += trips * bodyOps;
  if (copiedOps > kMaxUnrolledOps)
    return loop.emitError()
           << "with this T.unroll (its body of " << bodyOps << " operations, "
           << trips << " times), unrolling copies " << copiedOps
           << " operations in this kernel, more than " << kMaxUnrolledOps
           << "; use T.serial for some of its unrolled loops (a T.unroll "
              "inside a T.Parallel loop is copied for each iteration of a "
              "thread's share)";
  OpBuilder b(loop);
  Block &body = loop.getBody().front();
  for (uint64_t trip = 0; trip < trips; ++trip) {
    int64_t i = first + static_cast<int64_t>(trip) * stride;
    IRMapping mapping;
    mapping.map(body.getArgument(0),
                arith::ConstantIndexOp::create(b, loop.getLoc(), i));
    for (Operation &op : body.without_terminator())
      b.clone(op, mapping);
  }
  loop.erase();
  return success();
}

struct LowerLoopsPass
    : public tilec::tile::impl::TileLowerLoopsBase<LowerLoopsPass> {
  void runOnOperation() override {
    SmallVector<Operation *> loops;
    uint64_t copiedOps = 0;
    getOperation().walk([&](Operation *op) {
      if (isa<SerialOp, UnrollOp, PipelinedOp>(op))
        loops.push_back(op);
    });
    // Inner loops first (post-order), so that unrolling clones lowered code.
    for (Operation *op : loops) {
      if (auto serial = dyn_cast<SerialOp>(op)) {
        toScfFor(serial, serial.getLowerBound(), serial.getUpperBound(),
                 serial.getStep());
      } else if (auto pipelined = dyn_cast<PipelinedOp>(op)) {
        OpBuilder b(pipelined);
        Value one = arith::ConstantIndexOp::create(b, pipelined.getLoc(), 1);
        toScfFor(pipelined, pipelined.getLowerBound(),
                 pipelined.getUpperBound(), one);
      } else if (failed(unroll(cast<UnrollOp>(op), copiedOps))) {
        return signalPassFailure();
      }
    }
  }
};

} // namespace
