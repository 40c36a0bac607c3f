//===- EvalExpr.cpp - Evaluation of .tile expressions ---------------------===//
//
// Part of tilec. Names, attributes, calls, subscripts and the short-circuit
// operators; the arithmetic operators are in EvalOperators.cpp.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"
#include "tilec/Dialect/Tile/IR/TileAttrs.h"
#include "tilec/Frontend/Evaluator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
namespace arith = mlir::arith;

/// Calls nested deeper than this are taken for runaway recursion.
static constexpr unsigned kMaxCallDepth = 64;

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Ref Evaluator::eval(const Expr &expr) {
  switch (expr.getKind()) {
  case Expr::Kind::Name:
    return evalName(llvm::cast<NameExpr>(expr));
  case Expr::Kind::Int:
    return integer(llvm::cast<IntExpr>(expr).value);
  case Expr::Kind::Float:
    return floating(llvm::cast<FloatExpr>(expr).value);
  case Expr::Kind::String:
    return string(llvm::cast<StringExpr>(expr).value);
  case Expr::Kind::Bool:
    return boolean(llvm::cast<BoolExpr>(expr).value);
  case Expr::Kind::None:
    return none();
  case Expr::Kind::Ellipsis:
    return error(expr.getLoc(), "'...' is not supported in .tile");
  case Expr::Kind::Tuple:
  case Expr::Kind::List: {
    const auto &elements = llvm::isa<TupleExpr>(expr)
                               ? llvm::cast<TupleExpr>(expr).elements
                               : llvm::cast<ListExpr>(expr).elements;
    std::vector<Ref> values;
    bool invalid = false;
    for (const ExprPtr &element : elements) {
      // `(*items, x)`: the items, one element each.
      if (auto *starred = llvm::dyn_cast<StarredExpr>(element.get())) {
        Ref items = load(eval(*starred->value), starred->value->getLoc());
        std::optional<std::vector<Ref>> unpacked =
            isPoison(items) ? std::nullopt
                            : iterate(*this, items, starred->value->getLoc());
        if (!unpacked) {
          invalid = true;
          continue;
        }
        llvm::append_range(values, *unpacked);
        continue;
      }
      Ref value = eval(*element);
      // Elements are values: A[i] in a tuple is read now, regions stay.
      if (auto *access = llvm::dyn_cast<AccessObject>(value.get());
          access && access->isElement())
        value = load(value, element->getLoc());
      invalid |= isPoison(value);
      values.push_back(value);
    }
    // One invalid element makes the whole invalid, so that a loop that
    // nests it deeper reports the first level too deep only.
    if (invalid)
      return poison();
    if (auto *list = llvm::dyn_cast<ListExpr>(&expr); list && list->isSet)
      return buildSet(values, expr.getLoc());
    return checkNesting(tuple(std::move(values), llvm::isa<ListExpr>(expr)),
                        expr.getLoc());
  }
  case Expr::Kind::Dict: {
    const auto &dict = llvm::cast<DictExpr>(expr);
    DictBuilder entries;
    bool invalid = false;
    for (auto [key, value] : llvm::zip(dict.keys, dict.values)) {
      if (!key) {
        Ref mapping = eval(*value);
        auto *source = llvm::dyn_cast<DictObject>(mapping.get());
        if (!source) {
          if (!isPoison(mapping))
            error(value->getLoc(), "'**' in a dict needs a dict, got a " +
                                       getTypeName(*mapping));
          invalid = true;
          continue;
        }
        for (const auto &[k, v] : source->entries)
          entries.put(k, v);
        continue;
      }
      Ref k = eval(*key), v = eval(*value);
      invalid |= isPoison(k) || isPoison(v);
      entries.put(k, v);
    }
    if (invalid)
      return poison();
    return checkNesting(std::make_shared<DictObject>(entries.take()),
                        expr.getLoc());
  }
  case Expr::Kind::Attribute:
    return evalAttribute(llvm::cast<AttributeExpr>(expr));
  case Expr::Kind::Call:
    return evalCall(llvm::cast<CallExpr>(expr));
  case Expr::Kind::Subscript:
    return evalSubscript(llvm::cast<SubscriptExpr>(expr));
  case Expr::Kind::Slice:
    return error(expr.getLoc(), "a slice is only valid inside [...]");
  case Expr::Kind::Binary: {
    const auto &binaryExpr = llvm::cast<BinaryExpr>(expr);
    // Element reads get their operand's location, which diagnostics about
    // the access (its bounds) point at.
    Ref lhs = load(eval(*binaryExpr.lhs), binaryExpr.lhs->getLoc());
    Ref rhs = load(eval(*binaryExpr.rhs), binaryExpr.rhs->getLoc());
    return binary(binaryExpr.op, lhs, rhs, binaryExpr.getLoc());
  }
  case Expr::Kind::Unary: {
    const auto &unaryExpr = llvm::cast<UnaryExpr>(expr);
    return unary(unaryExpr.op, eval(*unaryExpr.operand), unaryExpr.getLoc());
  }
  case Expr::Kind::BoolOp:
    return evalBoolOp(llvm::cast<BoolOpExpr>(expr));
  case Expr::Kind::Compare:
    return evalCompare(llvm::cast<CompareExpr>(expr));
  case Expr::Kind::IfExp: {
    const auto &ifExpr = llvm::cast<IfExpr>(expr);
    Ref cond = load(eval(*ifExpr.cond), ifExpr.cond->getLoc());
    if (isPoison(cond))
      return cond;
    if (std::optional<bool> known = truth(cond, ifExpr.cond->getLoc()))
      return eval(*known ? *ifExpr.then : *ifExpr.otherwise);
    Ref a = eval(*ifExpr.then);
    Ref b = eval(*ifExpr.otherwise);
    return select(cond, a, b, ifExpr.getLoc());
  }
  case Expr::Kind::Comprehension:
    return evalComprehension(llvm::cast<ComprehensionExpr>(expr));
  case Expr::Kind::Starred:
    return error(expr.getLoc(), "'*' unpacks only a call's arguments in "
                                ".tile");
  case Expr::Kind::FString:
    return evalFString(llvm::cast<FStringExpr>(expr));
  case Expr::Kind::Lambda: {
    // A function like a def's, closing over the scope it is made in.
    const FunctionDefStmt &def = *llvm::cast<LambdaExpr>(expr).def;
    auto function = std::make_shared<FunctionObject>();
    function->def = &def;
    function->closure = scope;
    for (const Parameter &param : def.params)
      function->defaults.push_back(
          param.defaultValue
              ? load(eval(*param.defaultValue), param.defaultValue->getLoc())
              : nullptr);
    return function;
  }
  }
  return poison();
}

Ref Evaluator::evalFString(const FStringExpr &expr) {
  std::string text = expr.pieces.front();
  for (auto [field, piece] :
       llvm::zip(expr.fields, llvm::drop_begin(expr.pieces))) {
    SMLoc loc = field.value->getLoc();
    Ref value = load(eval(*field.value), loc);
    if (isPoison(value))
      return value;
    if (llvm::isa<ScalarObject>(*value))
      return error(loc, "an f-string's fields must be known at compile time");
    // `f"{latency:.3f} ms"` on the host program's values is the host's.
    if (auto *host = llvm::dyn_cast<HostObject>(value.get()))
      return std::make_shared<HostObject>(host->description);
    if (field.conversion == 'r' || field.conversion == 'a')
      value = string(repr(*value));
    else if (field.conversion == 's')
      value = string(str(*value));
    std::optional<std::string> formatted = formatValue(*value, field.spec);
    if (!formatted)
      return error(loc, "format spec '" + field.spec + "' does not apply to " +
                            "a " + getTypeName(*value));
    text += *formatted;
    text += piece;
  }
  return string(std::move(text));
}

Ref Evaluator::evalComprehension(const ComprehensionExpr &expr) {
  // As in Python 3, the targets live in a scope of the comprehension's own.
  std::shared_ptr<Scope> outer = scope;
  scope = makeScope(outer);
  std::vector<Ref> elements;
  DictBuilder entries;
  bool invalid = false;
  std::function<void(size_t)> run = [&](size_t level) {
    if (invalid || source.tooManyErrors())
      return;
    if (level == expr.clauses.size()) {
      Ref element = load(eval(*expr.element), expr.element->getLoc());
      invalid |= isPoison(element);
      if (expr.value) {
        Ref value = load(eval(*expr.value), expr.value->getLoc());
        invalid |= isPoison(value);
        entries.put(element, value);
      } else {
        elements.push_back(element);
      }
      return;
    }
    const ComprehensionExpr::Clause &clause = expr.clauses[level];
    std::optional<std::vector<Ref>> items =
        iterate(*this, load(eval(*clause.iter), clause.iter->getLoc()),
                clause.iter->getLoc());
    if (!items) {
      invalid = true;
      return;
    }
    for (const Ref &item : *items) {
      if (++compileTimeSteps > kMaxCompileTimeSteps) {
        error(expr.getLoc(), "compile-time evaluation takes too many steps");
        invalid = true;
        return;
      }
      assign(*clause.target, item, clause.target->getLoc());
      bool taken = true;
      for (const ExprPtr &condition : clause.conditions) {
        Ref cond = load(eval(*condition), condition->getLoc());
        if (isPoison(cond)) {
          invalid = true;
          return;
        }
        std::optional<bool> known = truth(cond, condition->getLoc());
        if (!known) {
          error(condition->getLoc(), "a comprehension's condition must be "
                                     "known at compile time");
          invalid = true;
          return;
        }
        if (!*known) {
          taken = false;
          break;
        }
      }
      if (taken)
        run(level + 1);
      if (invalid)
        return;
    }
  };
  run(0);
  scope->clear();
  scope = outer;
  if (invalid)
    return poison();
  if (expr.form == ComprehensionExpr::Form::Dict)
    return checkNesting(std::make_shared<DictObject>(entries.take()),
                        expr.getLoc());
  if (expr.form == ComprehensionExpr::Form::Set)
    return buildSet(elements, expr.getLoc());
  return checkNesting(tuple(std::move(elements), /*isList=*/true),
                      expr.getLoc());
}

Ref Evaluator::evalName(const NameExpr &expr) {
  if (Scope::Binding *binding = scope->lookup(expr.name)) {
    Ref value = binding->value;
    if (auto *dim = llvm::dyn_cast<DynamicDimObject>(value.get()))
      if (Ref resolved = resolveDynamicDim(*dim, expr.getLoc()))
        return resolved;
    if (auto *buffer = llvm::dyn_cast<BufferObject>(value.get());
        buffer && buffer->isVar)
      return readVariable(*buffer, expr.getLoc());
    return value;
  }
  auto builtin = namespaces.python->members.find(expr.name);
  if (builtin != namespaces.python->members.end())
    return builtin->second;

  auto expired = expiredNames.find(expr.name);
  if (expired != expiredNames.end())
    return error(expr.getLoc(),
                 "'" + expr.name +
                     "' is not defined here: it was assigned inside a "
                     "run-time loop or if, and such names end with it; use "
                     "T.alloc_var to carry a value out");
  std::vector<std::string> names;
  scope->collectNames(names);
  for (const auto &entry : namespaces.python->members)
    names.push_back(entry.first);
  std::string hint = suggest(expr.name, names);
  if (expr.name == "T")
    hint = "";
  return error(
      expr.getLoc(),
      "name '" + expr.name + "' is not defined" +
          (expr.name == "T"
               ? "; add 'import tilelang.language as T'"
               : (hint.empty() ? "" : "; did you mean '" + hint + "'?")));
}

namespace {
/// A name of TileLang's language that tilec does not take.
struct UnsupportedName {
  StringRef name, reason, instead;
};
} // namespace

static constexpr UnsupportedName kUnsupportedNames[] = {
#define UNSUPPORTED(name, reason, instead) {name, reason, instead},
#include "tilec/Frontend/Unsupported.def"
};

Ref Evaluator::getAttribute(const Ref &value, StringRef attr, SMLoc loc) {
  if (isPoison(value))
    return value;
  // The host program's values stay unevaluated: only a use that needs one
  // is an error.
  if (auto *host = llvm::dyn_cast<HostObject>(value.get()))
    return std::make_shared<HostObject>(host->description + "." + attr.str());
  if (auto *mod = llvm::dyn_cast<ModuleObject>(value.get())) {
    auto it = mod->members.find(attr.str());
    if (it != mod->members.end())
      return it->second;
    if (isHostName(*mod, attr))
      return std::make_shared<HostObject>(mod->name + "." + attr.str());
    std::vector<std::string> names;
    for (const auto &member : mod->members)
      names.push_back(member.first);
    if (mod->name == "T") {
      for (const UnsupportedName &unsupported : kUnsupportedNames) {
        if (attr == unsupported.name)
          return error(loc, "T." + attr + " is not supported by tilec: " +
                                unsupported.reason + "; " +
                                unsupported.instead);
        names.push_back(unsupported.name.str());
      }
    }
    std::string hint = suggest(attr, names);
    return error(loc, mod->name + " has no attribute '" + attr + "'" +
                          (hint.empty() ? ""
                                        : "; did you mean '" + mod->name + "." +
                                              hint + "'?"));
  }
  if (auto *buffer = llvm::dyn_cast<BufferObject>(value.get())) {
    if (attr == "dtype")
      return std::make_shared<DTypeObject>(buffer->dtype);
    if (attr == "shape")
      return tuple(buffer->shape);
    if (attr == "name")
      return string(buffer->name);
    if (attr == "ndim")
      return integer(buffer->shape.size());
    // `T.Tensor(shape, dtype, X.data)` reshapes X, as T.reshape does.
    if (attr == "data")
      return std::make_shared<DataHandleObject>(
          std::static_pointer_cast<const BufferObject>(value));
    return error(loc, "buffer '" + buffer->name + "' has no attribute '" +
                          attr + "' (it has dtype, shape, ndim and name)");
  }
  if (auto *spec = llvm::dyn_cast<TensorSpecObject>(value.get())) {
    if (attr == "dtype")
      return std::make_shared<DTypeObject>(spec->dtype);
    if (attr == "shape")
      return tuple(spec->shape);
  }
  if (auto *dtype = llvm::dyn_cast<DTypeObject>(value.get())) {
    if (attr == "bits")
      return integer(dtype->dtype.getWidth());
    // The torch dtype, for the host program's tensors.
    if (attr == "as_torch")
      return std::make_shared<HostObject>(dtype->dtype.name + ".as_torch");
  }
  if (Ref method = getMethod(value, attr))
    return method;
  // Run-time values and buffer elements: their dtype, and conversions.
  auto *access = llvm::dyn_cast<AccessObject>(value.get());
  if (llvm::isa<ScalarObject>(value.get()) || (access && access->isElement())) {
    if (attr == "dtype")
      return std::make_shared<DTypeObject>(dtypeOf(load(value, loc)));
    if (attr == "astype")
      return builtin(
          "astype", [value](Evaluator &eval, const CallArgs &call) -> Ref {
            std::optional<Args> args =
                bindArgs(eval, call, "astype", {"dtype"}, 1);
            if (!args)
              return poison();
            std::optional<DType> dtype =
                eval.getDType((*args)[0], args->loc(0), "astype");
            if (!dtype)
              return poison();
            return eval.cast(eval.load(value, call.loc), *dtype, call.loc);
          });
  }
  if (auto *pending = llvm::dyn_cast<PendingTensorObject>(value.get()))
    return error(loc, "tensor parameter '" + pending->name +
                          "' has no type yet; annotate it first (" +
                          pending->name + ": T.Tensor(shape, dtype))");
  // `kernel.compile(...)`, `kernel.get_profiler()`: TileLang's host API of
  // its kernels, which tilec replaces by the generated header.
  if (auto *function = llvm::dyn_cast<FunctionObject>(value.get());
      function && (function->isPrimFunc || function->isJit))
    return std::make_shared<HostObject>(function->def->name + "." + attr.str());
  // Sorting in place needs a key function's rules; sorted() has them.
  StringRef hint =
      llvm::isa<TupleObject>(*value) && attr == "sort" ? "; use sorted()"
      : llvm::isa<SetObject>(*value)
          ? "; sets do not change in .tile: make a new one, as s | {x}"
          : "";
  return error(loc, "a " + getTypeName(*value) + " has no attribute '" + attr +
                        "'" + hint);
}

/// Whether `attr` of `value` is a method that changes it in place.
static bool isChangingMethod(const Object &value, StringRef attr) {
  if (!isChangeable(value))
    return false;
  if (llvm::isa<DictObject>(value))
    return llvm::is_contained({"update", "setdefault", "pop", "clear"}, attr);
  return llvm::is_contained(
      {"append", "extend", "insert", "pop", "remove", "clear", "reverse"},
      attr);
}

Ref Evaluator::evalAttribute(const AttributeExpr &expr) {
  Ref value = eval(*expr.value);
  if (isChangingMethod(*value, expr.attr) &&
      !checkChangeable(*expr.value, expr.attrLoc))
    return poison();
  return getAttribute(value, expr.attr, expr.attrLoc);
}

Ref Evaluator::evalCall(const CallExpr &expr) {
  Ref callee = eval(*expr.callee);
  auto *builtin = llvm::dyn_cast<BuiltinObject>(callee.get());
  bool takesVariables = builtin && builtin->takesVariables;
  auto eval = [&](const Expr &arg) -> Ref {
    if (takesVariables && lookupVariable(arg))
      return scope->lookup(llvm::cast<NameExpr>(arg).name)->value;
    return this->eval(arg);
  };
  CallArgs args;
  args.loc = expr.getLoc();
  for (const ExprPtr &arg : expr.args) {
    // `*value`: each item an argument.
    if (auto *starred = llvm::dyn_cast<StarredExpr>(arg.get())) {
      Ref value = load(eval(*starred->value), starred->value->getLoc());
      std::optional<std::vector<Ref>> items =
          iterate(*this, value, starred->value->getLoc());
      if (!items)
        return poison();
      for (Ref &item : *items) {
        args.args.push_back(std::move(item));
        args.argLocs.push_back(arg->getLoc());
      }
      continue;
    }
    args.args.push_back(eval(*arg));
    args.argLocs.push_back(arg->getLoc());
  }
  for (const Keyword &keyword : expr.keywords) {
    if (!keyword.name.empty()) {
      args.keywords.push_back({keyword.name, eval(*keyword.value)});
      args.keywordLocs.push_back(keyword.loc);
      continue;
    }
    // `**value`: a dict of string keys, each a keyword argument.
    Ref value = load(eval(*keyword.value), keyword.value->getLoc());
    if (isPoison(value))
      return value;
    auto *dict = llvm::dyn_cast<DictObject>(value.get());
    if (!dict)
      return error(keyword.value->getLoc(),
                   "argument after ** must be a dict, not a " +
                       getTypeName(*value));
    for (const auto &[key, entry] : dict->entries) {
      auto *name = llvm::dyn_cast<StrObject>(key.get());
      if (!name)
        return error(keyword.value->getLoc(), "keywords must be strings");
      for (const auto &existing : args.keywords)
        if (existing.first == name->value)
          return error(keyword.loc,
                       "keyword argument '" + name->value + "' given twice");
      args.keywords.push_back({name->value, entry});
      args.keywordLocs.push_back(keyword.loc);
    }
  }
  return call(callee, args, expr.getLoc());
}

/// Whether `op`, an op of an operand of `and` / `or` after a run-time one,
/// must run only when that one lets it: it reads a tensor or shared memory
/// (`i < n and X[i] > 0` reads X[i] only for i < n), or has other
/// effects. Reads of registers (fragments, locals, variables) cannot fault.
static bool needsShortCircuit(mlir::Operation *op) {
  using tilec::tile::MemoryScope;
  if (auto load = llvm::dyn_cast<mlir::memref::LoadOp>(op)) {
    mlir::Type type = load.getMemRef().getType();
    return !tilec::tile::isInScope(type, MemoryScope::Local) &&
           !tilec::tile::isInScope(type, MemoryScope::Fragment);
  }
  return !mlir::isMemoryEffectFree(op);
}

Ref Evaluator::evalBoolOp(const BoolOpExpr &expr) {
  // Compile-time operands short-circuit as in Python. A run-time operand
  // after a run-time one is evaluated under an scf.if on it when it reads
  // memory (as C's && and || do in TileLang's generated code), and combined
  // with andi / ori otherwise.
  bool isAnd = expr.op == BoolOp::And;
  mlir::Type i1 = builder.getI1Type();
  Ref runtime;
  for (const ExprPtr &operandExpr : expr.operands) {
    mlir::scf::IfOp guard;
    mlir::Block *evaluated = nullptr;
    if (runtime) {
      // `a and b` evaluates b where a holds, `a or b` where it does not.
      mlir::Value previous = llvm::cast<ScalarObject>(*runtime).value;
      guard = mlir::scf::IfOp::create(builder, getLoc(operandExpr->getLoc()),
                                      i1, previous, /*withElseRegion=*/true);
      evaluated = isAnd ? guard.thenBlock() : guard.elseBlock();
    }
    Ref operand;
    mlir::Value cond;
    {
      mlir::OpBuilder::InsertionGuard insertion(builder);
      if (evaluated)
        builder.setInsertionPointToStart(evaluated);
      operand = load(eval(*operandExpr), operandExpr->getLoc());
      if (!isPoison(operand) && !truth(operand, operandExpr->getLoc()))
        cond = materializeCondition(operand, operandExpr->getLoc());
    }
    if (guard) {
      bool shortCircuit =
          cond && evaluated
                      ->walk([](mlir::Operation *op) {
                        return needsShortCircuit(op)
                                   ? mlir::WalkResult::interrupt()
                                   : mlir::WalkResult::advance();
                      })
                      .wasInterrupted();
      mlir::Location loc = getLoc(operandExpr->getLoc());
      if (shortCircuit) {
        mlir::OpBuilder::InsertionGuard insertion(builder);
        builder.setInsertionPointToEnd(evaluated);
        mlir::scf::YieldOp::create(builder, loc, cond);
        mlir::Block *other = isAnd ? guard.elseBlock() : guard.thenBlock();
        builder.setInsertionPointToEnd(other);
        mlir::Value decided =
            mlir::arith::ConstantIntOp::create(builder, loc, !isAnd, 1);
        mlir::scf::YieldOp::create(builder, loc, decided);
        runtime = std::make_shared<ScalarObject>(
            guard.getResult(0), *lookupDType("bool", getContext()));
        continue;
      }
      // Nothing to guard: the operand's ops run before the if, which goes.
      while (!evaluated->empty())
        evaluated->front().moveBefore(guard);
      guard.erase();
    }
    if (isPoison(operand))
      return operand;
    if (std::optional<bool> known = truth(operand, operandExpr->getLoc())) {
      if (*known != isAnd)
        return runtime ? (isAnd ? boolean(false) : boolean(true)) : operand;
      if (&operandExpr == &expr.operands.back() && !runtime)
        return operand;
      continue;
    }
    if (runtime) {
      mlir::Value previous = llvm::cast<ScalarObject>(*runtime).value;
      cond = isAnd ? builder.createOrFold<arith::AndIOp>(getLoc(expr.getLoc()),
                                                         previous, cond)
                   : builder.createOrFold<arith::OrIOp>(getLoc(expr.getLoc()),
                                                        previous, cond);
    }
    runtime = std::make_shared<ScalarObject>(
        cond, *lookupDType("bool", getContext()));
  }
  return runtime ? runtime : boolean(isAnd);
}

/// `a and b` for two conditions, folded when either is known.
static Ref logicalAnd(Evaluator &eval, const Ref &a, const Ref &b, SMLoc at) {
  if (std::optional<bool> known = eval.truth(a, at))
    return *known ? b : a;
  if (std::optional<bool> known = eval.truth(b, at))
    return *known ? a : b;
  mlir::Value result = eval.getBuilder().createOrFold<arith::AndIOp>(
      eval.getLoc(at), eval.materializeCondition(a, at),
      eval.materializeCondition(b, at));
  return std::make_shared<ScalarObject>(
      result, *lookupDType("bool", eval.getContext()));
}

Ref Evaluator::evalCompare(const CompareExpr &expr) {
  // `a < b < c` is `a < b and b < c`, with b evaluated once.
  Ref left = load(eval(*expr.operands[0]), expr.operands[0]->getLoc());
  Ref result;
  for (size_t i = 0; i < expr.ops.size(); ++i) {
    Ref right =
        load(eval(*expr.operands[i + 1]), expr.operands[i + 1]->getLoc());
    Ref step = compare(expr.ops[i], left, right, expr.opLocs[i]);
    if (isPoison(step))
      return step;
    result = result ? logicalAnd(*this, result, step, expr.getLoc()) : step;
    if (std::optional<bool> known = truth(result, expr.getLoc());
        known && !*known)
      return result;
    left = right;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Subscripts
//===----------------------------------------------------------------------===//

Ref Evaluator::subscriptBuffer(
    const std::shared_ptr<const BufferObject> &buffer,
    const std::vector<Ref> &indices, const std::vector<SMLoc> &locs,
    SMLoc loc) {
  auto access = std::make_shared<AccessObject>();
  access->buffer = buffer;
  size_t rank = buffer->shape.size();
  if (indices.size() != rank)
    return error(loc, "'" + buffer->name + "' has " + llvm::Twine(rank) +
                          " dimension" + (rank == 1 ? "" : "s") + " but " +
                          llvm::Twine(indices.size()) + " ind" +
                          (indices.size() == 1 ? "ex was" : "ices were") +
                          " given");
  for (size_t dim = 0; dim < rank; ++dim) {
    Ref index = load(indices[dim], locs[dim]);
    if (isPoison(index))
      return index;
    std::optional<int64_t> extent = getConstInt(buffer->shape[dim]);
    if (std::optional<int64_t> constant = getConstInt(index)) {
      if (*constant < 0 && extent)
        index = integer(*constant + *extent);
      std::optional<int64_t> normalized = *getConstInt(index);
      if (*normalized < 0 || (extent && *normalized >= *extent))
        return error(locs[dim],
                     "index " + llvm::Twine(*constant) +
                         " is out of bounds for dimension " + llvm::Twine(dim) +
                         " of '" + buffer->name + "'" +
                         (extent ? " (extent " + llvm::Twine(*extent) + ")"
                                 : llvm::Twine("")));
    } else if (auto *scalar = llvm::dyn_cast<ScalarObject>(index.get())) {
      if (!scalar->dtype.isInteger())
        return error(locs[dim], "buffer indices must be integers, got a " +
                                    scalar->dtype.name + " value");
    } else {
      return error(locs[dim], "buffer indices must be integers, got a " +
                                  getTypeName(*index));
    }
    access->offsets.push_back(index);
    access->extents.push_back(std::nullopt);
  }
  return access;
}

const BufferObject *Evaluator::lookupVariable(const Expr &expr) {
  auto *name = llvm::dyn_cast<NameExpr>(&expr);
  Scope::Binding *binding = name ? scope->lookup(name->name) : nullptr;
  auto *buffer =
      binding ? llvm::dyn_cast<BufferObject>(binding->value.get()) : nullptr;
  return buffer && buffer->isVar ? buffer : nullptr;
}

Ref Evaluator::evalSubscript(const SubscriptExpr &expr, Ref base) {
  // A variable's name reads its value; catch `v[0]` before that.
  if (const BufferObject *variable = lookupVariable(*expr.value))
    return error(expr.getLoc(), "'" + variable->name +
                                    "' is a T.alloc_var variable; use its "
                                    "name without an index");
  if (!base)
    base = eval(*expr.value);
  if (isPoison(base))
    return base;
  // `Optional[int]`: a host value, as annotations of host code write.
  if (auto *host = llvm::dyn_cast<HostObject>(base.get()))
    return std::make_shared<HostObject>(host->description + "[...]");

  if (auto buffer = std::dynamic_pointer_cast<const BufferObject>(base)) {
    // Element indices first; slices then replace their dimensions.
    std::vector<Ref> indices;
    std::vector<SMLoc> locs;
    std::vector<const SliceExpr *> slices;
    for (const ExprPtr &index : expr.indices) {
      locs.push_back(index->getLoc());
      auto *slice = llvm::dyn_cast<SliceExpr>(index.get());
      slices.push_back(slice);
      indices.push_back(slice ? integer(0) : eval(*index));
    }
    Ref result = subscriptBuffer(buffer, indices, locs, expr.getLoc());
    if (isPoison(result))
      return result;
    auto access =
        std::make_shared<AccessObject>(llvm::cast<AccessObject>(*result));
    for (size_t dim = 0; dim < slices.size(); ++dim) {
      const SliceExpr *slice = slices[dim];
      if (!slice)
        continue;
      if (slice->step) {
        Ref step = load(eval(*slice->step), slice->step->getLoc());
        if (getConstInt(step) != 1)
          return error(slice->step->getLoc(),
                       "slices with a step are not supported in .tile");
      }
      const Ref &size = buffer->shape[dim];
      std::optional<int64_t> staticSize = getConstInt(size);
      Ref lower = slice->lower
                      ? load(eval(*slice->lower), slice->lower->getLoc())
                      : integer(0);
      Ref upper = slice->upper
                      ? load(eval(*slice->upper), slice->upper->getLoc())
                      : size;
      if (isPoison(lower) || isPoison(upper))
        return poison();
      for (const Ref &bound : {lower, upper}) {
        if (getConstInt(bound))
          continue;
        auto *scalar = llvm::dyn_cast<ScalarObject>(bound.get());
        if (!scalar || !scalar->dtype.isInteger())
          return error(slice->getLoc(), "slice bounds must be integers");
      }
      std::optional<int64_t> lo = getConstInt(lower), hi = getConstInt(upper);
      if (lo && *lo < 0 && staticSize)
        lo = *lo + *staticSize;
      if (hi && *hi < 0 && staticSize)
        hi = *hi + *staticSize;
      std::optional<int64_t> extent;
      if (lo && hi) {
        extent = *hi - *lo;
        if (*lo < 0 || (staticSize && *hi > *staticSize))
          return error(slice->getLoc(),
                       "slice " + llvm::Twine(*lo) + ":" + llvm::Twine(*hi) +
                           " is out of bounds for dimension " +
                           llvm::Twine(dim) + " of '" + buffer->name +
                           "' (extent " + llvm::Twine(staticSize.value_or(0)) +
                           ")");
        lower = integer(*lo);
      } else {
        std::optional<LinearForm> l = linearOf(lower), u = linearOf(upper);
        std::optional<LinearForm> difference;
        if (l && u)
          difference = addScaledLinear(*u, *l, -1);
        if (!difference || !difference->terms.empty())
          return error(slice->getLoc(),
                       "the extent of this slice must be known at compile "
                       "time: upper - lower should not depend on run-time "
                       "values (as in bx * 64:(bx + 1) * 64)");
        extent = difference->constant;
      }
      if (*extent <= 0)
        return error(slice->getLoc(),
                     "slice is empty (extent " + llvm::Twine(*extent) + ")");
      access->offsets[dim] = lower;
      access->extents[dim] = *extent;
    }
    return access;
  }

  if (auto *constructor = llvm::dyn_cast<BuiltinObject>(base.get());
      constructor && constructor->calledBySubscript) {
    CallArgs call;
    call.loc = expr.getLoc();
    for (const ExprPtr &index : expr.indices) {
      if (llvm::isa<SliceExpr>(index.get()))
        return error(index->getLoc(), constructor->name +
                                          "[...] takes a shape and a dtype, "
                                          "not a slice");
      Ref value = load(eval(*index), index->getLoc());
      if (isPoison(value))
        return value;
      call.args.push_back(value);
      call.argLocs.push_back(index->getLoc());
    }
    return constructor->handler(*this, call);
  }
  if (expr.indices.size() != 1)
    return error(expr.getLoc(), "a " + getTypeName(*base) + " takes one index");
  const Expr &indexExpr = *expr.indices.front();
  if (auto *sequence = llvm::dyn_cast<TupleObject>(base.get())) {
    int64_t size = sequence->elements.size();
    if (auto *slice = llvm::dyn_cast<SliceExpr>(&indexExpr)) {
      auto bound = [&](const ExprPtr &e, int64_t fallback) {
        if (!e)
          return std::optional<int64_t>(fallback);
        std::optional<int64_t> v = getConstInt(load(eval(*e), e->getLoc()));
        if (v && *v < 0)
          *v += size;
        if (v)
          *v = std::clamp<int64_t>(*v, 0, size);
        return v;
      };
      std::optional<int64_t> lo = bound(slice->lower, 0);
      std::optional<int64_t> hi = bound(slice->upper, size);
      if (!lo || !hi || slice->step)
        return error(slice->getLoc(), "sequence slices take compile-time "
                                      "integer bounds and no step");
      std::vector<Ref> elements;
      for (int64_t i = *lo; i < *hi; ++i)
        elements.push_back(sequence->elements[i]);
      return tuple(std::move(elements), sequence->isList);
    }
    Ref index = load(eval(indexExpr), indexExpr.getLoc());
    if (isPoison(index))
      return index;
    std::optional<int64_t> i = getConstInt(index);
    if (!i)
      return error(indexExpr.getLoc(), "a " + getTypeName(*base) +
                                           " index must be a compile-time "
                                           "integer");
    std::optional<int64_t> normalized = normalizeIndex(*i, size);
    if (!normalized)
      return error(indexExpr.getLoc(),
                   getTypeName(*base) + " index " + llvm::Twine(*i) +
                       " out of range (size " + llvm::Twine(size) + ")");
    return sequence->elements[*normalized];
  }
  if (auto *dict = llvm::dyn_cast<DictObject>(base.get())) {
    Ref key = load(eval(indexExpr), indexExpr.getLoc());
    if (std::pair<Ref, Ref> *entry = findEntry(*dict, key))
      return entry->second;
    return error(indexExpr.getLoc(), "key " + repr(*key) +
                                         " is not in the "
                                         "dict");
  }
  if (auto *str = llvm::dyn_cast<StrObject>(base.get())) {
    Ref index = load(eval(indexExpr), indexExpr.getLoc());
    std::optional<int64_t> i = getConstInt(index);
    std::optional<int64_t> normalized =
        i ? normalizeIndex(*i, str->value.size()) : std::nullopt;
    if (!normalized)
      return error(indexExpr.getLoc(), "string index out of range");
    return string(std::string(1, str->value[*normalized]));
  }
  if (llvm::isa<ScalarObject>(*base))
    return error(expr.getLoc(), "a run-time value cannot be indexed");
  return error(expr.getLoc(), "a " + getTypeName(*base) + " cannot be indexed");
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

bool Evaluator::bindParameters(
    const FunctionObject &function, const CallArgs &args, Scope &callScope,
    SMLoc loc, llvm::function_ref<Ref(const Parameter &)> fallback) {
  using Kind = Parameter::Kind;
  const auto &params = function.def->params;
  StringRef name = function.def->name;
  auto findKind = [&](Kind kind) -> const Parameter * {
    auto it = llvm::find_if(params,
                            [&](const Parameter &p) { return p.kind == kind; });
    return it == params.end() ? nullptr : &*it;
  };
  const Parameter *varPositional = findKind(Kind::VarPositional);
  const Parameter *varKeyword = findKind(Kind::VarKeyword);

  std::vector<Ref> values(params.size());
  std::vector<Ref> extraPositional;
  size_t positional = llvm::count_if(
      params, [](const Parameter &p) { return p.kind == Kind::Positional; });
  for (auto [i, arg] : llvm::enumerate(args.args)) {
    if (i < positional) {
      values[i] = arg;
      continue;
    }
    if (!varPositional) {
      error(loc, "'" + name + "' takes " + llvm::Twine(positional) +
                     " positional argument" + (positional == 1 ? "" : "s") +
                     " but " + llvm::Twine(args.args.size()) + " were given");
      return false;
    }
    extraPositional.push_back(arg);
  }
  std::vector<std::pair<Ref, Ref>> extraKeywords;
  for (const auto &[keyword, value] : args.keywords) {
    auto it = llvm::find_if(params, [&](const Parameter &p) {
      return p.name == keyword &&
             (p.kind == Kind::Positional || p.kind == Kind::KeywordOnly);
    });
    if (it == params.end()) {
      if (!varKeyword) {
        error(loc, "'" + name + "' has no parameter named '" + keyword + "'");
        return false;
      }
      extraKeywords.push_back({string(keyword), value});
      continue;
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
    if (params[i].kind == Kind::VarPositional) {
      values[i] = tuple(std::move(extraPositional));
    } else if (params[i].kind == Kind::VarKeyword) {
      values[i] = std::make_shared<DictObject>(std::move(extraKeywords));
    } else {
      if (!values[i] && fallback)
        values[i] = fallback(params[i]);
      if (!values[i])
        values[i] = function.defaults[i];
    }
    if (values[i] && isPoison(values[i])) {
      ok = false;
      continue;
    }
    if (!values[i]) {
      error(loc,
            "'" + name + "' is missing a value for " +
                (params[i].kind == Kind::KeywordOnly ? "keyword-only " : "") +
                "parameter '" + params[i].name + "'");
      ok = false;
      continue;
    }
    callScope.set(params[i].name, values[i], regionDepth, params[i].loc);
  }
  return ok;
}

Ref Evaluator::callFunction(
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
  // A function's body is no loop's: break stops at its boundary.
  std::vector<LoopContext> callerLoops;
  std::swap(callerLoops, enclosingLoops);
  returnValue = none();
  Flow flow = execBlock(function.def->body);
  std::swap(callerLoops, enclosingLoops);
  std::swap(scope, callScope);
  --callDepth;
  Ref result = flow == Flow::Return ? returnValue : none();
  returnValue = nullptr;
  return result;
}

Ref Evaluator::call(const Ref &callee, const CallArgs &args, SMLoc loc) {
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
  if (auto *function = llvm::dyn_cast<FunctionObject>(callee.get())) {
    // A kernel called on the host program's tensors runs there: host code.
    bool hostArgs = llvm::any_of(
        args.args, [](const Ref &arg) { return llvm::isa<HostObject>(*arg); });
    if ((function->isPrimFunc || function->isJit) && hostArgs)
      return std::make_shared<HostObject>(function->def->name + "(...)");
    return callFunction(*function, args, loc);
  }
  if (auto *host = llvm::dyn_cast<HostObject>(callee.get()))
    return std::make_shared<HostObject>(host->description + "(...)");
  if (auto *dtype = llvm::dyn_cast<DTypeObject>(callee.get())) {
    // T.float32(x) converts like T.cast(x, "float32").
    if (args.args.size() != 1 || !args.keywords.empty())
      return error(loc, "a dtype called as a function converts one value");
    return cast(load(args.args.front(), args.argLocs.front()), dtype->dtype,
                loc);
  }
  return error(loc, "a " + getTypeName(*callee) + " is not callable");
}
