//===- Expressions.cpp - Evaluation of .tile expressions ------------------===//
//
// Part of tilec. Python semantics on compile-time values (checked integer
// arithmetic, floor division, tuple concatenation...), and arith/math IR on
// run-time values, with TileLang's promotion rules for mixed operands.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Sema.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
namespace arith = mlir::arith;

/// Longest string or sequence a compile-time operation may build.
static constexpr int64_t kMaxSequenceLength = 1 << 20;

//===----------------------------------------------------------------------===//
// Compile-time helpers
//===----------------------------------------------------------------------===//

std::optional<int64_t> Interpreter::getConstInt(const Ref &value) {
  if (auto *i = llvm::dyn_cast<IntObject>(value.get()))
    return i->value;
  if (auto *b = llvm::dyn_cast<BoolObject>(value.get()))
    return b->value ? 1 : 0;
  return std::nullopt;
}

std::optional<double> Interpreter::getConstNumber(const Ref &value) {
  if (auto *f = llvm::dyn_cast<FloatObject>(value.get()))
    return f->value;
  if (std::optional<int64_t> i = getConstInt(value))
    return static_cast<double>(*i);
  return std::nullopt;
}

static bool isConstNumber(const Ref &value) {
  return llvm::isa<IntObject, FloatObject, BoolObject>(*value);
}

static bool isNumber(const Ref &value) {
  return isConstNumber(value) || llvm::isa<ScalarObject>(*value);
}

std::vector<Ref> Interpreter::asSequence(const Ref &value) {
  if (auto *sequence = llvm::dyn_cast<TupleObject>(value.get()))
    return sequence->elements;
  return {value};
}

std::optional<DType> Interpreter::getDType(const Ref &value, SMLoc loc,
                                           StringRef what) {
  if (isPoison(value))
    return std::nullopt;
  if (auto *dtype = llvm::dyn_cast<DTypeObject>(value.get()))
    return dtype->dtype;
  if (auto *str = llvm::dyn_cast<StrObject>(value.get())) {
    if (std::optional<DType> dtype = lookupDType(str->value, getContext()))
      return dtype;
    std::vector<std::string> names;
    for (StringRef name : getDTypeNames())
      names.push_back(name.str());
    std::string hint = suggest(str->value, names);
    error(loc, "unknown dtype '" + str->value + "'" +
                   (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
    return std::nullopt;
  }
  error(loc, "expected a dtype for " + what + ", got a " + getTypeName(*value));
  return std::nullopt;
}

std::optional<bool> Interpreter::truth(const Ref &value, SMLoc loc) {
  switch (value->getKind()) {
  case Object::Kind::None:
    return false;
  case Object::Kind::Bool:
    return llvm::cast<BoolObject>(*value).value;
  case Object::Kind::Int:
    return llvm::cast<IntObject>(*value).value != 0;
  case Object::Kind::Float:
    return llvm::cast<FloatObject>(*value).value != 0.0;
  case Object::Kind::Str:
    return !llvm::cast<StrObject>(*value).value.empty();
  case Object::Kind::Tuple:
    return !llvm::cast<TupleObject>(*value).elements.empty();
  case Object::Kind::Dict:
    return !llvm::cast<DictObject>(*value).entries.empty();
  case Object::Kind::Scalar:
  case Object::Kind::Access:
  case Object::Kind::Poison:
    return std::nullopt;
  default:
    return true;
  }
}

//===----------------------------------------------------------------------===//
// Run-time values
//===----------------------------------------------------------------------===//

DType Interpreter::dtypeOf(const Ref &value) {
  if (auto *scalar = llvm::dyn_cast<ScalarObject>(value.get()))
    return scalar->dtype;
  if (llvm::isa<FloatObject>(*value))
    return *lookupDType("float32", getContext());
  if (llvm::isa<BoolObject>(*value))
    return *lookupDType("bool", getContext());
  return *lookupDType("int32", getContext());
}

mlir::Value Interpreter::convert(mlir::Value value, const DType &from,
                                 const DType &to, SMLoc at) {
  if (from.type == to.type)
    return value;
  mlir::Location loc = getLoc(at);
  mlir::Type i64 = builder.getI64Type();
  if (from.isBool()) {
    if (to.isFloat())
      return builder.createOrFold<arith::UIToFPOp>(loc, to.type, value);
    if (to.isIndex())
      return builder.createOrFold<arith::IndexCastUIOp>(loc, to.type, value);
    return builder.createOrFold<arith::ExtUIOp>(loc, to.type, value);
  }
  if (to.isBool()) {
    if (from.isFloat()) {
      mlir::Value zero = arith::ConstantOp::create(
          builder, loc, builder.getFloatAttr(from.type, 0.0));
      return builder.createOrFold<arith::CmpFOp>(loc, arith::CmpFPredicate::UNE,
                                                 value, zero);
    }
    mlir::Value zero = arith::ConstantOp::create(
        builder, loc, builder.getIntegerAttr(from.type, 0));
    return builder.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                               value, zero);
  }
  if (from.isFloat() && to.isFloat()) {
    if (from.getWidth() < to.getWidth())
      return builder.createOrFold<arith::ExtFOp>(loc, to.type, value);
    if (from.getWidth() > to.getWidth())
      return builder.createOrFold<arith::TruncFOp>(loc, to.type, value);
    // f16 <-> bf16: through f32.
    mlir::Value wide =
        builder.createOrFold<arith::ExtFOp>(loc, builder.getF32Type(), value);
    return builder.createOrFold<arith::TruncFOp>(loc, to.type, wide);
  }
  if (from.isFloat()) {
    mlir::Type target = to.isIndex() ? i64 : to.type;
    mlir::Value result =
        to.isUnsigned
            ? builder.createOrFold<arith::FPToUIOp>(loc, target, value)
            : builder.createOrFold<arith::FPToSIOp>(loc, target, value);
    if (to.isIndex())
      result = builder.createOrFold<arith::IndexCastOp>(loc, to.type, result);
    return result;
  }
  if (to.isFloat()) {
    if (from.isIndex())
      value = builder.createOrFold<arith::IndexCastOp>(loc, i64, value);
    return from.isUnsigned
               ? builder.createOrFold<arith::UIToFPOp>(loc, to.type, value)
               : builder.createOrFold<arith::SIToFPOp>(loc, to.type, value);
  }
  // Integer to integer.
  if (from.isIndex() || to.isIndex())
    return from.isUnsigned
               ? builder.createOrFold<arith::IndexCastUIOp>(loc, to.type, value)
               : builder.createOrFold<arith::IndexCastOp>(loc, to.type, value);
  if (from.getWidth() < to.getWidth())
    return from.isUnsigned
               ? builder.createOrFold<arith::ExtUIOp>(loc, to.type, value)
               : builder.createOrFold<arith::ExtSIOp>(loc, to.type, value);
  return builder.createOrFold<arith::TruncIOp>(loc, to.type, value);
}

mlir::Value Interpreter::materialize(const Ref &value, const DType &dtype,
                                     SMLoc at) {
  if (auto *scalar = llvm::dyn_cast<ScalarObject>(value.get()))
    return convert(scalar->value, scalar->dtype, dtype, at);
  mlir::Location loc = getLoc(at);
  if (dtype.isFloat()) {
    std::optional<double> number = getConstNumber(value);
    auto floatType = mlir::cast<mlir::FloatType>(dtype.type);
    llvm::APFloat apValue(*number);
    bool losesInfo;
    apValue.convert(floatType.getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return arith::ConstantOp::create(builder, loc,
                                     builder.getFloatAttr(dtype.type, apValue));
  }
  std::optional<int64_t> integerValue = getConstInt(value);
  if (!integerValue) {
    double number = *getConstNumber(value);
    error(at, "cannot use the float " + formatFloat(number) + " as " +
                  dtype.name + "; convert it with T.cast");
    integerValue = static_cast<int64_t>(number);
  }
  if (dtype.isIndex())
    return arith::ConstantIndexOp::create(builder, loc, *integerValue);
  unsigned width = dtype.getWidth();
  bool fits = width >= 64 || (dtype.isUnsigned || dtype.isBool()
                                  ? llvm::isUIntN(width, *integerValue)
                                  : llvm::isIntN(width, *integerValue));
  if (!fits)
    error(at, "value " + llvm::Twine(*integerValue) + " does not fit in " +
                  dtype.name);
  return arith::ConstantOp::create(
      builder, loc, builder.getIntegerAttr(dtype.type, *integerValue));
}

mlir::Value Interpreter::materializeIndex(const Ref &value, SMLoc at) {
  DType index = getIndexDType(getContext());
  if (auto *scalar = llvm::dyn_cast<ScalarObject>(value.get())) {
    if (!scalar->dtype.isInteger()) {
      error(at, "expected an integer, got a " + scalar->dtype.name + " value");
      return arith::ConstantIndexOp::create(builder, getLoc(at), 0);
    }
    return convert(scalar->value, scalar->dtype, index, at);
  }
  if (std::optional<int64_t> i = getConstInt(value))
    return arith::ConstantIndexOp::create(builder, getLoc(at), *i);
  if (!isPoison(value))
    error(at, "expected an integer, got a " + getTypeName(*value));
  return arith::ConstantIndexOp::create(builder, getLoc(at), 0);
}

mlir::Value Interpreter::materializeCondition(const Ref &value, SMLoc at) {
  return materialize(value, *lookupDType("bool", getContext()), at);
}

Ref Interpreter::readVariable(const BufferObject &variable, SMLoc at) {
  if (!requireKernel(at, "reading a T.alloc_var variable"))
    return poison();
  mlir::Value loaded = mlir::memref::LoadOp::create(
      builder, getLoc(at), variable.memref, mlir::ValueRange());
  return std::make_shared<ScalarObject>(loaded, variable.dtype);
}

Ref Interpreter::load(const Ref &value, SMLoc at) {
  auto *access = llvm::dyn_cast<AccessObject>(value.get());
  if (!access || !access->isElement())
    return value;
  if (!requireKernel(at, "reading a buffer element"))
    return poison();
  llvm::SmallVector<mlir::Value> indices;
  for (const Ref &offset : access->offsets)
    indices.push_back(materializeIndex(offset, at));
  mlir::Value loaded = mlir::memref::LoadOp::create(
      builder, getLoc(at), access->buffer->memref, indices);
  return std::make_shared<ScalarObject>(loaded, access->buffer->dtype);
}

Ref Interpreter::toScalar(const Ref &value, SMLoc at) {
  Ref loaded = load(value, at);
  if (isPoison(loaded) || isNumber(loaded))
    return loaded;
  if (llvm::isa<BufferObject>(*loaded))
    return error(at, "expected a number, got the buffer '" +
                         llvm::cast<BufferObject>(*loaded).name +
                         "'; index an element, e.g. " +
                         llvm::cast<BufferObject>(*loaded).name + "[i]");
  return error(at, "expected a number, got a " + getTypeName(*loaded));
}

void Interpreter::store(const AccessObject &access, const Ref &value,
                        SMLoc at) {
  Ref scalar = toScalar(value, at);
  if (isPoison(scalar))
    return;
  if (!requireKernel(at, "writing a buffer element"))
    return;
  const BufferObject &buffer = *access.buffer;
  mlir::Value converted = materialize(scalar, buffer.dtype, at);
  llvm::SmallVector<mlir::Value> indices;
  for (const Ref &offset : access.offsets)
    indices.push_back(materializeIndex(offset, at));
  mlir::memref::StoreOp::create(builder, getLoc(at), converted, buffer.memref,
                                indices);
}

Ref Interpreter::cast(const Ref &value, const DType &dtype, SMLoc at) {
  Ref scalar = toScalar(value, at);
  if (isPoison(scalar))
    return scalar;
  if (isConstNumber(scalar)) {
    // Convert the constant first, so that the typed value is exact.
    double number = *getConstNumber(scalar);
    Ref converted;
    if (dtype.isFloat())
      converted = floating(number);
    else if (dtype.isBool())
      converted = boolean(number != 0.0);
    else if (std::optional<int64_t> i = getConstInt(scalar))
      converted = integer(*i);
    else if (!std::isfinite(number) || std::fabs(number) >= 9.2e18)
      return error(at, "cannot convert " + formatFloat(number) + " to " +
                           dtype.name);
    else
      converted = integer(static_cast<int64_t>(number));
    if (!inFunction())
      return converted;
    return std::make_shared<ScalarObject>(materialize(converted, dtype, at),
                                          dtype);
  }
  auto &runtime = llvm::cast<ScalarObject>(*scalar);
  return std::make_shared<ScalarObject>(
      convert(runtime.value, runtime.dtype, dtype, at), dtype);
}

//===----------------------------------------------------------------------===//
// Linear forms
//===----------------------------------------------------------------------===//

static std::optional<LinearForm> linearOf(const Ref &value) {
  if (std::optional<int64_t> i = Interpreter::getConstInt(value)) {
    LinearForm form;
    form.constant = *i;
    return form;
  }
  auto *scalar = llvm::dyn_cast<ScalarObject>(value.get());
  if (!scalar || !scalar->dtype.isInteger())
    return std::nullopt;
  if (scalar->linear)
    return scalar->linear;
  LinearForm form;
  form.terms.push_back({scalar->value, 1});
  return form;
}

/// a + scale * b, or std::nullopt on overflow.
static std::optional<LinearForm> combine(const LinearForm &a,
                                         const LinearForm &b, int64_t scale) {
  LinearForm result = a;
  int64_t product;
  if (llvm::MulOverflow(b.constant, scale, product) ||
      llvm::AddOverflow(result.constant, product, result.constant))
    return std::nullopt;
  for (const auto &[value, coefficient] : b.terms) {
    if (llvm::MulOverflow(coefficient, scale, product))
      return std::nullopt;
    mlir::Value termValue = value;
    auto it = llvm::find_if(
        result.terms, [&](auto &term) { return term.first == termValue; });
    if (it == result.terms.end()) {
      result.terms.push_back({value, product});
    } else if (llvm::AddOverflow(it->second, product, it->second)) {
      return std::nullopt;
    }
  }
  llvm::erase_if(result.terms, [](auto &term) { return term.second == 0; });
  return result;
}

static std::optional<LinearForm> scaleForm(const LinearForm &form,
                                           int64_t scale) {
  return combine(LinearForm(), form, scale);
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

/// Python's floor division and modulo on integers.
static int64_t floorDiv(int64_t a, int64_t b) {
  return llvm::divideFloorSigned(a, b);
}
static int64_t floorMod(int64_t a, int64_t b) { return a - floorDiv(a, b) * b; }

static Ref constSequenceBinary(Interpreter &interp, BinaryOp op, const Ref &lhs,
                               const Ref &rhs, SMLoc loc) {
  auto repeat = [&](auto &&make, size_t length, int64_t count) -> Ref {
    if (count > 0 && static_cast<int64_t>(length) > kMaxSequenceLength / count)
      return interp.error(loc, "sequence would be too long");
    return make(std::max<int64_t>(count, 0));
  };
  if (auto *l = llvm::dyn_cast<StrObject>(lhs.get())) {
    if (auto *r = llvm::dyn_cast<StrObject>(rhs.get());
        r && op == BinaryOp::Add)
      return Interpreter::string(l->value + r->value);
    if (std::optional<int64_t> count = Interpreter::getConstInt(rhs);
        count && op == BinaryOp::Mul)
      return repeat(
          [&](int64_t n) {
            std::string result;
            for (int64_t i = 0; i < n; ++i)
              result += l->value;
            return Interpreter::string(std::move(result));
          },
          l->value.size(), *count);
  }
  if (auto *l = llvm::dyn_cast<TupleObject>(lhs.get())) {
    if (auto *r = llvm::dyn_cast<TupleObject>(rhs.get());
        r && op == BinaryOp::Add && l->isList == r->isList) {
      std::vector<Ref> elements = l->elements;
      elements.insert(elements.end(), r->elements.begin(), r->elements.end());
      return Interpreter::tuple(std::move(elements), l->isList);
    }
    if (std::optional<int64_t> count = Interpreter::getConstInt(rhs);
        count && op == BinaryOp::Mul)
      return repeat(
          [&](int64_t n) {
            std::vector<Ref> elements;
            for (int64_t i = 0; i < n; ++i)
              elements.insert(elements.end(), l->elements.begin(),
                              l->elements.end());
            return Interpreter::tuple(std::move(elements), l->isList);
          },
          l->elements.size(), *count);
  }
  // int * sequence
  if (llvm::isa<StrObject, TupleObject>(*rhs) &&
      Interpreter::getConstInt(lhs) && op == BinaryOp::Mul)
    return constSequenceBinary(interp, op, rhs, lhs, loc);
  return nullptr;
}

static Ref constIntBinary(Interpreter &interp, BinaryOp op, int64_t a,
                          int64_t b, SMLoc loc) {
  int64_t result;
  auto overflow = [&] {
    return interp.error(loc, "integer overflow in compile-time arithmetic "
                             "(.tile integers are 64-bit)");
  };
  switch (op) {
  case BinaryOp::Add:
    if (llvm::AddOverflow(a, b, result))
      return overflow();
    return Interpreter::integer(result);
  case BinaryOp::Sub:
    if (llvm::SubOverflow(a, b, result))
      return overflow();
    return Interpreter::integer(result);
  case BinaryOp::Mul:
    if (llvm::MulOverflow(a, b, result))
      return overflow();
    return Interpreter::integer(result);
  case BinaryOp::Div:
    if (b == 0)
      return interp.error(loc, "division by zero");
    return Interpreter::floating(static_cast<double>(a) /
                                 static_cast<double>(b));
  case BinaryOp::FloorDiv:
  case BinaryOp::Mod:
    if (b == 0)
      return interp.error(loc, "division by zero");
    if (a == INT64_MIN && b == -1)
      return overflow();
    return Interpreter::integer(op == BinaryOp::FloorDiv ? floorDiv(a, b)
                                                         : floorMod(a, b));
  case BinaryOp::Pow: {
    if (b < 0)
      return Interpreter::floating(
          std::pow(static_cast<double>(a), static_cast<double>(b)));
    int64_t acc = 1, base = a;
    for (int64_t e = b; e > 0; e >>= 1) {
      if (e & 1)
        if (llvm::MulOverflow(acc, base, acc))
          return overflow();
      if (e > 1 && llvm::MulOverflow(base, base, base))
        return overflow();
    }
    return Interpreter::integer(acc);
  }
  case BinaryOp::LShift:
    if (b < 0)
      return interp.error(loc, "negative shift count");
    // The result needs b more bits than a, plus the sign bit.
    if (b >= 63 || static_cast<int64_t>(llvm::countl_zero(
                       static_cast<uint64_t>(a < 0 ? ~a : a))) <= b)
      return overflow();
    return Interpreter::integer(a * (int64_t(1) << b));
  case BinaryOp::RShift:
    if (b < 0)
      return interp.error(loc, "negative shift count");
    return Interpreter::integer(b >= 63 ? (a < 0 ? -1 : 0) : a >> b);
  case BinaryOp::BitAnd:
    return Interpreter::integer(a & b);
  case BinaryOp::BitOr:
    return Interpreter::integer(a | b);
  case BinaryOp::BitXor:
    return Interpreter::integer(a ^ b);
  case BinaryOp::MatMul:
    break;
  }
  return interp.error(loc, "unsupported operand types for " + spell(op) +
                               ": 'int' and 'int'");
}

static Ref constFloatBinary(Interpreter &interp, BinaryOp op, double a,
                            double b, SMLoc loc) {
  switch (op) {
  case BinaryOp::Add:
    return Interpreter::floating(a + b);
  case BinaryOp::Sub:
    return Interpreter::floating(a - b);
  case BinaryOp::Mul:
    return Interpreter::floating(a * b);
  case BinaryOp::Div:
    if (b == 0.0)
      return interp.error(loc, "division by zero");
    return Interpreter::floating(a / b);
  case BinaryOp::FloorDiv:
    if (b == 0.0)
      return interp.error(loc, "division by zero");
    return Interpreter::floating(std::floor(a / b));
  case BinaryOp::Mod: {
    if (b == 0.0)
      return interp.error(loc, "division by zero");
    double r = std::fmod(a, b);
    if (r != 0.0 && ((r < 0) != (b < 0)))
      r += b;
    return Interpreter::floating(r);
  }
  case BinaryOp::Pow:
    return Interpreter::floating(std::pow(a, b));
  default:
    return interp.error(loc, "unsupported operand types for " + spell(op) +
                                 ": 'float' and 'float'");
  }
}

DType Interpreter::promote(const Ref &l, const Ref &r) {
  mlir::MLIRContext *context = getContext();
  bool lConst = isConstNumber(l), rConst = isConstNumber(r);
  DType lt = dtypeOf(l), rt = dtypeOf(r);
  // A Python constant takes the type of the run-time operand, except that
  // a float constant with an integer operand computes in float32.
  if (lConst != rConst) {
    const DType &runtime = lConst ? rt : lt;
    const Ref &constant = lConst ? l : r;
    if (llvm::isa<FloatObject>(*constant) && !runtime.isFloat())
      return *lookupDType("float32", context);
    if (runtime.isBool())
      return *lookupDType("int32", context);
    return runtime;
  }
  if (lt == rt)
    return lt;
  if (lt.isFloat() && rt.isFloat()) {
    if (lt.getWidth() == rt.getWidth())
      return *lookupDType("float32", context);
    return lt.getWidth() > rt.getWidth() ? lt : rt;
  }
  if (lt.isFloat())
    return lt;
  if (rt.isFloat())
    return rt;
  if (lt.isIndex() || rt.isIndex())
    return getIndexDType(context);
  if (lt.isBool())
    return rt;
  if (rt.isBool())
    return lt;
  if (lt.getWidth() != rt.getWidth())
    return lt.getWidth() > rt.getWidth() ? lt : rt;
  return lt.isUnsigned ? lt : rt;
}

Ref Interpreter::unsupportedOperands(BinaryOp op, const Ref &lhs,
                                     const Ref &rhs, SMLoc at) {
  std::string hint;
  for (const Ref &operand : {lhs, rhs})
    if (auto *buffer = llvm::dyn_cast<BufferObject>(operand.get()))
      hint = "; index the buffer's elements, e.g. " + buffer->name + "[i]";
  return error(at, "unsupported operand types for " + spell(op) + ": '" +
                       getTypeName(*lhs) + "' and '" + getTypeName(*rhs) + "'" +
                       hint);
}

Ref Interpreter::binary(BinaryOp op, const Ref &lhsIn, const Ref &rhsIn,
                        SMLoc at) {
  Ref lhs = load(lhsIn, at), rhs = load(rhsIn, at);
  if (isPoison(lhs) || isPoison(rhs))
    return poison();

  if (!llvm::isa<ScalarObject>(*lhs) && !llvm::isa<ScalarObject>(*rhs)) {
    if (Ref result = constSequenceBinary(*this, op, lhs, rhs, at))
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
      linear = combine(*a, *b, op == BinaryOp::Add ? 1 : -1);
    break;
  }
  case BinaryOp::Mul: {
    result = builder.createOrFold<arith::MulIOp>(loc, l, r);
    std::optional<int64_t> lc = getConstInt(lhs), rc = getConstInt(rhs);
    if (rc) {
      if (std::optional<LinearForm> a = linearOf(lhs))
        linear = scaleForm(*a, *rc);
    } else if (lc) {
      if (std::optional<LinearForm> b = linearOf(rhs))
        linear = scaleForm(*b, *lc);
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

Ref Interpreter::unary(UnaryOp op, const Ref &operandIn, SMLoc at) {
  Ref operand = load(operandIn, at);
  if (isPoison(operand))
    return operand;
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
    linear = scaleForm(*form, -1);
  return std::make_shared<ScalarObject>(
      builder.createOrFold<arith::SubIOp>(loc, zero, value), type, linear);
}

/// Python equality of compile-time values.
static std::optional<bool> constEquals(const Ref &a, const Ref &b) {
  if (isConstNumber(a) && isConstNumber(b))
    return *Interpreter::getConstNumber(a) == *Interpreter::getConstNumber(b);
  if (a->getKind() != b->getKind())
    return false;
  switch (a->getKind()) {
  case Object::Kind::None:
    return true;
  case Object::Kind::Str:
    return llvm::cast<StrObject>(*a).value == llvm::cast<StrObject>(*b).value;
  case Object::Kind::DType:
    return llvm::cast<DTypeObject>(*a).dtype ==
           llvm::cast<DTypeObject>(*b).dtype;
  case Object::Kind::Enum:
    return llvm::cast<EnumObject>(*a).enumName ==
               llvm::cast<EnumObject>(*b).enumName &&
           llvm::cast<EnumObject>(*a).value == llvm::cast<EnumObject>(*b).value;
  case Object::Kind::Tuple: {
    const auto &x = llvm::cast<TupleObject>(*a);
    const auto &y = llvm::cast<TupleObject>(*b);
    if (x.isList != y.isList || x.elements.size() != y.elements.size())
      return false;
    for (auto [e, f] : llvm::zip(x.elements, y.elements)) {
      std::optional<bool> equal = constEquals(e, f);
      if (!equal || !*equal)
        return equal;
    }
    return true;
  }
  case Object::Kind::Scalar:
  case Object::Kind::Access:
    return std::nullopt;
  default:
    return a == b;
  }
}

Ref Interpreter::compare(CompareOp op, const Ref &lhsIn, const Ref &rhsIn,
                         SMLoc at) {
  Ref lhs = load(lhsIn, at), rhs = load(rhsIn, at);
  if (isPoison(lhs) || isPoison(rhs))
    return poison();
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

Ref Interpreter::select(const Ref &condIn, const Ref &aIn, const Ref &bIn,
                        SMLoc at) {
  Ref cond = load(condIn, at);
  if (isPoison(cond))
    return cond;
  if (std::optional<bool> known = truth(cond, at))
    return load(*known ? aIn : bIn, at);
  Ref a = toScalar(aIn, at), b = toScalar(bIn, at);
  if (isPoison(a) || isPoison(b))
    return poison();
  DType type = promote(a, b);
  mlir::Value c = materializeCondition(cond, at);
  mlir::Value result = builder.createOrFold<arith::SelectOp>(
      getLoc(at), c, materialize(a, type, at), materialize(b, type, at));
  return std::make_shared<ScalarObject>(result, type);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

Ref Interpreter::eval(const Expr &expr) {
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
    return checkNesting(tuple(std::move(values), llvm::isa<ListExpr>(expr)),
                        expr.getLoc());
  }
  case Expr::Kind::Dict: {
    const auto &dict = llvm::cast<DictExpr>(expr);
    std::vector<std::pair<Ref, Ref>> entries;
    bool invalid = false;
    for (auto [key, value] : llvm::zip(dict.keys, dict.values)) {
      entries.push_back({eval(*key), eval(*value)});
      invalid |=
          isPoison(entries.back().first) || isPoison(entries.back().second);
    }
    if (invalid)
      return poison();
    return checkNesting(std::make_shared<DictObject>(std::move(entries)),
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
  }
  return poison();
}

Ref Interpreter::evalName(const NameExpr &expr) {
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
  auto builtin = builtinsModule->members.find(expr.name);
  if (builtin != builtinsModule->members.end())
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
  for (const auto &entry : builtinsModule->members)
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

Ref Interpreter::getAttribute(const Ref &value, StringRef attr, SMLoc loc) {
  if (isPoison(value))
    return value;
  if (auto *mod = llvm::dyn_cast<ModuleObject>(value.get())) {
    auto it = mod->members.find(attr.str());
    if (it != mod->members.end())
      return it->second;
    std::vector<std::string> names;
    for (const auto &member : mod->members)
      names.push_back(member.first);
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
  }
  if (auto *pending = llvm::dyn_cast<PendingTensorObject>(value.get()))
    return error(loc, "tensor parameter '" + pending->name +
                          "' has no type yet; annotate it first (" +
                          pending->name + ": T.Tensor(shape, dtype))");
  return error(loc,
               "a " + getTypeName(*value) + " has no attribute '" + attr + "'");
}

Ref Interpreter::evalAttribute(const AttributeExpr &expr) {
  return getAttribute(eval(*expr.value), expr.attr, expr.attrLoc);
}

Ref Interpreter::evalCall(const CallExpr &expr) {
  Ref callee = eval(*expr.callee);
  CallArgs args;
  args.loc = expr.getLoc();
  for (const ExprPtr &arg : expr.args) {
    args.args.push_back(eval(*arg));
    args.argLocs.push_back(arg->getLoc());
  }
  for (const Keyword &keyword : expr.keywords) {
    args.keywords.push_back({keyword.name, eval(*keyword.value)});
    args.keywordLocs.push_back(keyword.loc);
  }
  return call(callee, args, expr.getLoc());
}

Ref Interpreter::evalBoolOp(const BoolOpExpr &expr) {
  // Compile-time operands short-circuit as in Python; run-time ones are
  // all evaluated and combined with andi / ori.
  bool isAnd = expr.op == BoolOp::And;
  Ref runtime;
  for (const ExprPtr &operandExpr : expr.operands) {
    Ref operand = load(eval(*operandExpr), operandExpr->getLoc());
    if (isPoison(operand))
      return operand;
    if (std::optional<bool> known = truth(operand, operandExpr->getLoc())) {
      if (*known != isAnd)
        return runtime ? (isAnd ? boolean(false) : boolean(true)) : operand;
      if (&operandExpr == &expr.operands.back() && !runtime)
        return operand;
      continue;
    }
    mlir::Value cond = materializeCondition(operand, operandExpr->getLoc());
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
static Ref logicalAnd(Interpreter &interp, const Ref &a, const Ref &b,
                      SMLoc at) {
  if (std::optional<bool> known = interp.truth(a, at))
    return *known ? b : a;
  if (std::optional<bool> known = interp.truth(b, at))
    return *known ? a : b;
  mlir::Value result = interp.getBuilder().createOrFold<arith::AndIOp>(
      interp.getLoc(at), interp.materializeCondition(a, at),
      interp.materializeCondition(b, at));
  return std::make_shared<ScalarObject>(
      result, *lookupDType("bool", interp.getContext()));
}

Ref Interpreter::evalCompare(const CompareExpr &expr) {
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

/// A Python index into a sequence of `size` elements.
static std::optional<int64_t> normalizeIndex(int64_t index, int64_t size) {
  if (index < 0)
    index += size;
  if (index < 0 || index >= size)
    return std::nullopt;
  return index;
}

Ref Interpreter::subscriptBuffer(
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

Ref Interpreter::evalSubscript(const SubscriptExpr &expr) {
  // A variable's name reads its value; catch `v[0]` before that.
  if (auto *name = llvm::dyn_cast<NameExpr>(expr.value.get()))
    if (Scope::Binding *binding = scope->lookup(name->name))
      if (auto *buffer = llvm::dyn_cast<BufferObject>(binding->value.get());
          buffer && buffer->isVar)
        return error(expr.getLoc(), "'" + buffer->name +
                                        "' is a T.alloc_var variable; use "
                                        "its name without an index");
  Ref base = eval(*expr.value);
  if (isPoison(base))
    return base;

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
          difference = combine(*u, *l, -1);
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
    for (const auto &entry : dict->entries)
      if (constEquals(entry.first, key).value_or(false))
        return entry.second;
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
