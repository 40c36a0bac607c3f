//===- EvalOperators.cpp - Operators on .tile values ----------------------===//
//
// Part of tilec. Python semantics on compile-time values (checked integer
// arithmetic, floor division, tuple concatenation...), and arith/math IR on
// run-time values, with TileLang's promotion rules for mixed operands.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Evaluator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace tilec::frontend;
using llvm::SMLoc;
namespace arith = mlir::arith;

/// Longest string or sequence a compile-time operation may build.
static constexpr int64_t kMaxSequenceLength = 1 << 20;

//===----------------------------------------------------------------------===//
// Compile-time operators
//===----------------------------------------------------------------------===//

/// Python's floor division and modulo on integers.
static int64_t floorDiv(int64_t a, int64_t b) {
  return llvm::divideFloorSigned(a, b);
}

static int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

/// `a | b`, `a & b`, `a - b` and `a ^ b` of sets; null for other operands.
static Ref constSetBinary(Evaluator &eval, BinaryOp op, const Ref &lhs,
                          const Ref &rhs, SMLoc loc) {
  auto *l = llvm::dyn_cast<SetObject>(lhs.get());
  auto *r = llvm::dyn_cast<SetObject>(rhs.get());
  if (!l || !r)
    return nullptr;
  std::vector<Ref> items;
  auto keep = [&](const SetObject &from, const SetObject &other, bool inOther) {
    for (const Ref &element : from.elements)
      if (other.contains(*element) == inOther)
        items.push_back(element);
  };
  switch (op) {
  case BinaryOp::BitOr:
    items = l->elements;
    llvm::append_range(items, r->elements);
    break;
  case BinaryOp::BitAnd:
    keep(*l, *r, true);
    break;
  case BinaryOp::Sub:
    keep(*l, *r, false);
    break;
  case BinaryOp::BitXor:
    keep(*l, *r, false);
    keep(*r, *l, false);
    break;
  default:
    return nullptr;
  }
  return eval.buildSet(items, loc);
}

static Ref constSequenceBinary(Evaluator &eval, BinaryOp op, const Ref &lhs,
                               const Ref &rhs, SMLoc loc) {
  auto repeat = [&](auto &&make, size_t length, int64_t count) -> Ref {
    if (count > 0 && static_cast<int64_t>(length) > kMaxSequenceLength / count)
      return eval.error(loc, "sequence would be too long");
    return make(std::max<int64_t>(count, 0));
  };
  if (auto *l = llvm::dyn_cast<StrObject>(lhs.get())) {
    if (auto *r = llvm::dyn_cast<StrObject>(rhs.get());
        r && op == BinaryOp::Add)
      return string(l->value + r->value);
    if (std::optional<int64_t> count = getConstInt(rhs);
        count && op == BinaryOp::Mul)
      return repeat(
          [&](int64_t n) {
            std::string result;
            for (int64_t i = 0; i < n; ++i)
              result += l->value;
            return string(std::move(result));
          },
          l->value.size(), *count);
  }
  if (auto *l = llvm::dyn_cast<TupleObject>(lhs.get())) {
    if (auto *r = llvm::dyn_cast<TupleObject>(rhs.get());
        r && op == BinaryOp::Add && l->isList == r->isList) {
      std::vector<Ref> elements = l->elements;
      elements.insert(elements.end(), r->elements.begin(), r->elements.end());
      return tuple(std::move(elements), l->isList);
    }
    if (std::optional<int64_t> count = getConstInt(rhs);
        count && op == BinaryOp::Mul)
      return repeat(
          [&](int64_t n) {
            std::vector<Ref> elements;
            for (int64_t i = 0; i < n; ++i)
              elements.insert(elements.end(), l->elements.begin(),
                              l->elements.end());
            return tuple(std::move(elements), l->isList);
          },
          l->elements.size(), *count);
  }
  // int * sequence
  if (llvm::isa<StrObject, TupleObject>(*rhs) && getConstInt(lhs) &&
      op == BinaryOp::Mul)
    return constSequenceBinary(eval, op, rhs, lhs, loc);
  return nullptr;
}

static Ref constIntBinary(Evaluator &eval, BinaryOp op, int64_t a, int64_t b,
                          SMLoc loc) {
  int64_t result;
  auto overflow = [&] {
    return eval.error(loc, "integer overflow in compile-time arithmetic "
                           "(.tile integers are 64-bit)");
  };
  switch (op) {
  case BinaryOp::Add:
    if (llvm::AddOverflow(a, b, result))
      return overflow();
    return integer(result);
  case BinaryOp::Sub:
    if (llvm::SubOverflow(a, b, result))
      return overflow();
    return integer(result);
  case BinaryOp::Mul:
    if (llvm::MulOverflow(a, b, result))
      return overflow();
    return integer(result);
  case BinaryOp::Div:
    if (b == 0)
      return eval.error(loc, "division by zero");
    return floating(static_cast<double>(a) / static_cast<double>(b));
  case BinaryOp::FloorDiv:
  case BinaryOp::Mod:
    if (b == 0)
      return eval.error(loc, "division by zero");
    if (a == INT64_MIN && b == -1)
      return overflow();
    return integer(op == BinaryOp::FloorDiv ? floorDiv(a, b) : floorMod(a, b));
  case BinaryOp::Pow: {
    if (b < 0)
      return floating(std::pow(static_cast<double>(a), static_cast<double>(b)));
    int64_t acc = 1, base = a;
    for (int64_t e = b; e > 0; e >>= 1) {
      if (e & 1)
        if (llvm::MulOverflow(acc, base, acc))
          return overflow();
      if (e > 1 && llvm::MulOverflow(base, base, base))
        return overflow();
    }
    return integer(acc);
  }
  case BinaryOp::LShift:
    if (b < 0)
      return eval.error(loc, "negative shift count");
    // The result needs b more bits than a, plus the sign bit.
    if (b >= 63 || static_cast<int64_t>(llvm::countl_zero(
                       static_cast<uint64_t>(a < 0 ? ~a : a))) <= b)
      return overflow();
    return integer(a * (int64_t(1) << b));
  case BinaryOp::RShift:
    if (b < 0)
      return eval.error(loc, "negative shift count");
    return integer(b >= 63 ? (a < 0 ? -1 : 0) : a >> b);
  case BinaryOp::BitAnd:
    return integer(a & b);
  case BinaryOp::BitOr:
    return integer(a | b);
  case BinaryOp::BitXor:
    return integer(a ^ b);
  case BinaryOp::MatMul:
    break;
  }
  return eval.error(loc, "unsupported operand types for " + spell(op) +
                             ": 'int' and 'int'");
}

static Ref constFloatBinary(Evaluator &eval, BinaryOp op, double a, double b,
                            SMLoc loc) {
  switch (op) {
  case BinaryOp::Add:
    return floating(a + b);
  case BinaryOp::Sub:
    return floating(a - b);
  case BinaryOp::Mul:
    return floating(a * b);
  case BinaryOp::Div:
    if (b == 0.0)
      return eval.error(loc, "division by zero");
    return floating(a / b);
  case BinaryOp::FloorDiv:
    if (b == 0.0)
      return eval.error(loc, "division by zero");
    return floating(std::floor(a / b));
  case BinaryOp::Mod: {
    if (b == 0.0)
      return eval.error(loc, "division by zero");
    double r = std::fmod(a, b);
    if (r != 0.0 && ((r < 0) != (b < 0)))
      r += b;
    return floating(r);
  }
  case BinaryOp::Pow:
    return floating(std::pow(a, b));
  default:
    return eval.error(loc, "unsupported operand types for " + spell(op) +
                               ": 'float' and 'float'");
  }
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

Ref Evaluator::hostOperation(const Ref &lhs, const Ref &rhs) {
  auto *l = llvm::dyn_cast<HostObject>(lhs.get());
  auto *r = llvm::dyn_cast<HostObject>(rhs.get());
  if (!l && !r)
    return nullptr;
  // Named after the host value it comes from, which errors point at.
  return std::make_shared<HostObject>(l ? l->description : r->description);
}

/// Whether `value` names a type in an annotation: one of Python's types,
/// None or a dtype. (A name of the host program, `torch.Tensor`, makes any
/// operation a host value already.)
static bool isAnnotationType(const Ref &value) {
  if (llvm::isa<NoneObject, DTypeObject>(*value))
    return true;
  auto *builtin = llvm::dyn_cast<BuiltinObject>(value.get());
  return builtin && llvm::is_contained({"int", "float", "bool", "str", "tuple",
                                        "list", "dict", "set", "frozenset"},
                                       llvm::StringRef(builtin->name));
}

Ref Evaluator::unsupportedOperands(BinaryOp op, const Ref &lhs, const Ref &rhs,
                                   SMLoc at) {
  std::string hint;
  for (const Ref &operand : {lhs, rhs})
    if (auto *buffer = llvm::dyn_cast<BufferObject>(operand.get()))
      hint = "; index the buffer's elements, e.g. " + buffer->name + "[i]";
  return error(at, "unsupported operand types for " + spell(op) + ": '" +
                       getTypeName(*lhs) + "' and '" + getTypeName(*rhs) + "'" +
                       hint);
}

Ref Evaluator::binary(BinaryOp op, const Ref &lhsIn, const Ref &rhsIn,
                      SMLoc at) {
  Ref lhs = load(lhsIn, at), rhs = load(rhsIn, at);
  if (isPoison(lhs) || isPoison(rhs))
    return poison();
  // Arithmetic of the host program (`a @ b` on torch tensors) is the host's
  // too; only a use that needs its value is an error.
  if (Ref host = hostOperation(lhs, rhs))
    return host;
  // `tuple | None` in an annotation: a union of types, which only annotates.
  if (op == BinaryOp::BitOr && isAnnotationType(lhs) && isAnnotationType(rhs))
    return std::make_shared<HostObject>("a union of types");

  if (!llvm::isa<ScalarObject>(*lhs) && !llvm::isa<ScalarObject>(*rhs)) {
    if (Ref result = constSequenceBinary(*this, op, lhs, rhs, at))
      return result;
    if (Ref result = constSetBinary(*this, op, lhs, rhs, at))
      return result;
    std::optional<int64_t> li = getConstInt(lhs), ri = getConstInt(rhs);
    if (li && ri)
      return constIntBinary(*this, op, *li, *ri, at);
    std::optional<double> lf = getConstNumber(lhs), rf = getConstNumber(rhs);
    if (lf && rf)
      return constFloatBinary(*this, op, *lf, *rf, at);
    return unsupportedOperands(op, lhs, rhs, at);
  }

  for (const Ref &operand : {lhs, rhs})
    if (!isNumber(operand))
      return unsupportedOperands(op, lhs, rhs, at);
  if (!inFunction())
    return error(at, "run-time values can only be used inside a kernel");

  DType type = promote(lhs, rhs);
  mlir::Location loc = getLoc(at);
  // `x ** 2` and friends multiply; other powers need floats.
  if (op == BinaryOp::Pow) {
    std::optional<int64_t> exponent = getConstInt(rhs);
    if (exponent && *exponent >= 1 && *exponent <= 4 &&
        llvm::isa<ScalarObject>(*lhs)) {
      Ref result = lhs;
      for (int64_t i = 1; i < *exponent; ++i)
        result = binary(BinaryOp::Mul, result, lhs, at);
      return result;
    }
    if (!type.isFloat())
      return error(at, "'**' on run-time integers is not supported; "
                       "multiply, or convert to a float type");
  }
  mlir::Value l = materialize(lhs, type, at);
  mlir::Value r = materialize(rhs, type, at);

  if (type.isFloat()) {
    mlir::Value result;
    switch (op) {
    case BinaryOp::Add:
      result = builder.createOrFold<arith::AddFOp>(loc, l, r);
      break;
    case BinaryOp::Sub:
      result = builder.createOrFold<arith::SubFOp>(loc, l, r);
      break;
    case BinaryOp::Mul:
      result = builder.createOrFold<arith::MulFOp>(loc, l, r);
      break;
    case BinaryOp::Div:
      result = builder.createOrFold<arith::DivFOp>(loc, l, r);
      break;
    case BinaryOp::FloorDiv:
      result = builder.createOrFold<mlir::math::FloorOp>(
          loc, builder.createOrFold<arith::DivFOp>(loc, l, r));
      break;
    case BinaryOp::Mod: {
      mlir::Value quotient = builder.createOrFold<mlir::math::FloorOp>(
          loc, builder.createOrFold<arith::DivFOp>(loc, l, r));
      result = builder.createOrFold<arith::SubFOp>(
          loc, l, builder.createOrFold<arith::MulFOp>(loc, quotient, r));
      break;
    }
    case BinaryOp::Pow:
      result = builder.createOrFold<mlir::math::PowFOp>(loc, l, r);
      break;
    default:
      return error(at, "operator " + spell(op) +
                           " needs integer operands, "
                           "got " +
                           type.name);
    }
    return std::make_shared<ScalarObject>(result, type);
  }

  mlir::Value result;
  bool isUnsigned = type.isUnsigned;
  std::optional<LinearForm> linear;
  switch (op) {
  case BinaryOp::Add:
  case BinaryOp::Sub: {
    result = op == BinaryOp::Add
                 ? builder.createOrFold<arith::AddIOp>(loc, l, r)
                 : builder.createOrFold<arith::SubIOp>(loc, l, r);
    std::optional<LinearForm> a = linearOf(lhs), b = linearOf(rhs);
    if (a && b)
      linear = addScaledLinear(*a, *b, op == BinaryOp::Add ? 1 : -1);
    break;
  }
  case BinaryOp::Mul: {
    result = builder.createOrFold<arith::MulIOp>(loc, l, r);
    std::optional<int64_t> lc = getConstInt(lhs), rc = getConstInt(rhs);
    if (rc) {
      if (std::optional<LinearForm> a = linearOf(lhs))
        linear = scaleLinear(*a, *rc);
    } else if (lc) {
      if (std::optional<LinearForm> b = linearOf(rhs))
        linear = scaleLinear(*b, *lc);
    }
    break;
  }
  case BinaryOp::Div:
    return error(at, "'/' on integers gives a float in Python but truncates "
                     "in TileLang; write '//' for integer division, or "
                     "convert an operand to a float type");
  case BinaryOp::FloorDiv:
    result = isUnsigned ? builder.createOrFold<arith::DivUIOp>(loc, l, r)
                        : builder.createOrFold<arith::FloorDivSIOp>(loc, l, r);
    break;
  case BinaryOp::Mod:
    if (isUnsigned) {
      result = builder.createOrFold<arith::RemUIOp>(loc, l, r);
    } else {
      // Python's modulo takes the sign of the divisor: a - (a // b) * b.
      mlir::Value quotient =
          builder.createOrFold<arith::FloorDivSIOp>(loc, l, r);
      result = builder.createOrFold<arith::SubIOp>(
          loc, l, builder.createOrFold<arith::MulIOp>(loc, quotient, r));
    }
    break;
  case BinaryOp::LShift:
    result = builder.createOrFold<arith::ShLIOp>(loc, l, r);
    break;
  case BinaryOp::RShift:
    result = isUnsigned ? builder.createOrFold<arith::ShRUIOp>(loc, l, r)
                        : builder.createOrFold<arith::ShRSIOp>(loc, l, r);
    break;
  case BinaryOp::BitAnd:
    result = builder.createOrFold<arith::AndIOp>(loc, l, r);
    break;
  case BinaryOp::BitOr:
    result = builder.createOrFold<arith::OrIOp>(loc, l, r);
    break;
  case BinaryOp::BitXor:
    result = builder.createOrFold<arith::XOrIOp>(loc, l, r);
    break;
  case BinaryOp::Pow:
  case BinaryOp::MatMul:
    return error(at, "operator " + spell(op) +
                         " is not supported on "
                         "run-time values");
  }
  // Constants folded away need no linear form beyond their value.
  return std::make_shared<ScalarObject>(result, type, linear);
}

Ref Evaluator::unary(UnaryOp op, const Ref &operandIn, SMLoc at) {
  Ref operand = load(operandIn, at);
  if (isPoison(operand))
    return operand;
  if (auto *host = llvm::dyn_cast<HostObject>(operand.get()))
    return op == UnaryOp::Not ? hostValueError(*host, at)
                              : std::make_shared<HostObject>(host->description);
  if (op == UnaryOp::Not) {
    if (std::optional<bool> known = truth(operand, at))
      return boolean(!*known);
    mlir::Value cond = materializeCondition(operand, at);
    mlir::Value one = arith::ConstantOp::create(builder, getLoc(at),
                                                builder.getBoolAttr(true));
    return std::make_shared<ScalarObject>(
        builder.createOrFold<arith::XOrIOp>(getLoc(at), cond, one),
        *lookupDType("bool", getContext()));
  }
  if (!isNumber(operand))
    return error(at, "bad operand type for unary " + spell(op) + ": '" +
                         getTypeName(*operand) + "'");
  if (std::optional<int64_t> i = getConstInt(operand)) {
    switch (op) {
    case UnaryOp::Neg:
      if (*i == INT64_MIN)
        return error(at, "integer overflow in compile-time arithmetic");
      return integer(-*i);
    case UnaryOp::Pos:
      return integer(*i);
    case UnaryOp::Invert:
      return integer(~*i);
    case UnaryOp::Not:
      break;
    }
  }
  if (auto *f = llvm::dyn_cast<FloatObject>(operand.get())) {
    if (op == UnaryOp::Invert)
      return error(at, "bad operand type for unary ~: 'float'");
    return floating(op == UnaryOp::Neg ? -f->value : f->value);
  }
  auto &scalar = llvm::cast<ScalarObject>(*operand);
  mlir::Location loc = getLoc(at);
  if (op == UnaryOp::Pos)
    return operand;
  if (scalar.dtype.isFloat()) {
    if (op == UnaryOp::Invert)
      return error(at,
                   "bad operand type for unary ~: '" + scalar.dtype.name + "'");
    return std::make_shared<ScalarObject>(
        builder.createOrFold<arith::NegFOp>(loc, scalar.value), scalar.dtype);
  }
  DType type = scalar.dtype.isBool() ? *lookupDType("int32", getContext())
                                     : scalar.dtype;
  mlir::Value value = convert(scalar.value, scalar.dtype, type, at);
  if (op == UnaryOp::Invert) {
    mlir::Value ones =
        type.isIndex()
            ? arith::ConstantIndexOp::create(builder, loc, -1).getResult()
            : arith::ConstantOp::create(builder, loc,
                                        builder.getIntegerAttr(type.type, -1))
                  .getResult();
    return std::make_shared<ScalarObject>(
        builder.createOrFold<arith::XOrIOp>(loc, value, ones), type);
  }
  mlir::Value zero = materialize(integer(0), type, at);
  std::optional<LinearForm> linear;
  if (std::optional<LinearForm> form = linearOf(operand))
    linear = scaleLinear(*form, -1);
  return std::make_shared<ScalarObject>(
      builder.createOrFold<arith::SubIOp>(loc, zero, value), type, linear);
}

Ref Evaluator::compare(CompareOp op, const Ref &lhsIn, const Ref &rhsIn,
                       SMLoc at) {
  Ref lhs = load(lhsIn, at), rhs = load(rhsIn, at);
  if (isPoison(lhs) || isPoison(rhs))
    return poison();
  if (Ref host = hostOperation(lhs, rhs))
    return host;
  bool runtime = llvm::isa<ScalarObject>(*lhs) || llvm::isa<ScalarObject>(*rhs);

  if (op == CompareOp::Is || op == CompareOp::IsNot) {
    if (runtime)
      return error(at, "'is' compares compile-time objects; use == for "
                       "run-time values");
    bool same = lhs == rhs ||
                (llvm::isa<NoneObject>(*lhs) && llvm::isa<NoneObject>(*rhs));
    if (auto *l = llvm::dyn_cast<BoolObject>(lhs.get()))
      if (auto *r = llvm::dyn_cast<BoolObject>(rhs.get()))
        same = l->value == r->value;
    return boolean(op == CompareOp::Is ? same : !same);
  }
  if (op == CompareOp::In || op == CompareOp::NotIn) {
    if (runtime)
      return error(at, "'in' needs compile-time values");
    bool found = false;
    if (auto *sequence = llvm::dyn_cast<TupleObject>(rhs.get())) {
      for (const Ref &element : sequence->elements)
        if (constEquals(lhs, element).value_or(false))
          found = true;
    } else if (auto *dict = llvm::dyn_cast<DictObject>(rhs.get())) {
      for (const auto &entry : dict->entries)
        if (constEquals(lhs, entry.first).value_or(false))
          found = true;
    } else if (auto *set = llvm::dyn_cast<SetObject>(rhs.get())) {
      if (!getHashKey(*lhs))
        return error(at, "unhashable type: '" + getTypeName(*lhs) + "'");
      found = set->contains(*lhs);
    } else if (auto *str = llvm::dyn_cast<StrObject>(rhs.get())) {
      auto *needle = llvm::dyn_cast<StrObject>(lhs.get());
      if (!needle)
        return error(at, "'in <string>' needs a string on the left");
      found = str->value.find(needle->value) != std::string::npos;
    } else {
      return error(at, "argument of type '" + getTypeName(*rhs) +
                           "' is not iterable");
    }
    return boolean(op == CompareOp::In ? found : !found);
  }

  if (!runtime) {
    if (op == CompareOp::Eq || op == CompareOp::Ne) {
      bool equal = constEquals(lhs, rhs).value_or(false);
      return boolean(op == CompareOp::Eq ? equal : !equal);
    }
    int order;
    if (isConstNumber(lhs) && isConstNumber(rhs)) {
      std::optional<int64_t> li = getConstInt(lhs), ri = getConstInt(rhs);
      if (li && ri) {
        order = *li < *ri ? -1 : *li > *ri ? 1 : 0;
      } else {
        double l = *getConstNumber(lhs), r = *getConstNumber(rhs);
        if (std::isnan(l) || std::isnan(r))
          return boolean(false);
        order = l < r ? -1 : l > r ? 1 : 0;
      }
    } else if (llvm::isa<StrObject>(*lhs) && llvm::isa<StrObject>(*rhs)) {
      order = llvm::cast<StrObject>(*lhs).value.compare(
          llvm::cast<StrObject>(*rhs).value);
      order = order < 0 ? -1 : order > 0 ? 1 : 0;
    } else {
      return error(at, "'" + spell(op) + "' is not supported between '" +
                           getTypeName(*lhs) + "' and '" + getTypeName(*rhs) +
                           "'");
    }
    switch (op) {
    case CompareOp::Lt:
      return boolean(order < 0);
    case CompareOp::Le:
      return boolean(order <= 0);
    case CompareOp::Gt:
      return boolean(order > 0);
    case CompareOp::Ge:
      return boolean(order >= 0);
    default:
      break;
    }
    return poison();
  }

  for (const Ref &operand : {lhs, rhs})
    if (!isNumber(operand))
      return error(at, "'" + spell(op) + "' is not supported between '" +
                           getTypeName(*lhs) + "' and '" + getTypeName(*rhs) +
                           "'");
  DType type = promote(lhs, rhs);
  if (type.isBool())
    type = *lookupDType("int32", getContext());
  mlir::Value l = materialize(lhs, type, at);
  mlir::Value r = materialize(rhs, type, at);
  mlir::Location loc = getLoc(at);
  mlir::Value result;
  if (type.isFloat()) {
    // Ordered comparisons, but != is true for NaN as in C and Python.
    arith::CmpFPredicate predicate;
    switch (op) {
    case CompareOp::Eq:
      predicate = arith::CmpFPredicate::OEQ;
      break;
    case CompareOp::Ne:
      predicate = arith::CmpFPredicate::UNE;
      break;
    case CompareOp::Lt:
      predicate = arith::CmpFPredicate::OLT;
      break;
    case CompareOp::Le:
      predicate = arith::CmpFPredicate::OLE;
      break;
    case CompareOp::Gt:
      predicate = arith::CmpFPredicate::OGT;
      break;
    default:
      predicate = arith::CmpFPredicate::OGE;
      break;
    }
    result = builder.createOrFold<arith::CmpFOp>(loc, predicate, l, r);
  } else {
    bool u = type.isUnsigned;
    arith::CmpIPredicate predicate;
    switch (op) {
    case CompareOp::Eq:
      predicate = arith::CmpIPredicate::eq;
      break;
    case CompareOp::Ne:
      predicate = arith::CmpIPredicate::ne;
      break;
    case CompareOp::Lt:
      predicate = u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
      break;
    case CompareOp::Le:
      predicate = u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
      break;
    case CompareOp::Gt:
      predicate = u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
      break;
    default:
      predicate = u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
      break;
    }
    result = builder.createOrFold<arith::CmpIOp>(loc, predicate, l, r);
  }
  return std::make_shared<ScalarObject>(result,
                                        *lookupDType("bool", getContext()));
}

Ref Evaluator::select(const Ref &condIn, const Ref &aIn, const Ref &bIn,
                      SMLoc at) {
  Ref cond = load(condIn, at);
  if (isPoison(cond))
    return cond;
  if (std::optional<bool> known = truth(cond, at))
    return load(*known ? aIn : bIn, at);
  auto elementAccess = [](const Ref &value) {
    auto *access = llvm::dyn_cast<AccessObject>(value.get());
    return access && access->isElement() ? access : nullptr;
  };
  const AccessObject *aAccess = elementAccess(aIn);
  const AccessObject *bAccess = elementAccess(bIn);
  if (!aAccess && !bAccess) {
    Ref a = toScalar(aIn, at), b = toScalar(bIn, at);
    if (isPoison(a) || isPoison(b))
      return poison();
    DType type = promote(a, b);
    mlir::Value c = materializeCondition(cond, at);
    mlir::Value result = builder.createOrFold<arith::SelectOp>(
        getLoc(at), c, materialize(a, type, at), materialize(b, type, at));
    return std::make_shared<ScalarObject>(result, type);
  }
  // A buffer element is read only on its own side, as TVM's if_then_else
  // and Python's conditional expression do: `T.if_then_else(i < n, A[i],
  // 0)` guards the read. The other side is already a value.
  auto typed = [&](const Ref &value, const AccessObject *access) -> Ref {
    if (access)
      return std::make_shared<ScalarObject>(mlir::Value(),
                                            access->buffer->dtype);
    return toScalar(value, at);
  };
  Ref aType = typed(aIn, aAccess), bType = typed(bIn, bAccess);
  if (isPoison(aType) || isPoison(bType))
    return poison();
  DType type = promote(aType, bType);
  mlir::Value c = materializeCondition(cond, at);
  auto ifOp = mlir::scf::IfOp::create(builder, getLoc(at),
                                      mlir::TypeRange{type.type}, c,
                                      /*withElseRegion=*/true);
  bool ok = true;
  for (auto [region, value, access, known] :
       {std::tuple(&ifOp.getThenRegion(), aIn, aAccess, aType),
        std::tuple(&ifOp.getElseRegion(), bIn, bAccess, bType)}) {
    mlir::OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(&region->front());
    Ref scalar = access ? load(value, at) : known;
    ok &= !isPoison(scalar);
    mlir::Value result =
        isPoison(scalar) ? mlir::Value() : materialize(scalar, type, at);
    if (!result)
      result = mlir::ub::PoisonOp::create(builder, getLoc(at), type.type);
    mlir::scf::YieldOp::create(builder, getLoc(at), result);
  }
  if (!ok)
    return poison();
  return std::make_shared<ScalarObject>(ifOp.getResult(0), type);
}
