//===- MathBuiltins.cpp - Scalar math in .tile ----------------------------===//
//
// Part of tilec. The math functions fold on constants and emit math/arith
// ops on run-time values; T.max, T.min and T.abs are also Python's max, min
// and abs.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
namespace arith = mlir::arith;

namespace {
enum class MathFn {
  Exp,
  Exp2,
  Log,
  Log2,
  Sqrt,
  Rsqrt,
  Sigmoid,
  Tanh,
  Floor,
  Ceil
};
} // namespace

static double evalMath(MathFn fn, double x) {
  switch (fn) {
  case MathFn::Exp:
    return std::exp(x);
  case MathFn::Exp2:
    return std::exp2(x);
  case MathFn::Log:
    return std::log(x);
  case MathFn::Log2:
    return std::log2(x);
  case MathFn::Sqrt:
    return std::sqrt(x);
  case MathFn::Rsqrt:
    return 1.0 / std::sqrt(x);
  case MathFn::Sigmoid:
    return 1.0 / (1.0 + std::exp(-x));
  case MathFn::Tanh:
    return std::tanh(x);
  case MathFn::Floor:
    return std::floor(x);
  case MathFn::Ceil:
    return std::ceil(x);
  }
  return x;
}

static BuiltinObject::Handler mathFunction(MathFn fn, std::string name) {
  return [fn, name](Evaluator &eval, const CallArgs &call) -> Ref {
    std::optional<Args> args = bindArgs(eval, call, name, {"x"}, 1);
    if (!args)
      return poison();
    Ref x = eval.toScalar((*args)[0], args->loc(0));
    if (isPoison(x))
      return x;
    if (std::optional<double> value = getConstNumber(x))
      return floating(evalMath(fn, *value));
    DType type = eval.dtypeOf(x);
    if (!type.isFloat())
      type = *lookupDType("float32", eval.getContext());
    mlir::Value v = eval.materialize(x, type, args->loc(0));
    mlir::OpBuilder &b = eval.getBuilder();
    mlir::Location loc = eval.getLoc(call.loc);
    mlir::Value result;
    switch (fn) {
    case MathFn::Exp:
      result = mlir::math::ExpOp::create(b, loc, v);
      break;
    case MathFn::Exp2:
      result = mlir::math::Exp2Op::create(b, loc, v);
      break;
    case MathFn::Log:
      result = mlir::math::LogOp::create(b, loc, v);
      break;
    case MathFn::Log2:
      result = mlir::math::Log2Op::create(b, loc, v);
      break;
    case MathFn::Sqrt:
      result = mlir::math::SqrtOp::create(b, loc, v);
      break;
    case MathFn::Rsqrt:
      result = mlir::math::RsqrtOp::create(b, loc, v);
      break;
    case MathFn::Tanh:
      result = mlir::math::TanhOp::create(b, loc, v);
      break;
    case MathFn::Floor:
      result = mlir::math::FloorOp::create(b, loc, v);
      break;
    case MathFn::Ceil:
      result = mlir::math::CeilOp::create(b, loc, v);
      break;
    case MathFn::Sigmoid: {
      // 1 / (1 + exp(-x))
      mlir::Value one =
          arith::ConstantOp::create(b, loc, b.getFloatAttr(type.type, 1.0));
      mlir::Value negated = arith::NegFOp::create(b, loc, v);
      mlir::Value denominator = arith::AddFOp::create(
          b, loc, one, mlir::math::ExpOp::create(b, loc, negated));
      result = arith::DivFOp::create(b, loc, one, denominator);
      break;
    }
    }
    return std::make_shared<ScalarObject>(result, type);
  };
}

static bool isNumberLike(const Ref &value) {
  return llvm::isa<IntObject, FloatObject, BoolObject, ScalarObject,
                   AccessObject>(*value);
}

/// T.max / T.min / max / min: Python's on constants, maxnumf/maxsi/... on
/// run-time values.
static BuiltinObject::Handler minMax(bool isMax, std::string name) {
  return [isMax, name](Evaluator &eval, const CallArgs &call) -> Ref {
    if (!call.keywords.empty())
      return eval.error(call.keywordLocs.front(),
                        name + "() takes no keyword arguments");
    std::vector<Ref> operands;
    std::vector<SMLoc> locs;
    if (call.args.size() == 1 && isNumberLike(call.args.front()))
      return eval.error(call.loc, name + "() of one value: give two or more "
                                         "values, or a sequence of them");
    if (call.args.size() == 1) {
      // max(sequence)
      std::optional<std::vector<Ref>> items =
          iterate(eval, call.args.front(), call.argLocs.front());
      if (!items)
        return poison();
      operands = std::move(*items);
      locs.assign(operands.size(), call.argLocs.front());
    } else {
      operands = call.args;
      locs = call.argLocs;
    }
    if (operands.empty())
      return eval.error(call.loc, name + "() needs at least one value");
    Ref best = eval.toScalar(operands[0], locs[0]);
    for (size_t i = 1; i < operands.size(); ++i) {
      Ref next = eval.toScalar(operands[i], locs[i]);
      if (isPoison(best) || isPoison(next))
        return poison();
      std::optional<double> a = getConstNumber(best);
      std::optional<double> b = getConstNumber(next);
      if (a && b) {
        if (isMax ? *b > *a : *b < *a)
          best = next;
        continue;
      }
      DType type = eval.promote(best, next);
      mlir::Value l = eval.materialize(best, type, call.loc);
      mlir::Value r = eval.materialize(next, type, call.loc);
      mlir::OpBuilder &builder = eval.getBuilder();
      mlir::Location loc = eval.getLoc(call.loc);
      mlir::Value result;
      if (type.isFloat())
        result = isMax ? builder.createOrFold<arith::MaxNumFOp>(loc, l, r)
                       : builder.createOrFold<arith::MinNumFOp>(loc, l, r);
      else if (type.isUnsigned)
        result = isMax ? builder.createOrFold<arith::MaxUIOp>(loc, l, r)
                       : builder.createOrFold<arith::MinUIOp>(loc, l, r);
      else
        result = isMax ? builder.createOrFold<arith::MaxSIOp>(loc, l, r)
                       : builder.createOrFold<arith::MinSIOp>(loc, l, r);
      best = std::make_shared<ScalarObject>(result, type);
    }
    return best;
  };
}

static Ref absValue(Evaluator &eval, const CallArgs &call, StringRef name) {
  std::optional<Args> args = bindArgs(eval, call, name, {"x"}, 1);
  if (!args)
    return poison();
  Ref x = eval.toScalar((*args)[0], args->loc(0));
  if (isPoison(x))
    return x;
  if (std::optional<int64_t> i = getConstInt(x)) {
    if (*i == INT64_MIN)
      return eval.error(call.loc, "integer overflow in abs()");
    return integer(*i < 0 ? -*i : *i);
  }
  if (auto *f = llvm::dyn_cast<FloatObject>(x.get()))
    return floating(std::fabs(f->value));
  auto &scalar = llvm::cast<ScalarObject>(*x);
  mlir::Location loc = eval.getLoc(call.loc);
  mlir::Value result =
      scalar.dtype.isFloat()
          ? mlir::math::AbsFOp::create(eval.getBuilder(), loc, scalar.value)
                .getResult()
          : mlir::math::AbsIOp::create(eval.getBuilder(), loc, scalar.value)
                .getResult();
  return std::make_shared<ScalarObject>(result, scalar.dtype);
}

static Ref ceildiv(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "T.ceildiv", {"a", "b"}, 2);
  if (!args)
    return poison();
  Ref a = eval.toScalar((*args)[0], args->loc(0));
  Ref b = eval.toScalar((*args)[1], args->loc(1));
  if (isPoison(a) || isPoison(b))
    return poison();
  std::optional<int64_t> ca = getConstInt(a);
  std::optional<int64_t> cb = getConstInt(b);
  if (cb && *cb == 0)
    return eval.error(args->loc(1), "division by zero in T.ceildiv");
  if (ca && cb)
    return integer(llvm::divideCeilSigned(*ca, *cb));
  for (const Ref &operand : {a, b})
    if (!getConstInt(operand) && !eval.dtypeOf(operand).isInteger())
      return eval.error(call.loc, "T.ceildiv takes integers");
  DType type = eval.promote(a, b);
  mlir::Value result = eval.getBuilder().createOrFold<arith::CeilDivSIOp>(
      eval.getLoc(call.loc), eval.materialize(a, type, call.loc),
      eval.materialize(b, type, call.loc));
  return std::make_shared<ScalarObject>(result, type);
}

void tilec::frontend::addMathBuiltins(ModuleObject &language,
                                      ModuleObject &python) {
  auto &m = language.members;
  m["ceildiv"] = builtin("T.ceildiv", ceildiv);
  m["max"] = builtin("T.max", minMax(true, "T.max"));
  m["min"] = builtin("T.min", minMax(false, "T.min"));
  // T.clamp(x, lo, hi): T.min(T.max(x, lo), hi).
  m["clamp"] =
      builtin("T.clamp", [](Evaluator &eval, const CallArgs &call) -> Ref {
        std::optional<Args> args =
            bindArgs(eval, call, "T.clamp", {"x", "lo", "hi"}, 3);
        if (!args)
          return poison();
        auto bound = [&](bool isMax, Ref value, size_t limit) {
          CallArgs pair;
          pair.loc = call.loc;
          pair.args = {std::move(value), (*args)[limit]};
          pair.argLocs = {args->loc(0), args->loc(limit)};
          return minMax(isMax, "T.clamp")(eval, pair);
        };
        Ref raised = bound(/*isMax=*/true, (*args)[0], 1);
        if (isPoison(raised))
          return raised;
        return bound(/*isMax=*/false, raised, 2);
      });
  // TVM's T.floordiv(a, b), T.floormod(a, b), T.shift_left(a, b)... :
  // Python's operators.
  for (auto [name, op] : {std::pair("floordiv", BinaryOp::FloorDiv),
                          std::pair("floormod", BinaryOp::Mod),
                          std::pair("shift_left", BinaryOp::LShift),
                          std::pair("shift_right", BinaryOp::RShift),
                          std::pair("bitwise_and", BinaryOp::BitAnd),
                          std::pair("bitwise_or", BinaryOp::BitOr),
                          std::pair("bitwise_xor", BinaryOp::BitXor)}) {
    std::string qualified = "T." + std::string(name);
    m[name] = builtin(qualified, [qualified, op = op](Evaluator &eval,
                                                      const CallArgs &call) {
      std::optional<Args> args = bindArgs(eval, call, qualified, {"a", "b"}, 2);
      if (!args)
        return poison();
      return eval.binary(op, eval.load((*args)[0], args->loc(0)),
                         eval.load((*args)[1], args->loc(1)), call.loc);
    });
  }
  m["abs"] = builtin("T.abs", [](Evaluator &eval, const CallArgs &call) {
    return absValue(eval, call, "T.abs");
  });
  struct {
    const char *name;
    MathFn fn;
  } mathFunctions[] = {{"exp", MathFn::Exp},         {"exp2", MathFn::Exp2},
                       {"log", MathFn::Log},         {"log2", MathFn::Log2},
                       {"sqrt", MathFn::Sqrt},       {"rsqrt", MathFn::Rsqrt},
                       {"sigmoid", MathFn::Sigmoid}, {"tanh", MathFn::Tanh},
                       {"floor", MathFn::Floor},     {"ceil", MathFn::Ceil}};
  for (auto [name, fn] : mathFunctions)
    m[name] = builtin(std::string("T.") + name,
                      mathFunction(fn, std::string("T.") + name));
  m["if_then_else"] =
      builtin("T.if_then_else", [](Evaluator &eval, const CallArgs &call) {
        std::optional<Args> args =
            bindArgs(eval, call, "T.if_then_else", {"cond", "t", "f"}, 3);
        if (!args)
          return poison();
        return eval.select((*args)[0], (*args)[1], (*args)[2], call.loc);
      });
  m["infinity"] =
      builtin("T.infinity", [](Evaluator &eval, const CallArgs &call) -> Ref {
        std::optional<Args> args =
            bindArgs(eval, call, "T.infinity", {"dtype"}, 1);
        if (!args)
          return poison();
        std::optional<DType> dtype =
            eval.getDType((*args)[0], args->loc(0), "T.infinity");
        if (!dtype)
          return poison();
        if (!dtype->isFloat())
          return eval.error(args->loc(0), "T.infinity needs a floating-point "
                                          "dtype, got " +
                                              dtype->name);
        return floating(std::numeric_limits<double>::infinity());
      });
  // T.cast(x, dtype), and TVM's T.Cast(dtype, value) with the dtype first.
  auto castBuiltin = [](std::string name, bool dtypeFirst) {
    return builtin(
        name, [name, dtypeFirst](Evaluator &eval, const CallArgs &call) -> Ref {
          std::optional<Args> args =
              dtypeFirst ? bindArgs(eval, call, name, {"dtype", "value"}, 2)
                         : bindArgs(eval, call, name, {"x", "dtype"}, 2);
          if (!args)
            return poison();
          size_t dtypeIndex = dtypeFirst ? 0 : 1, valueIndex = 1 - dtypeIndex;
          std::optional<DType> dtype =
              eval.getDType((*args)[dtypeIndex], args->loc(dtypeIndex), name);
          if (!dtype)
            return poison();
          return eval.cast((*args)[valueIndex], *dtype, args->loc(valueIndex));
        });
  };
  m["cast"] = castBuiltin("T.cast", /*dtypeFirst=*/false);
  m["Cast"] = castBuiltin("T.Cast", /*dtypeFirst=*/true);

  // T.reinterpret(value, dtype): the bits of a run-time value as another
  // type of the same width. TVM's order, (dtype, value), is TileLang's
  // older one and still accepted, told apart by the dtype coming first.
  m["reinterpret"] = builtin(
      "T.reinterpret", [](Evaluator &eval, const CallArgs &call) -> Ref {
        std::optional<Args> args =
            bindArgs(eval, call, "T.reinterpret", {"value", "dtype"}, 2);
        if (!args)
          return poison();
        unsigned valueArg = 0, dtypeArg = 1;
        if (llvm::isa<DTypeObject, StrObject>(*(*args)[0]))
          std::swap(valueArg, dtypeArg);
        std::optional<DType> dtype = eval.getDType(
            (*args)[dtypeArg], args->loc(dtypeArg), "T.reinterpret");
        Ref value = eval.load((*args)[valueArg], args->loc(valueArg));
        if (!dtype || isPoison(value))
          return poison();
        auto *scalar = llvm::dyn_cast<ScalarObject>(value.get());
        if (!scalar)
          return eval.error(args->loc(valueArg),
                            "T.reinterpret takes a typed run-time value; cast "
                            "a constant with T.cast first");
        if (scalar->dtype.getWidth() != dtype->getWidth() ||
            scalar->dtype.isIndex() || dtype->isIndex())
          return eval.error(
              call.loc, "T.reinterpret keeps the bits: " + scalar->dtype.name +
                            " and " + dtype->name +
                            " must have the same width");
        mlir::Value bits =
            arith::BitcastOp::create(eval.getBuilder(), eval.getLoc(call.loc),
                                     dtype->type, scalar->value);
        return std::make_shared<ScalarObject>(bits, *dtype);
      });

  python.members["min"] = builtin("min", minMax(false, "min"));
  python.members["max"] = builtin("max", minMax(true, "max"));
  python.members["abs"] =
      builtin("abs", [](Evaluator &eval, const CallArgs &call) {
        return absValue(eval, call, "abs");
      });
}
