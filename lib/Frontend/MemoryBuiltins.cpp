//===- MemoryBuiltins.cpp - Buffers and copies in .tile -------------------===//
//
// Part of tilec. T.alloc_shared, T.alloc_fragment, T.alloc_local and
// T.alloc_var make buffers; T.copy, T.fill, T.clear and the atomics move
// data between them, with TileLang's rules for regions and element origins.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Allocation
//===----------------------------------------------------------------------===//

/// A positive compile-time shape: an int or a tuple of ints.
static std::optional<llvm::SmallVector<int64_t>>
shapeArg(Evaluator &eval, const Ref &arg, SMLoc loc) {
  llvm::SmallVector<int64_t> shape;
  if (isPoison(arg))
    return std::nullopt;
  for (const Ref &extent : asSequence(arg)) {
    std::optional<int64_t> value = getConstInt(extent);
    if (!value) {
      eval.error(loc, "buffer shapes must be compile-time integers, got a " +
                          getTypeName(*extent));
      return std::nullopt;
    }
    if (*value <= 0) {
      eval.error(loc,
                 "buffer extents must be positive, got " + llvm::Twine(*value));
      return std::nullopt;
    }
    shape.push_back(*value);
  }
  if (shape.empty()) {
    eval.error(loc, "a buffer needs at least one dimension");
    return std::nullopt;
  }
  // A block's buffers live in registers and shared memory; far smaller.
  if (!hasAtMostElements(shape, int64_t(1) << 31)) {
    eval.error(loc, "a buffer of more than 2^31 elements cannot fit in a "
                    "block");
    return std::nullopt;
  }
  return shape;
}

/// The memory scope a TVM scope string names, as T.alloc_shared,
/// T.alloc_fragment and T.alloc_local take it (TileLang passes it on to
/// T.alloc_buffer, so each takes every scope).
static std::optional<tile::MemoryScope> parseBufferScope(StringRef scope) {
  return llvm::StringSwitch<std::optional<tile::MemoryScope>>(scope)
      .Cases({"shared", "shared.dyn"}, tile::MemoryScope::Shared)
      .Case("local.fragment", tile::MemoryScope::Fragment)
      .Case("local", tile::MemoryScope::Local)
      .Default(std::nullopt);
}

/// The scope argument `arg` of `function`: a string naming a scope that
/// `parse` knows, or an error listing the `accepted` ones.
static std::optional<tile::MemoryScope>
scopeArg(Evaluator &eval, const Ref &arg, SMLoc loc, StringRef function,
         std::optional<tile::MemoryScope> (*parse)(StringRef),
         StringRef accepted) {
  auto *str = llvm::dyn_cast<StrObject>(arg.get());
  std::optional<tile::MemoryScope> scope =
      str ? parse(str->value) : std::nullopt;
  if (!scope)
    eval.error(loc,
               (function + " takes the scope " + accepted + ", not " +
                (str ? "'" + str->value + "'"
                     : "a value of type '" + getTypeName(*arg).str() + "'"))
                   .str());
  return scope;
}

static Ref allocate(Evaluator &eval, const CallArgs &call, StringRef name,
                    tile::MemoryScope scope) {
  std::optional<Args> args =
      bindArgs(eval, call, name, {"shape", "dtype", "scope"}, 2);
  if (!args || !eval.requireKernel(call.loc, name))
    return poison();
  std::optional<llvm::SmallVector<int64_t>> shape =
      shapeArg(eval, (*args)[0], args->loc(0));
  std::optional<DType> dtype =
      eval.getDType((*args)[1], args->loc(1), "the buffer's elements");
  if (args->has(2)) {
    std::optional<tile::MemoryScope> given =
        scopeArg(eval, (*args)[2], args->loc(2), name, parseBufferScope,
                 "'shared', 'shared.dyn', 'local.fragment' or 'local'");
    if (!given)
      return poison();
    scope = *given;
  }
  if (!shape || !dtype)
    return poison();
  mlir::Value memref =
      eval.getEmitter().emitAlloc(scope, *shape, dtype->type, call.loc);
  if (!memref)
    return poison();
  auto buffer = std::make_shared<BufferObject>();
  buffer->memref = memref;
  buffer->dtype = *dtype;
  for (int64_t extent : *shape)
    buffer->shape.push_back(integer(extent));
  buffer->scope = scope;
  return buffer;
}

static Ref allocVar(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.alloc_var", {"dtype", "init", "scope"}, 1);
  if (!args || !eval.requireKernel(call.loc, "T.alloc_var"))
    return poison();
  std::optional<DType> dtype =
      eval.getDType((*args)[0], args->loc(0), "the variable");
  if (args->has(2) &&
      !scopeArg(
          eval, (*args)[2], args->loc(2), "T.alloc_var",
          +[](StringRef scope) -> std::optional<tile::MemoryScope> {
            if (scope == "local.var")
              return tile::MemoryScope::Local;
            return std::nullopt;
          },
          "'local.var'"))
    return poison();
  if (!dtype)
    return poison();
  mlir::Value init;
  if (args->has(1)) {
    Ref value = eval.toScalar((*args)[1], args->loc(1));
    if (isPoison(value))
      return value;
    init = eval.materialize(value, *dtype, args->loc(1));
  }
  mlir::Value memref =
      eval.getEmitter().emitAllocVar(dtype->type, init, call.loc);
  if (!memref)
    return poison();
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

/// The mixed static/dynamic form of a list of offsets.
static void splitOffsets(Evaluator &eval, llvm::ArrayRef<Ref> offsets,
                         SMLoc loc, llvm::SmallVectorImpl<mlir::Value> &dynamic,
                         llvm::SmallVectorImpl<int64_t> &statics) {
  for (const Ref &offset : offsets) {
    if (std::optional<int64_t> constant = getConstInt(offset)) {
      statics.push_back(*constant);
      continue;
    }
    mlir::Value value = eval.materializeIndex(offset, loc);
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

static std::optional<Region> regionArg(Evaluator &eval, const Ref &arg,
                                       SMLoc loc, StringRef what) {
  if (isPoison(arg))
    return std::nullopt;
  Region region;
  if (auto buffer = std::dynamic_pointer_cast<const BufferObject>(arg)) {
    if (buffer->isVar) {
      eval.error(loc, what + " of T.copy cannot be a T.alloc_var variable");
      return std::nullopt;
    }
    region.buffer = buffer;
    for (const Ref &extent : buffer->shape) {
      region.offsets.push_back(integer(0));
      std::optional<int64_t> size = getConstInt(extent);
      if (!size) {
        eval.error(loc, "T.copy of all of '" + buffer->name +
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
  eval.error(loc, what +
                      " of T.copy must be a buffer, a slice or an "
                      "element origin, got a " +
                      getTypeName(*arg));
  return std::nullopt;
}

/// Extents for an element origin: the other side's, right-aligned to this
/// rank with leading unit dimensions, as TileLang does.
static bool fillOriginExtents(Evaluator &eval, Region &origin,
                              llvm::ArrayRef<int64_t> other, SMLoc loc) {
  size_t rank = origin.offsets.size();
  llvm::SmallVector<int64_t> extents(other);
  while (extents.size() > rank && extents.front() == 1)
    extents.erase(extents.begin());
  if (extents.size() > rank) {
    eval.error(loc, "a " + shapeString(other) + " tile does not fit a rank-" +
                        llvm::Twine(rank) +
                        " element origin; copy a slice instead");
    return false;
  }
  extents.insert(extents.begin(), rank - extents.size(), 1);
  for (size_t i = 0; i < rank; ++i)
    origin.extents[i] = extents[i];
  return true;
}

/// The extents of a region or slice, 1 for a single index.
static llvm::SmallVector<int64_t>
resolvedExtents(llvm::ArrayRef<std::optional<int64_t>> extents) {
  llvm::SmallVector<int64_t> resolved;
  for (std::optional<int64_t> extent : extents)
    resolved.push_back(extent.value_or(1));
  return resolved;
}

static llvm::SmallVector<int64_t> squeeze(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> result;
  for (int64_t e : shape)
    if (e != 1)
      result.push_back(e);
  return result;
}

static Ref copy(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(
      eval, call, "T.copy",
      {"src", "dst", "disable_tma", "coalesced_width", "eviction_policy"}, 2);
  if (!args || !eval.requireKernel(call.loc, "T.copy"))
    return poison();
  // Hints of TileLang's that tilec's choices make moot: it picks each
  // copy's vector width from the layouts and leaves caching to the GPU.
  if (args->has(3) && !llvm::isa<NoneObject>(*(*args)[3]) &&
      !constIntArg(eval, (*args)[3], args->loc(3), "coalesced_width"))
    return poison();
  if (args->has(4) && !llvm::isa<NoneObject>(*(*args)[4])) {
    auto *policy = llvm::dyn_cast<StrObject>((*args)[4].get());
    if (!policy ||
        !llvm::is_contained({"evict_normal", "evict_first", "evict_last"},
                            llvm::StringRef(policy->value)))
      return eval.error(args->loc(4), "eviction_policy is \"evict_normal\", "
                                      "\"evict_first\" or \"evict_last\"");
  }
  std::optional<bool> noTma =
      boolArg(eval, *args, 2, "disable_tma", /*fallback=*/false);
  if (!noTma)
    return poison();
  std::optional<Region> src =
      regionArg(eval, (*args)[0], args->loc(0), "the source");
  std::optional<Region> dst =
      regionArg(eval, (*args)[1], args->loc(1), "the destination");
  if (!src || !dst)
    return poison();
  if (src->isOrigin && dst->isOrigin)
    return eval.error(call.loc,
                      "T.copy needs the extent of at least one side: both "
                      "are single elements; use a buffer or a slice");
  if (src->isOrigin &&
      !fillOriginExtents(eval, *src, resolvedExtents(dst->extents),
                         args->loc(0)))
    return poison();
  if (dst->isOrigin &&
      !fillOriginExtents(eval, *dst, resolvedExtents(src->extents),
                         args->loc(1)))
    return poison();

  llvm::SmallVector<int64_t> srcExtents = resolvedExtents(src->extents);
  llvm::SmallVector<int64_t> dstExtents = resolvedExtents(dst->extents);
  if (squeeze(srcExtents) != squeeze(dstExtents))
    return eval.error(
        call.loc, "T.copy of a " + shapeString(srcExtents) + " region into a " +
                      shapeString(dstExtents) + " region: the shapes differ");

  CopyRegion srcRegion, dstRegion;
  srcRegion.memref = src->buffer->memref;
  splitOffsets(eval, src->offsets, args->loc(0), srcRegion.dynamicOffsets,
               srcRegion.staticOffsets);
  srcRegion.extents = srcExtents;
  dstRegion.memref = dst->buffer->memref;
  splitOffsets(eval, dst->offsets, args->loc(1), dstRegion.dynamicOffsets,
               dstRegion.staticOffsets);
  dstRegion.extents = dstExtents;
  eval.getEmitter().emitCopy(srcRegion, dstRegion, call.loc, *noTma);
  return none();
}

//===----------------------------------------------------------------------===//
// T.fill, T.clear, T.atomic_add, T.atomic_max, T.atomic_min
//===----------------------------------------------------------------------===//

/// The T.alloc_var variable `arg` names, or null.
static std::shared_ptr<const BufferObject> variableArg(const Ref &arg) {
  auto buffer = std::dynamic_pointer_cast<const BufferObject>(arg);
  return buffer && buffer->isVar ? buffer : nullptr;
}

/// Stores `value` into `variable`, as an assignment to it does.
static void assignVariable(Evaluator &eval,
                           std::shared_ptr<const BufferObject> variable,
                           const Ref &value, SMLoc loc) {
  auto access = std::make_shared<AccessObject>();
  access->buffer = std::move(variable);
  eval.store(*access, value, loc);
}

/// Fills a part of a buffer (`s[0]`, `acc[i, :]`), as TileLang does: a
/// T.Parallel loop over the part that stores `value` into each element.
static void fillRegion(Evaluator &eval, const AccessObject &region,
                       const Ref &value, SMLoc loc) {
  llvm::SmallVector<int64_t> extents = resolvedExtents(region.extents);
  llvm::SmallVector<mlir::Value> offsets;
  for (const Ref &offset : region.offsets)
    offsets.push_back(eval.materializeIndex(offset, loc));
  mlir::Value element = eval.materialize(value, region.buffer->dtype, loc);
  mlir::OpBuilder &b = eval.getBuilder();
  mlir::OpBuilder::InsertionGuard guard(b);
  mlir::Block *body = eval.getEmitter().emitParallel(extents, loc);
  b.setInsertionPointToStart(body);
  mlir::Location at = eval.getLoc(loc);
  llvm::SmallVector<mlir::Value> indices;
  for (auto [offset, iv] : llvm::zip(offsets, body->getArguments()))
    indices.push_back(b.createOrFold<mlir::arith::AddIOp>(at, offset, iv));
  mlir::memref::StoreOp::create(b, at, element, region.buffer->memref, indices);
}

static Ref fill(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.fill", {"buffer", "value"}, 2);
  if (!args || !eval.requireKernel(call.loc, "T.fill"))
    return poison();
  Ref value = eval.toScalar((*args)[1], args->loc(1));
  if (auto variable = variableArg((*args)[0])) {
    if (!isPoison(value))
      assignVariable(eval, variable, value, call.loc);
    return none();
  }
  if (auto *region = llvm::dyn_cast<AccessObject>((*args)[0].get())) {
    if (!isPoison(value))
      fillRegion(eval, *region, value, call.loc);
    return none();
  }
  auto buffer =
      bufferArg(eval, (*args)[0], args->loc(0), "the destination of T.fill");
  if (!buffer || isPoison(value))
    return poison();
  mlir::Value fillValue = eval.materialize(value, buffer->dtype, args->loc(1));
  eval.getEmitter().emitFill(buffer->memref, fillValue, call.loc);
  return none();
}

static Ref clear(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "T.clear", {"buffer"}, 1);
  if (!args || !eval.requireKernel(call.loc, "T.clear"))
    return poison();
  if (auto variable = variableArg((*args)[0])) {
    assignVariable(eval, variable, std::make_shared<IntObject>(0), call.loc);
    return none();
  }
  if (auto *region = llvm::dyn_cast<AccessObject>((*args)[0].get())) {
    fillRegion(eval, *region, std::make_shared<IntObject>(0), call.loc);
    return none();
  }
  auto buffer =
      bufferArg(eval, (*args)[0], args->loc(0), "the destination of T.clear");
  if (!buffer)
    return poison();
  eval.getEmitter().emitClear(buffer->memref, call.loc);
  return none();
}

/// The atomics of T.atomic_add, T.atomic_max and T.atomic_min.
enum class AtomicCombine { Add, Max, Min };

static Ref atomic(Evaluator &eval, const CallArgs &call,
                  AtomicCombine combine) {
  llvm::StringRef name = combine == AtomicCombine::Add   ? "T.atomic_add"
                         : combine == AtomicCombine::Max ? "T.atomic_max"
                                                         : "T.atomic_min";
  bool add = combine == AtomicCombine::Add;
  std::optional<Args> args =
      bindArgs(eval, call, name,
               {"dst", "value", "memory_order", "return_prev", "use_tma"}, 2);
  if (!args || !eval.requireKernel(call.loc, name))
    return poison();
  if (isPoison((*args)[0]) || isPoison((*args)[1]))
    return poison();
  // The atomics are relaxed, ordered with nothing else: what NVIDIA's
  // atom instructions, as tilec emits them, guarantee.
  if (args->has(2)) {
    auto *order = llvm::dyn_cast<StrObject>((*args)[2].get());
    if (!order || order->value != "relaxed")
      return eval.error(args->loc(2),
                        name + " supports memory_order=\"relaxed\" only, "
                               "which is what it does without one");
  }
  // TileLang's use_tma=True combines a shared tile with one bulk
  // reduction; tilec's element-wise atomics give the same results.
  if (args->has(4) &&
      constBoolArg(eval, (*args)[4], args->loc(4), "use_tma").value_or(false))
    eval.emitRemark(args->loc(4),
                    llvm::Twine("use_tma=True is a hint tilec does not "
                                "follow: the tile is ") +
                        (add ? "added element by element with atomic adds"
                             : "combined element by element with atomics"));
  std::optional<bool> returnPrevious =
      boolArg(eval, *args, 3, "return_prev", /*fallback=*/false);
  if (!returnPrevious)
    return poison();
  auto *dst = llvm::dyn_cast<AccessObject>((*args)[0].get());
  if (!dst)
    return eval.error(args->loc(0),
                      "the destination of " + name +
                          " is an element, the origin of a region or a "
                          "region, e.g. C[i, j] or C[i, 0:64]");
  auto tile = std::dynamic_pointer_cast<const BufferObject>((*args)[1]);
  if (tile && tile->isVar)
    tile = nullptr;
  std::optional<llvm::SmallVector<int64_t>> extents;
  if (*returnPrevious && (tile || !dst->isElement()))
    return eval.error(args->loc(3), "return_prev=True gives the previous "
                                    "value of one element: the destination "
                                    "is an element and the value a scalar");
  if (!dst->isElement()) {
    if (!tile)
      return eval.error(args->loc(0),
                        llvm::Twine(add ? "a scalar is added to one element"
                                        : "a scalar is combined into one "
                                          "element") +
                            "; index the destination without slices");
    extents = resolvedExtents(dst->extents);
    llvm::ArrayRef<int64_t> shape =
        llvm::cast<mlir::MemRefType>(tile->memref.getType()).getShape();
    if (squeeze(*extents) != squeeze(shape))
      return eval.error(call.loc, name + " of a " + shapeString(shape) +
                                      " tile into a " + shapeString(*extents) +
                                      " region: the shapes differ");
  }
  mlir::Value value;
  if (tile) {
    value = tile->memref;
  } else {
    Ref scalar = eval.toScalar((*args)[1], args->loc(1));
    if (isPoison(scalar))
      return scalar;
    value = eval.materialize(scalar, dst->buffer->dtype, args->loc(1));
  }
  llvm::SmallVector<mlir::Value> indices;
  for (const Ref &offset : dst->offsets)
    indices.push_back(eval.materializeIndex(offset, args->loc(0)));
  // The operation of the destination's dtype: floats keep the number of a
  // NaN and a number, as atomicMax/fmaxf do; integers their signedness.
  using mlir::arith::AtomicRMWKind;
  const DType &dtype = dst->buffer->dtype;
  bool isFloat = llvm::isa<mlir::FloatType>(dtype.type);
  AtomicRMWKind kind;
  switch (combine) {
  case AtomicCombine::Add:
    kind = isFloat ? AtomicRMWKind::addf : AtomicRMWKind::addi;
    break;
  case AtomicCombine::Max:
    kind = isFloat            ? AtomicRMWKind::maxnumf
           : dtype.isUnsigned ? AtomicRMWKind::maxu
                              : AtomicRMWKind::maxs;
    break;
  case AtomicCombine::Min:
    kind = isFloat            ? AtomicRMWKind::minnumf
           : dtype.isUnsigned ? AtomicRMWKind::minu
                              : AtomicRMWKind::mins;
    break;
  }
  mlir::Value previous =
      eval.getEmitter().emitAtomic(kind, value, dst->buffer->memref, indices,
                                   extents, *returnPrevious, call.loc);
  if (!*returnPrevious)
    return none();
  if (!previous)
    return poison();
  return std::make_shared<ScalarObject>(previous, dtype);
}

//===----------------------------------------------------------------------===//
// T.im2col
//===----------------------------------------------------------------------===//

/// T.im2col(img, col, nhw_step, c_step, kernel, stride, dilation, pad):
/// gathers tile (nhw_step, c_step) of the implicit GEMM matrix of a 2-D
/// convolution over the NHWC image `img` into the (block_M, block_K)
/// buffer `col`. Row p of the matrix is output pixel (n, oh, ow) in
/// row-major order; column q is (kh, kw, c), as a (KH, KW, C, F) filter
/// flattens to (KH * KW * C, F). Outside the padded image, and past the
/// last row or column, the element is zero. As TileLang's, a T.Parallel
/// loop over `col`.
static Ref im2col(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.im2col",
               {"img", "col", "nhw_step", "c_step", "kernel", "stride",
                "dilation", "pad", "eviction_policy", "annotations"},
               8);
  if (!args || !eval.requireKernel(call.loc, "T.im2col"))
    return poison();
  auto img = bufferArg(eval, (*args)[0], args->loc(0), "the image of T.im2col");
  auto col =
      bufferArg(eval, (*args)[1], args->loc(1), "the destination of T.im2col");
  if (!img || !col)
    return poison();
  auto imgType = llvm::cast<mlir::MemRefType>(img->memref.getType());
  auto colType = llvm::cast<mlir::MemRefType>(col->memref.getType());
  if (img->scope != tile::MemoryScope::Global || imgType.getRank() != 4)
    return eval.error(args->loc(0), "the image of T.im2col is an NHWC "
                                    "tensor in global memory (4 dimensions)");
  if (colType.getRank() != 2 || img->dtype.type != col->dtype.type)
    return eval.error(args->loc(1),
                      "the destination of T.im2col is a 2-D buffer of the "
                      "image's dtype");
  std::optional<int64_t> params[4];
  static constexpr llvm::StringLiteral kNames[] = {"kernel", "stride",
                                                   "dilation", "pad"};
  for (unsigned i = 0; i < 4; ++i) {
    params[i] = constIntArg(eval, (*args)[4 + i], args->loc(4 + i), kNames[i]);
    if (!params[i])
      return poison();
    if (*params[i] < (i == 3 ? 0 : 1))
      return eval.error(args->loc(4 + i),
                        kNames[i] + llvm::Twine(" must be ") +
                            (i == 3 ? "non-negative" : "positive") + ", got " +
                            llvm::Twine(*params[i]));
  }
  int64_t kernel = *params[0], stride = *params[1], dilation = *params[2],
          pad = *params[3];
  mlir::Value nhwStep = eval.materializeIndex((*args)[2], args->loc(2));
  mlir::Value cStep = eval.materializeIndex((*args)[3], args->loc(3));
  if (!nhwStep || !cStep)
    return poison();

  mlir::OpBuilder &b = eval.getBuilder();
  mlir::Location at = eval.getLoc(call.loc);
  auto constant = [&](int64_t v) {
    return b.createOrFold<mlir::arith::ConstantIndexOp>(at, v);
  };
  using namespace mlir::arith;
  auto add = [&](mlir::Value x, mlir::Value y) {
    return b.createOrFold<AddIOp>(at, x, y);
  };
  auto mul = [&](mlir::Value x, mlir::Value y) {
    return b.createOrFold<MulIOp>(at, x, y);
  };
  auto div = [&](mlir::Value x, mlir::Value y) {
    return b.createOrFold<DivUIOp>(at, x, y);
  };
  auto rem = [&](mlir::Value x, mlir::Value y) {
    return b.createOrFold<RemUIOp>(at, x, y);
  };
  auto cmp = [&](CmpIPredicate predicate, mlir::Value x, mlir::Value y) {
    return b.createOrFold<CmpIOp>(at, predicate, x, y);
  };
  // The image's extents, and the output's: (H + 2 pad - dilation (K - 1)
  // - 1) / stride + 1.
  mlir::Value dims[4];
  for (unsigned i = 0; i < 4; ++i)
    dims[i] = b.createOrFold<mlir::memref::DimOp>(at, img->memref, i);
  auto outputExtent = [&](mlir::Value extent) {
    mlir::Value span =
        add(extent, constant(2 * pad - dilation * (kernel - 1) - 1));
    return add(div(span, constant(stride)), constant(1));
  };
  mlir::Value outH = outputExtent(dims[1]), outW = outputExtent(dims[2]);
  int64_t blockM = colType.getDimSize(0), blockK = colType.getDimSize(1);
  mlir::Value firstRow = mul(nhwStep, constant(blockM));
  mlir::Value firstColumn = mul(cStep, constant(blockK));

  mlir::OpBuilder::InsertionGuard guard(b);
  mlir::Block *body =
      eval.getEmitter().emitParallel({blockM, blockK}, call.loc);
  b.setInsertionPointToStart(body);
  mlir::Value row = add(firstRow, body->getArgument(0));
  mlir::Value column = add(firstColumn, body->getArgument(1));
  mlir::Value ow = rem(row, outW);
  mlir::Value oh = rem(div(row, outW), outH);
  mlir::Value n = div(row, mul(outW, outH));
  mlir::Value c = rem(column, dims[3]);
  mlir::Value kw = rem(div(column, dims[3]), constant(kernel));
  mlir::Value kh = div(column, mul(dims[3], constant(kernel)));
  // Signed: the padding reaches before the image.
  mlir::Value h = b.createOrFold<SubIOp>(
      at, add(mul(oh, constant(stride)), mul(kh, constant(dilation))),
      constant(pad));
  mlir::Value w = b.createOrFold<SubIOp>(
      at, add(mul(ow, constant(stride)), mul(kw, constant(dilation))),
      constant(pad));
  mlir::Value zero = constant(0);
  mlir::Value inside = cmp(CmpIPredicate::ult, n, dims[0]);
  for (mlir::Value condition :
       {cmp(CmpIPredicate::ult, kh, constant(kernel)),
        cmp(CmpIPredicate::sge, h, zero), cmp(CmpIPredicate::slt, h, dims[1]),
        cmp(CmpIPredicate::sge, w, zero), cmp(CmpIPredicate::slt, w, dims[2])})
    inside = b.createOrFold<AndIOp>(at, inside, condition);
  mlir::Type element = imgType.getElementType();
  auto ifOp = mlir::scf::IfOp::create(b, at, element, inside,
                                      /*withElseRegion=*/true);
  {
    mlir::OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    mlir::Value loaded = mlir::memref::LoadOp::create(
        b, at, img->memref, mlir::ValueRange{n, h, w, c});
    mlir::scf::YieldOp::create(b, at, loaded);
    b.setInsertionPointToStart(ifOp.elseBlock());
    mlir::Value zeroElement = mlir::arith::ConstantOp::create(
        b, at, llvm::cast<mlir::TypedAttr>(b.getZeroAttr(element)));
    mlir::scf::YieldOp::create(b, at, zeroElement);
  }
  mlir::memref::StoreOp::create(b, at, ifOp.getResult(0), col->memref,
                                body->getArguments());
  return none();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void tilec::frontend::addMemoryBuiltins(ModuleObject &language) {
  auto &m = language.members;
  m["alloc_shared"] = builtin("T.alloc_shared", [](Evaluator &eval,
                                                   const CallArgs &call) {
    return allocate(eval, call, "T.alloc_shared", tile::MemoryScope::Shared);
  });
  m["alloc_fragment"] =
      builtin("T.alloc_fragment", [](Evaluator &eval, const CallArgs &call) {
        return allocate(eval, call, "T.alloc_fragment",
                        tile::MemoryScope::Fragment);
      });
  m["alloc_local"] =
      builtin("T.alloc_local", [](Evaluator &eval, const CallArgs &call) {
        return allocate(eval, call, "T.alloc_local", tile::MemoryScope::Local);
      });
  m["alloc_var"] = builtin("T.alloc_var", allocVar);
  m["copy"] = builtin("T.copy", copy);
  m["im2col"] = builtin("T.im2col", im2col);
  m["c2d_im2col"] = builtin("T.c2d_im2col", im2col);
  for (auto [name, handler] :
       {std::pair{"fill", &fill}, std::pair{"clear", &clear}}) {
    auto writer =
        std::make_shared<BuiltinObject>(std::string("T.") + name, handler);
    writer->takesVariables = true;
    m[name] = writer;
  }
  for (auto [name, combine] : {std::pair{"atomic_add", AtomicCombine::Add},
                               std::pair{"atomic_max", AtomicCombine::Max},
                               std::pair{"atomic_min", AtomicCombine::Min}})
    m[name] = builtin(std::string("T.") + name,
                      [combine](Evaluator &eval, const CallArgs &call) {
                        return atomic(eval, call, combine);
                      });
}
