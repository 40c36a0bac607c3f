//===- Sequentialize.cpp - A block's tile code as one thread's loops
//-------===//
//
// Part of tilec. For targets that run a block's work on one thread (the
// host CPU), rewrites the tile ops of each kernel into the loops that
// thread runs for the whole block: a tile.parallel into a loop nest over
// its iteration space, a gemm and a reduction into loop nests, and
// tile.serial, tile.unroll and tile.pipelined into scf.for. Statements keep
// their order, which is all a block's barriers guarantee, so a kernel free
// of races computes what it computes on the GPU.
//
//===----------------------------------------------------------------------===//

#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tilec::tile {
#define GEN_PASS_DEF_TILESEQUENTIALIZE
#include "tilec/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tilec::tile

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

Value constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// Builds a nest of scf.for over [0, extents) before `b`'s insertion point
/// and calls `body` inside the innermost one with the induction variables.
void buildLoops(OpBuilder &b, Location loc, ArrayRef<int64_t> extents,
                function_ref<void(OpBuilder &, ValueRange)> body) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t extent : extents) {
    lbs.push_back(constant(b, loc, 0));
    ubs.push_back(constant(b, loc, extent));
    steps.push_back(constant(b, loc, 1));
  }
  scf::buildLoopNest(
      b, loc, lbs, ubs, steps,
      [&](OpBuilder &nested, Location, ValueRange ivs) { body(nested, ivs); });
}

/// Moves the body of a tile loop (`block`, whose arguments are the
/// induction variables) into the innermost of loops built in its place.
void moveBody(Operation *op, Block &block, ValueRange lbs, ValueRange ubs,
              ValueRange steps) {
  OpBuilder b(op);
  scf::LoopNest nest = scf::buildLoopNest(b, op->getLoc(), lbs, ubs, steps);
  Block *inner = nest.loops.back().getBody();
  for (auto [arg, iv] : llvm::zip(block.getArguments(),
                                  llvm::map_range(nest.loops, [](scf::ForOp l) {
                                    return l.getInductionVar();
                                  })))
    arg.replaceAllUsesWith(iv);
  inner->getOperations().splice(inner->getTerminator()->getIterator(),
                                block.getOperations(), block.begin(),
                                block.getTerminator()->getIterator());
  op->erase();
}

/// C (+)= op(A) op(B) as loops over (i, k, j), j innermost: the rows of B
/// and C are read and written in order, which vectorizes. Products and
/// sums are in C's element type, the operands converted to it.
void sequentializeGemm(GemmOp gemm) {
  OpBuilder b(gemm);
  Location loc = gemm.getLoc();
  auto cType = cast<MemRefType>(gemm.getC().getType());
  Type acc = cType.getElementType();
  ArrayRef<int64_t> aShape = cast<MemRefType>(gemm.getA().getType()).getShape();
  int64_t m = cType.getShape()[0], n = cType.getShape()[1];
  int64_t k = gemm.getTransposeA() ? aShape[0] : aShape[1];
  if (gemm.getClearAccum())
    buildLoops(b, loc, {m, n}, [&](OpBuilder &b, ValueRange ivs) {
      memref::StoreOp::create(b, loc, createZero(b, loc, acc), gemm.getC(),
                              ivs);
    });
  bool isFloat = isa<FloatType>(acc);
  buildLoops(b, loc, {m, k, n}, [&](OpBuilder &b, ValueRange ivs) {
    Value i = ivs[0], kk = ivs[1], j = ivs[2];
    Value a = memref::LoadOp::create(b, loc, gemm.getA(),
                                     gemm.getTransposeA() ? ValueRange{kk, i}
                                                          : ValueRange{i, kk});
    Value bv = memref::LoadOp::create(b, loc, gemm.getB(),
                                      gemm.getTransposeB() ? ValueRange{j, kk}
                                                           : ValueRange{kk, j});
    Value c = memref::LoadOp::create(b, loc, gemm.getC(), ValueRange{i, j});
    a = convertElement(b, loc, a, acc);
    bv = convertElement(b, loc, bv, acc);
    Value sum = isFloat ? arith::AddFOp::create(
                              b, loc, c, arith::MulFOp::create(b, loc, a, bv))
                              .getResult()
                        : arith::AddIOp::create(
                              b, loc, c, arith::MulIOp::create(b, loc, a, bv))
                              .getResult();
    memref::StoreOp::create(b, loc, sum, gemm.getC(), ValueRange{i, j});
  });
  gemm.erase();
}

/// Each element of the result, the reduction of its row of the source
/// (along `dim`), combined with what it held unless `clear`.
void sequentializeReduce(ReduceOp reduce) {
  OpBuilder b(reduce);
  Location loc = reduce.getLoc();
  auto srcType = cast<MemRefType>(reduce.getSource().getType());
  auto dstType = cast<MemRefType>(reduce.getDest().getType());
  int64_t dim = reduce.getDim();
  Reduction reduction{reduce.getKind(), srcType.getElementType()};
  SmallVector<int64_t> outer;
  for (auto [d, extent] : llvm::enumerate(srcType.getShape()))
    if (static_cast<int64_t>(d) != dim)
      outer.push_back(extent);
  buildLoops(b, loc, outer, [&](OpBuilder &b, ValueRange ivs) {
    // The result's index: the source's without `dim`, or with 0 there
    // when the result keeps it; a rank-1 source's is [0].
    SmallVector<Value> dstIndex;
    if (dstType.getRank() == srcType.getRank()) {
      dstIndex.assign(ivs.begin(), ivs.end());
      dstIndex.insert(dstIndex.begin() + dim, constant(b, loc, 0));
    } else if (srcType.getRank() == 1) {
      dstIndex.push_back(constant(b, loc, 0));
    } else {
      dstIndex.assign(ivs.begin(), ivs.end());
    }
    auto loop = scf::ForOp::create(
        b, loc, constant(b, loc, 0), constant(b, loc, srcType.getShape()[dim]),
        constant(b, loc, 1), ValueRange{reduction.identity(b, loc)},
        [&](OpBuilder &b, Location loc, Value r, ValueRange carried) {
          SmallVector<Value> srcIndex(ivs.begin(), ivs.end());
          srcIndex.insert(srcIndex.begin() + dim, r);
          Value value =
              memref::LoadOp::create(b, loc, reduce.getSource(), srcIndex);
          value = reduction.element(b, loc, value);
          scf::YieldOp::create(
              b, loc, reduction.combine(b, loc, carried.front(), value));
        });
    Value result = loop.getResult(0);
    if (!reduce.getClear())
      result = reduction.combine(
          b, loc, memref::LoadOp::create(b, loc, reduce.getDest(), dstIndex),
          result);
    memref::StoreOp::create(b, loc, result, reduce.getDest(), dstIndex);
  });
  reduce.erase();
}

struct SequentializePass
    : public tilec::tile::impl::TileSequentializeBase<SequentializePass> {
  void runOnOperation() override {
    // Code that tells the block's threads apart runs in loops over them
    // by now; statements in order are all a barrier guarantees here.
    WalkResult threadLevel = getOperation().walk([&](Operation *op) {
      if (isThreadLevelOp(op)) {
        op->emitError() << "thread-level code is left for one thread to run; "
                           "run tile-serialize-threads first";
        return WalkResult::interrupt();
      }
      if (isa<gpu::BarrierOp>(op))
        op->erase();
      return WalkResult::advance();
    });
    if (threadLevel.wasInterrupted())
      return signalPassFailure();
    // Inner ops first, so that each body moved holds loops already.
    SmallVector<Operation *> ops;
    getOperation().walk<WalkOrder::PostOrder>([&](Operation *op) {
      if (isa<ParallelOp, SerialOp, UnrollOp, PipelinedOp, GemmOp, ReduceOp,
              AnnotateLayoutOp, CopyOp, FillOp, ClearOp, AtomicOp,
              WarpSpecializeOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto parallel = dyn_cast<ParallelOp>(op)) {
        SmallVector<Value> lbs, ubs, steps;
        for (int64_t extent : parallel.getExtents()) {
          lbs.push_back(constant(b, loc, 0));
          ubs.push_back(constant(b, loc, extent));
          steps.push_back(constant(b, loc, 1));
        }
        moveBody(op, parallel.getBody().front(), lbs, ubs, steps);
      } else if (auto serial = dyn_cast<SerialOp>(op)) {
        moveBody(op, serial.getBody().front(), {serial.getLowerBound()},
                 {serial.getUpperBound()}, {serial.getStep()});
      } else if (auto unroll = dyn_cast<UnrollOp>(op)) {
        moveBody(op, unroll.getBody().front(), {unroll.getLowerBound()},
                 {unroll.getUpperBound()}, {unroll.getStep()});
      } else if (auto pipelined = dyn_cast<PipelinedOp>(op)) {
        moveBody(op, pipelined.getBody().front(), {pipelined.getLowerBound()},
                 {pipelined.getUpperBound()}, {constant(b, loc, 1)});
      } else if (auto gemm = dyn_cast<GemmOp>(op)) {
        sequentializeGemm(gemm);
      } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
        sequentializeReduce(reduce);
      } else if (isa<AnnotateLayoutOp>(op)) {
        // Layouts place elements on threads; one thread holds them all.
        op->erase();
      } else {
        op->emitOpError() << "is not lowered for a sequential target; run "
                             "tile-lower-copies first (and no tile-pipeline)";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
