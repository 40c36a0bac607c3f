//===- TileToNVVM.cpp - Lower the tile dialect's copy synchronization -----===//
//
// Part of tilec. The pipelining passes order their asynchronous copies with
// target-neutral tile ops (memory barriers, copy groups, proxy fences);
// this conversion gives them NVIDIA's instructions:
//
//   tile.mbarrier_init      mbarrier.init.shared
//   tile.mbarrier_arrive    mbarrier.arrive[.expect_tx].shared
//   tile.mbarrier_wait      mbarrier.try_wait.parity.shared, in a loop
//   tile.async_commit_group cp.async.commit_group
//   tile.async_wait_group   cp.async.wait_group
//   tile.fence_async_shared fence.proxy.async.shared::cta
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTTILETONVVM
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// The shared-memory pointer of barrier `index` of `barriers`: mbarriers
/// are 8-byte words.
Value barrierPointer(OpBuilder &b, Location loc, Value barriers, Value index) {
  Value offset = arith::MulIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, 8));
  return emitSharedPointer(b, loc, barriers, offset);
}

Value i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

struct MBarrierInitLowering : OpRewritePattern<MBarrierInitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MBarrierInitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::MBarrierInitOp::create(
        rewriter, loc,
        barrierPointer(rewriter, loc, op.getBarriers(), op.getIndex()),
        i32Constant(rewriter, loc, op.getCount()), /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveLowering : OpRewritePattern<MBarrierArriveOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MBarrierArriveOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value pointer =
        barrierPointer(rewriter, loc, op.getBarriers(), op.getIndex());
    auto scope =
        NVVM::MemScopeKindAttr::get(op.getContext(), NVVM::MemScopeKind::CTA);
    if (std::optional<uint64_t> bytes = op.getExpectBytes())
      NVVM::MBarrierArriveExpectTxOp::create(
          rewriter, loc, /*res=*/Type(), pointer,
          i32Constant(rewriter, loc, *bytes), scope,
          rewriter.getBoolAttr(false), /*predicate=*/Value());
    else
      NVVM::MBarrierArriveOp::create(rewriter, loc, /*res=*/Type(), pointer,
                                     /*count=*/Value(), scope,
                                     rewriter.getBoolAttr(false));
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitLowering : OpRewritePattern<MBarrierWaitOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(MBarrierWaitOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    // The hardware tells phases apart by their parity.
    Value parity = arith::IndexCastUIOp::create(
        rewriter, loc, rewriter.getI32Type(),
        arith::RemUIOp::create(
            rewriter, loc, op.getPhase(),
            arith::ConstantIndexOp::create(rewriter, loc, 2)));
    NVVM::MBarrierTryWaitParityOp::create(
        rewriter, loc,
        barrierPointer(rewriter, loc, op.getBarriers(), op.getIndex()), parity,
        /*ticks=*/i32Constant(rewriter, loc, 0));
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCommitGroupLowering : OpRewritePattern<AsyncCommitGroupOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AsyncCommitGroupOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncCommitGroupOp>(op);
    return success();
  }
};

struct AsyncWaitGroupLowering : OpRewritePattern<AsyncWaitGroupOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AsyncWaitGroupOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, op.getPending());
    return success();
  }
};

struct FenceAsyncSharedLowering : OpRewritePattern<FenceAsyncSharedOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FenceAsyncSharedOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *context = op.getContext();
    rewriter.replaceOpWithNewOp<NVVM::FenceProxyOp>(
        op, NVVM::ProxyKindAttr::get(context, NVVM::ProxyKind::async_shared),
        NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
    return success();
  }
};

struct ConvertTileToNVVMPass
    : public tilec::impl::ConvertTileToNVVMBase<ConvertTileToNVVMPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addIllegalOp<MBarrierInitOp, MBarrierArriveOp, MBarrierWaitOp,
                        AsyncCommitGroupOp, AsyncWaitGroupOp,
                        FenceAsyncSharedOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    patterns.add<MBarrierInitLowering, MBarrierArriveLowering,
                 MBarrierWaitLowering, AsyncCommitGroupLowering,
                 AsyncWaitGroupLowering, FenceAsyncSharedLowering>(context);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
