//===- EvalConversions.cpp - Conversions between .tile values -------------===//
//
// Part of tilec. What a value means as a dtype or a condition, how numbers
// become SSA values of a dtype (constants, conversions, T.cast) and which
// dtype mixed operands compute in, and the loads and stores of buffer
// elements.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Evaluator.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
namespace arith = mlir::arith;

//===----------------------------------------------------------------------===//
// Compile-time values
//===----------------------------------------------------------------------===//

std::optional<DType> Evaluator::getDType(const Ref &value, SMLoc loc,
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

std::optional<bool> Evaluator::truth(const Ref &value, SMLoc loc) {
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
  case Object::Kind::Set:
    return !llvm::cast<SetObject>(*value).elements.empty();
  case Object::Kind::Scalar:
  case Object::Kind::Access:
  case Object::Kind::Poison:
  case Object::Kind::Host:
    return std::nullopt;
  default:
    return true;
  }
}

//===----------------------------------------------------------------------===//
// Run-time values
//===----------------------------------------------------------------------===//

DType Evaluator::dtypeOf(const Ref &value) {
  if (auto *scalar = llvm::dyn_cast<ScalarObject>(value.get()))
    return scalar->dtype;
  if (llvm::isa<FloatObject>(*value))
    return *lookupDType("float32", getContext());
  if (llvm::isa<BoolObject>(*value))
    return *lookupDType("bool", getContext());
  return *lookupDType("int32", getContext());
}

DType Evaluator::promote(const Ref &l, const Ref &r) {
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

mlir::Value Evaluator::convert(mlir::Value value, const DType &from,
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

mlir::Value Evaluator::materialize(const Ref &value, const DType &dtype,
                                   SMLoc at) {
  mlir::Location loc = getLoc(at);
  // Anything that is not a number (a host value, a buffer, a poisoned value)
  // has been or is now diagnosed; a poison value keeps the IR well formed.
  Ref scalar = toScalar(value, at);
  if (isPoison(scalar))
    return mlir::ub::PoisonOp::create(builder, loc, dtype.type);
  if (auto *runtime = llvm::dyn_cast<ScalarObject>(scalar.get()))
    return convert(runtime->value, runtime->dtype, dtype, at);
  if (dtype.isFloat()) {
    std::optional<double> number = getConstNumber(scalar);
    auto floatType = mlir::cast<mlir::FloatType>(dtype.type);
    llvm::APFloat apValue(*number);
    bool losesInfo;
    apValue.convert(floatType.getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return arith::ConstantOp::create(builder, loc,
                                     builder.getFloatAttr(dtype.type, apValue));
  }
  std::optional<int64_t> integerValue = getConstInt(scalar);
  if (!integerValue) {
    double number = *getConstNumber(scalar);
    error(at, "cannot use the float " + formatFloat(number) + " as " +
                  dtype.name + "; convert it with T.cast");
    integerValue = 0;
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

mlir::Value Evaluator::materializeIndex(const Ref &value, SMLoc at) {
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

mlir::Value Evaluator::materializeCondition(const Ref &value, SMLoc at) {
  return materialize(value, *lookupDType("bool", getContext()), at);
}

Ref Evaluator::cast(const Ref &value, const DType &dtype, SMLoc at) {
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
// Buffer elements
//===----------------------------------------------------------------------===//

Ref Evaluator::readVariable(const BufferObject &variable, SMLoc at) {
  if (!requireKernel(at, "reading a T.alloc_var variable"))
    return poison();
  mlir::Value loaded = mlir::memref::LoadOp::create(
      builder, getLoc(at), variable.memref, mlir::ValueRange());
  if (!variable.dtype.isInteger())
    return std::make_shared<ScalarObject>(loaded, variable.dtype);
  mlir::Value key =
      variableReads.try_emplace(variable.memref, loaded).first->second;
  LinearForm linear;
  linear.terms.push_back({key, 1});
  return std::make_shared<ScalarObject>(loaded, variable.dtype, linear);
}

Ref Evaluator::load(const Ref &value, SMLoc at) {
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

Ref Evaluator::toScalar(const Ref &value, SMLoc at) {
  Ref loaded = load(value, at);
  if (isPoison(loaded) || isNumber(loaded))
    return loaded;
  if (llvm::isa<BufferObject>(*loaded))
    return error(at, "expected a number, got the buffer '" +
                         llvm::cast<BufferObject>(*loaded).name +
                         "'; index an element, e.g. " +
                         llvm::cast<BufferObject>(*loaded).name + "[i]");
  if (auto *host = llvm::dyn_cast<HostObject>(loaded.get()))
    return hostValueError(*host, at);
  return error(at, "expected a number, got a " + getTypeName(*loaded));
}

void Evaluator::store(const AccessObject &access, const Ref &value, SMLoc at) {
  Ref scalar = toScalar(value, at);
  if (isPoison(scalar))
    return;
  if (!requireKernel(at, "writing a buffer element"))
    return;
  const BufferObject &buffer = *access.buffer;
  variableReads.erase(buffer.memref);
  mlir::Value converted = materialize(scalar, buffer.dtype, at);
  llvm::SmallVector<mlir::Value> indices;
  for (const Ref &offset : access.offsets)
    indices.push_back(materializeIndex(offset, at));
  mlir::memref::StoreOp::create(builder, getLoc(at), converted, buffer.memref,
                                indices);
}
