//===- TypeBuiltins.cpp - Types and kernel parameters in .tile ------------===//
//
// Part of tilec. The dtypes and T.dtype, the types of tensor parameters
// (T.Tensor, T.Buffer) with their T.dynamic extents, the -D constants of an
// eager kernel (T.const) and its outputs (T.empty).
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/StringExtras.h"

using namespace tilec::frontend;
using llvm::StringRef;

/// `source`'s elements, in row-major order, seen with `spec`'s shape:
/// T.Tensor(shape, dtype, X.data) and T.reshape. A view of a tensor in
/// global memory, of static extents and the same dtype.
static Ref makeView(Evaluator &eval, const BufferObject &source,
                    const TensorSpecObject &spec, llvm::SMLoc loc) {
  if (!eval.requireKernel(loc, "a view of a tensor"))
    return poison();
  std::string name =
      source.name.empty() ? "the buffer" : "'" + source.name + "'";
  if (source.scope != tilec::tile::MemoryScope::Global)
    return eval.error(loc, "views are of tensors in global memory; " + name +
                               " is not one");
  if (spec.dtype.type != source.dtype.type)
    return eval.error(loc, "a view has the dtype of " + name + ", " +
                               source.dtype.name + ", not " + spec.dtype.name);
  auto sourceType = llvm::cast<mlir::MemRefType>(source.memref.getType());
  llvm::SmallVector<int64_t> shape;
  for (const Ref &extent : spec.shape)
    if (std::optional<int64_t> value = getConstInt(extent))
      shape.push_back(*value);
  if (shape.size() != spec.shape.size() || !sourceType.hasStaticShape() ||
      !sourceType.getLayout().isIdentity())
    return eval.error(loc, "views of tensors with run-time extents are not "
                           "supported; index " +
                               name + " with the reshaped indices");
  if (mlir::ShapedType::getNumElements(shape) != sourceType.getNumElements())
    return eval.error(
        loc,
        "a view of shape (" +
            llvm::join(llvm::map_range(
                           shape, [](int64_t e) { return std::to_string(e); }),
                       ", ") +
            ") has " + llvm::Twine(mlir::ShapedType::getNumElements(shape)) +
            " elements, but " + name + " has " +
            llvm::Twine(sourceType.getNumElements()));
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size() - 1; i > 0; --i)
    strides[i - 1] = strides[i] * shape[i];
  auto type = mlir::MemRefType::get(shape, sourceType.getElementType(),
                                    mlir::MemRefLayoutAttrInterface(),
                                    sourceType.getMemorySpace());
  auto view = std::make_shared<BufferObject>();
  view->memref = mlir::memref::ReinterpretCastOp::create(
      eval.getBuilder(), eval.getLoc(loc), type, source.memref, /*offset=*/0,
      shape, strides);
  view->dtype = source.dtype;
  view->shape = spec.shape;
  view->scope = tilec::tile::MemoryScope::Global;
  return view;
}

static Ref tensorSpec(Evaluator &eval, const CallArgs &call, StringRef name) {
  std::optional<Args> args =
      bindArgs(eval, call, name, {"shape", "dtype", "data"}, 1);
  if (!args)
    return poison();
  auto spec = std::make_shared<TensorSpecObject>();
  if (isPoison((*args)[0]))
    return poison();
  for (const Ref &extent : asSequence((*args)[0])) {
    // An extent that was an error (a T.dynamic of a bad name) was reported.
    if (isPoison(extent))
      return poison();
    if (llvm::isa<DynamicDimObject>(*extent)) {
      spec->shape.push_back(extent);
      continue;
    }
    std::optional<int64_t> value = getConstInt(extent);
    if (auto *host = llvm::dyn_cast<HostObject>(extent.get()))
      return eval.hostValueError(*host, args->loc(0));
    if (!value)
      return eval.error(args->loc(0),
                        "tensor extents must be compile-time integers or "
                        "T.dynamic dimensions, got a " +
                            getTypeName(*extent));
    if (*value <= 0)
      return eval.error(args->loc(0), "tensor extents must be positive, "
                                      "got " +
                                          llvm::Twine(*value));
    spec->shape.push_back(extent);
  }
  if (spec->shape.empty())
    return eval.error(args->loc(0), "a tensor needs at least one dimension");
  // Offsets are 64-bit: the static extents alone must leave room.
  llvm::SmallVector<int64_t> staticExtents;
  for (const Ref &extent : spec->shape)
    if (std::optional<int64_t> value = getConstInt(extent))
      staticExtents.push_back(*value);
  if (!hasAtMostElements(staticExtents, int64_t(1) << 62))
    return eval.error(args->loc(0), "a tensor of more than 2^62 elements "
                                    "cannot be addressed");
  std::optional<DType> dtype =
      args->has(1) ? eval.getDType((*args)[1], args->loc(1), "the tensor")
                   : lookupDType("float32", eval.getContext());
  if (!dtype)
    return poison();
  spec->dtype = *dtype;
  if (!args->has(2))
    return spec;
  auto *data = llvm::dyn_cast<DataHandleObject>((*args)[2].get());
  if (!data)
    return eval.error(args->loc(2), "the data of a view is a buffer's, "
                                    "X.data, got a " +
                                        getTypeName(*(*args)[2]));
  return makeView(eval, *data->buffer, *spec, call.loc);
}

/// T.reshape(src, shape) and T.view(src, shape=None, dtype=None): `src`
/// seen with another shape.
static Ref reshape(Evaluator &eval, const CallArgs &call, StringRef name) {
  bool isView = name == "T.view";
  std::optional<Args> args =
      isView ? bindArgs(eval, call, name, {"src", "shape", "dtype"}, 1)
             : bindArgs(eval, call, name, {"src", "shape"}, 2);
  if (!args)
    return poison();
  auto source = bufferArg(eval, (*args)[0], args->loc(0),
                          ("the source of " + name).str());
  if (!source)
    return poison();
  auto spec = std::make_shared<TensorSpecObject>();
  spec->dtype = source->dtype;
  if (isView && args->has(2)) {
    std::optional<DType> dtype =
        eval.getDType((*args)[2], args->loc(2), "the view");
    if (!dtype)
      return poison();
    spec->dtype = *dtype;
  }
  if (!args->has(1)) {
    spec->shape = source->shape;
  } else {
    for (const Ref &extent : asSequence((*args)[1])) {
      std::optional<int64_t> value = getConstInt(extent);
      if (!value)
        return eval.error(args->loc(1), "the extents of a view are "
                                        "compile-time integers, got a " +
                                            getTypeName(*extent));
      if (*value <= 0 || *value > (int64_t(1) << 40))
        return eval.error(args->loc(1),
                          "the extents of a view are positive and below "
                          "2^40, got " +
                              llvm::Twine(*value));
      spec->shape.push_back(extent);
    }
    if (spec->shape.empty())
      return eval.error(args->loc(1), "a view needs at least one dimension");
  }
  return makeView(eval, *source, *spec, call.loc);
}

/// T.alloc_global(shape, dtype, scope="global"): a buffer in global memory
/// that the kernel function's blocks share, in the caller's workspace.
static Ref allocGlobal(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.alloc_global", {"shape", "dtype", "scope"}, 2);
  if (!args)
    return poison();
  if (args->has(2)) {
    auto *scope = llvm::dyn_cast<StrObject>((*args)[2].get());
    if (!scope || scope->value != "global")
      return eval.error(args->loc(2), "T.alloc_global takes the scope "
                                      "'global' only");
  }
  std::optional<DType> dtype =
      eval.getDType((*args)[1], args->loc(1), "the buffer's elements");
  if (!dtype || isPoison((*args)[0]))
    return poison();
  return eval.allocateWorkspace(asSequence((*args)[0]), *dtype, args->loc(0),
                                call.loc);
}

/// Whether `name` is a C identifier: ASCII letters, digits and '_', not
/// starting with a digit.
static bool isCIdentifier(StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

static Ref dynamicDim(Evaluator &eval, const CallArgs &call,
                      StringRef function) {
  std::optional<Args> args =
      bindArgs(eval, call, function, {"name", "dtype"}, 1);
  if (!args)
    return poison();
  auto *names = llvm::dyn_cast<StrObject>((*args)[0].get());
  if (!names || StringRef(names->value).trim().empty())
    return eval.error(args->loc(0), function + " takes the dimension's "
                                               "name as a string");
  std::optional<DType> dtype =
      args->has(1) ? eval.getDType((*args)[1], args->loc(1), "the dimension")
                   : lookupDType("int32", eval.getContext());
  if (!dtype)
    return poison();
  if (!dtype->isInteger())
    return eval.error(args->loc(1), "a dimension has an integer dtype");
  // `T.dynamic("m, n")` makes one dimension per name, as T.const does.
  llvm::SmallVector<StringRef> parts;
  StringRef(names->value).split(parts, ',');
  std::vector<Ref> dims;
  for (StringRef part : parts) {
    StringRef name = parts.size() == 1 ? part : part.trim();
    // The name is the launch functions' parameter for the extent in the C
    // header, so it must be one.
    if (!isCIdentifier(name)) {
      std::string quoted;
      llvm::raw_string_ostream os(quoted);
      llvm::printEscapedString(name, os);
      return eval.error(args->loc(0),
                        "the name of a " + function +
                            " dimension must be a C identifier (letters, "
                            "digits and '_', not starting with a digit): the "
                            "header's launch functions take the extent as a "
                            "parameter of that name; got '" +
                            quoted + "'");
    }
    dims.push_back(std::make_shared<DynamicDimObject>(name.str(), *dtype));
  }
  if (dims.size() == 1)
    return dims.front();
  return tuple(std::move(dims));
}

static Ref constNames(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "T.const", {"names"}, 1);
  if (!args)
    return poison();
  auto *names = llvm::dyn_cast<StrObject>((*args)[0].get());
  if (!names)
    return eval.error(args->loc(0), "T.const takes the names as a string, "
                                    "e.g. T.const(\"M, N\")");
  llvm::SmallVector<StringRef> parts;
  StringRef(names->value).split(parts, ',', -1, false);
  std::vector<Ref> values;
  for (StringRef part : parts) {
    StringRef trimmed = part.trim();
    if (trimmed.empty())
      continue;
    values.push_back(eval.lookupConst(trimmed, args->loc(0)));
  }
  if (values.empty())
    return eval.error(args->loc(0), "T.const names no constant");
  if (values.size() == 1)
    return values.front();
  return tuple(std::move(values));
}

static Ref empty(Evaluator &eval, const CallArgs &call) {
  Ref spec = tensorSpec(eval, call, "T.empty");
  if (isPoison(spec))
    return spec;
  return eval.declareOutput(
      std::static_pointer_cast<const TensorSpecObject>(spec), call.loc);
}

void tilec::frontend::addTypeBuiltins(ModuleObject &language,
                                      mlir::MLIRContext *context) {
  auto &m = language.members;
  for (StringRef name : getDTypeNames())
    m[name.str()] = std::make_shared<DTypeObject>(*lookupDType(name, context));
  m["dtype"] =
      builtin("T.dtype", [](Evaluator &eval, const CallArgs &call) -> Ref {
        std::optional<Args> args = bindArgs(eval, call, "T.dtype", {"name"}, 1);
        if (!args)
          return poison();
        std::optional<DType> dtype =
            eval.getDType((*args)[0], args->loc(0), "T.dtype");
        if (!dtype)
          return poison();
        return std::make_shared<DTypeObject>(*dtype);
      });
  for (StringRef name : {"Tensor", "Buffer"}) {
    std::string qualified = ("T." + name).str();
    auto constructor = std::make_shared<BuiltinObject>(
        qualified, [qualified](Evaluator &eval, const CallArgs &call) {
          return tensorSpec(eval, call, qualified);
        });
    constructor->calledBySubscript = true;
    m[name.str()] = constructor;
  }
  for (StringRef name : {"reshape", "view"}) {
    std::string qualified = ("T." + name).str();
    m[name.str()] =
        builtin(qualified, [qualified](Evaluator &eval, const CallArgs &call) {
          return reshape(eval, call, qualified);
        });
  }
  m["dynamic"] =
      builtin("T.dynamic", [](Evaluator &eval, const CallArgs &call) {
        return dynamicDim(eval, call, "T.dynamic");
      });
  m["symbolic"] =
      builtin("T.symbolic", [](Evaluator &eval, const CallArgs &call) {
        return dynamicDim(eval, call, "T.symbolic");
      });
  m["const"] = builtin("T.const", constNames);
  m["empty"] = builtin("T.empty", empty);
  m["alloc_global"] = builtin("T.alloc_global", allocGlobal);
}
