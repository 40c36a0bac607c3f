//===- TileToGPU.cpp - Outline distributed kernels into a gpu.module ------===//
//
// Part of tilec. After distribution a tile.kernel holds per-thread code;
// this pass moves it into a gpu.func with tilec's kernel ABI and replaces it
// with a gpu.launch_func, leaving the grid computation on the host side.
//
//===----------------------------------------------------------------------===//

#include "SharedMemoryPlan.h"
#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/MathExtras.h"

namespace tilec {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tilec/Conversion/Passes.h.inc"
} // namespace tilec

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace {

gpu::AddressSpaceAttr addressSpace(MLIRContext *context,
                                   gpu::AddressSpace space) {
  return gpu::AddressSpaceAttr::get(context, space);
}

/// The gpu.module of the kernels, created on first use.
gpu::GPUModuleOp getKernelModule(ModuleOp module) {
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>(kKernelModuleName))
    return existing;
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(module.getContext()));
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  return gpu::GPUModuleOp::create(b, module.getLoc(), kKernelModuleName);
}

/// The type a function argument has in the kernel: tensors are bare
/// pointers to their element type.
Type kernelArgType(Type type) {
  if (auto memref = dyn_cast<MemRefType>(type))
    return MemRefType::get(
        {}, memref.getElementType(), MemRefLayoutAttrInterface(),
        addressSpace(type.getContext(), gpu::AddressSpace::Global));
  return type;
}

/// Lowers `split` in place: the extra warpgroup after the kernel's
/// `consumers` threads lowers its register budget and its first thread runs
/// the producer; the others raise theirs and run the consumer code, whose
/// block barriers become a named barrier over them alone. Register budgets
/// are set where the block is two consumer warpgroups or more, whose
/// threads are otherwise capped below what wgmma accumulators need, unless
/// the kernel asks to keep them.
void lowerWarpSpecialize(WarpSpecializeOp split, int64_t consumers,
                         bool keepRegisterBudget) {
  OpBuilder b(split);
  Location loc = split.getLoc();
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x,
                                      b.getIndexAttr(consumers + 128));
  Value isProducer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                                           tid, constant(consumers));
  auto roles = scf::IfOp::create(b, loc, isProducer, /*withElseRegion=*/true);
  constexpr int64_t producerRegisters = 40;
  bool reallocate = consumers >= 256 && !keepRegisterBudget;
  int64_t consumerRegisters = std::min<int64_t>(
      240, ((65536 - 128 * producerRegisters) / consumers) / 8 * 8);
  MLIRContext *context = b.getContext();
  {
    OpBuilder pb = OpBuilder::atBlockBegin(&roles.getThenRegion().front());
    if (reallocate)
      NVVM::SetMaxRegisterOp::create(
          pb, loc, pb.getI32IntegerAttr(producerRegisters),
          NVVM::SetMaxRegisterActionAttr::get(
              context, NVVM::SetMaxRegisterAction::decrease));
    Value first = arith::CmpIOp::create(
        pb, loc, arith::CmpIPredicate::eq, tid,
        arith::ConstantIndexOp::create(pb, loc, consumers));
    auto once = scf::IfOp::create(pb, loc, first, false);
    Block &producer = split.getProducer().front();
    Block &dest = once.getThenRegion().front();
    dest.getOperations().splice(dest.begin(), producer.getOperations(),
                                producer.begin(),
                                Block::iterator(producer.getTerminator()));
  }
  {
    Block &dest = roles.getElseRegion().front();
    OpBuilder cb = OpBuilder::atBlockBegin(&dest);
    if (reallocate)
      NVVM::SetMaxRegisterOp::create(
          cb, loc, cb.getI32IntegerAttr(consumerRegisters),
          NVVM::SetMaxRegisterActionAttr::get(
              context, NVVM::SetMaxRegisterAction::increase));
    Block &consumer = split.getConsumer().front();
    dest.getOperations().splice(Block::iterator(dest.getTerminator()),
                                consumer.getOperations(), consumer.begin(),
                                Block::iterator(consumer.getTerminator()));
    SmallVector<gpu::BarrierOp> barriers;
    roles.getElseRegion().walk(
        [&](gpu::BarrierOp barrier) { barriers.push_back(barrier); });
    for (gpu::BarrierOp barrier : barriers) {
      OpBuilder bb(barrier);
      NVVM::BarrierOp::create(
          bb, barrier.getLoc(), Type(),
          arith::ConstantIntOp::create(bb, barrier.getLoc(), 1, 32),
          arith::ConstantIntOp::create(bb, barrier.getLoc(), consumers, 32),
          NVVM::BarrierReductionAttr(), Value());
      barrier.erase();
    }
  }
  split.erase();
}

/// The name in the binary of T.Kernel block `index` of the `count` in
/// kernel function `func`. A function with one block gives it its own name,
/// unless an assembler or a device library takes it (PTX reads `_` as no
/// identifier and predefines `WARP_SZ`; names that begin with `__` are the
/// libraries'). Several blocks are `func_0`, `func_1`, ... where no other
/// function of the module has those names. Otherwise a name that no other
/// symbol of the module or of `gpuModule` has.
std::string getDeviceSymbol(func::FuncOp func, unsigned index, unsigned count,
                            gpu::GPUModuleOp gpuModule) {
  StringRef name = func.getSymName();
  std::string base = name.str();
  if (count > 1)
    base += "_" + std::to_string(index);
  Operation *module = func->getParentOp();
  auto isFree = [&](StringRef symbol) {
    return !SymbolTable::lookupSymbolIn(module, symbol) &&
           !SymbolTable::lookupSymbolIn(gpuModule, symbol);
  };
  if (name != "_" && name != "WARP_SZ" && !name.starts_with("__") &&
      (count == 1 || isFree(base)))
    return base;
  for (unsigned attempt = 0;; ++attempt) {
    std::string symbol = "tilec_kernel";
    if (attempt)
      symbol += std::to_string(attempt);
    symbol += "_" + base;
    if (isFree(symbol))
      return symbol;
  }
}

/// Allocates the kernel's stack buffers (local buffers, variables and
/// fragment registers) once, at its start, in the private address space.
/// LLVM takes an alloca anywhere else for a dynamic one, and AMDGPU selects
/// allocas only in its private address space (5); what -O1 and above
/// promote to registers must also compile at -O0. NVVM keeps them generic.
void placePrivateBuffers(gpu::GPUFuncOp gpuFunc) {
  MLIRContext *context = gpuFunc.getContext();
  Attribute space = addressSpace(context, gpu::AddressSpace::Private);
  auto inPrivate = [&](Value value) {
    auto type = cast<MemRefType>(value.getType());
    value.setType(MemRefType::get(type.getShape(), type.getElementType(),
                                  type.getLayout(), space));
  };
  SmallVector<memref::AllocaOp> allocas;
  gpuFunc.walk([&](memref::AllocaOp alloca) { allocas.push_back(alloca); });
  Block &entry = gpuFunc.getBody().front();
  Block::iterator next = entry.begin();
  SmallVector<Value> worklist;
  for (memref::AllocaOp alloca : allocas) {
    if (alloca->getNumOperands() == 0) {
      alloca->moveBefore(&entry, next);
      next = std::next(Block::iterator(alloca));
    }
    inPrivate(alloca.getResult());
    worklist.push_back(alloca.getResult());
  }
  // Views of them are private too.
  while (!worklist.empty()) {
    Value buffer = worklist.pop_back_val();
    for (Operation *user : buffer.getUsers()) {
      auto view = dyn_cast<ViewLikeOpInterface>(user);
      if (!view || view.getViewSource() != buffer)
        continue;
      for (Value result : user->getResults()) {
        if (!isa<MemRefType>(result.getType()))
          continue;
        inPrivate(result);
        worklist.push_back(result);
      }
    }
  }
}

class KernelOutliner {
public:
  KernelOutliner(func::FuncOp func, KernelOp kernel, std::string symbol,
                 gpu::GPUModuleOp gpuModule)
      : func(func), kernel(kernel), symbol(std::move(symbol)),
        gpuModule(gpuModule) {}

  LogicalResult run();

private:
  /// Makes `value`, defined outside the kernel, available in the gpu.func:
  /// an argument, or a recomputation of pure code over arguments.
  FailureOr<Value> import(Value value, OpBuilder &b);
  LogicalResult planSharedMemory(gpu::GPUFuncOp gpuFunc);

  func::FuncOp func;
  KernelOp kernel;
  /// The device function's name.
  std::string symbol;
  gpu::GPUModuleOp gpuModule;
  IRMapping imported;
};

FailureOr<Value> KernelOutliner::import(Value value, OpBuilder &b) {
  if (Value existing = imported.lookupOrNull(value))
    return existing;
  Operation *def = value.getDefiningOp();
  if (!def || !isMemoryEffectFree(def) || def->getNumRegions() != 0)
    return kernel.emitError()
           << "the kernel uses a value computed outside it that cannot be "
              "recomputed inside";
  for (Value operand : def->getOperands())
    if (failed(import(operand, b)))
      return failure();
  Operation *clone = b.clone(*def, imported);
  return clone->getResult(cast<OpResult>(value).getResultNumber());
}

LogicalResult KernelOutliner::planSharedMemory(gpu::GPUFuncOp gpuFunc) {
  SmallVector<AllocSharedOp> allocs;
  gpuFunc.walk([&](AllocSharedOp alloc) { allocs.push_back(alloc); });
  SmallVector<int64_t> offsets;
  TargetAttr target = TargetAttr::lookup(gpuFunc);
  int64_t total = planSharedOffsets(
      gpuFunc, allocs, target ? target.getSharedMemory() : 0, offsets);
  MLIRContext *context = gpuFunc.getContext();
  if (!allocs.empty()) {
    OpBuilder b = OpBuilder::atBlockBegin(&gpuFunc.getBody().front());
    auto bytesType = MemRefType::get(
        {ShapedType::kDynamic}, b.getI8Type(), MemRefLayoutAttrInterface(),
        addressSpace(context, gpu::AddressSpace::Workgroup));
    Value pool =
        gpu::DynamicSharedMemoryOp::create(b, gpuFunc.getLoc(), bytesType);
    for (auto [alloc, offset] : llvm::zip(allocs, offsets)) {
      MemRefType type = alloc.getType();
      OpBuilder ab(alloc);
      Value start = arith::ConstantIndexOp::create(ab, alloc.getLoc(), offset);
      auto viewType = MemRefType::get(
          type.getShape(), type.getElementType(), MemRefLayoutAttrInterface(),
          addressSpace(context, gpu::AddressSpace::Workgroup));
      Value view = memref::ViewOp::create(ab, alloc.getLoc(), viewType, pool,
                                          start, ValueRange{});
      alloc.getResult().replaceAllUsesWith(view);
      alloc.erase();
    }
  }
  // Views of the buffers (pipeline stages, casts) now view workgroup memory
  // too; casts to it from it fold away afterwards.
  gpuFunc.walk([&](Operation *op) {
    for (OpResult result : op->getResults()) {
      auto type = dyn_cast<MemRefType>(result.getType());
      if (!type || !isInScope(type, MemoryScope::Shared))
        continue;
      result.setType(MemRefType::get(
          type.getShape(), type.getElementType(), type.getLayout(),
          addressSpace(context, gpu::AddressSpace::Workgroup)));
    }
  });
  gpuFunc->setAttr(kSharedMemoryBytesAttr,
                   IntegerAttr::get(IntegerType::get(context, 64), total));
  return success();
}

LogicalResult KernelOutliner::run() {
  MLIRContext *context = func.getContext();
  Location loc = kernel.getLoc();

  // Only buffers, annotations and tensor maps are converted here;
  // block-wide ops must have been distributed over the threads by the tile
  // passes.
  auto checkLowered = [](Operation *op) {
    if (!isa_and_nonnull<TileDialect>(op->getDialect()) ||
        op->hasTrait<mlir::OpTrait::IsTerminator>() ||
        isa<AllocSharedOp, AllocLocalOp, AllocVarOp, AnnotateLayoutOp,
            UseSwizzleOp, TensorMapOp, WarpSpecializeOp>(op))
      return WalkResult::advance();
    op->emitError() << "'" << op->getName()
                    << "' must be lowered by the tile passes "
                       "(tile-lower-copies to tile-lower-loops) before "
                       "convert-tile-to-gpu";
    return WalkResult::interrupt();
  };
  WalkResult early = kernel.getBody().walk<WalkOrder::PreOrder>(checkLowered);
  if (early.wasInterrupted())
    return failure();

  // The signature: one kernel argument per function argument, then one
  // per distinct TMA tensor map, which the host encodes and passes by value.
  SmallVector<Type> argTypes;
  for (Type type : func.getArgumentTypes())
    argTypes.push_back(kernelArgType(type));
  struct TensorMap {
    Location loc;
    BlockArgument tensor;
    DenseI64ArrayAttr box;
    IntegerAttr swizzle;
  };
  SmallVector<TensorMap> maps;
  SmallVector<std::pair<TensorMapOp, unsigned>> mapOps;
  WalkResult mapWalk = kernel.walk([&](TensorMapOp op) {
    auto tensor = dyn_cast<BlockArgument>(op.getTensor());
    if (!tensor || tensor.getOwner() != &func.getBody().front()) {
      op.emitError() << "a tensor map must map a parameter of the kernel's "
                        "function";
      return WalkResult::interrupt();
    }
    auto same = llvm::find_if(maps, [&](const TensorMap &other) {
      return other.tensor == tensor && other.box == op.getBoxAttr() &&
             other.swizzle == op.getSwizzleAttr();
    });
    mapOps.push_back({op, unsigned(same - maps.begin())});
    if (same == maps.end()) {
      maps.push_back(
          {op.getLoc(), tensor, op.getBoxAttr(), op.getSwizzleAttr()});
      argTypes.push_back(op.getType());
    }
    return WalkResult::advance();
  });
  if (mapWalk.wasInterrupted())
    return failure();
  OpBuilder mb = OpBuilder::atBlockEnd(gpuModule.getBody());
  auto gpuFunc =
      gpu::GPUFuncOp::create(mb, loc, symbol, mb.getFunctionType(argTypes, {}));
  gpuFunc->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                   UnitAttr::get(context));
  // A producer warpgroup comes after the kernel's threads.
  auto split =
      llvm::to_vector(kernel.getBody().front().getOps<WarpSpecializeOp>());
  SmallVector<int32_t> block(3, 1);
  for (auto [i, extent] : llvm::enumerate(kernel.getThreads()))
    block[i] = extent;
  if (!split.empty()) {
    block[0] += 128;
    gpuFunc->setAttr("nvvm.minctasm",
                     IntegerAttr::get(IntegerType::get(context, 32), 1));
  }
  gpuFunc.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(context, block));
  // A constant grid bounds the block indices, which lets range analysis
  // drop the bounds checks of tiles that always fit.
  SmallVector<int32_t> gridSize(3, 1);
  bool constantGrid = true;
  for (auto [i, extent] : llvm::enumerate(kernel.getGrid())) {
    std::optional<int64_t> value = getConstantIntValue(extent);
    if (!value || *value > INT32_MAX)
      constantGrid = false;
    else
      gridSize[i] = *value;
  }
  if (constantGrid)
    gpuFunc.setKnownGridSizeAttr(DenseI32ArrayAttr::get(context, gridSize));
  for (auto [i, map] : llvm::enumerate(maps)) {
    Builder attrs(context);
    gpuFunc.setArgAttr(
        func.getNumArguments() + i, kTensorMapAttr,
        attrs.getDictionaryAttr(
            {attrs.getNamedAttr(
                 "tensor", attrs.getI64IntegerAttr(map.tensor.getArgNumber())),
             attrs.getNamedAttr("box", map.box),
             attrs.getNamedAttr("swizzle", map.swizzle)}));
  }
  for (unsigned i = 0; i < argTypes.size(); ++i) {
    if (!isa<MemRefType>(argTypes[i]))
      continue;
    gpuFunc.setArgAttr(
        i, "llvm.align",
        IntegerAttr::get(IntegerType::get(context, 64), kTensorAlignment));
    gpuFunc.setArgAttr(i, "llvm.noalias", UnitAttr::get(context));
  }

  // Tensors get their shape back from the extent arguments.
  Block &entry = gpuFunc.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type) {
      imported.map(arg, entry.getArgument(i));
      continue;
    }
    FailureOr<Value> view = reshapeTensorArgument(
        b, func, i, entry.getArgument(i), entry.getArguments(),
        addressSpace(context, gpu::AddressSpace::Global));
    if (failed(view))
      return failure();
    imported.map(arg, *view);
  }

  // Tensor maps are the kernel's last arguments.
  for (auto [op, index] : mapOps) {
    op.getResult().replaceAllUsesWith(
        entry.getArgument(func.getNumArguments() + index));
    op.erase();
  }

  // Block indices, swizzled when asked.
  gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                           gpu::Dimension::z};
  SmallVector<Value> blockIds;
  for (unsigned i = 0; i < kernel.getGrid().size(); ++i)
    blockIds.push_back(gpu::BlockIdOp::create(b, loc, dims[i]));
  Block &body = kernel.getBody().front();
  auto swizzleOps = llvm::to_vector(body.getOps<UseSwizzleOp>());
  if (!swizzleOps.empty() && blockIds.size() >= 2) {
    // The grid's extents as the launch computes them, not gpu.grid_dim:
    // they fold when constant, and ROCDL's lowering of gpu.grid_dim mixes
    // i32 and i64 in LLVM 22.
    FailureOr<Value> gx = import(kernel.getGrid()[0], b);
    FailureOr<Value> gy = import(kernel.getGrid()[1], b);
    if (failed(gx) || failed(gy))
      return failure();
    std::tie(blockIds[0], blockIds[1]) = swizzleOps.front().emitRemap(
        b, loc, blockIds[0], blockIds[1], *gx, *gy);
  }
  for (UseSwizzleOp op : swizzleOps)
    op.erase();
  for (auto [arg, id] : llvm::zip(body.getArguments(), blockIds))
    arg.replaceAllUsesWith(id);

  // Move the body, then give it what it uses from outside, computed
  // between the set-up above and the body.
  Operation *terminator = body.getTerminator();
  OpBuilder eb = OpBuilder::atBlockEnd(&entry);
  Operation *firstInBody = gpu::ReturnOp::create(eb, loc);
  if (&body.front() != terminator)
    firstInBody = &body.front();
  entry.getOperations().splice(std::prev(entry.end()), body.getOperations(),
                               body.begin(), Block::iterator(terminator));

  llvm::SetVector<Value> outside;
  gpuFunc.walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (!gpuFunc->isAncestor(operand.getParentRegion()->getParentOp()))
        outside.insert(operand);
  });
  OpBuilder ib(firstInBody);
  for (Value value : outside) {
    FailureOr<Value> inside = import(value, ib);
    if (failed(inside))
      return failure();
    value.replaceUsesWithIf(*inside, [&](OpOperand &use) {
      return gpuFunc->isProperAncestor(use.getOwner());
    });
  }

  // Views of tensors (T.reshape) view global memory too.
  gpuFunc.walk([&](memref::ReinterpretCastOp view) {
    MemRefType type = view.getType();
    if (type.getMemorySpace() || !view.getSource().getType().getMemorySpace())
      return;
    view.getResult().setType(MemRefType::get(
        type.getShape(), type.getElementType(), type.getLayout(),
        view.getSource().getType().getMemorySpace()));
  });

  if (!split.empty())
    lowerWarpSpecialize(split.front(), kernel.getThreads()[0],
                        kernel.getKeepRegisterBudget());

  // Memory: shared buffers in the dynamic pool, local ones on the stack.
  gpuFunc.walk([&](Operation *op) {
    OpBuilder ob(op);
    if (auto local = dyn_cast<AllocLocalOp>(op)) {
      MemRefType type = local.getType();
      Value alloca = memref::AllocaOp::create(
          ob, op->getLoc(),
          MemRefType::get(type.getShape(), type.getElementType()));
      local.getResult().replaceAllUsesWith(alloca);
      op->erase();
    } else if (auto var = dyn_cast<AllocVarOp>(op)) {
      Value alloca = memref::AllocaOp::create(
          ob, op->getLoc(),
          MemRefType::get({}, var.getType().getElementType()));
      if (var.getInit())
        memref::StoreOp::create(ob, op->getLoc(), var.getInit(), alloca,
                                ValueRange{});
      var.getResult().replaceAllUsesWith(alloca);
      op->erase();
    } else if (isa<AnnotateLayoutOp>(op)) {
      op->erase();
    }
  });
  placePrivateBuffers(gpuFunc);
  if (failed(planSharedMemory(gpuFunc)))
    return failure();

  // The host side launches it.
  OpBuilder hb(kernel);
  SmallVector<Value> grid(kernel.getGrid());
  while (grid.size() < 3)
    grid.push_back(arith::ConstantIndexOp::create(hb, loc, 1));
  SmallVector<Value> threads;
  for (int32_t extent : block)
    threads.push_back(arith::ConstantIndexOp::create(hb, loc, extent));
  SmallVector<Value> args;
  for (auto [arg, type] : llvm::zip(func.getArguments(), argTypes)) {
    if (arg.getType() == type) {
      args.push_back(arg);
      continue;
    }
    args.push_back(
        UnrealizedConversionCastOp::create(hb, loc, type, arg).getResult(0));
  }
  for (const TensorMap &map : maps)
    args.push_back(TensorMapOp::create(hb, map.loc,
                                       LLVM::LLVMPointerType::get(context),
                                       map.tensor, map.box, map.swizzle));
  int64_t sharedBytes =
      gpuFunc->getAttrOfType<IntegerAttr>(kSharedMemoryBytesAttr).getInt();
  Value shared = arith::ConstantIntOp::create(hb, loc, sharedBytes, 32);
  gpu::LaunchFuncOp::create(
      hb, loc, gpuFunc, gpu::KernelDim3{grid[0], grid[1], grid[2]},
      gpu::KernelDim3{threads[0], threads[1], threads[2]}, shared, args);
  kernel.erase();
  return success();
}

struct ConvertTileToGPUPass
    : public tilec::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Facts for the bounds verifier, which has run: they generate no code.
    module.walk([](AssumeOp assume) { assume.erase(); });
    SmallVector<std::pair<func::FuncOp, KernelOp>> kernels;
    module.walk([&](KernelOp kernel) {
      kernels.push_back({kernel->getParentOfType<func::FuncOp>(), kernel});
    });
    if (kernels.empty())
      return;
    gpu::GPUModuleOp gpuModule = getKernelModule(module);
    for (auto [func, kernel] : kernels) {
      if (!func || kernel->getParentOp() != func) {
        kernel.emitError() << "a kernel must be at the top level of a "
                              "func.func";
        return signalPassFailure();
      }
    }
    // A function's blocks in order: they launch one after the other.
    DenseMap<Operation *, unsigned> blocks, outlined;
    for (auto [func, kernel] : kernels)
      ++blocks[func];
    for (auto [func, kernel] : kernels) {
      std::string symbol =
          getDeviceSymbol(func, outlined[func]++, blocks[func], gpuModule);
      if (failed(KernelOutliner(func, kernel, symbol, gpuModule).run()))
        return signalPassFailure();
    }
  }
};

} // namespace
