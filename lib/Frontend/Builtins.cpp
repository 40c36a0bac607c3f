//===- Builtins.cpp - The T namespace and Python builtins -----------------===//
//
// Part of tilec. Each T.* primitive checks its arguments the way TileLang
// does and emits its tile-dialect op; the math functions fold on constants
// and emit math/arith ops on run-time values; the Python builtins (range,
// len, min...) work on compile-time values.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/FragmentLayouts.h"
#include "tilec/Frontend/Sema.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
namespace arith = mlir::arith;

//===----------------------------------------------------------------------===//
// Argument helpers
//===----------------------------------------------------------------------===//

bool tilec::frontend::bindBuiltinArgs(Interpreter &interp, const CallArgs &call,
                                      StringRef function,
                                      llvm::ArrayRef<StringRef> names,
                                      size_t numRequired,
                                      std::vector<Ref> &values,
                                      std::vector<SMLoc> &locs) {
  values.assign(names.size(), nullptr);
  locs.assign(names.size(), call.loc);
  if (call.args.size() > names.size()) {
    interp.error(call.argLocs[names.size()],
                 function + "() takes at most " + llvm::Twine(names.size()) +
                     " argument" + (names.size() == 1 ? "" : "s") + " (" +
                     llvm::Twine(call.args.size()) + " given)");
    return false;
  }
  for (size_t i = 0; i < call.args.size(); ++i) {
    values[i] = call.args[i];
    locs[i] = call.argLocs[i];
  }
  for (auto [i, keyword] : llvm::enumerate(call.keywords)) {
    const auto *it = llvm::find(names, keyword.first);
    if (it == names.end()) {
      std::vector<std::string> candidates;
      for (StringRef name : names)
        candidates.push_back(name.str());
      std::string hint = Interpreter::suggest(keyword.first, candidates);
      interp.error(call.keywordLocs[i],
                   function + "() got an unexpected keyword argument '" +
                       keyword.first + "'" +
                       (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
      return false;
    }
    size_t index = it - names.begin();
    if (values[index]) {
      interp.error(call.keywordLocs[i], function +
                                            "() got multiple values for "
                                            "argument '" +
                                            keyword.first + "'");
      return false;
    }
    values[index] = keyword.second;
    locs[index] = call.keywordLocs[i];
  }
  for (size_t i = 0; i < numRequired; ++i) {
    if (!values[i]) {
      interp.error(call.loc,
                   function + "() is missing argument '" + names[i] + "'");
      return false;
    }
  }
  return true;
}

namespace {
/// Bound arguments of one builtin call.
struct Args {
  std::vector<Ref> values;
  std::vector<SMLoc> locs;
  const Ref &operator[](size_t i) const { return values[i]; }
  bool has(size_t i) const { return values[i] != nullptr; }
  SMLoc loc(size_t i) const { return locs[i]; }
};
} // namespace

static std::optional<Args> bind(Interpreter &interp, const CallArgs &call,
                                StringRef function,
                                llvm::ArrayRef<StringRef> names,
                                size_t numRequired) {
  Args args;
  if (!bindBuiltinArgs(interp, call, function, names, numRequired, args.values,
                       args.locs))
    return std::nullopt;
  return args;
}

/// A compile-time integer argument, or an error naming `what`.
static std::optional<int64_t> constIntArg(Interpreter &interp, const Ref &arg,
                                          SMLoc loc, StringRef what) {
  Ref value = interp.load(arg, loc);
  if (Interpreter::isPoison(value))
    return std::nullopt;
  if (std::optional<int64_t> i = Interpreter::getConstInt(value))
    return i;
  interp.error(loc, what + " must be a compile-time integer, got a " +
                        getTypeName(*value));
  return std::nullopt;
}

static std::optional<bool> constBoolArg(Interpreter &interp, const Ref &arg,
                                        SMLoc loc, StringRef what) {
  if (!arg)
    return std::nullopt;
  if (auto *b = llvm::dyn_cast<BoolObject>(arg.get()))
    return b->value;
  if (std::optional<int64_t> i = Interpreter::getConstInt(arg))
    return *i != 0;
  if (!Interpreter::isPoison(arg))
    interp.error(loc, what + " must be a compile-time bool, got a " +
                          getTypeName(*arg));
  return std::nullopt;
}

/// A whole buffer argument of a tile primitive.
static std::shared_ptr<const BufferObject>
bufferArg(Interpreter &interp, const Ref &arg, SMLoc loc, StringRef what) {
  if (Interpreter::isPoison(arg))
    return nullptr;
  if (auto buffer = std::dynamic_pointer_cast<const BufferObject>(arg)) {
    if (!buffer->isVar)
      return buffer;
    interp.error(loc, what +
                          " must be a buffer, got the T.alloc_var "
                          "variable '" +
                          buffer->name + "'");
    return nullptr;
  }
  if (auto *access = llvm::dyn_cast<AccessObject>(arg.get()))
    interp.error(loc, what + " must be a whole buffer, not a part of '" +
                          access->buffer->name + "'");
  else
    interp.error(loc, what + " must be a buffer, got a " + getTypeName(*arg));
  return nullptr;
}

/// Whether the product of `extents` is at most `limit`, overflow aside.
static bool hasAtMostElements(llvm::ArrayRef<int64_t> extents, int64_t limit) {
  int64_t elements = 1;
  for (int64_t extent : extents)
    if (llvm::MulOverflow(elements, extent, elements) || elements > limit)
      return false;
  return true;
}

/// A positive compile-time shape: an int or a tuple of ints.
static std::optional<llvm::SmallVector<int64_t>>
shapeArg(Interpreter &interp, const Ref &arg, SMLoc loc) {
  llvm::SmallVector<int64_t> shape;
  if (Interpreter::isPoison(arg))
    return std::nullopt;
  for (const Ref &extent : Interpreter::asSequence(arg)) {
    std::optional<int64_t> value = Interpreter::getConstInt(extent);
    if (!value) {
      interp.error(loc, "buffer shapes must be compile-time integers, got a " +
                            getTypeName(*extent));
      return std::nullopt;
    }
    if (*value <= 0) {
      interp.error(loc, "buffer extents must be positive, got " +
                            llvm::Twine(*value));
      return std::nullopt;
    }
    shape.push_back(*value);
  }
  if (shape.empty()) {
    interp.error(loc, "a buffer needs at least one dimension");
    return std::nullopt;
  }
  // A block's buffers live in registers and shared memory; far smaller.
  if (!hasAtMostElements(shape, int64_t(1) << 31)) {
    interp.error(loc, "a buffer of more than 2^31 elements cannot fit in a "
                      "block");
    return std::nullopt;
  }
  return shape;
}

/// The mixed static/dynamic form of a list of offsets.
static void splitOffsets(Interpreter &interp, llvm::ArrayRef<Ref> offsets,
                         SMLoc loc, llvm::SmallVectorImpl<mlir::Value> &dynamic,
                         llvm::SmallVectorImpl<int64_t> &statics) {
  for (const Ref &offset : offsets) {
    if (std::optional<int64_t> constant = Interpreter::getConstInt(offset)) {
      statics.push_back(*constant);
      continue;
    }
    mlir::Value value = interp.materializeIndex(offset, loc);
    if (std::optional<int64_t> folded = mlir::getConstantIntValue(value)) {
      statics.push_back(*folded);
      continue;
    }
    statics.push_back(mlir::ShapedType::kDynamic);
    dynamic.push_back(value);
  }
}

static std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  return llvm::join(
      llvm::map_range(shape, [](int64_t e) { return std::to_string(e); }), "x");
}

/// The items of a compile-time iterable: a tuple or list, a string's
/// characters, a dict's keys or a compile-time range.
static std::optional<std::vector<Ref>> iterate(Interpreter &interp,
                                               const Ref &value, SMLoc loc) {
  if (auto *sequence = llvm::dyn_cast<TupleObject>(value.get()))
    return sequence->elements;
  std::vector<Ref> items;
  if (auto *str = llvm::dyn_cast<StrObject>(value.get())) {
    for (char c : str->value)
      items.push_back(Interpreter::string(std::string(1, c)));
    return items;
  }
  if (auto *dict = llvm::dyn_cast<DictObject>(value.get())) {
    for (const auto &entry : dict->entries)
      items.push_back(entry.first);
    return items;
  }
  if (auto *range = llvm::dyn_cast<IterableObject>(value.get());
      range && range->compileTimeRange) {
    int64_t start = *Interpreter::getConstInt(range->start);
    int64_t stop = *Interpreter::getConstInt(range->stop);
    int64_t step = *Interpreter::getConstInt(range->step);
    if (stop > start && (stop - start) / step > (1 << 20)) {
      interp.error(loc, "range is too long");
      return std::nullopt;
    }
    for (int64_t i = start; i < stop; i += step)
      items.push_back(Interpreter::integer(i));
    return items;
  }
  if (!Interpreter::isPoison(value))
    interp.error(loc, "a " + getTypeName(*value) + " is not iterable");
  return std::nullopt;
}

static Ref builtin(std::string name, BuiltinObject::Handler handler) {
  return std::make_shared<BuiltinObject>(std::move(name), std::move(handler));
}

//===----------------------------------------------------------------------===//
// Allocation
//===----------------------------------------------------------------------===//

static Ref allocate(Interpreter &interp, const CallArgs &call, StringRef name,
                    tile::MemoryScope scope) {
  std::optional<Args> args =
      bind(interp, call, name, {"shape", "dtype", "scope"}, 2);
  if (!args || !interp.requireKernel(call.loc, name))
    return Interpreter::poison();
  std::optional<llvm::SmallVector<int64_t>> shape =
      shapeArg(interp, (*args)[0], args->loc(0));
  std::optional<DType> dtype =
      interp.getDType((*args)[1], args->loc(1), "the buffer's elements");
  if (!shape || !dtype)
    return Interpreter::poison();
  mlir::Value memref =
      interp.getEmitter().emitAlloc(scope, *shape, dtype->type, call.loc);
  if (!memref)
    return Interpreter::poison();
  auto buffer = std::make_shared<BufferObject>();
  buffer->memref = memref;
  buffer->dtype = *dtype;
  for (int64_t extent : *shape)
    buffer->shape.push_back(Interpreter::integer(extent));
  buffer->scope = scope;
  return buffer;
}

static Ref allocVar(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args =
      bind(interp, call, "T.alloc_var", {"dtype", "init", "scope"}, 1);
  if (!args || !interp.requireKernel(call.loc, "T.alloc_var"))
    return Interpreter::poison();
  std::optional<DType> dtype =
      interp.getDType((*args)[0], args->loc(0), "the variable");
  if (!dtype)
    return Interpreter::poison();
  mlir::Value init;
  if (args->has(1)) {
    Ref value = interp.toScalar((*args)[1], args->loc(1));
    if (Interpreter::isPoison(value))
      return value;
    init = interp.materialize(value, *dtype, args->loc(1));
  }
  mlir::Value memref =
      interp.getEmitter().emitAllocVar(dtype->type, init, call.loc);
  if (!memref)
    return Interpreter::poison();
  auto buffer = std::make_shared<BufferObject>();
  buffer->memref = memref;
  buffer->dtype = *dtype;
  buffer->scope = tile::MemoryScope::Local;
  buffer->isVar = true;
  return buffer;
}

//===----------------------------------------------------------------------===//
// T.copy
//===----------------------------------------------------------------------===//

namespace {
/// One side of a copy.
struct Region {
  std::shared_ptr<const BufferObject> buffer;
  std::vector<Ref> offsets;
  /// std::nullopt: a single index (extent 1, or taken from the other side
  /// when every dimension is one).
  std::vector<std::optional<int64_t>> extents;
  bool isOrigin = false;
};
} // namespace

static std::optional<Region> regionArg(Interpreter &interp, const Ref &arg,
                                       SMLoc loc, StringRef what) {
  if (Interpreter::isPoison(arg))
    return std::nullopt;
  Region region;
  if (auto buffer = std::dynamic_pointer_cast<const BufferObject>(arg)) {
    if (buffer->isVar) {
      interp.error(loc, what + " of T.copy cannot be a T.alloc_var variable");
      return std::nullopt;
    }
    region.buffer = buffer;
    for (const Ref &extent : buffer->shape) {
      region.offsets.push_back(Interpreter::integer(0));
      std::optional<int64_t> size = Interpreter::getConstInt(extent);
      if (!size) {
        interp.error(loc, "T.copy of all of '" + buffer->name +
                              "' needs static extents, but it has a dynamic "
                              "dimension; copy a slice with a known extent");
        return std::nullopt;
      }
      region.extents.push_back(*size);
    }
    return region;
  }
  if (auto *access = llvm::dyn_cast<AccessObject>(arg.get())) {
    region.buffer = access->buffer;
    region.offsets = access->offsets;
    region.extents = access->extents;
    region.isOrigin = access->isElement();
    return region;
  }
  interp.error(loc, what +
                        " of T.copy must be a buffer, a slice or an "
                        "element origin, got a " +
                        getTypeName(*arg));
  return std::nullopt;
}

/// Extents for an element origin: the other side's, right-aligned to this
/// rank with leading unit dimensions, as TileLang does.
static bool fillOriginExtents(Interpreter &interp, Region &origin,
                              llvm::ArrayRef<int64_t> other, SMLoc loc) {
  size_t rank = origin.offsets.size();
  llvm::SmallVector<int64_t> extents(other);
  while (extents.size() > rank && extents.front() == 1)
    extents.erase(extents.begin());
  if (extents.size() > rank) {
    interp.error(loc, "a " + shapeString(other) + " tile does not fit a rank-" +
                          llvm::Twine(rank) +
                          " element origin; copy a slice instead");
    return false;
  }
  extents.insert(extents.begin(), rank - extents.size(), 1);
  for (size_t i = 0; i < rank; ++i)
    origin.extents[i] = extents[i];
  return true;
}

static llvm::SmallVector<int64_t> resolvedExtents(const Region &region) {
  llvm::SmallVector<int64_t> extents;
  for (std::optional<int64_t> extent : region.extents)
    extents.push_back(extent.value_or(1));
  return extents;
}

static llvm::SmallVector<int64_t> squeeze(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> result;
  for (int64_t e : shape)
    if (e != 1)
      result.push_back(e);
  return result;
}

static Ref copy(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args = bind(interp, call, "T.copy", {"src", "dst"}, 2);
  if (!args || !interp.requireKernel(call.loc, "T.copy"))
    return Interpreter::poison();
  std::optional<Region> src =
      regionArg(interp, (*args)[0], args->loc(0), "the source");
  std::optional<Region> dst =
      regionArg(interp, (*args)[1], args->loc(1), "the destination");
  if (!src || !dst)
    return Interpreter::poison();
  if (src->isOrigin && dst->isOrigin)
    return interp.error(call.loc,
                        "T.copy needs the extent of at least one side: both "
                        "are single elements; use a buffer or a slice");
  if (src->isOrigin &&
      !fillOriginExtents(interp, *src, resolvedExtents(*dst), args->loc(0)))
    return Interpreter::poison();
  if (dst->isOrigin &&
      !fillOriginExtents(interp, *dst, resolvedExtents(*src), args->loc(1)))
    return Interpreter::poison();

  llvm::SmallVector<int64_t> srcExtents = resolvedExtents(*src);
  llvm::SmallVector<int64_t> dstExtents = resolvedExtents(*dst);
  if (squeeze(srcExtents) != squeeze(dstExtents))
    return interp.error(
        call.loc, "T.copy of a " + shapeString(srcExtents) + " region into a " +
                      shapeString(dstExtents) + " region: the shapes differ");

  CopyRegion srcRegion, dstRegion;
  srcRegion.memref = src->buffer->memref;
  splitOffsets(interp, src->offsets, args->loc(0), srcRegion.dynamicOffsets,
               srcRegion.staticOffsets);
  srcRegion.extents = srcExtents;
  dstRegion.memref = dst->buffer->memref;
  splitOffsets(interp, dst->offsets, args->loc(1), dstRegion.dynamicOffsets,
               dstRegion.staticOffsets);
  dstRegion.extents = dstExtents;
  interp.getEmitter().emitCopy(srcRegion, dstRegion, call.loc);
  return Interpreter::none();
}

//===----------------------------------------------------------------------===//
// T.gemm, T.fill, T.clear, T.reduce_*, T.atomic_add
//===----------------------------------------------------------------------===//

static Ref gemm(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args =
      bind(interp, call, "T.gemm",
           {"A", "B", "C", "transpose_A", "transpose_B", "policy",
            "clear_accum", "k_pack", "wg_wait"},
           3);
  if (!args || !interp.requireKernel(call.loc, "T.gemm"))
    return Interpreter::poison();
  auto a = bufferArg(interp, (*args)[0], args->loc(0), "A");
  auto b = bufferArg(interp, (*args)[1], args->loc(1), "B");
  auto c = bufferArg(interp, (*args)[2], args->loc(2), "C");
  if (!a || !b || !c)
    return Interpreter::poison();
  bool transposeA =
      constBoolArg(interp, (*args)[3], args->loc(3), "transpose_A")
          .value_or(false);
  bool transposeB =
      constBoolArg(interp, (*args)[4], args->loc(4), "transpose_B")
          .value_or(false);
  bool clearAccum =
      constBoolArg(interp, (*args)[6], args->loc(6), "clear_accum")
          .value_or(false);
  tile::GemmWarpPolicy policy = tile::GemmWarpPolicy::Square;
  if (args->has(5)) {
    auto *e = llvm::dyn_cast<EnumObject>((*args)[5].get());
    if (!e || e->enumName != "T.GemmWarpPolicy")
      return interp.error(args->loc(5),
                          "policy must be a T.GemmWarpPolicy (Square, "
                          "FullRow or FullCol)");
    policy = static_cast<tile::GemmWarpPolicy>(e->value);
  }
  for (auto [index, name] : {std::make_pair(size_t(7), "k_pack"),
                             std::make_pair(size_t(8), "wg_wait")}) {
    if (!args->has(index))
      continue;
    std::optional<int64_t> value =
        constIntArg(interp, (*args)[index], args->loc(index), name);
    int64_t expected = index == 7 ? 1 : 0;
    if (value && *value != expected)
      return interp.error(args->loc(index), llvm::Twine(name) + " = " +
                                                llvm::Twine(*value) +
                                                " is not supported yet (only " +
                                                llvm::Twine(expected) + ")");
  }
  interp.getEmitter().emitGemm(a->memref, b->memref, c->memref, transposeA,
                               transposeB, policy, clearAccum, call.loc);
  return Interpreter::none();
}

static Ref fill(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args =
      bind(interp, call, "T.fill", {"buffer", "value"}, 2);
  if (!args || !interp.requireKernel(call.loc, "T.fill"))
    return Interpreter::poison();
  auto buffer = bufferArg(interp, (*args)[0], args->loc(0), "the buffer");
  Ref value = interp.toScalar((*args)[1], args->loc(1));
  if (!buffer || Interpreter::isPoison(value))
    return Interpreter::poison();
  mlir::Value fillValue =
      interp.materialize(value, buffer->dtype, args->loc(1));
  interp.getEmitter().emitFill(buffer->memref, fillValue, call.loc);
  return Interpreter::none();
}

static Ref assume(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args = bind(interp, call, "T.assume", {"cond"}, 1);
  if (!args || !interp.requireKernel(call.loc, "T.assume"))
    return Interpreter::poison();
  Ref cond = (*args)[0];
  if (Interpreter::isPoison(cond))
    return Interpreter::poison();
  if (!llvm::isa<BoolObject, IntObject, ScalarObject>(*cond))
    return interp.error(args->loc(0), "T.assume takes a condition, not a " +
                                          getTypeName(*cond));
  std::optional<bool> known = interp.truth(cond, args->loc(0));
  if (known) {
    if (!*known)
      return interp.error(args->loc(0),
                          "T.assume of a condition that is false at compile "
                          "time");
    return Interpreter::none();
  }
  mlir::Value condition = interp.materializeCondition(cond, args->loc(0));
  interp.getEmitter().emitAssume(condition, call.loc);
  return Interpreter::none();
}

static Ref clear(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args = bind(interp, call, "T.clear", {"buffer"}, 1);
  if (!args || !interp.requireKernel(call.loc, "T.clear"))
    return Interpreter::poison();
  auto buffer = bufferArg(interp, (*args)[0], args->loc(0), "the buffer");
  if (!buffer)
    return Interpreter::poison();
  interp.getEmitter().emitClear(buffer->memref, call.loc);
  return Interpreter::none();
}

static BuiltinObject::Handler reduce(tile::ReduceKind kind, std::string name) {
  return [kind, name](Interpreter &interp, const CallArgs &call) -> Ref {
    std::optional<Args> args =
        bind(interp, call, name, {"buffer", "out", "dim", "clear"}, 2);
    if (!args || !interp.requireKernel(call.loc, name))
      return Interpreter::poison();
    auto src = bufferArg(interp, (*args)[0], args->loc(0), "the source");
    auto dst = bufferArg(interp, (*args)[1], args->loc(1), "the result");
    if (!src || !dst)
      return Interpreter::poison();
    int64_t rank = src->shape.size();
    int64_t dim = -1;
    if (args->has(2)) {
      std::optional<int64_t> value =
          constIntArg(interp, (*args)[2], args->loc(2), "dim");
      if (!value)
        return Interpreter::poison();
      dim = *value;
    }
    if (dim < -rank || dim >= rank)
      return interp.error(args->has(2) ? args->loc(2) : call.loc,
                          "dim " + llvm::Twine(dim) +
                              " is out of range for a rank-" +
                              llvm::Twine(rank) + " buffer");
    if (dim < 0)
      dim += rank;
    bool clearFirst =
        constBoolArg(interp, (*args)[3], args->loc(3), "clear").value_or(true);
    interp.getEmitter().emitReduce(kind, src->memref, dst->memref, dim,
                                   clearFirst, call.loc);
    return Interpreter::none();
  };
}

static Ref atomicAdd(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args =
      bind(interp, call, "T.atomic_add", {"dst", "value"}, 2);
  if (!args || !interp.requireKernel(call.loc, "T.atomic_add"))
    return Interpreter::poison();
  if (Interpreter::isPoison((*args)[0]) || Interpreter::isPoison((*args)[1]))
    return Interpreter::poison();
  auto *dst = llvm::dyn_cast<AccessObject>((*args)[0].get());
  if (!dst || !dst->isElement())
    return interp.error(args->loc(0),
                        "the destination of T.atomic_add is an element or the "
                        "origin of a region, e.g. C[i, j]");
  mlir::Value value;
  if (auto tile = std::dynamic_pointer_cast<const BufferObject>((*args)[1]);
      tile && !tile->isVar) {
    value = tile->memref;
  } else {
    Ref scalar = interp.toScalar((*args)[1], args->loc(1));
    if (Interpreter::isPoison(scalar))
      return scalar;
    value = interp.materialize(scalar, dst->buffer->dtype, args->loc(1));
  }
  llvm::SmallVector<mlir::Value> indices;
  for (const Ref &offset : dst->offsets)
    indices.push_back(interp.materializeIndex(offset, args->loc(0)));
  interp.getEmitter().emitAtomicAdd(value, dst->buffer->memref, indices,
                                    call.loc);
  return Interpreter::none();
}

//===----------------------------------------------------------------------===//
// Loops and the kernel
//===----------------------------------------------------------------------===//

/// An integer loop bound: a compile-time int or a run-time integer.
static Ref boundArg(Interpreter &interp, const Ref &arg, SMLoc loc,
                    StringRef what) {
  Ref value = interp.load(arg, loc);
  if (Interpreter::isPoison(value))
    return value;
  if (Interpreter::getConstInt(value))
    return value;
  if (auto *scalar = llvm::dyn_cast<ScalarObject>(value.get());
      scalar && scalar->dtype.isInteger())
    return value;
  return interp.error(loc, what + " must be an integer, got a " +
                               getTypeName(*value));
}

static std::optional<std::vector<int64_t>>
intListArg(Interpreter &interp, const Ref &arg, SMLoc loc, StringRef what) {
  std::vector<int64_t> values;
  for (const Ref &element : Interpreter::asSequence(arg)) {
    std::optional<int64_t> value = Interpreter::getConstInt(element);
    if (!value) {
      interp.error(loc, what + " must be a list of compile-time integers");
      return std::nullopt;
    }
    values.push_back(*value);
  }
  return values;
}

static Ref parallel(Interpreter &interp, const CallArgs &call) {
  if (!call.keywords.empty())
    return interp.error(call.keywordLocs.front(),
                        "T.Parallel() got an unexpected keyword argument '" +
                            call.keywords.front().first + "'");
  if (call.args.empty())
    return interp.error(call.loc, "T.Parallel needs at least one extent");
  auto iterable = std::make_shared<IterableObject>();
  iterable->loopKind = IterableObject::LoopKind::Parallel;
  for (auto [arg, loc] : llvm::zip(call.args, call.argLocs)) {
    Ref value = interp.load(arg, loc);
    std::optional<int64_t> extent = Interpreter::getConstInt(value);
    if (!extent)
      return interp.error(loc, "T.Parallel extents must be compile-time "
                               "integers, got a " +
                                   getTypeName(*value));
    if (*extent <= 0)
      return interp.error(loc, "T.Parallel extents must be positive, got " +
                                   llvm::Twine(*extent));
    iterable->extents.push_back(*extent);
  }
  return iterable;
}

static Ref pipelined(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args = bind(
      interp, call, "T.Pipelined",
      {"start", "stop", "num_stages", "order", "stage", "sync", "group"}, 1);
  if (!args)
    return Interpreter::poison();
  auto iterable = std::make_shared<IterableObject>();
  iterable->loopKind = IterableObject::LoopKind::Pipelined;
  Ref first = boundArg(interp, (*args)[0], args->loc(0), "the loop bound");
  if (args->has(1)) {
    iterable->start = first;
    iterable->stop = boundArg(interp, (*args)[1], args->loc(1), "stop");
  } else {
    iterable->start = Interpreter::integer(0);
    iterable->stop = first;
  }
  if (Interpreter::isPoison(iterable->start) ||
      Interpreter::isPoison(iterable->stop))
    return Interpreter::poison();
  if (args->has(2)) {
    std::optional<int64_t> stages =
        constIntArg(interp, (*args)[2], args->loc(2), "num_stages");
    if (!stages)
      return Interpreter::poison();
    if (*stages < 0)
      return interp.error(args->loc(2), "num_stages must not be negative");
    iterable->numStages = *stages;
  }
  if (args->has(3) != args->has(4))
    return interp.error(call.loc, "T.Pipelined takes order and stage "
                                  "together");
  if (args->has(3)) {
    iterable->order = intListArg(interp, (*args)[3], args->loc(3), "order");
    iterable->stage = intListArg(interp, (*args)[4], args->loc(4), "stage");
    if (!iterable->order || !iterable->stage)
      return Interpreter::poison();
  }
  for (size_t i : {5, 6})
    if (args->has(i) && !llvm::isa<NoneObject>(*(*args)[i]))
      return interp.error(args->loc(i),
                          llvm::Twine(i == 5 ? "sync" : "group") +
                              " is not supported by tilec's pipeliner yet");
  return iterable;
}

static BuiltinObject::Handler serialLoop(IterableObject::LoopKind kind,
                                         std::string name, bool isPythonRange) {
  return [=](Interpreter &interp, const CallArgs &call) -> Ref {
    std::optional<Args> args =
        bind(interp, call, name, {"start", "stop", "step"}, 1);
    if (!args)
      return Interpreter::poison();
    auto iterable = std::make_shared<IterableObject>();
    iterable->loopKind = kind;
    Ref first = boundArg(interp, (*args)[0], args->loc(0), "the loop bound");
    if (args->has(1)) {
      iterable->start = first;
      iterable->stop = boundArg(interp, (*args)[1], args->loc(1), "stop");
    } else {
      iterable->start = Interpreter::integer(0);
      iterable->stop = first;
    }
    iterable->step = args->has(2)
                         ? boundArg(interp, (*args)[2], args->loc(2), "step")
                         : Interpreter::integer(1);
    for (const Ref &bound : {iterable->start, iterable->stop, iterable->step})
      if (Interpreter::isPoison(bound))
        return bound;
    if (std::optional<int64_t> step = Interpreter::getConstInt(iterable->step);
        step && *step <= 0)
      return interp.error(args->has(2) ? args->loc(2) : call.loc,
                          name + "() step must be positive");
    // Python's range outside a kernel runs at compile time.
    if (isPythonRange && !interp.inKernel()) {
      for (const Ref &bound : {iterable->start, iterable->stop, iterable->step})
        if (!Interpreter::getConstInt(bound))
          return interp.error(call.loc, "range() outside a kernel needs "
                                        "compile-time bounds");
      iterable->compileTimeRange = true;
    }
    return iterable;
  };
}

static Ref kernel(Interpreter &interp, const CallArgs &call) {
  auto launch = std::make_shared<KernelLaunchObject>();
  launch->loc = call.loc;
  launch->threads = {128};
  for (auto [i, keyword] : llvm::enumerate(call.keywords)) {
    SMLoc loc = call.keywordLocs[i];
    if (keyword.first == "threads") {
      launch->threads.clear();
      for (const Ref &extent : Interpreter::asSequence(keyword.second)) {
        std::optional<int64_t> value = Interpreter::getConstInt(extent);
        if (!value)
          return interp.error(loc, "threads must be compile-time integers");
        if (*value <= 0)
          return interp.error(loc, "threads must be positive, got " +
                                       llvm::Twine(*value));
        launch->threads.push_back(*value);
      }
      if (launch->threads.empty() || launch->threads.size() > 3)
        return interp.error(loc, "threads has one to three dimensions");
      int64_t total = 1;
      for (int64_t extent : launch->threads)
        total *= extent;
      if (total > 1024)
        return interp.error(loc, "a block has at most 1024 threads, got " +
                                     llvm::Twine(total));
    } else if (keyword.first == "is_cpu" || keyword.first == "prelude") {
      return interp.error(loc, "T.Kernel(" + keyword.first +
                                   "=...) is not supported by tilec");
    } else {
      return interp.error(loc, "T.Kernel() got an unexpected keyword "
                               "argument '" +
                                   keyword.first + "'");
    }
  }
  if (call.args.empty() || call.args.size() > 3)
    return interp.error(call.loc, "T.Kernel takes one to three grid "
                                  "extents, got " +
                                      llvm::Twine(call.args.size()));
  for (auto [arg, loc] : llvm::zip(call.args, call.argLocs)) {
    Ref extent = boundArg(interp, arg, loc, "a grid extent");
    if (Interpreter::isPoison(extent))
      return extent;
    if (std::optional<int64_t> value = Interpreter::getConstInt(extent);
        value && *value <= 0)
      return interp.error(loc, "grid extents must be positive, got " +
                                   llvm::Twine(*value));
    launch->grid.push_back(extent);
  }
  return launch;
}

//===----------------------------------------------------------------------===//
// Annotations
//===----------------------------------------------------------------------===//

static Ref useSwizzle(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args =
      bind(interp, call, "T.use_swizzle", {"panel_size", "order", "enable"}, 1);
  if (!args || !interp.requireKernel(call.loc, "T.use_swizzle"))
    return Interpreter::poison();
  std::optional<int64_t> panel =
      constIntArg(interp, (*args)[0], args->loc(0), "panel_size");
  if (!panel)
    return Interpreter::poison();
  if (*panel <= 0)
    return interp.error(args->loc(0), "panel_size must be positive");
  tile::RasterOrder order = tile::RasterOrder::Row;
  if (args->has(1)) {
    auto *str = llvm::dyn_cast<StrObject>((*args)[1].get());
    if (!str ||
        (str->value != "row" && str->value != "col" && str->value != "column"))
      return interp.error(args->loc(1), "order must be \"row\" or \"col\"");
    order =
        str->value == "row" ? tile::RasterOrder::Row : tile::RasterOrder::Col;
  }
  if (!constBoolArg(interp, (*args)[2], args->loc(2), "enable").value_or(true))
    return Interpreter::none();
  interp.getEmitter().emitUseSwizzle(*panel, order, call.loc);
  return Interpreter::none();
}

static Ref annotateLayout(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args =
      bind(interp, call, "T.annotate_layout", {"layout_map"}, 1);
  if (!args || !interp.requireKernel(call.loc, "T.annotate_layout"))
    return Interpreter::poison();
  auto *dict = llvm::dyn_cast<DictObject>((*args)[0].get());
  if (!dict)
    return interp.error(args->loc(0), "T.annotate_layout takes a dict from "
                                      "buffers to layouts");
  for (const auto &[key, value] : dict->entries) {
    auto buffer = bufferArg(interp, key, args->loc(0), "a layout key");
    if (!buffer)
      continue;
    auto *layout = llvm::dyn_cast<LayoutObject>(value.get());
    if (!layout) {
      if (!Interpreter::isPoison(value))
        interp.error(args->loc(0), "the layout of '" + buffer->name +
                                       "' must be a layout, got a " +
                                       getTypeName(*value));
      continue;
    }
    interp.getEmitter().emitAnnotateLayout(buffer->memref, layout->layout,
                                           call.loc);
  }
  return Interpreter::none();
}

/// The swizzled row-major layout TileLang's make_swizzled_layout picks:
/// 16-byte chunks of a row XORed with the row's position in a 128-byte
/// pattern, the widest swizzle the row size allows.
static Ref makeSwizzledLayout(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args =
      bind(interp, call, "make_swizzled_layout", {"buffer"}, 1);
  if (!args)
    return Interpreter::poison();
  auto buffer = bufferArg(interp, (*args)[0], args->loc(0), "the buffer");
  if (!buffer)
    return Interpreter::poison();
  if (buffer->scope != tile::MemoryScope::Shared)
    return interp.error(args->loc(0), "make_swizzled_layout is for shared "
                                      "memory buffers");
  llvm::SmallVector<int64_t> shape;
  for (const Ref &extent : buffer->shape)
    shape.push_back(*Interpreter::getConstInt(extent));
  mlir::MLIRContext *context = interp.getContext();
  // Row-major map.
  mlir::AffineExpr offset = mlir::getAffineConstantExpr(0, context);
  int64_t stride = 1;
  for (int64_t dim = shape.size() - 1; dim >= 0; --dim) {
    offset = offset + mlir::getAffineDimExpr(dim, context) * stride;
    stride *= shape[dim];
  }
  auto map = mlir::AffineMap::get(shape.size(), 0, offset);
  unsigned elemBytes = std::max(1u, buffer->dtype.getWidth() / 8);
  tile::SwizzleAttr swizzle =
      chooseSharedSwizzle(context, shape.back(), elemBytes);
  return std::make_shared<LayoutObject>(
      tile::SharedLayoutAttr::get(context, shape, map, swizzle));
}

//===----------------------------------------------------------------------===//
// Types and parameters
//===----------------------------------------------------------------------===//

static Ref tensorSpec(Interpreter &interp, const CallArgs &call,
                      StringRef name) {
  std::optional<Args> args = bind(interp, call, name, {"shape", "dtype"}, 1);
  if (!args)
    return Interpreter::poison();
  auto spec = std::make_shared<TensorSpecObject>();
  if (Interpreter::isPoison((*args)[0]))
    return Interpreter::poison();
  for (const Ref &extent : Interpreter::asSequence((*args)[0])) {
    // An extent that was an error (a T.dynamic of a bad name) was reported.
    if (Interpreter::isPoison(extent))
      return Interpreter::poison();
    if (llvm::isa<DynamicDimObject>(*extent)) {
      spec->shape.push_back(extent);
      continue;
    }
    std::optional<int64_t> value = Interpreter::getConstInt(extent);
    if (!value)
      return interp.error(args->loc(0),
                          "tensor extents must be compile-time integers or "
                          "T.dynamic dimensions, got a " +
                              getTypeName(*extent));
    if (*value <= 0)
      return interp.error(args->loc(0), "tensor extents must be positive, "
                                        "got " +
                                            llvm::Twine(*value));
    spec->shape.push_back(extent);
  }
  if (spec->shape.empty())
    return interp.error(args->loc(0), "a tensor needs at least one dimension");
  // Offsets are 64-bit: the static extents alone must leave room.
  llvm::SmallVector<int64_t> staticExtents;
  for (const Ref &extent : spec->shape)
    if (std::optional<int64_t> value = Interpreter::getConstInt(extent))
      staticExtents.push_back(*value);
  if (!hasAtMostElements(staticExtents, int64_t(1) << 62))
    return interp.error(args->loc(0), "a tensor of more than 2^62 elements "
                                      "cannot be addressed");
  std::optional<DType> dtype =
      args->has(1) ? interp.getDType((*args)[1], args->loc(1), "the tensor")
                   : lookupDType("float32", interp.getContext());
  if (!dtype)
    return Interpreter::poison();
  spec->dtype = *dtype;
  return spec;
}

/// Whether `name` is a C identifier: ASCII letters, digits and '_', not
/// starting with a digit.
static bool isCIdentifier(StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

static Ref dynamicDim(Interpreter &interp, const CallArgs &call,
                      StringRef function) {
  std::optional<Args> args = bind(interp, call, function, {"name", "dtype"}, 1);
  if (!args)
    return Interpreter::poison();
  auto *name = llvm::dyn_cast<StrObject>((*args)[0].get());
  if (!name || name->value.empty())
    return interp.error(args->loc(0), function + " takes the dimension's "
                                                 "name as a string");
  // The name is the launch functions' parameter for the extent in the C
  // header, so it must be one.
  if (!isCIdentifier(name->value)) {
    std::string quoted;
    llvm::raw_string_ostream os(quoted);
    llvm::printEscapedString(name->value, os);
    return interp.error(args->loc(0),
                        "the name of a " + function +
                            " dimension must be a C identifier (letters, "
                            "digits and '_', not starting with a digit): the "
                            "header's launch functions take the extent as a "
                            "parameter of that name; got '" +
                            quoted + "'");
  }
  std::optional<DType> dtype =
      args->has(1) ? interp.getDType((*args)[1], args->loc(1), "the dimension")
                   : lookupDType("int32", interp.getContext());
  if (!dtype)
    return Interpreter::poison();
  if (!dtype->isInteger())
    return interp.error(args->loc(1), "a dimension has an integer dtype");
  return std::make_shared<DynamicDimObject>(name->value, *dtype);
}

static Ref constNames(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args = bind(interp, call, "T.const", {"names"}, 1);
  if (!args)
    return Interpreter::poison();
  auto *names = llvm::dyn_cast<StrObject>((*args)[0].get());
  if (!names)
    return interp.error(args->loc(0), "T.const takes the names as a string, "
                                      "e.g. T.const(\"M, N\")");
  llvm::SmallVector<StringRef> parts;
  StringRef(names->value).split(parts, ',', -1, false);
  std::vector<Ref> values;
  for (StringRef part : parts) {
    StringRef trimmed = part.trim();
    if (trimmed.empty())
      continue;
    values.push_back(interp.lookupConst(trimmed, args->loc(0)));
  }
  if (values.empty())
    return interp.error(args->loc(0), "T.const names no constant");
  if (values.size() == 1)
    return values.front();
  return Interpreter::tuple(std::move(values));
}

static Ref empty(Interpreter &interp, const CallArgs &call) {
  Ref spec = tensorSpec(interp, call, "T.empty");
  if (Interpreter::isPoison(spec))
    return spec;
  return interp.declareOutput(
      std::static_pointer_cast<const TensorSpecObject>(spec), call.loc);
}

//===----------------------------------------------------------------------===//
// Math
//===----------------------------------------------------------------------===//

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
  return [fn, name](Interpreter &interp, const CallArgs &call) -> Ref {
    std::optional<Args> args = bind(interp, call, name, {"x"}, 1);
    if (!args)
      return Interpreter::poison();
    Ref x = interp.toScalar((*args)[0], args->loc(0));
    if (Interpreter::isPoison(x))
      return x;
    if (std::optional<double> value = Interpreter::getConstNumber(x))
      return Interpreter::floating(evalMath(fn, *value));
    DType type = interp.dtypeOf(x);
    if (!type.isFloat())
      type = *lookupDType("float32", interp.getContext());
    mlir::Value v = interp.materialize(x, type, args->loc(0));
    mlir::OpBuilder &b = interp.getBuilder();
    mlir::Location loc = interp.getLoc(call.loc);
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
  return [isMax, name](Interpreter &interp, const CallArgs &call) -> Ref {
    if (!call.keywords.empty())
      return interp.error(call.keywordLocs.front(),
                          name + "() takes no keyword arguments");
    std::vector<Ref> operands;
    std::vector<SMLoc> locs;
    if (call.args.size() == 1 && isNumberLike(call.args.front()))
      return interp.error(call.loc, name + "() of one value: give two or more "
                                           "values, or a sequence of them");
    if (call.args.size() == 1) {
      // max(sequence)
      std::optional<std::vector<Ref>> items =
          iterate(interp, call.args.front(), call.argLocs.front());
      if (!items)
        return Interpreter::poison();
      operands = std::move(*items);
      locs.assign(operands.size(), call.argLocs.front());
    } else {
      operands = call.args;
      locs = call.argLocs;
    }
    if (operands.empty())
      return interp.error(call.loc, name + "() needs at least one value");
    Ref best = interp.toScalar(operands[0], locs[0]);
    for (size_t i = 1; i < operands.size(); ++i) {
      Ref next = interp.toScalar(operands[i], locs[i]);
      if (Interpreter::isPoison(best) || Interpreter::isPoison(next))
        return Interpreter::poison();
      std::optional<double> a = Interpreter::getConstNumber(best);
      std::optional<double> b = Interpreter::getConstNumber(next);
      if (a && b) {
        if (isMax ? *b > *a : *b < *a)
          best = next;
        continue;
      }
      DType type = interp.promote(best, next);
      mlir::Value l = interp.materialize(best, type, call.loc);
      mlir::Value r = interp.materialize(next, type, call.loc);
      mlir::OpBuilder &builder = interp.getBuilder();
      mlir::Location loc = interp.getLoc(call.loc);
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

static Ref absValue(Interpreter &interp, const CallArgs &call, StringRef name) {
  std::optional<Args> args = bind(interp, call, name, {"x"}, 1);
  if (!args)
    return Interpreter::poison();
  Ref x = interp.toScalar((*args)[0], args->loc(0));
  if (Interpreter::isPoison(x))
    return x;
  if (std::optional<int64_t> i = Interpreter::getConstInt(x)) {
    if (*i == INT64_MIN)
      return interp.error(call.loc, "integer overflow in abs()");
    return Interpreter::integer(*i < 0 ? -*i : *i);
  }
  if (auto *f = llvm::dyn_cast<FloatObject>(x.get()))
    return Interpreter::floating(std::fabs(f->value));
  auto &scalar = llvm::cast<ScalarObject>(*x);
  mlir::Location loc = interp.getLoc(call.loc);
  mlir::Value result =
      scalar.dtype.isFloat()
          ? mlir::math::AbsFOp::create(interp.getBuilder(), loc, scalar.value)
                .getResult()
          : mlir::math::AbsIOp::create(interp.getBuilder(), loc, scalar.value)
                .getResult();
  return std::make_shared<ScalarObject>(result, scalar.dtype);
}

static Ref ceildiv(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args = bind(interp, call, "T.ceildiv", {"a", "b"}, 2);
  if (!args)
    return Interpreter::poison();
  Ref a = interp.toScalar((*args)[0], args->loc(0));
  Ref b = interp.toScalar((*args)[1], args->loc(1));
  if (Interpreter::isPoison(a) || Interpreter::isPoison(b))
    return Interpreter::poison();
  std::optional<int64_t> ca = Interpreter::getConstInt(a);
  std::optional<int64_t> cb = Interpreter::getConstInt(b);
  if (cb && *cb == 0)
    return interp.error(args->loc(1), "division by zero in T.ceildiv");
  if (ca && cb)
    return Interpreter::integer(llvm::divideCeilSigned(*ca, *cb));
  for (const Ref &operand : {a, b})
    if (!Interpreter::getConstInt(operand) &&
        !interp.dtypeOf(operand).isInteger())
      return interp.error(call.loc, "T.ceildiv takes integers");
  DType type = interp.promote(a, b);
  mlir::Value result = interp.getBuilder().createOrFold<arith::CeilDivSIOp>(
      interp.getLoc(call.loc), interp.materialize(a, type, call.loc),
      interp.materialize(b, type, call.loc));
  return std::make_shared<ScalarObject>(result, type);
}

//===----------------------------------------------------------------------===//
// Python builtins
//===----------------------------------------------------------------------===//

static Ref len(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args = bind(interp, call, "len", {"obj"}, 1);
  if (!args)
    return Interpreter::poison();
  const Ref &value = (*args)[0];
  if (auto *sequence = llvm::dyn_cast<TupleObject>(value.get()))
    return Interpreter::integer(sequence->elements.size());
  if (auto *str = llvm::dyn_cast<StrObject>(value.get()))
    return Interpreter::integer(str->value.size());
  if (auto *dict = llvm::dyn_cast<DictObject>(value.get()))
    return Interpreter::integer(dict->entries.size());
  if (auto *buffer = llvm::dyn_cast<BufferObject>(value.get()))
    if (!buffer->shape.empty())
      return buffer->shape.front();
  if (Interpreter::isPoison(value))
    return value;
  return interp.error(args->loc(0), "object of type '" + getTypeName(*value) +
                                        "' has no len()");
}

static Ref convertBuiltin(Interpreter &interp, const CallArgs &call,
                          StringRef name) {
  std::optional<Args> args = bind(interp, call, name, {"x"}, 0);
  if (!args)
    return Interpreter::poison();
  if (!args->has(0))
    return name == "int"     ? Interpreter::integer(0)
           : name == "float" ? Interpreter::floating(0.0)
           : name == "bool"  ? Interpreter::boolean(false)
                             : Interpreter::string("");
  Ref x = interp.load((*args)[0], args->loc(0));
  if (Interpreter::isPoison(x))
    return x;
  if (name == "str") {
    if (llvm::isa<StrObject>(*x))
      return x;
    if (auto *dtype = llvm::dyn_cast<DTypeObject>(x.get()))
      return Interpreter::string(dtype->dtype.name);
    if (llvm::isa<ScalarObject>(*x))
      return interp.error(args->loc(0), "str() needs a compile-time value");
    return Interpreter::string(repr(*x));
  }
  if (name == "bool") {
    if (std::optional<bool> known = interp.truth(x, args->loc(0)))
      return Interpreter::boolean(*known);
    return interp.cast(x, *lookupDType("bool", interp.getContext()),
                       args->loc(0));
  }
  if (auto *str = llvm::dyn_cast<StrObject>(x.get())) {
    StringRef text = StringRef(str->value).trim();
    if (name == "int") {
      int64_t value;
      if (!text.getAsInteger(10, value))
        return Interpreter::integer(value);
    } else {
      double value;
      if (!text.getAsDouble(value))
        return Interpreter::floating(value);
    }
    return interp.error(args->loc(0), "invalid literal for " + name + "(): '" +
                                          str->value + "'");
  }
  DType type =
      *lookupDType(name == "int" ? "int32" : "float32", interp.getContext());
  if (Interpreter::getConstNumber(x) && name == "float")
    return Interpreter::floating(*Interpreter::getConstNumber(x));
  return interp.cast(x, type, args->loc(0));
}

static Ref sequenceBuiltin(Interpreter &interp, const CallArgs &call,
                           StringRef name) {
  std::optional<Args> args = bind(interp, call, name, {"iterable"}, 0);
  if (!args)
    return Interpreter::poison();
  if (!args->has(0))
    return Interpreter::tuple({}, name == "list");
  std::optional<std::vector<Ref>> items =
      iterate(interp, (*args)[0], args->loc(0));
  if (!items)
    return Interpreter::poison();
  return Interpreter::tuple(std::move(*items), name == "list");
}

static Ref sum(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args =
      bind(interp, call, "sum", {"iterable", "start"}, 1);
  if (!args)
    return Interpreter::poison();
  std::optional<std::vector<Ref>> items =
      iterate(interp, (*args)[0], args->loc(0));
  if (!items)
    return Interpreter::poison();
  Ref total = args->has(1) ? (*args)[1] : Interpreter::integer(0);
  for (const Ref &element : *items)
    total = interp.binary(BinaryOp::Add, total, element, call.loc);
  return total;
}

static Ref roundBuiltin(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args = bind(interp, call, "round", {"number"}, 1);
  if (!args)
    return Interpreter::poison();
  std::optional<double> value = Interpreter::getConstNumber((*args)[0]);
  if (!value)
    return interp.error(args->loc(0), "round() needs a compile-time number");
  double rounded = std::nearbyint(*value); // ties to even, like Python
  if (!std::isfinite(rounded) || std::fabs(rounded) >= 9.2e18)
    return interp.error(args->loc(0), "cannot round " + formatFloat(*value));
  return Interpreter::integer(static_cast<int64_t>(rounded));
}

static Ref enumerateBuiltin(Interpreter &interp, const CallArgs &call) {
  std::optional<Args> args = bind(interp, call, "enumerate", {"iterable"}, 1);
  if (!args)
    return Interpreter::poison();
  std::optional<std::vector<Ref>> items =
      iterate(interp, (*args)[0], args->loc(0));
  if (!items)
    return Interpreter::poison();
  std::vector<Ref> pairs;
  for (auto [i, element] : llvm::enumerate(*items))
    pairs.push_back(Interpreter::tuple({Interpreter::integer(i), element}));
  return interp.checkNesting(Interpreter::tuple(std::move(pairs), true),
                             call.loc);
}

static Ref zipBuiltin(Interpreter &interp, const CallArgs &call) {
  if (!call.keywords.empty())
    return interp.error(call.keywordLocs.front(),
                        "zip() takes no keyword arguments");
  size_t length = SIZE_MAX;
  std::vector<std::vector<Ref>> sequences;
  for (auto [arg, loc] : llvm::zip(call.args, call.argLocs)) {
    std::optional<std::vector<Ref>> items = iterate(interp, arg, loc);
    if (!items)
      return Interpreter::poison();
    sequences.push_back(std::move(*items));
    length = std::min(length, sequences.back().size());
  }
  std::vector<Ref> tuples;
  for (size_t i = 0; i < length && !sequences.empty(); ++i) {
    std::vector<Ref> items;
    for (const auto &sequence : sequences)
      items.push_back(sequence[i]);
    tuples.push_back(Interpreter::tuple(std::move(items)));
  }
  return interp.checkNesting(Interpreter::tuple(std::move(tuples), true),
                             call.loc);
}

//===----------------------------------------------------------------------===//
// Namespaces
//===----------------------------------------------------------------------===//

static Ref decoratorOnly(std::string name) {
  return builtin(name, [name](Interpreter &interp, const CallArgs &call) {
    return interp.error(call.loc, "@" + name +
                                      " is a decorator; write it "
                                      "above a def");
  });
}

std::shared_ptr<ModuleObject>
tilec::frontend::createLanguageModule(mlir::MLIRContext *context) {
  auto t = std::make_shared<ModuleObject>("T");
  auto &m = t->members;
  for (StringRef name : getDTypeNames())
    m[name.str()] = std::make_shared<DTypeObject>(*lookupDType(name, context));
  m["dtype"] =
      builtin("T.dtype", [](Interpreter &interp, const CallArgs &call) -> Ref {
        std::optional<Args> args = bind(interp, call, "T.dtype", {"name"}, 1);
        if (!args)
          return Interpreter::poison();
        std::optional<DType> dtype =
            interp.getDType((*args)[0], args->loc(0), "T.dtype");
        if (!dtype)
          return Interpreter::poison();
        return std::make_shared<DTypeObject>(*dtype);
      });

  auto policy = std::make_shared<ModuleObject>("T.GemmWarpPolicy");
  policy->members["Square"] = std::make_shared<EnumObject>(
      "T.GemmWarpPolicy", "Square",
      static_cast<int64_t>(tile::GemmWarpPolicy::Square));
  policy->members["FullRow"] = std::make_shared<EnumObject>(
      "T.GemmWarpPolicy", "FullRow",
      static_cast<int64_t>(tile::GemmWarpPolicy::FullRow));
  policy->members["FullCol"] = std::make_shared<EnumObject>(
      "T.GemmWarpPolicy", "FullCol",
      static_cast<int64_t>(tile::GemmWarpPolicy::FullCol));
  m["GemmWarpPolicy"] = policy;

  m["prim_func"] = decoratorOnly("T.prim_func");
  m["macro"] = decoratorOnly("T.macro");
  m["Kernel"] = builtin("T.Kernel", kernel);
  m["alloc_shared"] =
      builtin("T.alloc_shared", [](Interpreter &i, const CallArgs &c) {
        return allocate(i, c, "T.alloc_shared", tile::MemoryScope::Shared);
      });
  m["alloc_fragment"] =
      builtin("T.alloc_fragment", [](Interpreter &i, const CallArgs &c) {
        return allocate(i, c, "T.alloc_fragment", tile::MemoryScope::Fragment);
      });
  m["alloc_local"] =
      builtin("T.alloc_local", [](Interpreter &i, const CallArgs &c) {
        return allocate(i, c, "T.alloc_local", tile::MemoryScope::Local);
      });
  m["alloc_var"] = builtin("T.alloc_var", allocVar);
  m["copy"] = builtin("T.copy", copy);
  m["gemm"] = builtin("T.gemm", gemm);
  m["fill"] = builtin("T.fill", fill);
  m["assume"] = builtin("T.assume", assume);
  m["clear"] = builtin("T.clear", clear);
  m["reduce_max"] =
      builtin("T.reduce_max", reduce(tile::ReduceKind::Max, "T.reduce_max"));
  m["reduce_min"] =
      builtin("T.reduce_min", reduce(tile::ReduceKind::Min, "T.reduce_min"));
  m["reduce_sum"] =
      builtin("T.reduce_sum", reduce(tile::ReduceKind::Sum, "T.reduce_sum"));
  m["reduce_absmax"] = builtin(
      "T.reduce_absmax", reduce(tile::ReduceKind::AbsMax, "T.reduce_absmax"));
  m["reduce_abssum"] = builtin(
      "T.reduce_abssum", reduce(tile::ReduceKind::AbsSum, "T.reduce_abssum"));
  m["atomic_add"] = builtin("T.atomic_add", atomicAdd);
  m["Parallel"] = builtin("T.Parallel", parallel);
  m["Pipelined"] = builtin("T.Pipelined", pipelined);
  m["serial"] = builtin("T.serial", serialLoop(IterableObject::LoopKind::Serial,
                                               "T.serial", false));
  m["Serial"] = m["serial"];
  m["unroll"] = builtin("T.unroll", serialLoop(IterableObject::LoopKind::Unroll,
                                               "T.unroll", false));
  m["use_swizzle"] = builtin("T.use_swizzle", useSwizzle);
  m["annotate_layout"] = builtin("T.annotate_layout", annotateLayout);
  m["Tensor"] = builtin("T.Tensor", [](Interpreter &i, const CallArgs &c) {
    return tensorSpec(i, c, "T.Tensor");
  });
  m["Buffer"] = builtin("T.Buffer", [](Interpreter &i, const CallArgs &c) {
    return tensorSpec(i, c, "T.Buffer");
  });
  m["dynamic"] = builtin("T.dynamic", [](Interpreter &i, const CallArgs &c) {
    return dynamicDim(i, c, "T.dynamic");
  });
  m["symbolic"] = builtin("T.symbolic", [](Interpreter &i, const CallArgs &c) {
    return dynamicDim(i, c, "T.symbolic");
  });
  m["const"] = builtin("T.const", constNames);
  m["empty"] = builtin("T.empty", empty);

  m["ceildiv"] = builtin("T.ceildiv", ceildiv);
  m["max"] = builtin("T.max", minMax(true, "T.max"));
  m["min"] = builtin("T.min", minMax(false, "T.min"));
  m["abs"] = builtin("T.abs", [](Interpreter &i, const CallArgs &c) {
    return absValue(i, c, "T.abs");
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
      builtin("T.if_then_else", [](Interpreter &interp, const CallArgs &call) {
        std::optional<Args> args =
            bind(interp, call, "T.if_then_else", {"cond", "t", "f"}, 3);
        if (!args)
          return Interpreter::poison();
        return interp.select((*args)[0], (*args)[1], (*args)[2], call.loc);
      });
  m["infinity"] = builtin(
      "T.infinity", [](Interpreter &interp, const CallArgs &call) -> Ref {
        std::optional<Args> args =
            bind(interp, call, "T.infinity", {"dtype"}, 1);
        if (!args)
          return Interpreter::poison();
        std::optional<DType> dtype =
            interp.getDType((*args)[0], args->loc(0), "T.infinity");
        if (!dtype)
          return Interpreter::poison();
        if (!dtype->isFloat())
          return interp.error(args->loc(0), "T.infinity needs a floating-point "
                                            "dtype, got " +
                                                dtype->name);
        return Interpreter::floating(std::numeric_limits<double>::infinity());
      });
  m["cast"] =
      builtin("T.cast", [](Interpreter &interp, const CallArgs &call) -> Ref {
        std::optional<Args> args =
            bind(interp, call, "T.cast", {"x", "dtype"}, 2);
        if (!args)
          return Interpreter::poison();
        std::optional<DType> dtype =
            interp.getDType((*args)[1], args->loc(1), "T.cast");
        if (!dtype)
          return Interpreter::poison();
        return interp.cast((*args)[0], *dtype, args->loc(0));
      });
  return t;
}

std::shared_ptr<ModuleObject> tilec::frontend::createPythonBuiltins() {
  auto builtins = std::make_shared<ModuleObject>("builtins");
  auto &m = builtins->members;
  m["range"] = builtin(
      "range", serialLoop(IterableObject::LoopKind::Serial, "range", true));
  m["len"] = builtin("len", len);
  m["min"] = builtin("min", minMax(false, "min"));
  m["max"] = builtin("max", minMax(true, "max"));
  m["abs"] = builtin("abs", [](Interpreter &i, const CallArgs &c) {
    return absValue(i, c, "abs");
  });
  for (const char *name : {"int", "float", "bool", "str"})
    m[name] = builtin(name, [name](Interpreter &i, const CallArgs &c) {
      return convertBuiltin(i, c, name);
    });
  for (const char *name : {"tuple", "list"})
    m[name] = builtin(name, [name](Interpreter &i, const CallArgs &c) {
      return sequenceBuiltin(i, c, name);
    });
  m["sum"] = builtin("sum", sum);
  m["round"] = builtin("round", roundBuiltin);
  m["enumerate"] = builtin("enumerate", enumerateBuiltin);
  m["zip"] = builtin("zip", zipBuiltin);
  m["print"] = builtin("print", [](Interpreter &interp, const CallArgs &call) {
    return interp.error(call.loc, "print() is not supported in .tile");
  });
  return builtins;
}

std::shared_ptr<ModuleObject>
tilec::frontend::createTilelangModule(std::shared_ptr<ModuleObject> language) {
  auto tilelang = std::make_shared<ModuleObject>("tilelang");
  auto jit = decoratorOnly("tilelang.jit");
  auto autotune = decoratorOnly("tilelang.autotune");
  tilelang->members["language"] = language;
  tilelang->members["jit"] = jit;
  tilelang->members["autotune"] = autotune;
  auto layout = std::make_shared<ModuleObject>("tilelang.layout");
  layout->members["make_swizzled_layout"] =
      builtin("make_swizzled_layout", makeSwizzledLayout);
  tilelang->members["layout"] = layout;
  auto autotuner = std::make_shared<ModuleObject>("tilelang.autotuner");
  autotuner->members["autotune"] = autotune;
  tilelang->members["autotuner"] = autotuner;
  return tilelang;
}
