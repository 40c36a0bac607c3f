//===- TileToNVVM.cpp - Lower the tile dialect's asynchronous copies ------===//
//
// Part of tilec. The copy and pipelining passes make their asynchronous
// copies, and order them, with target-neutral tile ops; this conversion
// gives them NVIDIA's instructions:
//
//   tile.async_copy         cp.async (nvgpu.device_async_copy)
//   tile.tma_load           cp.async.bulk.tensor.shared::cluster.global
//   tile.tma_store          cp.async.bulk.tensor.global.shared::cta
//   tile.mbarrier_init      mbarrier.init.shared
//   tile.mbarrier_arrive    mbarrier.arrive[.expect_tx].shared
//   tile.mbarrier_wait      mbarrier.try_wait.parity.shared, in a loop
//   tile.async_commit_group cp.async.commit_group
//   tile.async_wait_group   cp.async.wait_group
//   tile.bulk_commit_group  cp.async.bulk.commit_group
//   tile.bulk_wait_group    cp.async.bulk.wait_group[.read]
//   tile.fence_async_shared fence.proxy.async.shared::cta
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
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

struct AsyncCopyLowering : OpRewritePattern<AsyncCopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AsyncCopyOp op,
                                PatternRewriter &rewriter) const override {
    // cp.async names its destination in the GPU's workgroup address space;
    // the cast disappears when the tile dialect's shared buffers become
    // workgroup memory.
    Location loc = op.getLoc();
    auto destType = cast<MemRefType>(op.getDest().getType());
    auto workgroup = gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                                gpu::AddressSpace::Workgroup);
    Value dest = memref::MemorySpaceCastOp::create(
        rewriter, loc,
        MemRefType::get(destType.getShape(), destType.getElementType(),
                        destType.getLayout(), workgroup),
        op.getDest());
    // 16-byte copies may bypass L1 (cp.async.cg): the data is read once.
    nvgpu::DeviceAsyncCopyOp::create(
        rewriter, loc, nvgpu::DeviceAsyncTokenType::get(rewriter.getContext()),
        dest, op.getDestIndices(), op.getSource(), op.getSourceIndices(),
        rewriter.getIndexAttr(op.getElements()), op.getSourceElements(),
        op.getBytes() == 16 ? rewriter.getUnitAttr() : UnitAttr());
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaLoadLowering : OpRewritePattern<TmaLoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TmaLoadOp op,
                                PatternRewriter &rewriter) const override {
    // The copy's destination is a shared::cluster address; the block's own
    // shared memory is part of its cluster's.
    MLIRContext *context = op.getContext();
    Location loc = op.getLoc();
    Value dest = LLVM::AddrSpaceCastOp::create(
        rewriter, loc, LLVM::LLVMPointerType::get(context, 7), op.getDest());
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        rewriter, loc, dest, op.getMap(), op.getCoordinates(), op.getBarrier(),
        /*im2colOffsets=*/ValueRange{},
        /*multicastMask=*/Value(), /*l2CacheHint=*/Value(),
        NVVM::TMALoadModeAttr::get(context, NVVM::TMALoadMode::TILE),
        rewriter.getBoolAttr(false), /*group=*/NVVM::CTAGroupKindAttr(),
        /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct TmaStoreLowering : OpRewritePattern<TmaStoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TmaStoreOp op,
                                PatternRewriter &rewriter) const override {
    NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
        rewriter, op.getLoc(), op.getMap(), op.getSource(), op.getCoordinates(),
        /*l2CacheHint=*/Value(), NVVM::TMAStoreMode::TILE,
        /*predicate=*/Value());
    rewriter.eraseOp(op);
    return success();
  }
};

struct BulkCommitGroupLowering : OpRewritePattern<BulkCommitGroupOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BulkCommitGroupOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkCommitGroupOp>(op);
    return success();
  }
};

struct BulkWaitGroupLowering : OpRewritePattern<BulkWaitGroupOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BulkWaitGroupOp op,
                                PatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncBulkWaitGroupOp>(
        op, op.getPending(),
        op.getRead() ? rewriter.getUnitAttr() : UnitAttr());
    return success();
  }
};

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

struct NamedBarrierLowering : OpRewritePattern<NamedBarrierOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(NamedBarrierOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    rewriter.replaceOpWithNewOp<NVVM::BarrierOp>(
        op, TypeRange{}, i32Constant(rewriter, loc, op.getId()),
        i32Constant(rewriter, loc, op.getCount()), NVVM::BarrierReductionAttr(),
        Value());
    return success();
  }
};

struct WarpBarrierLowering : OpRewritePattern<WarpBarrierOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WarpBarrierOp op,
                                PatternRewriter &rewriter) const override {
    Value allLanes = i32Constant(rewriter, op.getLoc(), -1);
    rewriter.replaceOpWithNewOp<NVVM::SyncWarpOp>(op, allLanes);
    return success();
  }
};

struct ConvertTileToNVVMPass
    : public tilec::impl::ConvertTileToNVVMBase<ConvertTileToNVVMPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    ConversionTarget target(*context);
    target.addIllegalOp<AsyncCopyOp, TmaLoadOp, TmaStoreOp, MBarrierInitOp,
                        MBarrierArriveOp, MBarrierWaitOp, AsyncCommitGroupOp,
                        AsyncWaitGroupOp, BulkCommitGroupOp, BulkWaitGroupOp,
                        FenceAsyncSharedOp, NamedBarrierOp, WarpBarrierOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(context);
    patterns.add<AsyncCopyLowering, TmaLoadLowering, TmaStoreLowering,
                 MBarrierInitLowering, MBarrierArriveLowering,
                 MBarrierWaitLowering, AsyncCommitGroupLowering,
                 AsyncWaitGroupLowering, BulkCommitGroupLowering,
                 BulkWaitGroupLowering, FenceAsyncSharedLowering,
                 NamedBarrierLowering, WarpBarrierLowering>(context);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
