//===- EvalStmt.cpp - Evaluation of .tile statements ----------------------===//
//
// Part of tilec. Statements run like Python's at compile time; a loop over
// T.Parallel, T.Pipelined, T.serial or T.unroll, an if on a run-time value
// and the T.Kernel block become regions of IR whose body is evaluated once.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Frontend/Evaluator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

Evaluator::Flow Evaluator::execBlock(const Block &block) {
  // The statements after one that may break or continue the kernel's
  // innermost loop run under an if on its skip flag.
  mlir::OpBuilder::InsertionGuard guard(builder);
  size_t depth = enclosingLoops.size();
  bool inKernelLoop = depth != 0 && !enclosingLoops.back().compileTime;
  // What the guarded statements bind or read is theirs, as in a run-time
  // if: it does not reach past the block.
  std::optional<unsigned> guardDepth;
  std::shared_ptr<Scope> blockScope = scope;
  auto closeGuards = llvm::make_scope_exit([&] {
    if (!guardDepth)
      return;
    regionDepth = *guardDepth;
    variableReads.clear();
    for (auto &[name, loc] : blockScope->popRegion(*guardDepth))
      expiredNames[name] = loc;
  });
  for (auto [i, stmt] : llvm::enumerate(block)) {
    if (source.tooManyErrors())
      return Flow::Normal;
    unsigned exits = inKernelLoop ? enclosingLoops[depth - 1].exits : 0;
    if (Flow flow = execStmt(*stmt); flow != Flow::Normal)
      return flow;
    if (!inKernelLoop || enclosingLoops[depth - 1].exits == exits ||
        i + 1 == block.size())
      continue;
    mlir::Location loc = getLoc(block[i + 1]->getLoc());
    mlir::Value skip = mlir::memref::LoadOp::create(
        builder, loc, enclosingLoops[depth - 1].skip);
    mlir::Value goOn = mlir::arith::XOrIOp::create(
        builder, loc, skip,
        mlir::arith::ConstantIntOp::create(builder, loc, 1, 1));
    mlir::scf::IfOp ifOp =
        emitter.emitIf(goOn, /*withElse=*/false, block[i + 1]->getLoc());
    builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
    if (!guardDepth)
      guardDepth = regionDepth;
    ++regionDepth;
    variableReads.clear();
  }
  return Flow::Normal;
}

void Evaluator::emitLoopExit(bool isBreak, SMLoc loc) {
  LoopContext &loop = enclosingLoops.back();
  StringRef what = isBreak ? "break" : "continue";
  if (loop.loop->getParentOfType<tile::ParallelOp>()) {
    error(loc, "'" + what +
                   "' in a loop inside T.Parallel is not supported: each "
                   "element would leave its loop on its own; guard the "
                   "rest of the body with if");
    return;
  }
  if (llvm::isa<tile::ParallelOp, tile::PipelinedOp>(loop.loop)) {
    error(loc, "'" + what + "' in a " +
                   (llvm::isa<tile::ParallelOp>(loop.loop) ? "T.Parallel"
                                                           : "T.Pipelined") +
                   " loop is not supported: its iterations run side by "
                   "side; guard the rest of the body with if");
    return;
  }
  mlir::Location at = getLoc(loc);
  auto flag = [&](bool value) {
    return mlir::arith::ConstantIntOp::create(builder, at, value, 1);
  };
  auto makeFlag = [&]() {
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(loop.loop);
    return emitter.emitAllocVar(builder.getI1Type(), flag(false), loc);
  };
  if (!loop.skip)
    loop.skip = makeFlag();
  if (isBreak && !loop.left)
    loop.left = makeFlag();
  if (!loop.skip || (isBreak && !loop.left))
    return;
  mlir::memref::StoreOp::create(builder, at, flag(true), loop.skip);
  if (isBreak)
    mlir::memref::StoreOp::create(builder, at, flag(true), loop.left);
  ++loop.exits;
}

void Evaluator::finishLoopExits(const LoopContext &loop) {
  if (!loop.skip)
    return;
  mlir::Location at = loop.loop->getLoc();
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(loop.body);
  mlir::Value skip =
      loop.left
          ? mlir::memref::LoadOp::create(builder, at, loop.left).getResult()
          : mlir::arith::ConstantIntOp::create(builder, at, 0, 1).getResult();
  mlir::memref::StoreOp::create(builder, at, skip, loop.skip);
  if (!loop.left)
    return;
  auto whileOp = llvm::dyn_cast<mlir::scf::WhileOp>(loop.loop);
  if (!whileOp) {
    // The iterations after a break run nothing: the rest of the body goes
    // under an if on the flag.
    llvm::SmallVector<mlir::Operation *> rest;
    for (mlir::Operation &op :
         llvm::make_range(builder.getInsertionPoint(),
                          loop.body->without_terminator().end()))
      rest.push_back(&op);
    mlir::Value stay = mlir::arith::XOrIOp::create(
        builder, at, skip,
        mlir::arith::ConstantIntOp::create(builder, at, 1, 1));
    auto ifOp = mlir::scf::IfOp::create(builder, at, mlir::TypeRange{}, stay,
                                        /*withElseRegion=*/false);
    for (mlir::Operation *op : rest)
      op->moveBefore(ifOp.thenBlock()->getTerminator());
    return;
  }
  mlir::scf::ConditionOp condition = whileOp.getConditionOp();
  builder.setInsertionPoint(condition);
  mlir::Value left = mlir::memref::LoadOp::create(builder, at, loop.left);
  mlir::Value stay = mlir::arith::XOrIOp::create(
      builder, at, left, mlir::arith::ConstantIntOp::create(builder, at, 1, 1));
  condition.getConditionMutable().assign(
      mlir::arith::AndIOp::create(builder, at, condition.getCondition(), stay));
}

Evaluator::Flow Evaluator::execStmt(const Stmt &stmt) {
  switch (stmt.getKind()) {
  case Stmt::Kind::Expr: {
    const auto &exprStmt = llvm::cast<ExprStmt>(stmt);
    // Docstrings and other bare constants do nothing.
    if (llvm::isa<StringExpr, IntExpr, FloatExpr, EllipsisExpr, NoneExpr>(
            exprStmt.value.get()))
      return Flow::Normal;
    Ref value = eval(*exprStmt.value);
    // A call into the host program inside a kernel would otherwise vanish
    // without a trace.
    if (auto *host = llvm::dyn_cast<HostObject>(value.get());
        host && inKernel())
      hostValueError(*host, exprStmt.value->getLoc());
    return Flow::Normal;
  }
  case Stmt::Kind::Assign:
    execAssign(llvm::cast<AssignStmt>(stmt));
    return Flow::Normal;
  case Stmt::Kind::AugAssign:
    execAugAssign(llvm::cast<AugAssignStmt>(stmt));
    return Flow::Normal;
  case Stmt::Kind::AnnAssign:
    execAnnAssign(llvm::cast<AnnAssignStmt>(stmt));
    return Flow::Normal;
  case Stmt::Kind::If:
    return execIf(llvm::cast<IfStmt>(stmt));
  case Stmt::Kind::For:
    return execFor(llvm::cast<ForStmt>(stmt));
  case Stmt::Kind::With:
    return execWith(llvm::cast<WithStmt>(stmt));
  case Stmt::Kind::FunctionDef:
    execFunctionDef(llvm::cast<FunctionDefStmt>(stmt));
    return Flow::Normal;
  case Stmt::Kind::Return: {
    const auto &ret = llvm::cast<ReturnStmt>(stmt);
    if (callDepth == 0 && !currentFunction) {
      error(stmt.getLoc(), "'return' outside a function");
      return Flow::Normal;
    }
    if (regionDepth != 0 && !currentFunction) {
      error(stmt.getLoc(), "'return' inside a run-time loop or if is not "
                           "supported");
      return Flow::Normal;
    }
    returnValue =
        ret.value ? load(eval(*ret.value), ret.value->getLoc()) : none();
    return Flow::Return;
  }
  case Stmt::Kind::Pass:
    return Flow::Normal;
  case Stmt::Kind::NameDecl:
    execNameDecl(llvm::cast<NameDeclStmt>(stmt));
    return Flow::Normal;
  case Stmt::Kind::While:
    return execWhile(llvm::cast<WhileStmt>(stmt));
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue: {
    bool isBreak = stmt.getKind() == Stmt::Kind::Break;
    StringRef what = isBreak ? "break" : "continue";
    if (enclosingLoops.empty()) {
      error(stmt.getLoc(), "'" + what + "' outside a loop");
      return Flow::Normal;
    }
    if (!enclosingLoops.back().compileTime) {
      emitLoopExit(isBreak, stmt.getLoc());
      return Flow::Normal;
    }
    return isBreak ? Flow::Break : Flow::Continue;
  }
  case Stmt::Kind::Assert:
    execAssert(llvm::cast<AssertStmt>(stmt));
    return Flow::Normal;
  case Stmt::Kind::Import:
    execImport(llvm::cast<ImportStmt>(stmt));
    return Flow::Normal;
  case Stmt::Kind::Class: {
    const auto &classStmt = llvm::cast<ClassStmt>(stmt);
    assignName(classStmt.name, std::make_shared<HostObject>(classStmt.name),
               classStmt.nameLoc);
    return Flow::Normal;
  }
  case Stmt::Kind::Try: {
    // An exception is a compile-time error, which ends compilation: the
    // handlers never run.
    const auto &tryStmt = llvm::cast<TryStmt>(stmt);
    Flow flow = execBlock(tryStmt.body);
    if (flow == Flow::Normal)
      flow = execBlock(tryStmt.orelse);
    Flow finallyFlow = execBlock(tryStmt.finally);
    return finallyFlow != Flow::Normal ? finallyFlow : flow;
  }
  case Stmt::Kind::Raise:
    execRaise(llvm::cast<RaiseStmt>(stmt));
    return Flow::Normal;
  }
  return Flow::Normal;
}

void Evaluator::execAssign(const AssignStmt &stmt) {
  Ref value;
  // A -D value replaces a module-level constant of the same name.
  if (scope == moduleScope && stmt.targets.size() == 1)
    if (auto *name = llvm::dyn_cast<NameExpr>(stmt.targets.front().get()))
      value = takeDefine(name->name);
  if (!value)
    value = load(eval(*stmt.value), stmt.value->getLoc());
  for (const ExprPtr &target : stmt.targets)
    assign(*target, value, target->getLoc());
  // So does it a name bound by unpacking, as `M, K = A.shape` binds the
  // sizes of a host tensor.
  if (scope != moduleScope)
    return;
  llvm::SmallVector<std::pair<StringRef, SMLoc>> names;
  for (const ExprPtr &target : stmt.targets)
    if (!llvm::isa<NameExpr>(*target))
      collectTargetNames(*target, names);
  for (auto [name, loc] : names)
    if (Ref defined = takeDefine(name))
      assignName(name.str(), defined, loc);
}

void Evaluator::execAugAssign(const AugAssignStmt &stmt) {
  Ref rhs = eval(*stmt.value);
  if (auto *name = llvm::dyn_cast<NameExpr>(stmt.target.get())) {
    Ref current = evalName(*name);
    if (isPoison(current) || isPoison(rhs))
      return;
    assignName(name->name, binary(stmt.op, current, rhs, stmt.opLoc),
               stmt.getLoc());
    return;
  }
  if (auto *subscript = llvm::dyn_cast<SubscriptExpr>(stmt.target.get())) {
    Ref base = evalSubscriptBase(*subscript);
    if ((base && isPoison(base)) || isPoison(rhs))
      return;
    if (base && isChangeable(*base)) {
      // `counts[k] += 1`: read the item, then assign it.
      Ref current = evalSubscript(*subscript, base);
      if (isPoison(current))
        return;
      Ref updated = binary(stmt.op, current, rhs, stmt.opLoc);
      if (!isPoison(updated))
        assignItem(*subscript, base, updated, stmt.getLoc());
      return;
    }
    Ref access = evalSubscript(*subscript, base);
    if (isPoison(access))
      return;
    auto *element = llvm::dyn_cast<AccessObject>(access.get());
    if (!element || !element->isElement()) {
      error(stmt.target->getLoc(),
            "augmented assignment needs a single buffer element");
      return;
    }
    Ref current = load(access, stmt.target->getLoc());
    Ref updated = binary(stmt.op, current, rhs, stmt.opLoc);
    if (!isPoison(updated))
      store(*element, updated, stmt.getLoc());
    return;
  }
  error(stmt.target->getLoc(), "cannot assign to this expression in .tile");
}

void Evaluator::execAnnAssign(const AnnAssignStmt &stmt) {
  auto *name = llvm::dyn_cast<NameExpr>(stmt.target.get());
  if (!name) {
    error(stmt.target->getLoc(), "only names can be annotated in .tile");
    return;
  }
  Ref annotation = eval(*stmt.annotation);
  if (isPoison(annotation))
    return;

  // `A: T.Tensor(shape, dtype)` types a parameter of an eager kernel.
  if (Scope::Binding *binding = scope->lookupLocal(name->name);
      binding && llvm::isa<PendingTensorObject>(*binding->value)) {
    auto spec = std::dynamic_pointer_cast<const TensorSpecObject>(annotation);
    if (!spec) {
      error(stmt.annotation->getLoc(),
            "a tensor parameter is annotated with T.Tensor(shape, dtype), "
            "not a " +
                getTypeName(*annotation));
      return;
    }
    if (stmt.value) {
      error(stmt.value->getLoc(), "a tensor parameter annotation takes no "
                                  "value");
      return;
    }
    if (!currentFunction || currentFunction->built) {
      error(stmt.getLoc(), "tensor parameters must be annotated before the "
                           "T.Kernel block");
      return;
    }
    currentFunction->annotations[name->name] = spec;
    return;
  }

  // `x: int` declares, as in Python: it binds nothing.
  if (!stmt.value)
    return;
  Ref value = load(eval(*stmt.value), stmt.value->getLoc());
  if (isPoison(value))
    return;
  // `x: T.int32 = e` converts the value; other annotations are comments.
  if (auto *dtype = llvm::dyn_cast<DTypeObject>(annotation.get()))
    value = cast(value, dtype->dtype, stmt.value->getLoc());
  assignName(name->name, value, stmt.getLoc());
}

Evaluator::Flow Evaluator::execIf(const IfStmt &stmt) {
  Ref cond = load(eval(*stmt.cond), stmt.cond->getLoc());
  if (isPoison(cond))
    return Flow::Normal;
  std::optional<bool> known = truth(cond, stmt.cond->getLoc());
  if (known)
    return execBlock(*known ? stmt.then : stmt.otherwise);
  if (auto *host = llvm::dyn_cast<HostObject>(cond.get())) {
    // At module level the host program decides, as with `if
    // torch.version.hip:` choosing an import: what either branch binds is
    // the host program's.
    if (scope == moduleScope && !inFunction()) {
      llvm::SmallVector<std::pair<StringRef, SMLoc>> names;
      collectBoundNames(stmt.then, names);
      collectBoundNames(stmt.otherwise, names);
      for (auto [name, loc] : names)
        assignName(name.str(), std::make_shared<HostObject>(name.str()), loc);
      return Flow::Normal;
    }
    hostValueError(*host, stmt.cond->getLoc());
    return Flow::Normal;
  }
  if (!llvm::isa<ScalarObject>(*cond)) {
    error(stmt.cond->getLoc(),
          "cannot use a " + getTypeName(*cond) + " as a condition");
    return Flow::Normal;
  }
  if (!requireKernel(stmt.getLoc(), "a run-time if"))
    return Flow::Normal;

  mlir::Value condition = materializeCondition(cond, stmt.cond->getLoc());
  mlir::scf::IfOp ifOp =
      emitter.emitIf(condition, !stmt.otherwise.empty(), stmt.getLoc());
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(&ifOp.getThenRegion().front());
  auto check = [&](Flow flow) {
    if (flow == Flow::Return)
      error(stmt.getLoc(), "'return' inside a run-time if is not supported");
    else if (flow != Flow::Normal)
      error(stmt.getLoc(), "'break' and 'continue' under a run-time "
                           "condition are not supported in .tile");
  };
  check(execRegion(stmt.then));
  if (!stmt.otherwise.empty()) {
    builder.setInsertionPointToStart(&ifOp.getElseRegion().front());
    check(execRegion(stmt.otherwise));
  }
  return Flow::Normal;
}

Evaluator::Flow Evaluator::execRegion(const Block &block,
                                      llvm::function_ref<void()> bind) {
  unsigned outerDepth = regionDepth++;
  variableReads.clear();
  std::shared_ptr<Scope> regionScope = scope;
  if (bind)
    bind();
  Flow flow = execBlock(block);
  --regionDepth;
  variableReads.clear();
  for (auto &[name, loc] : regionScope->popRegion(outerDepth))
    expiredNames[name] = loc;
  return flow;
}

/// The names a for loop binds: `i` or `i, j`.
static std::vector<const NameExpr *> loopTargets(const Expr &target) {
  std::vector<const NameExpr *> names;
  if (auto *name = llvm::dyn_cast<NameExpr>(&target)) {
    names.push_back(name);
  } else if (auto *tuple = llvm::dyn_cast<TupleExpr>(&target)) {
    for (const ExprPtr &element : tuple->elements)
      if (auto *name = llvm::dyn_cast<NameExpr>(element.get()))
        names.push_back(name);
  }
  return names;
}

Evaluator::Flow Evaluator::execFor(const ForStmt &stmt) {
  Ref iter = eval(*stmt.iter);
  if (isPoison(iter))
    return Flow::Normal;
  auto *iterable = llvm::dyn_cast<IterableObject>(iter.get());
  if (iterable && !iterable->compileTimeRange)
    return execRuntimeLoop(stmt, *iterable);
  if (!iterable && !llvm::isa<TupleObject, DictObject>(iter.get())) {
    error(stmt.iter->getLoc(),
          "cannot loop over a " + getTypeName(*iter) +
              "; kernel loops iterate over T.Parallel, T.Pipelined, T.serial, "
              "T.unroll or range");
    return Flow::Normal;
  }
  if (std::optional<std::vector<Ref>> items =
          iterate(*this, iter, stmt.iter->getLoc()))
    return execCompileTimeLoop(stmt, std::move(*items));
  return Flow::Normal;
}

Evaluator::Flow Evaluator::execCompileTimeLoop(const ForStmt &stmt,
                                               std::vector<Ref> items) {
  enclosingLoops.emplace_back();
  Flow result = Flow::Normal;
  for (const Ref &item : items) {
    if (++compileTimeSteps > kMaxCompileTimeSteps) {
      error(stmt.getLoc(), "compile-time evaluation takes too many steps");
      break;
    }
    assign(*stmt.target, item, stmt.target->getLoc());
    Flow flow = execBlock(stmt.body);
    if (flow == Flow::Return)
      result = Flow::Return;
    if (flow == Flow::Return || flow == Flow::Break || source.tooManyErrors())
      break;
  }
  enclosingLoops.pop_back();
  return result;
}

bool Evaluator::emitRuntimeWhile(const WhileStmt &stmt) {
  // The condition is evaluated in the loop's `before` region, where a
  // run-time one is recomputed on every iteration; one known at compile time
  // leaves the loop to the compile-time interpreter.
  mlir::Location loc = getLoc(stmt.getLoc());
  auto whileOp = mlir::scf::WhileOp::create(builder, loc, mlir::TypeRange{},
                                            mlir::ValueRange{});
  mlir::OpBuilder::InsertionGuard guard(builder);
  mlir::Block *before = builder.createBlock(&whileOp.getBefore());
  mlir::Block *after = builder.createBlock(&whileOp.getAfter());
  builder.setInsertionPointToStart(before);
  variableReads.clear();
  Ref cond = load(eval(*stmt.cond), stmt.cond->getLoc());
  variableReads.clear();
  if (isPoison(cond)) {
    whileOp.erase();
    return true;
  }
  if (!llvm::isa<ScalarObject>(*cond) ||
      truth(cond, stmt.cond->getLoc()).has_value()) {
    whileOp.erase();
    return false;
  }
  if (emitter.insideParallel()) {
    whileOp.erase();
    error(stmt.cond->getLoc(),
          "a while loop on a run-time condition inside T.Parallel is not "
          "supported: each element would loop on its own; loop with T.serial "
          "and guard the body with if, or loop around the T.Parallel");
    return true;
  }
  mlir::Value condition = materializeCondition(cond, stmt.cond->getLoc());
  mlir::scf::ConditionOp::create(builder, loc, condition, mlir::ValueRange{});
  builder.setInsertionPointToStart(after);
  enclosingLoops.push_back({/*compileTime=*/false, whileOp, after});
  Flow flow = execRegion(stmt.body);
  finishLoopExits(enclosingLoops.back());
  enclosingLoops.pop_back();
  mlir::scf::YieldOp::create(builder, loc);
  if (flow == Flow::Return)
    error(stmt.getLoc(), "'return' inside a run-time while is not supported");
  return true;
}

Evaluator::Flow Evaluator::execWhile(const WhileStmt &stmt) {
  // In a kernel, a condition computed while the kernel runs makes a loop of
  // the kernel's.
  if (inKernel() && emitRuntimeWhile(stmt))
    return Flow::Normal;
  enclosingLoops.emplace_back();
  Flow result = Flow::Normal;
  while (!source.tooManyErrors()) {
    if (++compileTimeSteps > kMaxCompileTimeSteps) {
      error(stmt.getLoc(), "compile-time evaluation takes too many steps");
      break;
    }
    Ref cond = load(eval(*stmt.cond), stmt.cond->getLoc());
    if (isPoison(cond))
      break;
    std::optional<bool> known = truth(cond, stmt.cond->getLoc());
    if (!known) {
      error(stmt.cond->getLoc(),
            "a while loop runs at compile time: its condition must be "
            "known then; in kernels, loop with T.serial and guard the body "
            "with if");
      break;
    }
    if (!*known)
      break;
    Flow flow = execBlock(stmt.body);
    if (flow == Flow::Return)
      result = Flow::Return;
    if (flow == Flow::Return || flow == Flow::Break)
      break;
  }
  enclosingLoops.pop_back();
  return result;
}

mlir::Block *
Evaluator::emitPersistent(const IterableObject &iter, SMLoc loc,
                          llvm::SmallVectorImpl<mlir::Value> &coordinates) {
  // As TileLang's T.Persistent: the tiles are numbered over the grid with
  // its last dimension cut into groups of `group` (rasterized so that a
  // wave's blocks share operand tiles), and block `index` of each wave of
  // `wave` blocks takes tile `w * wave + index` at wave w.
  mlir::Location at = getLoc(loc);
  auto index = [&](const Ref &value) { return materializeIndex(value, loc); };
  auto constant = [&](int64_t v) {
    return mlir::arith::ConstantIndexOp::create(builder, at, v);
  };
  auto mul = [&](mlir::Value a, mlir::Value b) {
    return builder.createOrFold<mlir::arith::MulIOp>(at, a, b);
  };
  auto ceilDiv = [&](mlir::Value a, mlir::Value b) {
    return builder.createOrFold<mlir::arith::CeilDivSIOp>(at, a, b);
  };
  size_t rank = iter.domain.size();
  mlir::Value last = index(iter.domain.back());
  mlir::Value group = builder.createOrFold<mlir::arith::MaxSIOp>(
      at, constant(1),
      builder.createOrFold<mlir::arith::MinSIOp>(at, index(iter.groupSize),
                                                 last));
  llvm::SmallVector<mlir::Value> grouped{ceilDiv(last, group)};
  for (size_t i = 0; i + 1 < rank; ++i)
    grouped.push_back(index(iter.domain[i]));
  grouped.push_back(group);
  mlir::Value padded = grouped.front();
  for (mlir::Value extent : llvm::drop_begin(grouped))
    padded = mul(padded, extent);
  mlir::Value wave = index(iter.waveSize);
  mlir::Value waveIndex = index(iter.waveIndex);
  mlir::Block *loop =
      emitter.emitSerial(constant(0), ceilDiv(padded, wave), constant(1), loc);

  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(loop);
  mlir::Value rem = builder.createOrFold<mlir::arith::AddIOp>(
      at, mul(loop->getArgument(0), wave), waveIndex);
  llvm::SmallVector<mlir::Value> digits(grouped.size());
  for (size_t i = grouped.size() - 1; i >= 1; --i) {
    digits[i] = builder.createOrFold<mlir::arith::RemUIOp>(at, rem, grouped[i]);
    rem = builder.createOrFold<mlir::arith::DivUIOp>(at, rem, grouped[i]);
  }
  digits[0] = rem;
  mlir::Value lastCoordinate = builder.createOrFold<mlir::arith::AddIOp>(
      at, mul(digits[0], group), digits.back());
  // Tiles past the grid (the last wave's, and the groups' padding) skip
  // the body.
  mlir::Value inGrid = mlir::arith::CmpIOp::create(
      builder, at, mlir::arith::CmpIPredicate::slt, lastCoordinate, last);
  mlir::scf::IfOp tile = emitter.emitIf(inGrid, /*withElse=*/false, loc);
  for (size_t i = 0; i + 1 < rank; ++i)
    coordinates.push_back(digits[i + 1]);
  coordinates.push_back(lastCoordinate);
  return &tile.getThenRegion().front();
}

Evaluator::Flow Evaluator::execRuntimeLoop(const ForStmt &stmt,
                                           const IterableObject &iter) {
  static constexpr StringRef kLoopNames[] = {
      "T.Parallel", "T.Pipelined", "T.serial", "T.unroll", "T.Persistent"};
  StringRef what = kLoopNames[static_cast<int>(iter.loopKind)];
  if (!requireKernel(stmt.getLoc(), (what + " loops").str()))
    return Flow::Normal;
  std::vector<const NameExpr *> names = loopTargets(*stmt.target);
  size_t expected = iter.loopKind == IterableObject::LoopKind::Parallel
                        ? iter.extents.size()
                    : iter.loopKind == IterableObject::LoopKind::Persistent
                        ? iter.domain.size()
                        : 1;
  bool isTuple = llvm::isa<TupleExpr>(*stmt.target);
  if (names.size() != expected ||
      (isTuple &&
       llvm::cast<TupleExpr>(*stmt.target).elements.size() != names.size())) {
    error(stmt.target->getLoc(),
          what + " has " + llvm::Twine(expected) + " dimension" +
              (expected == 1 ? "" : "s") + " but the loop binds " +
              llvm::Twine(
                  isTuple ? llvm::cast<TupleExpr>(*stmt.target).elements.size()
                          : 1) +
              " name" + (names.size() == 1 && !isTuple ? "" : "s"));
    return Flow::Normal;
  }

  SMLoc loc = stmt.getLoc();
  DType indexType = getIndexDType(getContext());
  mlir::Block *body = nullptr;
  // What the loop's names are bound to: the body's arguments, or the
  // coordinates a persistent loop computes.
  llvm::SmallVector<mlir::Value> bound;
  switch (iter.loopKind) {
  case IterableObject::LoopKind::Persistent:
    body = emitPersistent(iter, stmt.iter->getLoc(), bound);
    break;
  case IterableObject::LoopKind::Parallel:
    body = emitter.emitParallel(iter.extents, loc);
    break;
  case IterableObject::LoopKind::Pipelined: {
    mlir::Value lb = materializeIndex(iter.start, stmt.iter->getLoc());
    mlir::Value ub = materializeIndex(iter.stop, stmt.iter->getLoc());
    body = emitter.emitPipelined(lb, ub, iter.numStages, iter.order, iter.stage,
                                 loc);
    break;
  }
  case IterableObject::LoopKind::Serial:
  case IterableObject::LoopKind::Unroll: {
    mlir::Value lb = materializeIndex(iter.start, stmt.iter->getLoc());
    mlir::Value ub = materializeIndex(iter.stop, stmt.iter->getLoc());
    mlir::Value step = materializeIndex(iter.step, stmt.iter->getLoc());
    if (iter.loopKind == IterableObject::LoopKind::Serial)
      body = emitter.emitSerial(lb, ub, step, loc);
    else
      body = emitter.emitUnroll(lb, ub, step, loc);
    break;
  }
  }

  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(body);
  // A persistent loop's body is under the if of its tiles in the grid.
  mlir::Operation *loopOp = body->getParentOp();
  if (iter.loopKind == IterableObject::LoopKind::Persistent)
    loopOp = loopOp->getParentOp();
  enclosingLoops.push_back(
      {/*compileTime=*/false, loopOp, &loopOp->getRegion(0).front()});
  if (bound.empty())
    bound.assign(body->args_begin(), body->args_end());
  Flow flow = execRegion(stmt.body, [&] {
    for (auto [name, arg] : llvm::zip(names, bound)) {
      LinearForm linear;
      linear.terms.push_back({arg, 1});
      scope->set(name->name,
                 std::make_shared<ScalarObject>(arg, indexType, linear),
                 regionDepth, name->getLoc());
    }
  });
  finishLoopExits(enclosingLoops.back());
  enclosingLoops.pop_back();
  if (flow == Flow::Return)
    error(stmt.getLoc(), "'return' inside a kernel loop is not supported");
  if (iter.loopKind == IterableObject::LoopKind::Parallel &&
      !emitter.fuseNestedParallel(body))
    error(stmt.getLoc(),
          "a T.Parallel loop nested in another runs with it as one loop "
          "nest, so the outer loop's body may hold only index arithmetic "
          "beside it");
  return Flow::Normal;
}

Evaluator::Flow Evaluator::execWith(const WithStmt &stmt) {
  if (stmt.items.size() != 1) {
    error(stmt.getLoc(), "a with statement in .tile opens one T.Kernel");
    return Flow::Normal;
  }
  const WithItem &item = stmt.items.front();
  // An eager kernel's signature is complete at its T.Kernel block: build
  // the function first, so that the grid can use T.dynamic extents.
  if (currentFunction && !currentFunction->built && !inKernel() &&
      !ensureFunction(item.context->getLoc()))
    return Flow::Normal;
  Ref context = eval(*item.context);
  if (isPoison(context))
    return Flow::Normal;
  if (auto *range = llvm::dyn_cast<ThreadRangeObject>(context.get()))
    return execThreadRange(stmt, *range);
  auto *launch = llvm::dyn_cast<KernelLaunchObject>(context.get());
  if (!launch) {
    error(item.context->getLoc(), "only T.Kernel(...) can open a with block "
                                  "in .tile");
    return Flow::Normal;
  }
  if (inKernel()) {
    error(item.context->getLoc(), "T.Kernel blocks cannot be nested");
    return Flow::Normal;
  }
  if (!inFunction()) {
    error(item.context->getLoc(),
          "T.Kernel must be inside a @T.prim_func or @tilelang.jit function");
    return Flow::Normal;
  }
  // A function may hold several T.Kernel blocks: they launch in order.
  if (!ensureFunction(item.context->getLoc()))
    return Flow::Normal;

  // The block indices: `as bx` for a 1-D grid, `as (bx, by)` otherwise.
  std::vector<const NameExpr *> names;
  if (item.target) {
    if (auto *name = llvm::dyn_cast<NameExpr>(item.target.get())) {
      names.push_back(name);
    } else if (auto *targets = llvm::dyn_cast<TupleExpr>(item.target.get())) {
      for (const ExprPtr &element : targets->elements) {
        auto *name = llvm::dyn_cast<NameExpr>(element.get());
        if (!name) {
          error(element->getLoc(), "block indices are bound to names");
          return Flow::Normal;
        }
        names.push_back(name);
      }
      if (names.size() != launch->grid.size()) {
        error(item.target->getLoc(),
              "T.Kernel has " + llvm::Twine(launch->grid.size()) +
                  " grid dimension" + (launch->grid.size() == 1 ? "" : "s") +
                  " but binds " + llvm::Twine(names.size()) +
                  " block "
                  "index name" +
                  (names.size() == 1 ? "" : "s"));
        return Flow::Normal;
      }
    } else {
      error(item.target->getLoc(), "block indices are bound to names");
      return Flow::Normal;
    }
  }

  llvm::SmallVector<mlir::Value> grid;
  for (const Ref &extent : launch->grid)
    grid.push_back(materializeIndex(extent, launch->loc));
  mlir::Block *body = emitter.emitKernel(grid, launch->threads, stmt.getLoc());
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(body);
  ++kernelDepth;
  llvm::SaveAndRestore<mlir::Block *> savedBody(kernelBody, body);
  auto blockIndex = [&](unsigned i) {
    return this->blockIndex(i, item.context->getLoc());
  };
  // The kernel's body is no loop's.
  std::vector<LoopContext> outerLoops;
  std::swap(outerLoops, enclosingLoops);
  Flow flow = execRegion(stmt.body, [&] {
    if (names.size() == 1 && launch->grid.size() > 1 &&
        llvm::isa<NameExpr>(item.target.get())) {
      std::vector<Ref> indices;
      for (unsigned i = 0; i < launch->grid.size(); ++i)
        indices.push_back(blockIndex(i));
      scope->set(names.front()->name, tuple(std::move(indices)), regionDepth,
                 names.front()->getLoc());
      return;
    }
    for (auto [i, name] : llvm::enumerate(names))
      scope->set(name->name, blockIndex(i), regionDepth, name->getLoc());
  });
  --kernelDepth;
  std::swap(outerLoops, enclosingLoops);
  if (flow == Flow::Return)
    error(stmt.getLoc(), "'return' inside T.Kernel is not supported");
  return Flow::Normal;
}

Evaluator::Flow Evaluator::execThreadRange(const WithStmt &stmt,
                                           const ThreadRangeObject &range) {
  const WithItem &item = stmt.items.front();
  if (item.target) {
    error(item.target->getLoc(), "T.ws binds no name");
    return Flow::Normal;
  }
  if (emitter.insideParallel()) {
    error(item.context->getLoc(), "T.ws inside T.Parallel is not supported: "
                                  "it chooses threads, not elements");
    return Flow::Normal;
  }
  mlir::Block *body =
      emitter.emitThreadRange(range.first, range.count, stmt.getLoc());
  mlir::OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(body);
  // The range's threads leave no loop outside it together.
  std::vector<LoopContext> outerLoops;
  std::swap(outerLoops, enclosingLoops);
  Flow flow = execRegion(stmt.body, [] {});
  std::swap(outerLoops, enclosingLoops);
  if (flow == Flow::Return)
    error(stmt.getLoc(), "'return' inside T.ws is not supported");
  return Flow::Normal;
}

Ref Evaluator::blockIndex(unsigned dim, SMLoc loc) {
  if (!kernelBody)
    return error(loc, "block indices exist only inside a T.Kernel block");
  if (dim >= kernelBody->getNumArguments())
    return error(loc, "the grid of this T.Kernel has " +
                          llvm::Twine(kernelBody->getNumArguments()) +
                          " dimension" +
                          (kernelBody->getNumArguments() == 1 ? "" : "s") +
                          ", not " + llvm::Twine(dim + 1));
  mlir::Value arg = kernelBody->getArgument(dim);
  LinearForm linear;
  linear.terms.push_back({arg, 1});
  return std::make_shared<ScalarObject>(arg, getIndexDType(getContext()),
                                        linear);
}

unsigned Evaluator::kernelGridRank() const {
  return kernelBody ? kernelBody->getNumArguments() : 0;
}

llvm::ArrayRef<int64_t> Evaluator::kernelThreads() const {
  if (!kernelBody)
    return {};
  return llvm::cast<tilec::tile::KernelOp>(kernelBody->getParentOp())
      .getThreads();
}

Ref Evaluator::threadIndex(unsigned dim, SMLoc loc) {
  if (!kernelBody)
    return error(loc, "thread indices exist only inside a T.Kernel block");
  llvm::ArrayRef<int64_t> threads = kernelThreads();
  if (dim >= threads.size())
    return error(loc, "the threads of this T.Kernel have " +
                          llvm::Twine(threads.size()) + " dimension" +
                          (threads.size() == 1 ? "" : "s") + ", not " +
                          llvm::Twine(dim + 1));
  // At the top of the kernel, so that the index dominates every use
  // whatever region asked for it, after those asked for before.
  mlir::OpBuilder::InsertionGuard guard(builder);
  auto firstOther = llvm::find_if(*kernelBody, [](mlir::Operation &op) {
    return !llvm::isa<mlir::gpu::ThreadIdOp>(op);
  });
  builder.setInsertionPoint(kernelBody, firstOther);
  const mlir::gpu::Dimension dims[] = {mlir::gpu::Dimension::x,
                                       mlir::gpu::Dimension::y,
                                       mlir::gpu::Dimension::z};
  mlir::Value id = mlir::gpu::ThreadIdOp::create(
      builder, getLoc(loc), dims[dim], builder.getIndexAttr(threads[dim]));
  LinearForm linear;
  linear.terms.push_back({id, 1});
  return std::make_shared<ScalarObject>(id, getIndexDType(getContext()),
                                        linear);
}

Ref Evaluator::linearThreadIndex(SMLoc loc) {
  Ref x = threadIndex(0, loc);
  if (isPoison(x))
    return x;
  llvm::ArrayRef<int64_t> threads = kernelThreads();
  mlir::Value linear = llvm::cast<ScalarObject>(*x).value;
  mlir::Location location = getLoc(loc);
  int64_t stride = threads[0];
  for (unsigned dim = 1; dim < threads.size(); ++dim) {
    mlir::Value id = llvm::cast<ScalarObject>(*threadIndex(dim, loc)).value;
    linear = mlir::arith::AddIOp::create(
        builder, location, linear,
        mlir::arith::MulIOp::create(
            builder, location, id,
            mlir::arith::ConstantIndexOp::create(builder, location, stride)));
    stride *= threads[dim];
  }
  return std::make_shared<ScalarObject>(linear, getIndexDType(getContext()));
}

void Evaluator::execAssert(const AssertStmt &stmt) {
  Ref cond = load(eval(*stmt.cond), stmt.cond->getLoc());
  if (isPoison(cond))
    return;
  // A check of the host program's values is the host program's to make; a
  // kernel that uses such a value is an error anyway.
  if (llvm::isa<HostObject>(*cond)) {
    emitRemark(stmt.cond->getLoc(), "this assert checks values of the host "
                                    "program, which tilec does not run");
    return;
  }
  std::optional<bool> known = truth(cond, stmt.cond->getLoc());
  if (!known) {
    error(stmt.cond->getLoc(), "assert needs a condition known at compile "
                               "time");
    return;
  }
  if (*known)
    return;
  std::string message = "assertion failed";
  if (stmt.message) {
    Ref text = eval(*stmt.message);
    if (isPoison(text))
      return;
    message += ": ";
    if (auto *str = llvm::dyn_cast<StrObject>(text.get()))
      message += str->value;
    else
      message += repr(*text);
  }
  error(stmt.getLoc(), message);
}

void Evaluator::execRaise(const RaiseStmt &stmt) {
  // `raise ValueError(f"...")`: the exception's name and message, as
  // Python prints them; the exception types are not modelled.
  std::string message = "an exception was raised";
  if (const Expr *exception = stmt.exception.get()) {
    const Expr *callee = exception;
    auto *call = llvm::dyn_cast<CallExpr>(exception);
    if (call)
      callee = call->callee.get();
    std::string type;
    if (auto *name = llvm::dyn_cast<NameExpr>(callee))
      type = name->name;
    else if (auto *attribute = llvm::dyn_cast<AttributeExpr>(callee))
      type = attribute->attr;
    std::string text;
    if (call && !call->args.empty()) {
      Ref value = eval(*call->args.front());
      if (isPoison(value))
        return;
      text = str(*value);
    }
    if (!type.empty())
      message = text.empty() ? type : type + ": " + text;
  }
  error(stmt.getLoc(), message);
}

void Evaluator::execImport(const ImportStmt &stmt) {
  auto tilelang = namespaces.makeTilelang();
  // The top-level module of a dotted name: the tilelang package, one of
  // the Python modules .tile code may use, or else a module of the host
  // program, which binds a host value: an error only where a kernel needs
  // it.
  auto root = [&](StringRef name, SMLoc loc) -> Ref {
    if (name == "tilelang")
      return tilelang;
    if (name == "math")
      return namespaces.math;
    if (name == "itertools")
      return namespaces.itertools;
    if (name == "tvm")
      return namespaces.tvm;
    if (name == "functools")
      return namespaces.functools;
    if (name == "torch")
      return namespaces.torch;
    if (Ref sibling = importSibling(name, loc))
      return sibling;
    return std::make_shared<HostObject>(name.str());
  };
  // Whether `name` of module (or host value) `from` is the host program's,
  // which getAttribute then gives as a host value.
  auto isHostMember = [](const Ref &from, StringRef name) {
    auto *mod = llvm::dyn_cast<ModuleObject>(from.get());
    return !mod || (!mod->members.count(name.str()) && isHostName(*mod, name));
  };
  // Resolves a dotted module name.
  auto resolve = [&](StringRef dotted, SMLoc loc) -> Ref {
    llvm::SmallVector<StringRef> parts;
    dotted.split(parts, '.');
    Ref current = root(parts.front(), loc);
    if (isPoison(current))
      return current;
    for (StringRef part : llvm::drop_begin(parts)) {
      if (isHostMember(current, part)) {
        current = getAttribute(current, part, loc);
        continue;
      }
      auto *mod = llvm::cast<ModuleObject>(current.get());
      auto it = mod->members.find(part.str());
      if (it == mod->members.end() || !llvm::isa<ModuleObject>(*it->second)) {
        error(loc, "module '" + mod->name + "' has no submodule '" + part +
                       "' in tilec");
        return nullptr;
      }
      current = it->second;
    }
    return current;
  };

  if (stmt.fromModule.empty()) {
    for (const ImportStmt::Alias &alias : stmt.names) {
      Ref mod = resolve(alias.name, alias.loc);
      if (!mod)
        continue;
      if (!alias.asName.empty()) {
        assignName(alias.asName, mod, alias.loc);
        continue;
      }
      // `import a.b` binds `a`; a module that failed to import binds
      // poison, which reports nothing more.
      StringRef top = StringRef(alias.name).split('.').first;
      assignName(top.str(), isPoison(mod) ? mod : root(top, alias.loc),
                 alias.loc);
    }
    return;
  }
  Ref from = resolve(stmt.fromModule, stmt.getLoc());
  if (!from)
    return;
  auto *mod = llvm::dyn_cast<ModuleObject>(from.get());
  for (const ImportStmt::Alias &alias : stmt.names) {
    // `from M import *`: the public names of M; of a host module, none.
    if (alias.name == "*") {
      if (!mod)
        continue;
      for (const auto &[name, value] : mod->members)
        if (!StringRef(name).starts_with("_"))
          assignName(name, value, alias.loc);
      continue;
    }
    // `from argparse import ArgumentParser`.
    if (isHostMember(from, alias.name)) {
      assignName(alias.asName.empty() ? alias.name : alias.asName,
                 getAttribute(from, alias.name, alias.loc), alias.loc);
      continue;
    }
    auto it = mod->members.find(alias.name);
    // TileLang's names that tilec lacks say why.
    if (it == mod->members.end() && mod->name == "T") {
      getAttribute(from, alias.name, alias.loc);
      continue;
    }
    if (it == mod->members.end()) {
      std::vector<std::string> candidates;
      for (const auto &member : mod->members)
        candidates.push_back(member.first);
      std::string hint = suggest(alias.name, candidates);
      error(alias.loc,
            "cannot import '" + alias.name + "' from '" + mod->name + "'" +
                (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
      continue;
    }
    assignName(alias.asName.empty() ? alias.name : alias.asName, it->second,
               alias.loc);
  }
}

void Evaluator::applyPassConfigs(const Keyword &configs) {
  Ref value = load(eval(*configs.value), configs.value->getLoc());
  if (isPoison(value))
    return;
  auto *dict = llvm::dyn_cast<DictObject>(value.get());
  if (!dict) {
    error(configs.value->getLoc(),
          "pass_configs takes a dict, got " + getTypeName(*value));
    return;
  }
  // The keys that have a tilec equivalent: the setting each makes, and the
  // flag that makes it on the command line.
  struct Equivalent {
    llvm::StringLiteral key, setting, flag, overriddenBy;
    bool enables;
  };
  static constexpr Equivalent equivalents[] = {
      {"tl.enable_fast_math", "fast_math", "--fast-math",
       " (--no-fast-math or --no-fma on the command line overrides it)", true},
      {"tl.disable_fast_math", "fast_math", "--no-fast-math",
       " (--fast-math on the command line overrides it)", false},
      {"tl.disable_tma_lower", "tma", "--no-tma", "", false},
      {"tl.disable_warp_specialized", "warp_specialize", "--no-warp-specialize",
       "", false},
  };
  mlir::MLIRContext *context = module.getContext();
  mlir::NamedAttrList settings;
  if (auto existing =
          module->getAttrOfType<mlir::DictionaryAttr>(kPassConfigsAttr))
    settings.append(existing.getValue());
  for (const auto &[key, setting] : dict->entries) {
    auto *name = llvm::dyn_cast<StrObject>(key.get());
    if (!name) {
      error(configs.value->getLoc(), "a pass_configs key is a string "
                                     "(tilelang.PassConfigKey.*), got " +
                                         getTypeName(*key));
      continue;
    }
    std::optional<bool> on = truth(load(setting, configs.loc), configs.loc);
    if (!on) {
      error(configs.value->getLoc(),
            "pass_configs['" + name->value +
                "'] needs a value known at compile time");
      continue;
    }
    const Equivalent *equivalent =
        llvm::find_if(equivalents, [&](const Equivalent &candidate) {
          return candidate.key == name->value;
        });
    if (equivalent == std::end(equivalents)) {
      emitRemark(configs.loc, "pass_configs['" + name->value +
                                  "'] is ignored: tilec has no equivalent");
      continue;
    }
    // A key that is off asks for nothing.
    if (!*on)
      continue;
    bool enabled = equivalent->enables;
    if (auto previous = settings.get(equivalent->setting)) {
      if (llvm::cast<mlir::BoolAttr>(previous).getValue() != enabled)
        error(configs.loc,
              "pass_configs['" + name->value +
                  "'] contradicts another kernel's pass_configs: the "
                  "kernels of a file are compiled with one set of options");
      continue;
    }
    settings.set(equivalent->setting, mlir::BoolAttr::get(context, enabled));
    emitRemark(configs.loc, "pass_configs['" + name->value +
                                "'] takes effect as " + equivalent->flag +
                                equivalent->overriddenBy);
  }
  if (!settings.empty())
    module->setAttr(kPassConfigsAttr, settings.getDictionary(context));
}

void Evaluator::execFunctionDef(const FunctionDefStmt &stmt) {
  auto function = std::make_shared<FunctionObject>();
  function->def = &stmt;
  function->closure = scope;
  // Decorators of the program's own (a caching wrapper, a registry) apply
  // last, innermost first, as in Python.
  llvm::SmallVector<std::pair<Ref, SMLoc>> programDecorators;
  for (const ExprPtr &decorator : stmt.decorators) {
    // Decorator arguments (@tilelang.jit(out_idx=...)) configure Python-side
    // compilation; only the decorator itself is looked at.
    const Expr *callee = decorator.get();
    bool called = false;
    if (auto *call = llvm::dyn_cast<CallExpr>(callee)) {
      callee = call->callee.get();
      called = true;
    }
    Ref value = eval(*callee);
    if (isPoison(value))
      continue;
    // `@torch.no_grad()`, `@pytest.mark...`: a function of the host
    // program, which tilec does not run.
    if (llvm::isa<HostObject>(*value)) {
      assignName(stmt.name, std::make_shared<HostObject>(stmt.name),
                 stmt.nameLoc);
      return;
    }
    auto *builtin = llvm::dyn_cast<BuiltinObject>(value.get());
    StringRef name = builtin ? StringRef(builtin->name) : StringRef();
    if (name == "T.prim_func" && !called) {
      function->isPrimFunc = true;
    } else if (name == "T.macro") {
      function->isMacro = true;
    } else if (name == "tilelang.transform.simplify_prim_func") {
      // tilec simplifies every kernel it compiles.
    } else if (name == "functools.lru_cache" || name == "functools.cache") {
      // A compile-time function gives the same result for the same
      // arguments anyway.
    } else if (name == "tilelang.jit") {
      function->isJit = true;
      if (!called)
        continue;
      const auto &call = llvm::cast<CallExpr>(*decorator);
      bool ignored = !call.args.empty();
      for (const Keyword &keyword : call.keywords) {
        if (keyword.name == "pass_configs")
          applyPassConfigs(keyword);
        else
          ignored = true;
      }
      if (ignored)
        emitRemark(decorator->getLoc(),
                   "the arguments of @tilelang.jit(...) other than "
                   "pass_configs are ignored: tilec takes the target and "
                   "options from its command line");
    } else if (name == "tilelang.autotune") {
      // TileLang tunes kernels: the function is one, as with @tilelang.jit.
      function->isJit = true;
      emitRemark(decorator->getLoc(),
                 "@autotune is ignored: tilec compiles the configuration given "
                 "by the defaults and -D values");
    } else if (llvm::isa<FunctionObject>(*value) ||
               (builtin && !name.starts_with("T."))) {
      Ref applied = called ? eval(*decorator) : value;
      if (!isPoison(applied))
        programDecorators.push_back({applied, decorator->getLoc()});
    } else {
      error(decorator->getLoc(),
            "this " + getTypeName(*value) +
                " is not a decorator tilec knows (decorators are "
                "@T.prim_func, @T.macro, @tilelang.jit, @autotune, "
                "@simplify_prim_func, @functools.cache and the program's own "
                "functions)");
    }
  }
  for (const Parameter &param : stmt.params)
    function->defaults.push_back(
        param.defaultValue
            ? load(eval(*param.defaultValue), param.defaultValue->getLoc())
            : nullptr);
  if (scope == moduleScope && callDepth == 0)
    topLevelDefs.push_back({&stmt, function});
  Ref value = function;
  for (auto &[decorator, loc] : llvm::reverse(programDecorators)) {
    CallArgs args;
    args.loc = loc;
    args.args.push_back(value);
    args.argLocs.push_back(loc);
    value = call(decorator, args, loc);
    if (isPoison(value))
      break;
  }
  assignName(stmt.name, value, stmt.nameLoc);
}

//===----------------------------------------------------------------------===//
// Assignment
//===----------------------------------------------------------------------===//

void Evaluator::assign(const Expr &target, const Ref &value, SMLoc loc) {
  if (auto *name = llvm::dyn_cast<NameExpr>(&target)) {
    assignName(name->name, value, name->getLoc());
    return;
  }
  if (llvm::isa<TupleExpr, ListExpr>(target)) {
    const auto &elements = llvm::isa<TupleExpr>(target)
                               ? llvm::cast<TupleExpr>(target).elements
                               : llvm::cast<ListExpr>(target).elements;
    if (isPoison(value)) {
      for (const ExprPtr &element : elements)
        assign(*element, value, element->getLoc());
      return;
    }
    // `M, K = A.shape` of a host tensor: the parts are the host's too.
    if (auto *host = llvm::dyn_cast<HostObject>(value.get())) {
      for (const ExprPtr &element : elements) {
        const Expr *part = element.get();
        if (auto *starred = llvm::dyn_cast<StarredExpr>(part))
          part = starred->value.get();
        assign(*part, std::make_shared<HostObject>(host->description + "[...]"),
               element->getLoc());
      }
      return;
    }
    // Sets unpack in their order, as they iterate.
    if (auto *set = llvm::dyn_cast<SetObject>(value.get())) {
      assign(target, tuple(set->elements), loc);
      return;
    }
    auto *sequence = llvm::dyn_cast<TupleObject>(value.get());
    if (!sequence) {
      error(loc, "cannot unpack a " + getTypeName(*value));
      return;
    }
    // `first, *rest = items`: the starred target takes a list of what the
    // others leave.
    auto isStarred = [](const ExprPtr &element) {
      return llvm::isa<StarredExpr>(*element);
    };
    if (llvm::count_if(elements, isStarred) > 1) {
      error(loc, "an assignment takes one starred target");
      return;
    }
    auto star = llvm::find_if(elements, isStarred);
    if (star != elements.end()) {
      size_t before = star - elements.begin();
      size_t after = elements.end() - star - 1;
      const std::vector<Ref> &items = sequence->elements;
      if (items.size() < before + after) {
        error(loc, "expected at least " + llvm::Twine(before + after) +
                       " values to unpack, got " + llvm::Twine(items.size()));
        return;
      }
      for (size_t i = 0; i < before; ++i)
        assign(*elements[i], items[i], elements[i]->getLoc());
      const auto &starred = llvm::cast<StarredExpr>(**star);
      assign(
          *starred.value,
          tuple(std::vector<Ref>(items.begin() + before, items.end() - after),
                /*isList=*/true),
          starred.getLoc());
      for (size_t i = 0; i < after; ++i)
        assign(*elements[before + 1 + i], items[items.size() - after + i],
               elements[before + 1 + i]->getLoc());
      return;
    }
    if (sequence->elements.size() != elements.size()) {
      error(loc, "expected " + llvm::Twine(elements.size()) +
                     " values to unpack, got " +
                     llvm::Twine(sequence->elements.size()));
      return;
    }
    for (auto [element, item] : llvm::zip(elements, sequence->elements))
      assign(*element, item, element->getLoc());
    return;
  }
  if (auto *subscript = llvm::dyn_cast<SubscriptExpr>(&target)) {
    Ref base = evalSubscriptBase(*subscript);
    if ((base && isPoison(base)) || isPoison(value))
      return;
    if (base && assignItem(*subscript, base, value, loc))
      return;
    Ref access = evalSubscript(*subscript, base);
    if (isPoison(access))
      return;
    auto *element = llvm::dyn_cast<AccessObject>(access.get());
    if (auto *host = llvm::dyn_cast<HostObject>(access.get())) {
      changeHostValue(*host, subscript->getLoc());
      return;
    }
    if (!element) {
      error(subscript->getLoc(), "only buffer elements can be assigned; a " +
                                     getTypeName(*access) +
                                     " cannot be modified in .tile");
      return;
    }
    if (!element->isElement()) {
      error(subscript->getLoc(), "cannot assign to a buffer region; use "
                                 "T.copy or T.fill, or a T.Parallel loop");
      return;
    }
    store(*element, value, loc);
    return;
  }
  // `torch.backends.cuda.matmul.allow_tf32 = False`: the host program's.
  if (auto *attribute = llvm::dyn_cast<AttributeExpr>(&target)) {
    Ref base = eval(*attribute->value);
    if (isPoison(base))
      return;
    if (auto *host = llvm::dyn_cast<HostObject>(base.get())) {
      changeHostValue(*host, attribute->getLoc());
      return;
    }
  }
  error(loc, "cannot assign to this expression in .tile");
}

void Evaluator::changeHostValue(const HostObject &host, SMLoc loc) {
  // Outside kernels the change is the host program's, which tilec does not
  // run; inside one it would be lost.
  if (inKernel())
    hostValueError(host, loc);
}

Ref Evaluator::evalSubscriptBase(const SubscriptExpr &target) {
  // A T.alloc_var's name reads its value: leave it to evalSubscript, which
  // reports the index.
  if (lookupVariable(*target.value))
    return nullptr;
  return eval(*target.value);
}

std::optional<bool> Evaluator::assignItem(const SubscriptExpr &target,
                                          const Ref &base, const Ref &value,
                                          SMLoc loc) {
  if (!isChangeable(*base))
    return std::nullopt;
  if (!checkChangeable(*target.value, target.getLoc()))
    return false;
  if (target.indices.size() != 1 || llvm::isa<SliceExpr>(*target.indices[0])) {
    error(target.getLoc(), "a " + getTypeName(*base) +
                               " item is assigned with one index, not a "
                               "slice or several");
    return false;
  }
  const Expr &indexExpr = *target.indices[0];
  Ref index = load(eval(indexExpr), indexExpr.getLoc());
  Ref item = load(value, loc);
  if (isPoison(index) || isPoison(item))
    return false;
  if (auto *dict = llvm::dyn_cast<DictObject>(base.get()))
    return setDictItem(*this, *dict, index, item, indexExpr.getLoc());
  auto &elements = llvm::cast<TupleObject>(*base).elements;
  std::optional<int64_t> i = getConstInt(index);
  int64_t size = elements.size();
  std::optional<int64_t> position = i ? normalizeIndex(*i, size) : std::nullopt;
  if (!position) {
    error(indexExpr.getLoc(),
          i ? "list index " + llvm::Twine(*i) + " out of range (size " +
                  llvm::Twine(size) + ")"
            : llvm::Twine("a list index must be a compile-time integer"));
    return false;
  }
  if (!prepareChange(*base, {item}, loc))
    return false;
  elements[*position] = item;
  return true;
}

void Evaluator::execNameDecl(const NameDeclStmt &stmt) {
  StringRef what = stmt.isGlobal ? "global" : "nonlocal";
  Scope *root = scope->getRoot();
  if (scope.get() == root) {
    // `global x` at module level changes nothing, as in Python.
    if (!stmt.isGlobal)
      error(stmt.getLoc(), "nonlocal declaration not allowed at module level");
    return;
  }
  for (const NameDeclStmt::Name &name : stmt.names) {
    if (scope->hasOwnBinding(name.name)) {
      error(name.loc, "'" + name.name +
                          "' is bound in this function before "
                          "its " +
                          what + " declaration");
      continue;
    }
    Scope *owner = stmt.isGlobal ? root : scope->findNonlocalOwner(name.name);
    if (!owner) {
      error(name.loc, "no binding for nonlocal '" + name.name +
                          "' in an enclosing function");
      continue;
    }
    scope->declare(name.name, owner);
  }
}

void Evaluator::assignName(const std::string &name, const Ref &value,
                           SMLoc loc) {
  Scope::Binding *binding = scope->lookupLocal(name);
  if (binding) {
    // Assigning to a T.alloc_var variable stores into it.
    if (auto *buffer = llvm::dyn_cast<BufferObject>(binding->value.get());
        buffer && buffer->isVar && !isPoison(value)) {
      auto access = std::make_shared<AccessObject>();
      access->buffer =
          std::static_pointer_cast<const BufferObject>(binding->value);
      store(*access, value, loc);
      return;
    }
    // A name bound outside a run-time region cannot take a value computed
    // per iteration: the loop body is emitted once.
    if (binding->regionDepth < regionDepth) {
      error(loc, "cannot assign to '" + name +
                     "' here: it was bound outside this run-time loop or if, "
                     "which the compiler emits once; use T.alloc_var for a "
                     "value that changes while the kernel runs");
      return;
    }
  }
  if (auto *buffer = llvm::dyn_cast<BufferObject>(value.get());
      buffer && buffer->name.empty()) {
    // The allocation's location carries the name, for later diagnostics.
    buffer->name = name;
    emitter.nameBuffer(buffer->memref, name);
  }
  scope->set(name, value, regionDepth, loc);
  expiredNames.erase(name);
}
