//===- TileEmitter.cpp - Emission of tile IR for .tile kernels ------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/TileEmitter.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Verifier.h"

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

TileEmitter::TileEmitter(TileSource &source, mlir::ModuleOp module)
    : source(source), module(module),
      outsideFunctions(std::make_unique<mlir::Block>()),
      builder(module.getContext()) {
  builder.setInsertionPointToEnd(outsideFunctions.get());
}

bool TileEmitter::verifyNewOp(mlir::Operation *op) {
  if (mlir::succeeded(mlir::verify(op, /*verifyRecursively=*/false)))
    return true;
  source.addErrors(1);
  op->erase();
  return false;
}

//===----------------------------------------------------------------------===//
// Kernel functions
//===----------------------------------------------------------------------===//

mlir::func::FuncOp
TileEmitter::emitKernelFunction(StringRef name,
                                llvm::ArrayRef<mlir::Type> argTypes,
                                llvm::ArrayRef<StringRef> names, SMLoc loc) {
  if (module.lookupSymbol(name)) {
    source.emitError(loc) << "a kernel named '" << name
                          << "' is already defined";
    return nullptr;
  }
  builder.setInsertionPointToEnd(module.getBody());
  auto func = mlir::func::FuncOp::create(builder, getLoc(loc), name,
                                         builder.getFunctionType(argTypes, {}));
  llvm::SmallVector<mlir::Attribute> argNames;
  for (StringRef argName : names)
    argNames.push_back(builder.getStringAttr(argName));
  func->setAttr("tile.arg_names", builder.getArrayAttr(argNames));
  builder.setInsertionPointToStart(func.addEntryBlock());
  return func;
}

void TileEmitter::setDynamicDims(mlir::func::FuncOp func, unsigned arg,
                                 llvm::ArrayRef<int64_t> dimArgs) {
  func.setArgAttr(arg, "tile.dims", builder.getDenseI64ArrayAttr(dimArgs));
}

mlir::Value TileEmitter::emitWorkspace(mlir::func::FuncOp func,
                                       llvm::ArrayRef<int64_t> shape,
                                       mlir::Type elementType,
                                       llvm::ArrayRef<int64_t> dimArgs,
                                       SMLoc loc) {
  unsigned index = func.getNumArguments();
  if (mlir::failed(func.insertArgument(
          index, mlir::MemRefType::get(shape, elementType),
          builder.getDictionaryAttr(builder.getNamedAttr(
              tile::kWorkspaceAttrName, builder.getUnitAttr())),
          getLoc(loc))))
    return nullptr;
  if (!dimArgs.empty())
    setDynamicDims(func, index, dimArgs);
  // Named after the variable that holds it, once assigned (nameBuffer).
  auto names = llvm::to_vector(
      func->getAttrOfType<mlir::ArrayAttr>("tile.arg_names").getValue());
  names.push_back(builder.getStringAttr("workspace" + llvm::Twine(index)));
  func->setAttr("tile.arg_names", builder.getArrayAttr(names));
  return func.getArgument(index);
}

void TileEmitter::emitReturn(SMLoc loc) {
  mlir::func::ReturnOp::create(builder, getLoc(loc));
}

//===----------------------------------------------------------------------===//
// The kernel body's structure
//===----------------------------------------------------------------------===//

mlir::Block *TileEmitter::emitKernel(mlir::ValueRange grid,
                                     llvm::ArrayRef<int64_t> threads,
                                     SMLoc loc) {
  auto kernel = tile::KernelOp::create(builder, getLoc(loc), grid, threads);
  return &kernel.getBody().front();
}

mlir::Block *TileEmitter::emitThreadRange(int64_t first, int64_t count,
                                          SMLoc loc) {
  auto op = tile::ThreadRangeOp::create(builder, getLoc(loc), first, count);
  return &op.getBody().front();
}

mlir::Block *TileEmitter::emitParallel(llvm::ArrayRef<int64_t> extents,
                                       SMLoc loc) {
  auto op = tile::ParallelOp::create(builder, getLoc(loc), extents);
  return &op.getBody().front();
}

bool TileEmitter::insideParallel() {
  mlir::Block *block = builder.getInsertionBlock();
  return block && block->getParentOp() &&
         (llvm::isa<tile::ParallelOp>(block->getParentOp()) ||
          block->getParentOp()->getParentOfType<tile::ParallelOp>());
}

bool TileEmitter::fuseNestedParallel(mlir::Block *body) {
  auto outer = llvm::cast<tile::ParallelOp>(body->getParentOp());
  tile::ParallelOp inner;
  bool sideEffects = false;
  for (mlir::Operation &op : body->without_terminator()) {
    auto nested = llvm::dyn_cast<tile::ParallelOp>(op);
    if (nested && !inner)
      inner = nested;
    else
      sideEffects |= !mlir::isPure(&op);
  }
  if (!inner)
    return true;
  if (sideEffects)
    return false;
  llvm::SmallVector<int64_t> extents(outer.getExtents());
  llvm::append_range(extents, inner.getExtents());
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(outer);
  auto fused = tile::ParallelOp::create(builder, outer.getLoc(), extents);
  mlir::Block *fusedBody = &fused.getBody().front();
  size_t outerRank = outer.getExtents().size();
  for (auto [i, arg] : llvm::enumerate(body->getArguments()))
    arg.replaceAllUsesWith(fusedBody->getArgument(i));
  mlir::Block *innerBody = &inner.getBody().front();
  for (auto [i, arg] : llvm::enumerate(innerBody->getArguments()))
    arg.replaceAllUsesWith(fusedBody->getArgument(outerRank + i));
  // The index arithmetic before the inner loop, then the inner body; what
  // follows the inner loop is pure and used by nothing.
  auto &ops = fusedBody->getOperations();
  ops.splice(fusedBody->getTerminator()->getIterator(), body->getOperations(),
             body->begin(), inner->getIterator());
  ops.splice(fusedBody->getTerminator()->getIterator(),
             innerBody->getOperations(), innerBody->begin(),
             innerBody->getTerminator()->getIterator());
  outer.erase();
  return true;
}

void TileEmitter::emitPermutedCopy(mlir::Value src, mlir::Value dst,
                                   llvm::ArrayRef<int64_t> permutation,
                                   SMLoc loc) {
  auto srcType = llvm::cast<mlir::MemRefType>(src.getType());
  mlir::Block *body = emitParallel(srcType.getShape(), loc);
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(body);
  llvm::SmallVector<mlir::Value> dstIndices;
  for (int64_t from : permutation)
    dstIndices.push_back(body->getArgument(from));
  mlir::Value element = mlir::memref::LoadOp::create(builder, getLoc(loc), src,
                                                     body->getArguments());
  mlir::memref::StoreOp::create(builder, getLoc(loc), element, dst, dstIndices);
}

mlir::Block *TileEmitter::emitPipelined(
    mlir::Value lowerBound, mlir::Value upperBound, int64_t numStages,
    const std::optional<std::vector<int64_t>> &order,
    const std::optional<std::vector<int64_t>> &stage, SMLoc loc) {
  auto op = tile::PipelinedOp::create(builder, getLoc(loc), lowerBound,
                                      upperBound, numStages);
  if (order)
    op.setOrder(*order);
  if (stage)
    op.setStage(*stage);
  return &op.getBody().front();
}

mlir::Block *TileEmitter::emitSerial(mlir::Value lowerBound,
                                     mlir::Value upperBound, mlir::Value step,
                                     SMLoc loc) {
  return &tile::SerialOp::create(builder, getLoc(loc), lowerBound, upperBound,
                                 step)
              .getBody()
              .front();
}

mlir::Block *TileEmitter::emitUnroll(mlir::Value lowerBound,
                                     mlir::Value upperBound, mlir::Value step,
                                     SMLoc loc) {
  return &tile::UnrollOp::create(builder, getLoc(loc), lowerBound, upperBound,
                                 step)
              .getBody()
              .front();
}

mlir::scf::IfOp TileEmitter::emitIf(mlir::Value condition, bool withElse,
                                    SMLoc loc) {
  return mlir::scf::IfOp::create(builder, getLoc(loc), condition,
                                 /*withElseRegion=*/withElse);
}

//===----------------------------------------------------------------------===//
// Buffers and tile primitives
//===----------------------------------------------------------------------===//

template <typename AllocOp>
static mlir::Operation *createAlloc(mlir::OpBuilder &builder,
                                    mlir::Location loc, mlir::MemRefType type) {
  return AllocOp::create(builder, loc, mlir::TypeRange{type},
                         mlir::ValueRange{},
                         llvm::ArrayRef<mlir::NamedAttribute>{});
}

mlir::Value TileEmitter::emitAlloc(tile::MemoryScope scope,
                                   llvm::ArrayRef<int64_t> shape,
                                   mlir::Type elementType, SMLoc at) {
  auto type = mlir::MemRefType::get(
      shape, elementType, mlir::MemRefLayoutAttrInterface(),
      tile::MemoryScopeAttr::get(getContext(), scope));
  mlir::Location loc = getLoc(at);
  mlir::Operation *op = nullptr;
  switch (scope) {
  case tile::MemoryScope::Shared:
    op = createAlloc<tile::AllocSharedOp>(builder, loc, type);
    break;
  case tile::MemoryScope::Fragment:
    op = createAlloc<tile::AllocFragmentOp>(builder, loc, type);
    break;
  case tile::MemoryScope::Local:
    op = createAlloc<tile::AllocLocalOp>(builder, loc, type);
    break;
  case tile::MemoryScope::Global:
    llvm_unreachable("global buffers are kernel parameters");
  }
  if (!verifyNewOp(op))
    return nullptr;
  return op->getResult(0);
}

mlir::Value TileEmitter::emitAllocVar(mlir::Type elementType, mlir::Value init,
                                      SMLoc loc) {
  auto type = mlir::MemRefType::get(
      {}, elementType, mlir::MemRefLayoutAttrInterface(),
      tile::MemoryScopeAttr::get(getContext(), tile::MemoryScope::Local));
  auto op = tile::AllocVarOp::create(builder, getLoc(loc), type, init);
  if (!verifyNewOp(op))
    return nullptr;
  return op.getResult();
}

void TileEmitter::nameBuffer(mlir::Value memref, StringRef name) {
  if (mlir::Operation *alloc = memref.getDefiningOp()) {
    alloc->setLoc(
        mlir::NameLoc::get(builder.getStringAttr(name), alloc->getLoc()));
    return;
  }
  // A workspace buffer: the function's argument takes the name.
  auto arg = llvm::dyn_cast<mlir::BlockArgument>(memref);
  auto func =
      arg ? llvm::dyn_cast<mlir::func::FuncOp>(arg.getOwner()->getParentOp())
          : nullptr;
  if (!func || !func.getArgAttr(arg.getArgNumber(), tile::kWorkspaceAttrName))
    return;
  auto names = llvm::to_vector(
      func->getAttrOfType<mlir::ArrayAttr>("tile.arg_names").getValue());
  names[arg.getArgNumber()] = builder.getStringAttr(name);
  func->setAttr("tile.arg_names", builder.getArrayAttr(names));
}

void TileEmitter::emitCopy(const CopyRegion &src, const CopyRegion &dst,
                           SMLoc loc, bool noTma) {
  auto op = tile::CopyOp::create(
      builder, getLoc(loc), src.memref, src.dynamicOffsets,
      builder.getDenseI64ArrayAttr(src.staticOffsets),
      builder.getDenseI64ArrayAttr(src.extents), dst.memref, dst.dynamicOffsets,
      builder.getDenseI64ArrayAttr(dst.staticOffsets),
      builder.getDenseI64ArrayAttr(dst.extents), /*async=*/mlir::UnitAttr(),
      /*bulk=*/mlir::UnitAttr(),
      /*barrier=*/mlir::Value(), /*barrier_index=*/mlir::Value(),
      /*no_tma=*/noTma ? builder.getUnitAttr() : mlir::UnitAttr());
  verifyNewOp(op);
}

void TileEmitter::emitWholeCopy(mlir::Value src, mlir::Value dst, SMLoc loc) {
  auto type = mlir::cast<mlir::MemRefType>(src.getType());
  llvm::SmallVector<int64_t> zeros(type.getRank(), 0);
  llvm::SmallVector<int64_t> extents(type.getShape());
  emitCopy({src, {}, zeros, extents}, {dst, {}, zeros, extents}, loc);
}

void TileEmitter::emitGemm(mlir::Value a, mlir::Value b, mlir::Value c,
                           bool transposeA, bool transposeB,
                           tile::GemmWarpPolicy policy, bool clearAccum,
                           SMLoc loc) {
  auto op = tile::GemmOp::create(builder, getLoc(loc), a, b, c, transposeA,
                                 transposeB, policy, clearAccum);
  verifyNewOp(op);
}

void TileEmitter::emitFill(mlir::Value buffer, mlir::Value value, SMLoc loc) {
  auto op = tile::FillOp::create(builder, getLoc(loc), buffer, value);
  verifyNewOp(op);
}

void TileEmitter::emitClear(mlir::Value buffer, SMLoc loc) {
  auto op = tile::ClearOp::create(builder, getLoc(loc), buffer);
  verifyNewOp(op);
}

void TileEmitter::emitReduce(tile::ReduceKind kind, mlir::Value src,
                             mlir::Value dst, int64_t dim, bool clear,
                             SMLoc loc) {
  auto op = tile::ReduceOp::create(builder, getLoc(loc), kind, src, dst,
                                   builder.getI64IntegerAttr(dim),
                                   builder.getBoolAttr(clear));
  verifyNewOp(op);
}

mlir::Value
TileEmitter::emitAtomic(mlir::arith::AtomicRMWKind kind, mlir::Value value,
                        mlir::Value dst, mlir::ValueRange indices,
                        std::optional<llvm::ArrayRef<int64_t>> extents,
                        bool returnPrevious, SMLoc loc) {
  mlir::Type previous;
  if (returnPrevious)
    previous = llvm::cast<mlir::MemRefType>(dst.getType()).getElementType();
  auto op = tile::AtomicOp::create(
      builder, getLoc(loc), previous, kind, value, dst, indices,
      extents ? builder.getDenseI64ArrayAttr(*extents)
              : mlir::DenseI64ArrayAttr());
  if (!verifyNewOp(op))
    return nullptr;
  return op.getPrevious();
}

void TileEmitter::emitAssume(mlir::Value condition, SMLoc loc) {
  auto op = tile::AssumeOp::create(builder, getLoc(loc), condition);
  verifyNewOp(op);
}

void TileEmitter::emitKeepRegisterBudget() {
  mlir::Operation *parent = builder.getInsertionBlock()->getParentOp();
  auto kernel = llvm::dyn_cast<tile::KernelOp>(parent);
  if (!kernel)
    kernel = parent->getParentOfType<tile::KernelOp>();
  kernel.setKeepRegisterBudget(true);
}

void TileEmitter::emitUseSwizzle(int64_t panelSize, tile::RasterOrder order,
                                 SMLoc loc) {
  auto op = tile::UseSwizzleOp::create(
      builder, getLoc(loc), builder.getI64IntegerAttr(panelSize), order);
  verifyNewOp(op);
}

void TileEmitter::emitAnnotateLayout(mlir::Value buffer, mlir::Attribute layout,
                                     SMLoc loc) {
  auto op =
      tile::AnnotateLayoutOp::create(builder, getLoc(loc), buffer, layout);
  verifyNewOp(op);
}
