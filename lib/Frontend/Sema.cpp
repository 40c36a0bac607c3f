//===- Sema.cpp - Compile-time evaluation of .tile files ------------------===//
//
// Part of tilec. Statements, scopes, function calls, -D parameters, and the
// instantiation of kernels into func.func ops.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Sema.h"
#include "tilec/Frontend/Parser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

/// Bounds on work a .tile file can ask for at compile time.
static constexpr unsigned kMaxCallDepth = 64;
static constexpr uint64_t kMaxCompileTimeSteps = 1u << 20;
/// As deep as the syntax tree of an expression may be: values built in a
/// loop (`t = (t,)`) nest without bound otherwise.
static constexpr unsigned kMaxNestingDepth = 1000;

//===----------------------------------------------------------------------===//
// Scope
//===----------------------------------------------------------------------===//

Scope::Binding *Scope::lookupLocal(StringRef name) {
  auto it = vars.find(name);
  return it == vars.end() ? nullptr : &it->second;
}

Scope::Binding *Scope::lookup(StringRef name) {
  for (Scope *s = this; s; s = s->parent.get())
    if (Binding *binding = s->lookupLocal(name))
      return binding;
  return nullptr;
}

void Scope::set(StringRef name, Ref value, unsigned regionDepth, SMLoc loc) {
  vars[name] = Binding{std::move(value), regionDepth, loc};
}

std::vector<std::pair<std::string, SMLoc>>
Scope::popRegion(unsigned regionDepth) {
  std::vector<std::pair<std::string, SMLoc>> removed;
  for (auto &entry : vars)
    if (entry.second.regionDepth > regionDepth)
      removed.emplace_back(entry.first().str(), entry.second.loc);
  for (auto &[name, loc] : removed)
    vars.erase(name);
  return removed;
}

void Scope::collectNames(std::vector<std::string> &names) const {
  for (const Scope *s = this; s; s = s->parent.get())
    for (const auto &entry : s->vars)
      names.push_back(entry.first().str());
}

//===----------------------------------------------------------------------===//
// Kernel functions
//===----------------------------------------------------------------------===//

struct Interpreter::KernelParam {
  std::string name;
  SMLoc loc;
  std::shared_ptr<const TensorSpecObject> tensor;
  std::optional<DType> scalar;
  /// The object the name is bound to until the function exists (eager
  /// kernels), so it can be rebound to the parameter.
  Ref placeholder;
};

struct Interpreter::KernelFunction {
  std::string name;
  mlir::func::FuncOp func;
  llvm::DenseMap<const DynamicDimObject *, mlir::Value> dims;
  /// Eager kernels build their function at the first T.Kernel.
  bool eager = false;
  bool built = false;
  const FunctionObject *function = nullptr;
  std::shared_ptr<Scope> scope;
  llvm::StringMap<std::shared_ptr<const TensorSpecObject>> annotations;
  std::vector<KernelParam> outputs;
  llvm::SmallVector<StringRef> constNames;
  /// Where the function's T.Kernel block is, once there is one.
  llvm::SMLoc kernelLoc;
};

//===----------------------------------------------------------------------===//
// Interpreter
//===----------------------------------------------------------------------===//

Interpreter::Interpreter(TileSource &source, mlir::ModuleOp module,
                         const ImportOptions &options)
    : source(source), module(module), options(options), emitter(source, module),
      builder(emitter.getBuilder()) {
  moduleScope = makeScope(nullptr);
  scope = moduleScope;
  tModule = createLanguageModule(getContext());
  builtinsModule = createPythonBuiltins();
}

Interpreter::~Interpreter() {
  // A function's closure holds the scope that binds the function; empty
  // every scope so that these cycles are freed.
  for (const std::weak_ptr<Scope> &weak : scopes)
    if (std::shared_ptr<Scope> scope = weak.lock())
      scope->clear();
}

std::shared_ptr<Scope> Interpreter::makeScope(std::shared_ptr<Scope> parent) {
  auto scope = std::make_shared<Scope>(std::move(parent));
  // Most call scopes are gone by the time the list grows: keep it short.
  if (scopes.size() == scopes.capacity()) {
    llvm::erase_if(scopes, [](const std::weak_ptr<Scope> &weak) {
      return weak.expired();
    });
    scopes.reserve(2 * scopes.size() + 16);
  }
  scopes.push_back(scope);
  return scope;
}

Ref Interpreter::none() {
  static const Ref value = std::make_shared<NoneObject>();
  return value;
}
Ref Interpreter::boolean(bool value) {
  static const Ref t = std::make_shared<BoolObject>(true);
  static const Ref f = std::make_shared<BoolObject>(false);
  return value ? t : f;
}
Ref Interpreter::integer(int64_t value) {
  return std::make_shared<IntObject>(value);
}
Ref Interpreter::floating(double value) {
  return std::make_shared<FloatObject>(value);
}
Ref Interpreter::string(std::string value) {
  return std::make_shared<StrObject>(std::move(value));
}
Ref Interpreter::tuple(std::vector<Ref> elements, bool isList) {
  return std::make_shared<TupleObject>(std::move(elements), isList);
}
Ref Interpreter::checkNesting(Ref value, SMLoc loc) {
  if (getNestingDepth(*value) <= kMaxNestingDepth)
    return value;
  return error(loc, "this value nests tuples, lists or dicts more than " +
                        llvm::Twine(kMaxNestingDepth) + " deep");
}
Ref Interpreter::poison() {
  static const Ref value = std::make_shared<PoisonObject>();
  return value;
}

Ref Interpreter::error(SMLoc loc, const llvm::Twine &message) {
  emitError(loc) << message;
  return poison();
}

void Interpreter::emitRemark(SMLoc loc, const llvm::Twine &message) {
  mlir::emitRemark(getLoc(loc)) << message;
}

bool Interpreter::requireKernel(SMLoc loc, StringRef what) {
  if (inKernel())
    return true;
  emitError(loc) << what
                 << " must be inside a T.Kernel block (with T.Kernel(...) "
                    "as ...:)";
  return false;
}

std::string Interpreter::suggest(StringRef name,
                                 llvm::ArrayRef<std::string> candidates) {
  // About one edit per three characters, at most three.
  unsigned limit = std::clamp<size_t>(name.size() / 3, 1, 3);
  std::string best;
  unsigned bestDistance = limit + 1;
  for (const std::string &candidate : candidates) {
    if (candidate == name || candidate.empty() || candidate[0] == '_')
      continue;
    unsigned distance = name.edit_distance_insensitive(candidate, true, limit);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// -D values
//===----------------------------------------------------------------------===//

void Interpreter::parseDefines() {
  if (options.defines.empty())
    return;
  // The -D options, one per line, so that an error in a value is shown with
  // its option.
  std::string commandLine;
  for (const auto &[name, text] : options.defines)
    commandLine += "-D " + name + "=" + text + "\n";
  llvm::SourceMgr &sourceMgr = source.getSourceMgr();
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(commandLine, "<command line>"),
      SMLoc());
  StringRef rest = sourceMgr.getMemoryBuffer(id)->getBuffer();
  for (const auto &[name, text] : options.defines) {
    // A value may hold a newline: each option is cut by its length.
    StringRef option = rest.take_front(name.size() + text.size() + 4);
    rest = rest.drop_front(option.size() + 1);
    StringRef valueText = option.take_back(text.size());
    TileSource defineSource(sourceMgr, id, getContext(), valueText);
    mlir::Location loc =
        defineSource.getLoc(SMLoc::getFromPointer(option.begin() + 3));
    Parser parser(defineSource);
    ExprPtr expr = parser.parseStandaloneExpression();
    source.addErrors(defineSource.getNumErrors());
    if (!expr)
      continue;
    // A bare word is a string, so that -D dtype=bfloat16 and
    // -D layout=bshd need no quotes.
    Ref value;
    if (auto *nameExpr = llvm::dyn_cast<NameExpr>(expr.get());
        nameExpr && nameExpr->name != "T") {
      value = string(nameExpr->name);
    } else {
      auto defineScope = makeScope(nullptr);
      defineScope->set("T", tModule, 0);
      std::swap(scope, defineScope);
      value = eval(*expr);
      std::swap(scope, defineScope);
    }
    auto it = defines.find(name);
    if (it != defines.end())
      it->second = Define{value, loc, false};
    else
      defines.insert({StringRef(name), Define{value, loc, false}});
  }
}

Ref Interpreter::takeDefine(StringRef name) {
  auto it = defines.find(name);
  if (it == defines.end())
    return nullptr;
  it->second.used = true;
  return it->second.value;
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

Interpreter::Flow Interpreter::execBlock(const Block &block) {
  for (const StmtPtr &stmt : block) {
    if (source.tooManyErrors())
      return Flow::Normal;
    if (execStmt(*stmt) == Flow::Return)
      return Flow::Return;
  }
  return Flow::Normal;
}

Interpreter::Flow Interpreter::execStmt(const Stmt &stmt) {
  switch (stmt.getKind()) {
  case Stmt::Kind::Expr: {
    const auto &exprStmt = llvm::cast<ExprStmt>(stmt);
    // Docstrings and other bare constants do nothing.
    if (llvm::isa<StringExpr, IntExpr, FloatExpr, EllipsisExpr, NoneExpr>(
            exprStmt.value.get()))
      return Flow::Normal;
    eval(*exprStmt.value);
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
  case Stmt::Kind::Break:
  case Stmt::Kind::Continue:
    error(stmt.getLoc(),
          llvm::Twine(stmt.getKind() == Stmt::Kind::Break ? "break"
                                                          : "continue") +
              " is not supported in .tile; give the loop the "
              "trip count it needs or guard the body with if");
    return Flow::Normal;
  case Stmt::Kind::Assert:
    execAssert(llvm::cast<AssertStmt>(stmt));
    return Flow::Normal;
  case Stmt::Kind::Import:
    execImport(llvm::cast<ImportStmt>(stmt));
    return Flow::Normal;
  }
  return Flow::Normal;
}

void Interpreter::execAssign(const AssignStmt &stmt) {
  Ref value;
  // A -D value replaces a module-level constant of the same name.
  if (scope == moduleScope && stmt.targets.size() == 1)
    if (auto *name = llvm::dyn_cast<NameExpr>(stmt.targets.front().get()))
      value = takeDefine(name->name);
  if (!value)
    value = load(eval(*stmt.value), stmt.value->getLoc());
  for (const ExprPtr &target : stmt.targets)
    assign(*target, value, target->getLoc());
}

void Interpreter::execAugAssign(const AugAssignStmt &stmt) {
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
    Ref access = evalSubscript(*subscript);
    if (isPoison(access) || isPoison(rhs))
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

void Interpreter::execAnnAssign(const AnnAssignStmt &stmt) {
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

  if (!stmt.value) {
    error(stmt.getLoc(), "an annotation needs a value in .tile ('" +
                             name->name + ": type = value')");
    return;
  }
  Ref value = load(eval(*stmt.value), stmt.value->getLoc());
  if (isPoison(value))
    return;
  // `x: T.int32 = e` converts the value; other annotations are comments.
  if (auto *dtype = llvm::dyn_cast<DTypeObject>(annotation.get()))
    value = cast(value, dtype->dtype, stmt.value->getLoc());
  assignName(name->name, value, stmt.getLoc());
}

Interpreter::Flow Interpreter::execIf(const IfStmt &stmt) {
  Ref cond = load(eval(*stmt.cond), stmt.cond->getLoc());
  if (isPoison(cond))
    return Flow::Normal;
  std::optional<bool> known = truth(cond, stmt.cond->getLoc());
  if (known)
    return execBlock(*known ? stmt.then : stmt.otherwise);
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
  if (execRegion(stmt.then) == Flow::Return)
    error(stmt.getLoc(), "'return' inside a run-time if is not supported");
  if (!stmt.otherwise.empty()) {
    builder.setInsertionPointToStart(&ifOp.getElseRegion().front());
    if (execRegion(stmt.otherwise) == Flow::Return)
      error(stmt.getLoc(), "'return' inside a run-time if is not supported");
  }
  return Flow::Normal;
}

Interpreter::Flow Interpreter::execRegion(const Block &block,
                                          llvm::function_ref<void()> bind) {
  unsigned outerDepth = regionDepth++;
  std::shared_ptr<Scope> regionScope = scope;
  if (bind)
    bind();
  Flow flow = execBlock(block);
  --regionDepth;
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

Interpreter::Flow Interpreter::execFor(const ForStmt &stmt) {
  Ref iter = eval(*stmt.iter);
  if (isPoison(iter))
    return Flow::Normal;
  if (auto *iterable = llvm::dyn_cast<IterableObject>(iter.get())) {
    if (!iterable->compileTimeRange)
      return execRuntimeLoop(stmt, *iterable);
    std::vector<Ref> items;
    int64_t start = *getConstInt(iterable->start);
    int64_t stop = *getConstInt(iterable->stop);
    int64_t step = *getConstInt(iterable->step);
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (items.size() >= kMaxCompileTimeSteps) {
        error(stmt.iter->getLoc(), "compile-time loop has too many "
                                   "iterations");
        return Flow::Normal;
      }
      items.push_back(integer(i));
    }
    return execCompileTimeLoop(stmt, std::move(items));
  }
  if (auto *sequence = llvm::dyn_cast<TupleObject>(iter.get()))
    return execCompileTimeLoop(stmt, sequence->elements);
  if (auto *dict = llvm::dyn_cast<DictObject>(iter.get())) {
    std::vector<Ref> keys;
    for (const auto &entry : dict->entries)
      keys.push_back(entry.first);
    return execCompileTimeLoop(stmt, std::move(keys));
  }
  error(stmt.iter->getLoc(),
        "cannot loop over a " + getTypeName(*iter) +
            "; kernel loops iterate over T.Parallel, T.Pipelined, T.serial, "
            "T.unroll or range");
  return Flow::Normal;
}

Interpreter::Flow Interpreter::execCompileTimeLoop(const ForStmt &stmt,
                                                   std::vector<Ref> items) {
  for (const Ref &item : items) {
    if (++compileTimeSteps > kMaxCompileTimeSteps) {
      error(stmt.getLoc(), "compile-time evaluation takes too many steps");
      return Flow::Normal;
    }
    assign(*stmt.target, item, stmt.target->getLoc());
    if (execBlock(stmt.body) == Flow::Return)
      return Flow::Return;
    if (source.tooManyErrors())
      break;
  }
  return Flow::Normal;
}

Interpreter::Flow Interpreter::execRuntimeLoop(const ForStmt &stmt,
                                               const IterableObject &iter) {
  static constexpr StringRef kLoopNames[] = {"T.Parallel", "T.Pipelined",
                                             "T.serial", "T.unroll"};
  StringRef what = kLoopNames[static_cast<int>(iter.loopKind)];
  if (!requireKernel(stmt.getLoc(), (what + " loops").str()))
    return Flow::Normal;
  std::vector<const NameExpr *> names = loopTargets(*stmt.target);
  size_t expected = iter.loopKind == IterableObject::LoopKind::Parallel
                        ? iter.extents.size()
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
  switch (iter.loopKind) {
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
  Flow flow = execRegion(stmt.body, [&] {
    for (auto [name, arg] : llvm::zip(names, body->getArguments())) {
      LinearForm linear;
      linear.terms.push_back({arg, 1});
      scope->set(name->name,
                 std::make_shared<ScalarObject>(arg, indexType, linear),
                 regionDepth, name->getLoc());
    }
  });
  if (flow == Flow::Return)
    error(stmt.getLoc(), "'return' inside a kernel loop is not supported");
  return Flow::Normal;
}

Interpreter::Flow Interpreter::execWith(const WithStmt &stmt) {
  if (stmt.items.size() != 1) {
    error(stmt.getLoc(), "a with statement in .tile opens one T.Kernel");
    return Flow::Normal;
  }
  const WithItem &item = stmt.items.front();
  Ref context = eval(*item.context);
  if (isPoison(context))
    return Flow::Normal;
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
  if (currentFunction->kernelLoc.isValid()) {
    // One launch per kernel function, as in TileLang.
    mlir::InFlightDiagnostic diag =
        emitError(item.context->getLoc())
        << "a kernel function has one T.Kernel block; give this one a "
           "function of its own";
    diag.attachNote(getLoc(currentFunction->kernelLoc))
        << "the first T.Kernel block is here";
    return Flow::Normal;
  }
  if (!ensureFunction(item.context->getLoc()))
    return Flow::Normal;
  currentFunction->kernelLoc = item.context->getLoc();

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
  DType indexType = getIndexDType(getContext());
  auto blockIndex = [&](unsigned i) -> Ref {
    mlir::Value arg = body->getArgument(i);
    LinearForm linear;
    linear.terms.push_back({arg, 1});
    return std::make_shared<ScalarObject>(arg, indexType, linear);
  };
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
  if (flow == Flow::Return)
    error(stmt.getLoc(), "'return' inside T.Kernel is not supported");
  return Flow::Normal;
}

void Interpreter::execAssert(const AssertStmt &stmt) {
  Ref cond = load(eval(*stmt.cond), stmt.cond->getLoc());
  if (isPoison(cond))
    return;
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

void Interpreter::execImport(const ImportStmt &stmt) {
  auto tilelang = createTilelangModule(tModule);
  // Resolves a dotted module name inside the tilelang package.
  auto resolve = [&](StringRef dotted, SMLoc loc) -> Ref {
    llvm::SmallVector<StringRef> parts;
    dotted.split(parts, '.');
    if (parts.front() != "tilelang") {
      error(loc, "only tilelang modules can be imported in .tile; '" +
                     parts.front() +
                     "' belongs to the host program, not the kernel");
      return nullptr;
    }
    Ref current = tilelang;
    for (StringRef part : llvm::drop_begin(parts)) {
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
      if (!alias.asName.empty())
        assignName(alias.asName, mod, alias.loc);
      else
        assignName("tilelang", tilelang, alias.loc);
    }
    return;
  }
  Ref from = resolve(stmt.fromModule, stmt.getLoc());
  if (!from)
    return;
  auto *mod = llvm::cast<ModuleObject>(from.get());
  for (const ImportStmt::Alias &alias : stmt.names) {
    auto it = mod->members.find(alias.name);
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

/// Whether `def` directly defines a `@T.prim_func`, i.e. is a factory.
static bool definesPrimFunc(const FunctionDefStmt &def) {
  std::function<bool(const Block &)> scan = [&](const Block &block) {
    for (const StmtPtr &stmt : block) {
      if (auto *inner = llvm::dyn_cast<FunctionDefStmt>(stmt.get())) {
        for (const ExprPtr &decorator : inner->decorators) {
          const Expr *callee = decorator.get();
          if (auto *call = llvm::dyn_cast<CallExpr>(callee))
            callee = call->callee.get();
          if (auto *attr = llvm::dyn_cast<AttributeExpr>(callee);
              attr && attr->attr == "prim_func")
            return true;
          if (auto *name = llvm::dyn_cast<NameExpr>(callee);
              name && name->name == "prim_func")
            return true;
        }
      } else if (auto *ifStmt = llvm::dyn_cast<IfStmt>(stmt.get())) {
        if (scan(ifStmt->then) || scan(ifStmt->otherwise))
          return true;
      }
    }
    return false;
  };
  return scan(def.body);
}

void Interpreter::execFunctionDef(const FunctionDefStmt &stmt) {
  auto function = std::make_shared<FunctionObject>();
  function->def = &stmt;
  function->closure = scope;
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
    auto *builtin = llvm::dyn_cast<BuiltinObject>(value.get());
    StringRef name = builtin ? StringRef(builtin->name) : StringRef();
    if (name == "T.prim_func" && !called) {
      function->isPrimFunc = true;
    } else if (name == "T.macro") {
      function->isMacro = true;
    } else if (name == "tilelang.jit") {
      function->isJit = true;
      if (called)
        emitRemark(decorator->getLoc(),
                   "the arguments of @tilelang.jit(...) are ignored: tilec "
                   "takes the target and options from its command line");
    } else if (name == "tilelang.autotune") {
      emitRemark(decorator->getLoc(),
                 "@autotune is ignored: tilec compiles the configuration given "
                 "by the defaults and -D values");
    } else {
      error(decorator->getLoc(), "decorator is not supported in .tile "
                                 "(supported: @T.prim_func, @T.macro, "
                                 "@tilelang.jit, @autotune)");
    }
  }
  for (const Parameter &param : stmt.params)
    function->defaults.push_back(
        param.defaultValue
            ? load(eval(*param.defaultValue), param.defaultValue->getLoc())
            : nullptr);
  if (scope == moduleScope && callDepth == 0)
    topLevelDefs.push_back({&stmt, function});
  assignName(stmt.name, function, stmt.nameLoc);
}

//===----------------------------------------------------------------------===//
// Assignment
//===----------------------------------------------------------------------===//

void Interpreter::assign(const Expr &target, const Ref &value, SMLoc loc) {
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
    auto *sequence = llvm::dyn_cast<TupleObject>(value.get());
    if (!sequence) {
      error(loc, "cannot unpack a " + getTypeName(*value));
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
    Ref access = evalSubscript(*subscript);
    if (isPoison(access) || isPoison(value))
      return;
    auto *element = llvm::dyn_cast<AccessObject>(access.get());
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
  error(loc, "cannot assign to this expression in .tile");
}

void Interpreter::assignName(const std::string &name, const Ref &value,
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

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

bool Interpreter::bindParameters(
    const FunctionObject &function, const CallArgs &args, Scope &callScope,
    SMLoc loc, llvm::function_ref<Ref(const Parameter &)> fallback) {
  const auto &params = function.def->params;
  StringRef name = function.def->name;
  if (args.args.size() > params.size()) {
    error(loc, "'" + name + "' takes " + llvm::Twine(params.size()) +
                   " argument" + (params.size() == 1 ? "" : "s") + " but " +
                   llvm::Twine(args.args.size()) + " were given");
    return false;
  }
  std::vector<Ref> values(params.size());
  for (size_t i = 0; i < args.args.size(); ++i)
    values[i] = args.args[i];
  for (const auto &[keyword, value] : args.keywords) {
    auto it = llvm::find_if(
        params, [&](const Parameter &p) { return p.name == keyword; });
    if (it == params.end()) {
      error(loc, "'" + name + "' has no parameter named '" + keyword + "'");
      return false;
    }
    size_t index = it - params.begin();
    if (values[index]) {
      error(loc, "'" + name + "' got two values for '" + keyword + "'");
      return false;
    }
    values[index] = value;
  }
  bool ok = true;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!values[i] && fallback)
      values[i] = fallback(params[i]);
    if (!values[i])
      values[i] = function.defaults[i];
    if (values[i] && isPoison(values[i])) {
      ok = false;
      continue;
    }
    if (!values[i]) {
      error(loc, "'" + name + "' is missing a value for parameter '" +
                     params[i].name + "'");
      ok = false;
      continue;
    }
    callScope.set(params[i].name, values[i], regionDepth, params[i].loc);
  }
  return ok;
}

Ref Interpreter::callFunction(
    const FunctionObject &function, const CallArgs &args, SMLoc loc,
    llvm::function_ref<Ref(const Parameter &)> fallback) {
  if (function.isPrimFunc)
    return error(loc, "a T.prim_func cannot be called from .tile code; use a "
                      "@T.macro for code shared between kernels");
  if (callDepth >= kMaxCallDepth)
    return error(loc, "calls are nested too deeply (recursion?)");
  auto callScope = makeScope(function.closure);
  if (!bindParameters(function, args, *callScope, loc, fallback))
    return poison();
  ++callDepth;
  std::swap(scope, callScope);
  returnValue = none();
  Flow flow = execBlock(function.def->body);
  std::swap(scope, callScope);
  --callDepth;
  Ref result = flow == Flow::Return ? returnValue : none();
  returnValue = nullptr;
  return result;
}

Ref Interpreter::call(const Ref &callee, const CallArgs &args, SMLoc loc) {
  if (isPoison(callee))
    return poison();
  for (const Ref &arg : args.args)
    if (isPoison(arg))
      return poison();
  for (const auto &keyword : args.keywords)
    if (isPoison(keyword.second))
      return poison();
  if (auto *builtin = llvm::dyn_cast<BuiltinObject>(callee.get()))
    return builtin->handler(*this, args);
  if (auto *function = llvm::dyn_cast<FunctionObject>(callee.get()))
    return callFunction(*function, args, loc);
  if (auto *dtype = llvm::dyn_cast<DTypeObject>(callee.get())) {
    // T.float32(x) converts like T.cast(x, "float32").
    if (args.args.size() != 1 || !args.keywords.empty())
      return error(loc, "a dtype called as a function converts one value");
    return cast(load(args.args.front(), args.argLocs.front()), dtype->dtype,
                loc);
  }
  return error(loc, "a " + getTypeName(*callee) + " is not callable");
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

Ref Interpreter::resolveDynamicDim(const DynamicDimObject &dim, SMLoc loc) {
  if (!currentFunction || !currentFunction->func)
    return nullptr;
  auto it = currentFunction->dims.find(&dim);
  if (it == currentFunction->dims.end())
    return error(loc, "dynamic dimension '" + dim.name +
                          "' is not the extent of any tensor parameter of "
                          "this kernel");
  LinearForm linear;
  linear.terms.push_back({it->second, 1});
  return std::make_shared<ScalarObject>(it->second, getIndexDType(getContext()),
                                        linear);
}

bool Interpreter::buildKernelFunction(StringRef name,
                                      std::vector<KernelParam> &params,
                                      Scope &kernelScope, SMLoc loc) {
  mlir::MLIRContext *context = getContext();
  // Dynamic dimensions become trailing index arguments, in the order they
  // first appear in the tensor shapes. Dimensions are one argument per name:
  // two `T.dynamic("m")` calls mean the same extent, as a reader expects.
  llvm::SmallVector<const DynamicDimObject *> dims;
  auto dimIndex = [&](const DynamicDimObject *dim) -> size_t {
    return llvm::find_if(dims,
                         [&](const DynamicDimObject *other) {
                           return other->name == dim->name;
                         }) -
           dims.begin();
  };
  llvm::SmallVector<mlir::Type> argTypes;
  for (const KernelParam &param : params) {
    if (param.scalar) {
      argTypes.push_back(param.scalar->type);
      continue;
    }
    llvm::SmallVector<int64_t> shape;
    for (const Ref &extent : param.tensor->shape) {
      if (auto *dim = llvm::dyn_cast<DynamicDimObject>(extent.get())) {
        shape.push_back(mlir::ShapedType::kDynamic);
        if (dimIndex(dim) == dims.size()) {
          for (const KernelParam &other : params) {
            if (other.name != dim->name)
              continue;
            emitError(param.loc) << "dynamic dimension '" << dim->name
                                 << "' has the name of a parameter of '" << name
                                 << "'; rename one of them";
            return false;
          }
          dims.push_back(dim);
        }
      } else {
        shape.push_back(*getConstInt(extent));
      }
    }
    argTypes.push_back(mlir::MemRefType::get(shape, param.tensor->dtype.type));
  }
  for (size_t i = 0; i < dims.size(); ++i)
    argTypes.push_back(dims[i]->dtype.type.isIndex()
                           ? dims[i]->dtype.type
                           : mlir::IndexType::get(context));

  llvm::SmallVector<StringRef> argNames;
  for (const KernelParam &param : params)
    argNames.push_back(param.name);
  for (const DynamicDimObject *dim : dims)
    argNames.push_back(dim->name);
  // The caller restores the insertion point; this leaves it in the entry
  // block of the new function.
  mlir::func::FuncOp func =
      emitter.emitKernelFunction(name, argTypes, argNames, loc);
  if (!func)
    return false;
  mlir::Block *entry = &func.getBody().front();
  currentFunction->func = func;

  for (const KernelParam &param : params)
    if (param.tensor)
      for (const Ref &extent : param.tensor->shape)
        if (auto *dim = llvm::dyn_cast<DynamicDimObject>(extent.get()))
          currentFunction->dims[dim] =
              entry->getArgument(params.size() + dimIndex(dim));
  for (auto [i, param] : llvm::enumerate(params)) {
    mlir::Value arg = entry->getArgument(i);
    if (param.scalar) {
      Ref value = std::make_shared<ScalarObject>(arg, *param.scalar);
      kernelScope.set(param.name, value, regionDepth, param.loc);
      continue;
    }
    auto buffer = std::make_shared<BufferObject>();
    buffer->memref = arg;
    buffer->dtype = param.tensor->dtype;
    buffer->scope = tile::MemoryScope::Global;
    buffer->name = param.name;
    llvm::SmallVector<int64_t> dimArgs;
    bool dynamic = false;
    for (const Ref &extent : param.tensor->shape) {
      if (auto *dim = llvm::dyn_cast<DynamicDimObject>(extent.get())) {
        buffer->shape.push_back(resolveDynamicDim(*dim, param.loc));
        dimArgs.push_back(params.size() + dimIndex(dim));
        dynamic = true;
      } else {
        buffer->shape.push_back(extent);
        dimArgs.push_back(-1);
      }
    }
    if (dynamic)
      emitter.setDynamicDims(func, i, dimArgs);
    kernelScope.set(param.name, buffer, regionDepth, param.loc);
  }
  return true;
}

void Interpreter::emitPrimFunc(const FunctionObject &function, StringRef name,
                               SMLoc loc) {
  const FunctionDefStmt &def = *function.def;
  // Parameter types are evaluated where the function was defined.
  std::vector<KernelParam> params;
  bool ok = true;
  std::shared_ptr<Scope> definitionScope = function.closure;
  std::swap(scope, definitionScope);
  for (const Parameter &param : def.params) {
    KernelParam kernelParam;
    kernelParam.name = param.name;
    kernelParam.loc = param.loc;
    if (!param.annotation) {
      error(param.loc, "parameter '" + param.name +
                           "' of a T.prim_func needs a type: T.Tensor(shape, "
                           "dtype) or a scalar dtype such as T.int32");
      ok = false;
      continue;
    }
    Ref annotation = eval(*param.annotation);
    if (isPoison(annotation)) {
      ok = false;
      continue;
    }
    if (auto spec =
            std::dynamic_pointer_cast<const TensorSpecObject>(annotation)) {
      kernelParam.tensor = spec;
    } else if (auto *dtype = llvm::dyn_cast<DTypeObject>(annotation.get())) {
      kernelParam.scalar = dtype->dtype;
    } else {
      error(param.annotation->getLoc(),
            "parameter '" + param.name +
                "' must be typed with T.Tensor(shape, dtype) or a scalar "
                "dtype, not a " +
                getTypeName(*annotation));
      ok = false;
      continue;
    }
    params.push_back(std::move(kernelParam));
  }
  std::swap(scope, definitionScope);
  if (!ok)
    return;

  KernelFunction kernel;
  kernel.name = name.str();
  kernel.function = &function;
  kernel.built = true;
  currentFunction = &kernel;
  auto kernelScope = makeScope(function.closure);
  mlir::OpBuilder::InsertionGuard guard(builder);
  if (buildKernelFunction(name, params, *kernelScope, loc)) {
    std::swap(scope, kernelScope);
    execBlock(def.body);
    std::swap(scope, kernelScope);
    emitter.emitReturn(loc);
  }
  currentFunction = nullptr;
}

bool Interpreter::ensureFunction(SMLoc loc) {
  if (!currentFunction)
    return false;
  KernelFunction &kernel = *currentFunction;
  if (kernel.built)
    return true;
  kernel.built = true;

  std::vector<KernelParam> params;
  bool ok = true;
  for (const Parameter &param : kernel.function->def->params) {
    Scope::Binding *binding = kernel.scope->lookupLocal(param.name);
    if (!binding || !llvm::isa<PendingTensorObject>(*binding->value))
      continue;
    auto it = kernel.annotations.find(param.name);
    if (it == kernel.annotations.end()) {
      error(param.loc, "parameter '" + param.name +
                           "' has no value and no tensor annotation; "
                           "annotate it before T.Kernel ('" +
                           param.name +
                           ": T.Tensor(shape, dtype)') or give it with -D " +
                           param.name + "=VALUE");
      ok = false;
      continue;
    }
    KernelParam kernelParam;
    kernelParam.name = param.name;
    kernelParam.loc = param.loc;
    kernelParam.tensor = it->second;
    params.push_back(std::move(kernelParam));
  }
  // Outputs from T.empty, named after the variables holding them.
  for (KernelParam &output : kernel.outputs) {
    std::string name;
    std::vector<std::string> names;
    kernel.scope->collectNames(names);
    for (const std::string &candidate : names) {
      Scope::Binding *binding = kernel.scope->lookupLocal(candidate);
      if (binding && binding->value == output.placeholder) {
        name = candidate;
        break;
      }
    }
    if (name.empty()) {
      error(output.loc, "the result of T.empty must be assigned to a name");
      ok = false;
      continue;
    }
    output.name = name;
    params.push_back(output);
  }
  if (!ok)
    return false;
  // The function is created at the end of the module, then the builder
  // goes back to where the eager body is being evaluated... which is the
  // function itself: eager kernels emit nothing before their T.Kernel.
  if (!buildKernelFunction(kernel.name, params, *kernel.scope, loc))
    return false;
  return true;
}

Ref Interpreter::lookupConst(StringRef name, SMLoc loc) {
  if (Ref value = takeDefine(name))
    return value;
  return error(loc, "T.const '" + name + "' needs a value: give it with -D " +
                        name + "=VALUE");
}

Ref Interpreter::declareOutput(std::shared_ptr<const TensorSpecObject> spec,
                               SMLoc loc) {
  if (!currentFunction || !currentFunction->eager)
    return error(loc, "T.empty declares an output of a @tilelang.jit kernel "
                      "and is only valid in one");
  if (currentFunction->built)
    return error(loc, "T.empty must come before the T.Kernel block");
  KernelParam output;
  output.loc = loc;
  output.tensor = std::move(spec);
  output.placeholder = std::make_shared<PendingTensorObject>("");
  currentFunction->outputs.push_back(output);
  return output.placeholder;
}

void Interpreter::emitEagerKernel(const FunctionObject &function, SMLoc loc) {
  const FunctionDefStmt &def = *function.def;
  KernelFunction kernel;
  kernel.name = def.name;
  kernel.function = &function;
  kernel.eager = true;
  kernel.scope = makeScope(function.closure);
  // Parameters take -D values or defaults; the rest are tensors that the
  // body annotates.
  for (auto [i, param] : llvm::enumerate(def.params)) {
    Ref value = takeDefine(param.name);
    if (!value)
      value = function.defaults[i];
    if (!value)
      value = std::make_shared<PendingTensorObject>(param.name);
    kernel.scope->set(param.name, value, regionDepth, param.loc);
  }
  currentFunction = &kernel;
  mlir::OpBuilder::InsertionGuard guard(builder);
  std::shared_ptr<Scope> outerScope = scope;
  scope = kernel.scope;
  execBlock(def.body);
  scope = outerScope;
  if (!kernel.built && !source.hasErrors())
    error(loc, "@tilelang.jit kernel '" + def.name +
                   "' has no T.Kernel "
                   "block");
  if (kernel.func) {
    builder.setInsertionPointToEnd(&kernel.func.getBody().front());
    emitter.emitReturn(loc);
  }
  currentFunction = nullptr;
}

Ref Interpreter::instantiateFactory(const FunctionObject &function, SMLoc loc) {
  CallArgs noArgs;
  noArgs.loc = loc;
  const std::vector<Parameter> &params = function.def->params;
  return callFunction(
      function, noArgs, loc, [&](const Parameter &param) -> Ref {
        if (Ref value = takeDefine(param.name))
          return value;
        if (function.defaults[&param - params.data()])
          return nullptr;
        return error(param.loc, "parameter '" + param.name + "' of '" +
                                    function.def->name +
                                    "' has no default; set it with -D " +
                                    param.name + "=VALUE");
      });
}

void Interpreter::instantiateKernels(const Module &ast) {
  std::vector<std::string> available;
  // --kernel a,b: the names asked for, and those not seen yet.
  llvm::SmallVector<StringRef> requested;
  if (!options.kernel.empty())
    StringRef(options.kernel).split(requested, ',', -1, /*KeepEmpty=*/false);
  llvm::StringSet<> wanted, missing;
  for (StringRef name : requested) {
    wanted.insert(name.trim());
    missing.insert(name.trim());
  }
  for (auto &[def, function] : topLevelDefs) {
    enum { PrimFunc, Factory, Eager, Helper } kind = Helper;
    if (function->isPrimFunc)
      kind = PrimFunc;
    else if (definesPrimFunc(*def))
      kind = Factory;
    else if (function->isJit)
      kind = Eager;
    if (kind == Helper)
      continue;
    available.push_back(def->name);
    if (!wanted.empty() && !wanted.contains(def->name))
      continue;
    missing.erase(def->name);
    if (source.tooManyErrors())
      return;
    switch (kind) {
    case PrimFunc:
      emitPrimFunc(*function, def->name, def->nameLoc);
      break;
    case Eager:
      emitEagerKernel(*function, def->nameLoc);
      break;
    case Factory: {
      Ref result = instantiateFactory(*function, def->nameLoc);
      if (isPoison(result))
        break;
      auto *primFunc = llvm::dyn_cast<FunctionObject>(result.get());
      if (!primFunc || !primFunc->isPrimFunc) {
        error(def->nameLoc,
              "kernel factory '" + def->name + "' must return its T.prim_func");
        break;
      }
      emitPrimFunc(*primFunc, def->name, def->nameLoc);
      break;
    }
    case Helper:
      break;
    }
  }

  SMLoc fileStart = SMLoc::getFromPointer(source.getBuffer().begin());
  if (!missing.empty()) {
    std::string list = available.empty() ? "none" : llvm::join(available, ", ");
    for (StringRef name : requested)
      if (missing.contains(name.trim()))
        error(fileStart, "no kernel named '" + name.trim().str() +
                             "' in this file (kernels: " + list + ")");
  } else if (available.empty() && !source.hasErrors()) {
    error(fileStart, "this file defines no kernel: write a @T.prim_func, a "
                     "function that returns one, or a @tilelang.jit "
                     "function");
  }
  (void)ast;
}

mlir::LogicalResult Interpreter::run(const Module &ast) {
  parseDefines();
  if (source.hasErrors())
    return mlir::failure();
  execBlock(ast.body);
  if (!source.tooManyErrors())
    instantiateKernels(ast);
  for (auto &[name, define] : defines) {
    if (define.used || source.hasErrors())
      continue;
    mlir::emitWarning(define.loc)
        << "-D " << name
        << " is not used: no module constant, kernel parameter or T.const "
           "has that name";
  }
  if (source.tooManyErrors())
    emitError(SMLoc::getFromPointer(source.getBuffer().begin()))
        << "too many errors; stopping";
  return mlir::failure(source.hasErrors());
}
