//===- Values.cpp - Values of the .tile evaluator -------------------------===//
//
// Part of tilec. Data types and the printing of values in messages.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Values.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec::frontend;
using llvm::StringRef;

unsigned DType::getWidth() const {
  if (type.isIndex())
    return 64;
  return type.getIntOrFloatBitWidth();
}

namespace {
enum class Elem {
  I1,
  I4,
  I8,
  I16,
  I32,
  I64,
  F16,
  BF16,
  F32,
  F64,
  E4M3,
  E5M2,
  E4M3FNUZ,
  E5M2FNUZ
};
struct DTypeName {
  StringRef name;
  StringRef canonical;
  Elem elem;
  bool isUnsigned;
};
} // namespace

static const DTypeName kDTypes[] = {
    {"bool", "bool", Elem::I1, false},
    {"int4", "int4", Elem::I4, false},
    {"int8", "int8", Elem::I8, false},
    {"int16", "int16", Elem::I16, false},
    {"int32", "int32", Elem::I32, false},
    {"int", "int32", Elem::I32, false},
    {"int64", "int64", Elem::I64, false},
    {"uint8", "uint8", Elem::I8, true},
    {"uint16", "uint16", Elem::I16, true},
    {"uint32", "uint32", Elem::I32, true},
    {"uint64", "uint64", Elem::I64, true},
    {"float16", "float16", Elem::F16, false},
    {"half", "float16", Elem::F16, false},
    {"bfloat16", "bfloat16", Elem::BF16, false},
    {"float32", "float32", Elem::F32, false},
    {"float", "float32", Elem::F32, false},
    {"float64", "float64", Elem::F64, false},
    {"double", "float64", Elem::F64, false},
    {"float8_e4m3fn", "float8_e4m3fn", Elem::E4M3, false},
    {"float8_e4m3", "float8_e4m3fn", Elem::E4M3, false},
    {"e4m3_float8", "float8_e4m3fn", Elem::E4M3, false},
    {"float8_e5m2", "float8_e5m2", Elem::E5M2, false},
    {"e5m2_float8", "float8_e5m2", Elem::E5M2, false},
    {"float8_e4m3fnuz", "float8_e4m3fnuz", Elem::E4M3FNUZ, false},
    {"float8_e5m2fnuz", "float8_e5m2fnuz", Elem::E5M2FNUZ, false},
};

std::optional<DType> tilec::frontend::lookupDType(StringRef name,
                                                  mlir::MLIRContext *context) {
  for (const DTypeName &entry : kDTypes) {
    if (entry.name != name)
      continue;
    mlir::Type type;
    switch (entry.elem) {
    case Elem::I1:
      type = mlir::IntegerType::get(context, 1);
      break;
    case Elem::I4:
      type = mlir::IntegerType::get(context, 4);
      break;
    case Elem::I8:
      type = mlir::IntegerType::get(context, 8);
      break;
    case Elem::I16:
      type = mlir::IntegerType::get(context, 16);
      break;
    case Elem::I32:
      type = mlir::IntegerType::get(context, 32);
      break;
    case Elem::I64:
      type = mlir::IntegerType::get(context, 64);
      break;
    case Elem::F16:
      type = mlir::Float16Type::get(context);
      break;
    case Elem::BF16:
      type = mlir::BFloat16Type::get(context);
      break;
    case Elem::F32:
      type = mlir::Float32Type::get(context);
      break;
    case Elem::F64:
      type = mlir::Float64Type::get(context);
      break;
    case Elem::E4M3:
      type = mlir::Float8E4M3FNType::get(context);
      break;
    case Elem::E5M2:
      type = mlir::Float8E5M2Type::get(context);
      break;
    case Elem::E4M3FNUZ:
      type = mlir::Float8E4M3FNUZType::get(context);
      break;
    case Elem::E5M2FNUZ:
      type = mlir::Float8E5M2FNUZType::get(context);
      break;
    }
    return DType{entry.canonical.str(), type, entry.isUnsigned};
  }
  return std::nullopt;
}

DType tilec::frontend::getIndexDType(mlir::MLIRContext *context) {
  return DType{"index", mlir::IndexType::get(context), false};
}

llvm::ArrayRef<StringRef> tilec::frontend::getDTypeNames() {
  static const std::vector<StringRef> names = [] {
    std::vector<StringRef> result;
    for (const DTypeName &entry : kDTypes)
      result.push_back(entry.name);
    return result;
  }();
  return names;
}

unsigned tilec::frontend::getNestingDepth(const Object &object) {
  if (auto *tuple = llvm::dyn_cast<TupleObject>(&object))
    return tuple->depth;
  if (auto *dict = llvm::dyn_cast<DictObject>(&object))
    return dict->depth;
  return 0;
}

StringRef tilec::frontend::getTypeName(const Object &object) {
  switch (object.getKind()) {
  case Object::Kind::None:
    return "None";
  case Object::Kind::Bool:
    return "bool";
  case Object::Kind::Int:
    return "int";
  case Object::Kind::Float:
    return "float";
  case Object::Kind::Str:
    return "str";
  case Object::Kind::Tuple:
    return llvm::cast<TupleObject>(object).isList ? "list" : "tuple";
  case Object::Kind::Dict:
    return "dict";
  case Object::Kind::DType:
    return "dtype";
  case Object::Kind::Function:
    return "function";
  case Object::Kind::Builtin:
    return "builtin function";
  case Object::Kind::Module:
    return "module";
  case Object::Kind::Enum:
    return "enum";
  case Object::Kind::Scalar:
    return "run-time value";
  case Object::Kind::Buffer:
    return "buffer";
  case Object::Kind::Access:
    return llvm::cast<AccessObject>(object).isElement() ? "buffer element"
                                                        : "buffer region";
  case Object::Kind::DynamicDim:
    return "dynamic dimension";
  case Object::Kind::TensorSpec:
    return "tensor type";
  case Object::Kind::Layout:
    return "layout";
  case Object::Kind::Iterable:
    return "loop range";
  case Object::Kind::KernelLaunch:
    return "kernel launch";
  case Object::Kind::PendingTensor:
    return "tensor parameter";
  case Object::Kind::Poison:
    return "invalid value";
  }
  return "value";
}

std::string tilec::frontend::repr(const Object &object) {
  std::string text;
  llvm::raw_string_ostream os(text);
  switch (object.getKind()) {
  case Object::Kind::None:
    os << "None";
    break;
  case Object::Kind::Bool:
    os << (llvm::cast<BoolObject>(object).value ? "True" : "False");
    break;
  case Object::Kind::Int:
    os << llvm::cast<IntObject>(object).value;
    break;
  case Object::Kind::Float:
    os << formatFloat(llvm::cast<FloatObject>(object).value);
    break;
  case Object::Kind::Str:
    os << "'";
    os.write_escaped(llvm::cast<StrObject>(object).value);
    os << "'";
    break;
  case Object::Kind::Tuple: {
    const auto &tuple = llvm::cast<TupleObject>(object);
    os << (tuple.isList ? "[" : "(");
    llvm::interleaveComma(tuple.elements, os,
                          [&](const Ref &e) { os << repr(*e); });
    if (!tuple.isList && tuple.elements.size() == 1)
      os << ",";
    os << (tuple.isList ? "]" : ")");
    break;
  }
  case Object::Kind::DType:
    os << llvm::cast<DTypeObject>(object).dtype.name;
    break;
  case Object::Kind::Function:
    os << "function " << llvm::cast<FunctionObject>(object).def->name;
    break;
  case Object::Kind::Builtin:
    os << llvm::cast<BuiltinObject>(object).name;
    break;
  case Object::Kind::Module:
    os << "module " << llvm::cast<ModuleObject>(object).name;
    break;
  case Object::Kind::Enum: {
    const auto &e = llvm::cast<EnumObject>(object);
    os << e.enumName << "." << e.name;
    break;
  }
  case Object::Kind::Buffer:
    os << "buffer " << llvm::cast<BufferObject>(object).name;
    break;
  case Object::Kind::DynamicDim:
    os << "T.dynamic(\"" << llvm::cast<DynamicDimObject>(object).name << "\")";
    break;
  case Object::Kind::PendingTensor:
    os << "tensor parameter " << llvm::cast<PendingTensorObject>(object).name;
    break;
  default:
    os << getTypeName(object);
    break;
  }
  return text;
}
