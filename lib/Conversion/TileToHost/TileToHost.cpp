//===- TileToHost.cpp - Kernels as host functions that loop over blocks ---===//
//
// Part of tilec. After tile-sequentialize, a kernel's body is what one
// block runs; this pass makes each kernel function a plain C-callable
// function that runs the body for every block of the grid, in order, with
// its buffers allocated once for all blocks.
//
//===----------------------------------------------------------------------===//

#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTTILETOHOST
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

/// `type` without a tile memory scope: on the host all buffers are plain
/// memory.
Type withoutScope(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !isa_and_nonnull<MemoryScopeAttr>(memref.getMemorySpace()))
    return type;
  return MemRefType::get(memref.getShape(), memref.getElementType(),
                         memref.getLayout());
}

/// Drops the memory scopes of every value of `func`: the types change, the
/// ops do not.
void dropMemoryScopes(func::FuncOp func) {
  func.walk([](Operation *op) {
    for (Value result : op->getResults())
      result.setType(withoutScope(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setType(withoutScope(arg.getType()));
  });
  // Casts between scopes are now between equal types.
  func.walk([](memref::MemorySpaceCastOp cast) {
    if (cast.getSource().getType() == cast.getType()) {
      cast.replaceAllUsesWith(cast.getSource());
      cast.erase();
    }
  });
}

class HostLowering {
public:
  HostLowering(func::FuncOp func, StringRef symbolPrefix)
      : func(func), symbolPrefix(symbolPrefix) {}

  LogicalResult run();

private:
  /// The kernel's buffers, allocated once before the grid's loops and
  /// freed after them.
  void hoistBuffers(KernelOp kernel);
  /// The grid as loop nests running the body once per block.
  void lowerKernel(KernelOp kernel);
  /// Tensors as bare pointers re-shaped inside; float scalars narrower
  /// than f32 as their bits.
  LogicalResult lowerSignature();

  func::FuncOp func;
  StringRef symbolPrefix;
  SmallVector<Value> buffers;
};

void HostLowering::hoistBuffers(KernelOp kernel) {
  OpBuilder b(kernel);
  SmallVector<Operation *> allocs;
  kernel.walk([&](Operation *op) {
    if (isa<AllocSharedOp, AllocFragmentOp, AllocLocalOp, AllocVarOp>(op))
      allocs.push_back(op);
  });
  for (Operation *op : allocs) {
    auto type = cast<MemRefType>(withoutScope(op->getResult(0).getType()));
    Value buffer = memref::AllocOp::create(
        b, op->getLoc(), type,
        /*alignment=*/b.getI64IntegerAttr(kSharedAlignment));
    buffers.push_back(buffer);
    if (auto var = dyn_cast<AllocVarOp>(op)) {
      // A variable starts from its initial value in every block.
      if (Value init = var.getInit()) {
        OpBuilder vb(op);
        memref::StoreOp::create(vb, op->getLoc(), init, buffer, ValueRange{});
      }
    }
    op->getResult(0).replaceAllUsesWith(buffer);
    op->erase();
  }
}

void HostLowering::lowerKernel(KernelOp kernel) {
  OpBuilder b(kernel);
  Location loc = kernel.getLoc();
  SmallVector<Value> lbs, steps;
  for (size_t i = 0; i < kernel.getGrid().size(); ++i) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  // z slowest, x fastest, as the blocks of a GPU are numbered.
  SmallVector<Value> ubs(llvm::reverse(kernel.getGrid()));
  scf::LoopNest nest = scf::buildLoopNest(b, loc, lbs, ubs, steps);
  Block *inner = nest.loops.back().getBody();
  SmallVector<Value> blockIds;
  for (scf::ForOp loop : llvm::reverse(nest.loops))
    blockIds.push_back(loop.getInductionVar());
  Block &body = kernel.getBody().front();
  OpBuilder ib = OpBuilder::atBlockBegin(inner);
  auto swizzles = llvm::to_vector(body.getOps<UseSwizzleOp>());
  if (!swizzles.empty() && blockIds.size() >= 2)
    std::tie(blockIds[0], blockIds[1]) =
        swizzles.front().emitRemap(ib, loc, blockIds[0], blockIds[1],
                                   kernel.getGrid()[0], kernel.getGrid()[1]);
  for (UseSwizzleOp op : swizzles)
    op.erase();
  for (auto [arg, id] : llvm::zip(body.getArguments(), blockIds))
    arg.replaceAllUsesWith(id);
  inner->getOperations().splice(inner->getTerminator()->getIterator(),
                                body.getOperations(), body.begin(),
                                body.getTerminator()->getIterator());
  kernel.erase();
}

LogicalResult HostLowering::lowerSignature() {
  MLIRContext *context = func.getContext();
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Location loc = func.getLoc();
  SmallVector<Type> argTypes;
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    Type type = arg.getType();
    if (auto memref = dyn_cast<MemRefType>(type)) {
      // A bare pointer in, the tensor's shape from its extent arguments.
      auto pointerType = MemRefType::get({}, memref.getElementType());
      arg.setType(pointerType);
      FailureOr<Value> view = reshapeTensorArgument(
          b, func, i, arg, entry.getArguments(), /*memorySpace=*/nullptr);
      if (failed(view))
        return failure();
      // Users expect the identity layout of the original type; a cast
      // keeps them as they are.
      Value shaped = memref::CastOp::create(b, loc, memref, *view);
      arg.replaceAllUsesExcept(shaped, view->getDefiningOp());
      argTypes.push_back(pointerType);
      func.removeArgAttr(i, "tile.dims");
      func.removeArgAttr(i, kWorkspaceAttrName);
      func.setArgAttr(i, "llvm.noalias", UnitAttr::get(context));
      continue;
    }
    // Floats narrower than f32 travel as their bits (uint16_t or uint8_t
    // in C).
    if (isa<FloatType>(type) && type.getIntOrFloatBitWidth() < 32) {
      Type bits = IntegerType::get(context, type.getIntOrFloatBitWidth());
      arg.setType(bits);
      Value value = arith::BitcastOp::create(b, loc, type, arg);
      arg.replaceAllUsesExcept(value, value.getDefiningOp());
      argTypes.push_back(bits);
      continue;
    }
    argTypes.push_back(type);
  }
  func.setType(FunctionType::get(context, argTypes, {}));
  func.setSymName((symbolPrefix + func.getSymName() + "_").str());
  return success();
}

LogicalResult HostLowering::run() {
  auto kernels = llvm::to_vector(func.getOps<KernelOp>());
  for (KernelOp kernel : kernels) {
    hoistBuffers(kernel);
    lowerKernel(kernel);
  }
  func.walk([](AssumeOp op) { op.erase(); });
  // The buffers live until the function returns.
  func.walk([&](func::ReturnOp ret) {
    OpBuilder b(ret);
    for (Value buffer : buffers)
      memref::DeallocOp::create(b, ret.getLoc(), buffer);
  });
  dropMemoryScopes(func);
  if (failed(lowerSignature()))
    return failure();
  WalkResult leftover = func.walk([](Operation *op) {
    if (isa<TileDialect>(op->getDialect())) {
      op->emitOpError() << "has no lowering for the host target";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(leftover.wasInterrupted());
}

/// The kernels' prints (T.print) as calls of C's printf, each format a
/// private global string.
LogicalResult lowerPrints(ModuleOp module, StringRef symbolPrefix) {
  SmallVector<gpu::PrintfOp> prints;
  module.walk([&](gpu::PrintfOp op) { prints.push_back(op); });
  if (prints.empty())
    return success();
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(module.getContext());
  FailureOr<LLVM::LLVMFuncOp> printf = LLVM::lookupOrCreateFn(
      mb, module, "printf", {ptr}, mb.getI32Type(), /*isVarArg=*/true);
  if (failed(printf))
    return module.emitError() << "'printf' is declared with another type";
  for (auto [i, op] : llvm::enumerate(prints)) {
    OpBuilder b(op);
    std::string format = op.getFormat().str();
    format.push_back('\0');
    Value text = LLVM::createGlobalString(
        op.getLoc(), b, (symbolPrefix + "printf_format_" + Twine(i)).str(),
        format, LLVM::Linkage::Private);
    SmallVector<Value> args{text};
    llvm::append_range(args, op.getArgs());
    LLVM::CallOp::create(b, op.getLoc(), *printf, args);
    op.erase();
  }
  return success();
}

/// The kernels' assertions (T.device_assert) as a check that, where the
/// condition is false, flushes what was printed, writes the message with
/// its source line to stderr and aborts, as C's assert does.
LogicalResult lowerAsserts(ModuleOp module, StringRef symbolPrefix) {
  SmallVector<cf::AssertOp> asserts;
  module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
  if (asserts.empty())
    return success();
  MLIRContext *context = module.getContext();
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  auto ptr = LLVM::LLVMPointerType::get(context);
  auto voidType = LLVM::LLVMVoidType::get(context);
  FailureOr<LLVM::LLVMFuncOp> fflush =
      LLVM::lookupOrCreateFn(mb, module, "fflush", {ptr}, mb.getI32Type());
  FailureOr<LLVM::LLVMFuncOp> write = LLVM::lookupOrCreateFn(
      mb, module, "write", {mb.getI32Type(), ptr, mb.getI64Type()},
      mb.getI64Type());
  FailureOr<LLVM::LLVMFuncOp> abort =
      LLVM::lookupOrCreateFn(mb, module, "abort", {}, voidType);
  if (failed(fflush) || failed(write) || failed(abort))
    return module.emitError()
           << "'fflush', 'write' or 'abort' is declared with another type";
  for (auto [i, op] : llvm::enumerate(asserts)) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    std::string message;
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      message =
          (file.getFilename().strref() + ":" + Twine(file.getLine()) + ": ")
              .str();
    message += op.getMsg().str() + "\n";
    Value failing = arith::XOrIOp::create(
        b, loc, op.getArg(), arith::ConstantIntOp::create(b, loc, 1, 1));
    auto ifOp = scf::IfOp::create(b, loc, failing, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value text = LLVM::createGlobalString(
        loc, b, (symbolPrefix + "assert_message_" + Twine(i)).str(), message,
        LLVM::Linkage::Private);
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    LLVM::CallOp::create(b, loc, *fflush, ValueRange{null});
    Value stderrFd = arith::ConstantIntOp::create(b, loc, 2, 32);
    Value length =
        arith::ConstantIntOp::create(b, loc, int64_t(message.size()), 64);
    LLVM::CallOp::create(b, loc, *write, ValueRange{stderrFd, text, length});
    LLVM::CallOp::create(b, loc, *abort, ValueRange{});
    op.erase();
  }
  return success();
}

struct ConvertTileToHostPass
    : public tilec::impl::ConvertTileToHostBase<ConvertTileToHostPass> {
  using ConvertTileToHostBase::ConvertTileToHostBase;

  void runOnOperation() override {
    for (auto func :
         llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>()))
      if (failed(HostLowering(func, symbolPrefix).run()))
        return signalPassFailure();
    if (failed(lowerPrints(getOperation(), symbolPrefix)) ||
        failed(lowerAsserts(getOperation(), symbolPrefix)))
      return signalPassFailure();
  }
};

} // namespace
