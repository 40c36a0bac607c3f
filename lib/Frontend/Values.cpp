//===- Values.cpp - Values of the .tile evaluator -------------------------===//
//
// Part of tilec. Data types, the making and inspecting of values, linear
// forms, and the printing of values in messages.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Values.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

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

Nesting *tilec::frontend::getNesting(const Object &object) {
  if (auto *tuple = llvm::dyn_cast<TupleObject>(&object))
    return &tuple->nesting;
  if (auto *dict = llvm::dyn_cast<DictObject>(&object))
    return &dict->nesting;
  if (auto *set = llvm::dyn_cast<SetObject>(&object))
    return &set->nesting;
  return nullptr;
}

unsigned tilec::frontend::getNestingDepth(const Object &object) {
  const Nesting *nesting = getNesting(object);
  return nesting ? nesting->depth : 0;
}

bool tilec::frontend::isChangeable(const Object &value) {
  auto *tuple = llvm::dyn_cast<TupleObject>(&value);
  return (tuple && tuple->isList) || llvm::isa<DictObject>(value);
}

/// tilelang's parts that build kernels but that tilec does not model.
static constexpr llvm::StringLiteral kUnmodeledTilelangParts[] = {
    "rocm", "DataType", "tileop", "intrinsics"};

bool tilec::frontend::isHostName(const ModuleObject &mod, StringRef name) {
  StringRef top = StringRef(mod.name).split('.').first;
  // The carver's architecture classes and the autotuner's AutoTuner drive
  // tuning on the host.
  if (top == "torch" || top == "tvm" ||
      StringRef(mod.name).starts_with("tilelang.carver") ||
      mod.name == "tilelang.autotuner")
    return true;
  // TileLang's own parts that tilec does not model: a use in code that
  // builds kernels is an error (hostValueError says which).
  if (mod.name == "T")
    return llvm::is_contained({"dtypes", "ast", "tir", "proxy"}, name);
  // determine_torch_fp8_type() and the like give torch's types.
  if (mod.name == "T.fp8")
    return true;
  // tilelang.cuda's other parts (its intrinsics' layout helpers aside)
  // drive the CUDA toolchain from the host.
  if (StringRef(mod.name).starts_with("tilelang.cuda"))
    return true;
  return mod.name == "tilelang" &&
         (llvm::is_contained(kUnmodeledTilelangParts, name) ||
          llvm::is_contained({"profiler", "tools", "testing", "utils",
                              "contrib", "engine", "cache", "env", "quantize",
                              "TensorSupplyType", "__version__", "__file__"},
                             name));
}

bool tilec::frontend::isUnmodeledTilelangName(StringRef description) {
  auto [top, rest] = description.split('.');
  StringRef part = rest.split('.').first.split('(').first;
  if (top == "T")
    return true;
  return top == "tilelang" && llvm::is_contained(kUnmodeledTilelangParts, part);
}

void tilec::frontend::markContained(const Object &object) {
  if (Nesting *nesting = getNesting(object))
    nesting->contained = true;
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
  case Object::Kind::Set:
    return "set";
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
  case Object::Kind::ThreadRange:
    return "warp-group range";
  case Object::Kind::PendingTensor:
    return "tensor parameter";
  case Object::Kind::Host:
    return "value of the host program";
  case Object::Kind::DataHandle:
    return "buffer's data";
  case Object::Kind::Poison:
    return "invalid value";
  }
  return "value";
}

std::string tilec::frontend::str(const Object &object) {
  if (auto *text = llvm::dyn_cast<StrObject>(&object))
    return text->value;
  if (auto *dtype = llvm::dyn_cast<DTypeObject>(&object))
    return dtype->dtype.name;
  return repr(object);
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
  case Object::Kind::Set: {
    const auto &set = llvm::cast<SetObject>(object);
    if (set.elements.empty()) {
      os << "set()";
      break;
    }
    os << "{";
    llvm::interleaveComma(set.elements, os,
                          [&](const Ref &e) { os << repr(*e); });
    os << "}";
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
  case Object::Kind::Host:
    os << llvm::cast<HostObject>(object).description;
    break;
  default:
    os << getTypeName(object);
    break;
  }
  return text;
}

//===----------------------------------------------------------------------===//
// Compile-time values
//===----------------------------------------------------------------------===//

Ref tilec::frontend::none() {
  static const Ref value = std::make_shared<NoneObject>();
  return value;
}

Ref tilec::frontend::boolean(bool value) {
  static const Ref t = std::make_shared<BoolObject>(true);
  static const Ref f = std::make_shared<BoolObject>(false);
  return value ? t : f;
}

Ref tilec::frontend::integer(int64_t value) {
  return std::make_shared<IntObject>(value);
}

Ref tilec::frontend::floating(double value) {
  return std::make_shared<FloatObject>(value);
}

Ref tilec::frontend::string(std::string value) {
  return std::make_shared<StrObject>(std::move(value));
}

std::optional<std::string> tilec::frontend::getHashKey(const Object &value) {
  // Numbers that compare equal share a key, as Python's hashes do.
  auto number = [](double x) -> std::string {
    if (std::trunc(x) == x && std::fabs(x) < 9.2e18)
      return "n" + std::to_string(static_cast<int64_t>(x));
    return "f" + formatFloat(x);
  };
  switch (value.getKind()) {
  case Object::Kind::None:
    return std::string("N");
  case Object::Kind::Bool:
    return number(llvm::cast<BoolObject>(value).value);
  case Object::Kind::Int:
    return "n" + std::to_string(llvm::cast<IntObject>(value).value);
  case Object::Kind::Float:
    return number(llvm::cast<FloatObject>(value).value);
  case Object::Kind::Str:
    return "s" + llvm::cast<StrObject>(value).value;
  case Object::Kind::DType:
    return "s" + llvm::cast<DTypeObject>(value).dtype.name;
  case Object::Kind::Enum:
    return "e" + llvm::cast<EnumObject>(value).enumName + "." +
           std::to_string(llvm::cast<EnumObject>(value).value);
  case Object::Kind::Tuple: {
    const auto &tuple = llvm::cast<TupleObject>(value);
    if (tuple.isList)
      return std::nullopt;
    // Lengths keep the keys of different tuples apart.
    std::string key = "t" + std::to_string(tuple.elements.size());
    for (const Ref &element : tuple.elements) {
      std::optional<std::string> inner = getHashKey(*element);
      if (!inner)
        return std::nullopt;
      key += ":" + std::to_string(inner->size()) + ":" + *inner;
    }
    return key;
  }
  default:
    return std::nullopt;
  }
}

Ref tilec::frontend::makeSet(llvm::ArrayRef<Ref> items, Ref &unhashable) {
  llvm::StringSet<> seen;
  std::vector<Ref> elements;
  for (const Ref &item : items) {
    std::optional<std::string> key = getHashKey(*item);
    if (!key) {
      unhashable = item;
      return nullptr;
    }
    if (seen.insert(*key).second)
      elements.push_back(item);
  }
  return std::make_shared<SetObject>(std::move(elements), std::move(seen));
}

void DictBuilder::put(Ref key, Ref value) {
  if (std::optional<std::string> hash = getHashKey(*key)) {
    auto [it, inserted] = positions.try_emplace(*hash, entries.size());
    if (!inserted) {
      entries[it->second].second = std::move(value);
      return;
    }
  } else {
    for (auto &entry : entries)
      if (constEquals(entry.first, key).value_or(false)) {
        entry.second = std::move(value);
        return;
      }
  }
  entries.push_back({std::move(key), std::move(value)});
}

bool SetObject::contains(const Object &value) const {
  std::optional<std::string> key = getHashKey(value);
  return key && keys.contains(*key);
}

Ref tilec::frontend::tuple(std::vector<Ref> elements, bool isList) {
  return std::make_shared<TupleObject>(std::move(elements), isList);
}

Ref tilec::frontend::poison() {
  static const Ref value = std::make_shared<PoisonObject>();
  return value;
}

std::optional<int64_t> tilec::frontend::getConstInt(const Ref &value) {
  if (auto *i = llvm::dyn_cast<IntObject>(value.get()))
    return i->value;
  if (auto *b = llvm::dyn_cast<BoolObject>(value.get()))
    return b->value ? 1 : 0;
  return std::nullopt;
}

std::optional<double> tilec::frontend::getConstNumber(const Ref &value) {
  if (auto *f = llvm::dyn_cast<FloatObject>(value.get()))
    return f->value;
  if (std::optional<int64_t> i = getConstInt(value))
    return static_cast<double>(*i);
  return std::nullopt;
}

bool tilec::frontend::isConstNumber(const Ref &value) {
  return llvm::isa<IntObject, FloatObject, BoolObject>(*value);
}

bool tilec::frontend::isNumber(const Ref &value) {
  return isConstNumber(value) || llvm::isa<ScalarObject>(*value);
}

std::vector<Ref> tilec::frontend::asSequence(const Ref &value) {
  if (auto *sequence = llvm::dyn_cast<TupleObject>(value.get()))
    return sequence->elements;
  return {value};
}

std::optional<bool> tilec::frontend::constEquals(const Ref &a, const Ref &b) {
  if (isConstNumber(a) && isConstNumber(b))
    return *getConstNumber(a) == *getConstNumber(b);
  // A dtype equals the strings that name it, as in TileLang
  // (`T.float16 == "float16"`, `"float" == T.float32`).
  auto *dtype = llvm::dyn_cast<DTypeObject>(a.get());
  auto *name = llvm::dyn_cast<StrObject>(b.get());
  if (!dtype || !name) {
    dtype = llvm::dyn_cast<DTypeObject>(b.get());
    name = llvm::dyn_cast<StrObject>(a.get());
  }
  if (dtype && name) {
    std::optional<DType> named =
        lookupDType(name->value, dtype->dtype.type.getContext());
    return named && *named == dtype->dtype;
  }
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
  case Object::Kind::Set: {
    // The same elements, in any order.
    const auto &x = llvm::cast<SetObject>(*a);
    const auto &y = llvm::cast<SetObject>(*b);
    if (x.elements.size() != y.elements.size())
      return false;
    return llvm::all_of(
        y.elements, [&](const Ref &element) { return x.contains(*element); });
  }
  case Object::Kind::Dict: {
    // Equal entries, in any order.
    const auto &x = llvm::cast<DictObject>(*a);
    const auto &y = llvm::cast<DictObject>(*b);
    if (x.entries.size() != y.entries.size())
      return false;
    for (const auto &[key, value] : x.entries) {
      auto match = llvm::find_if(y.entries, [&](const auto &entry) {
        return constEquals(entry.first, key).value_or(false);
      });
      if (match == y.entries.end())
        return false;
      std::optional<bool> equal = constEquals(value, match->second);
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

//===----------------------------------------------------------------------===//
// Linear forms
//===----------------------------------------------------------------------===//

std::optional<LinearForm> tilec::frontend::linearOf(const Ref &value) {
  if (std::optional<int64_t> i = getConstInt(value)) {
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

std::optional<LinearForm> tilec::frontend::addScaledLinear(const LinearForm &a,
                                                           const LinearForm &b,
                                                           int64_t scale) {
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

std::optional<LinearForm> tilec::frontend::scaleLinear(const LinearForm &form,
                                                       int64_t scale) {
  return addScaledLinear(LinearForm(), form, scale);
}
