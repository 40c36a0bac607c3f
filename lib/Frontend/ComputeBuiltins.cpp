//===- ComputeBuiltins.cpp - Gemm and reductions in .tile -----------------===//
//
// Part of tilec. The tile primitives that compute: T.gemm with its warp
// policies, the reductions T.reduce_max, _min, _sum, _absmax and _abssum,
// and the scan T.cumsum.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace tilec;
using namespace tilec::frontend;

static Ref gemm(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.gemm",
               {"A", "B", "C", "transpose_A", "transpose_B", "policy",
                "clear_accum", "k_pack", "wg_wait"},
               3);
  if (!args || !eval.requireKernel(call.loc, "T.gemm"))
    return poison();
  auto a = bufferArg(eval, (*args)[0], args->loc(0), "A");
  auto b = bufferArg(eval, (*args)[1], args->loc(1), "B");
  auto c = bufferArg(eval, (*args)[2], args->loc(2), "C");
  if (!a || !b || !c)
    return poison();
  bool transposeA = constBoolArg(eval, (*args)[3], args->loc(3), "transpose_A")
                        .value_or(false);
  bool transposeB = constBoolArg(eval, (*args)[4], args->loc(4), "transpose_B")
                        .value_or(false);
  bool clearAccum = constBoolArg(eval, (*args)[6], args->loc(6), "clear_accum")
                        .value_or(false);
  tile::GemmWarpPolicy policy = tile::GemmWarpPolicy::Square;
  if (args->has(5)) {
    auto *e = llvm::dyn_cast<EnumObject>((*args)[5].get());
    if (!e || e->enumName != "T.GemmWarpPolicy")
      return eval.error(args->loc(5),
                        "policy must be a T.GemmWarpPolicy (Square, "
                        "FullRow or FullCol)");
    policy = static_cast<tile::GemmWarpPolicy>(e->value);
  }
  for (auto [index, name] : {std::make_pair(size_t(7), "k_pack"),
                             std::make_pair(size_t(8), "wg_wait")}) {
    if (!args->has(index))
      continue;
    std::optional<int64_t> value =
        constIntArg(eval, (*args)[index], args->loc(index), name);
    int64_t expected = index == 7 ? 1 : 0;
    if (value && *value != expected)
      return eval.error(args->loc(index), llvm::Twine(name) + " = " +
                                              llvm::Twine(*value) +
                                              " is not supported yet (only " +
                                              llvm::Twine(expected) + ")");
  }
  eval.getEmitter().emitGemm(a->memref, b->memref, c->memref, transposeA,
                             transposeB, policy, clearAccum, call.loc);
  return none();
}

/// Emits `kind` reduction of `src` along `dim` into `dst`. Reductions run
/// on fragments, along their last dimension, so the operands are staged: a
/// shared source is copied into a fragment first, and a source of another
/// dtype than the result converted to it on the way (T.reduce_absmax of
/// bf16 into float32), as TileLang does; along another dimension, the
/// source is first written into shared memory with that dimension last. A
/// shared result is reduced into a fragment that is copied back.
static Ref emitStagedReduce(Evaluator &eval, const CallArgs &call,
                            const Args &args, tile::ReduceKind kind,
                            const BufferObject *src, const BufferObject *dst,
                            int64_t dim, bool clearFirst) {
  int64_t rank = src->shape.size();
  TileEmitter &emitter = eval.getEmitter();
  auto stage = [&](mlir::Value from, tile::MemoryScope scope,
                   mlir::Type element, llvm::StringRef what,
                   llvm::SMLoc loc) -> mlir::Value {
    auto type = mlir::cast<mlir::MemRefType>(from.getType());
    if (!type.hasStaticShape()) {
      eval.error(loc, "a reduction that copies its " + what +
                          " needs a buffer of static shape");
      return nullptr;
    }
    return emitter.emitAlloc(scope, type.getShape(), element, call.loc);
  };
  bool sharedSource = src->scope == tile::MemoryScope::Shared;
  bool permutedSource = false;
  mlir::Value source = src->memref;
  // Along another dimension than the last, the source is written to
  // shared memory with that dimension last, then reduced from there.
  if (dim != rank - 1 && src->scope != tile::MemoryScope::Local) {
    auto sourceType = mlir::cast<mlir::MemRefType>(source.getType());
    if (!sourceType.hasStaticShape())
      return eval.error(args.loc(0), "a reduction along another dimension "
                                     "than the last needs a source of "
                                     "static shape");
    llvm::SmallVector<int64_t> permutation, shape;
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim)
        permutation.push_back(d);
    permutation.push_back(dim);
    for (int64_t d : permutation)
      shape.push_back(sourceType.getDimSize(d));
    mlir::Value permuted = emitter.emitAlloc(tile::MemoryScope::Shared, shape,
                                             src->dtype.type, call.loc);
    if (!permuted)
      return poison();
    emitter.emitPermutedCopy(source, permuted, permutation, call.loc);
    source = permuted;
    sharedSource = true;
    permutedSource = true;
    dim = rank - 1;
  }
  if (sharedSource || src->dtype.type != dst->dtype.type) {
    mlir::Value staged =
        stage(source, sharedSource ? tile::MemoryScope::Fragment : src->scope,
              dst->dtype.type, "source", args.loc(0));
    if (!staged)
      return poison();
    emitter.emitWholeCopy(source, staged, call.loc);
    source = staged;
  }
  // The result's home: the result itself, or, for a fragment result of
  // a reduction along another dimension than the last, shared memory, so
  // that the fragment keeps the layout its other uses give it.
  bool homeInShared =
      permutedSource && dst->scope == tile::MemoryScope::Fragment;
  mlir::Value home = dst->memref;
  if (homeInShared) {
    home = stage(home, tile::MemoryScope::Shared, dst->dtype.type, "result",
                 args.loc(1));
    if (!home)
      return poison();
    if (!clearFirst)
      emitter.emitWholeCopy(dst->memref, home, call.loc);
  }
  mlir::Value result = home;
  bool sharedResult = homeInShared || dst->scope == tile::MemoryScope::Shared;
  if (sharedResult) {
    result = stage(home, tile::MemoryScope::Fragment, dst->dtype.type, "result",
                   args.loc(1));
    if (!result)
      return poison();
    if (!clearFirst)
      emitter.emitWholeCopy(home, result, call.loc);
  }
  emitter.emitReduce(kind, source, result, dim, clearFirst, call.loc);
  if (sharedResult)
    emitter.emitWholeCopy(result, home, call.loc);
  if (homeInShared)
    emitter.emitWholeCopy(home, dst->memref, call.loc);
  return none();
}

/// The dimension argument `index` of a primitive on a rank-`rank` buffer,
/// `byDefault` when not given, counted from the end when negative as in
/// Python; std::nullopt after an error.
static std::optional<int64_t> dimensionArg(Evaluator &eval,
                                           const CallArgs &call,
                                           const Args &args, size_t index,
                                           int64_t rank, int64_t byDefault) {
  int64_t dim = byDefault;
  if (args.has(index)) {
    std::optional<int64_t> value =
        constIntArg(eval, args[index], args.loc(index), "dim");
    if (!value)
      return std::nullopt;
    dim = *value;
  }
  if (dim < -rank || dim >= rank) {
    eval.error(args.has(index) ? args.loc(index) : call.loc,
               "dim " + llvm::Twine(dim) + " is out of range for a rank-" +
                   llvm::Twine(rank) + " buffer");
    return std::nullopt;
  }
  return dim < 0 ? dim + rank : dim;
}

static BuiltinObject::Handler reduce(tile::ReduceKind kind, std::string name) {
  return [kind, name](Evaluator &eval, const CallArgs &call) -> Ref {
    std::optional<Args> args =
        bindArgs(eval, call, name, {"buffer", "out", "dim", "clear"}, 2);
    if (!args || !eval.requireKernel(call.loc, name))
      return poison();
    auto src = bufferArg(eval, (*args)[0], args->loc(0), "the source");
    auto dst = bufferArg(eval, (*args)[1], args->loc(1), "the result");
    if (!src || !dst)
      return poison();
    std::optional<int64_t> dim =
        dimensionArg(eval, call, *args, 2, src->shape.size(), /*byDefault=*/-1);
    if (!dim)
      return poison();
    bool clearFirst =
        constBoolArg(eval, (*args)[3], args->loc(3), "clear").value_or(true);
    return emitStagedReduce(eval, call, *args, kind, src.get(), dst.get(), *dim,
                            clearFirst);
  };
}

/// T.cumsum(src, dst=None, dim=0, reverse=False): the inclusive prefix sums
/// of `src` along `dim` (suffix sums with `reverse`), into `dst` or in
/// place. The scan doubles its reach each step (Hillis and Steele): with
/// `n` elements along `dim`, ceil(log2 n) element-wise passes between two
/// shared buffers, each adding the element `s` back (or ahead) where there
/// is one, so every thread takes part and the passes need only the
/// barriers between them.
static Ref cumsum(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.cumsum", {"src", "dst", "dim", "reverse"}, 1);
  if (!args || !eval.requireKernel(call.loc, "T.cumsum"))
    return poison();
  auto src = bufferArg(eval, (*args)[0], args->loc(0), "the source");
  if (!src)
    return poison();
  auto dst = src;
  if (args->has(1) && !llvm::isa<NoneObject>(*(*args)[1])) {
    dst = bufferArg(eval, (*args)[1], args->loc(1), "the result");
    if (!dst)
      return poison();
  }
  for (auto [buffer, loc] :
       {std::pair(src.get(), args->loc(0)), std::pair(dst.get(), call.loc)})
    if (buffer->scope == tile::MemoryScope::Global)
      return eval.error(loc, "T.cumsum scans a shared or fragment buffer; "
                             "copy '" +
                                 buffer->name + "' into one first");
  auto srcType = mlir::cast<mlir::MemRefType>(src->memref.getType());
  auto dstType = mlir::cast<mlir::MemRefType>(dst->memref.getType());
  if (!srcType.hasStaticShape())
    return eval.error(args->loc(0), "T.cumsum needs a source of static shape");
  if (srcType.getShape() != dstType.getShape())
    return eval.error(call.loc, "T.cumsum writes a result of the source's "
                                "shape");
  std::optional<int64_t> dim =
      dimensionArg(eval, call, *args, 2, srcType.getRank(), /*byDefault=*/0);
  if (!dim)
    return poison();
  bool reverse =
      args->has(3) &&
      constBoolArg(eval, (*args)[3], args->loc(3), "reverse").value_or(false);

  TileEmitter &emitter = eval.getEmitter();
  mlir::OpBuilder &b = eval.getBuilder();
  mlir::Location loc = eval.getLoc(call.loc);
  llvm::ArrayRef<int64_t> shape = srcType.getShape();
  int64_t extent = shape[*dim];
  const DType &dtype = dst->dtype;
  // Runs `body` on the indices of every element, in a T.Parallel loop.
  auto forEachElement = [&](llvm::function_ref<void(mlir::ValueRange)> body) {
    mlir::Block *block = emitter.emitParallel(shape, call.loc);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(block);
    body(block->getArguments());
  };
  auto load = [&](mlir::Value buffer, mlir::ValueRange indices) {
    return mlir::memref::LoadOp::create(b, loc, buffer, indices).getResult();
  };
  mlir::Value from =
      emitter.emitAlloc(tile::MemoryScope::Shared, shape, dtype.type, call.loc);
  mlir::Value to =
      emitter.emitAlloc(tile::MemoryScope::Shared, shape, dtype.type, call.loc);
  if (!from || !to)
    return poison();
  forEachElement([&](mlir::ValueRange indices) {
    mlir::Value element =
        eval.convert(load(src->memref, indices), src->dtype, dtype, call.loc);
    mlir::memref::StoreOp::create(b, loc, element, from, indices);
  });
  for (int64_t reach = 1; reach < extent; reach *= 2) {
    forEachElement([&](mlir::ValueRange indices) {
      // The partner `reach` elements back (ahead when reversed), clamped
      // into the buffer where there is none; its value then goes unused.
      auto constant = [&](int64_t value) -> mlir::Value {
        return mlir::arith::ConstantIndexOp::create(b, loc, value);
      };
      mlir::Value partner = mlir::arith::AddIOp::create(
          b, loc, indices[*dim], constant(reverse ? reach : -reach));
      mlir::Value has =
          mlir::arith::CmpIOp::create(b, loc,
                                      reverse ? mlir::arith::CmpIPredicate::slt
                                              : mlir::arith::CmpIPredicate::sge,
                                      partner, constant(reverse ? extent : 0));
      partner = reverse
                    ? mlir::arith::MinSIOp::create(b, loc, partner,
                                                   constant(extent - 1))
                          .getResult()
                    : mlir::arith::MaxSIOp::create(b, loc, partner, constant(0))
                          .getResult();
      llvm::SmallVector<mlir::Value> partnerIndices(indices);
      partnerIndices[*dim] = partner;
      auto here = std::make_shared<ScalarObject>(load(from, indices), dtype);
      auto there =
          std::make_shared<ScalarObject>(load(from, partnerIndices), dtype);
      Ref sum = eval.binary(BinaryOp::Add, here, there, call.loc);
      mlir::Value result = mlir::arith::SelectOp::create(
          b, loc, has, eval.materialize(sum, dtype, call.loc), here->value);
      mlir::memref::StoreOp::create(b, loc, result, to, indices);
    });
    std::swap(from, to);
  }
  forEachElement([&](mlir::ValueRange indices) {
    mlir::memref::StoreOp::create(b, loc, load(from, indices), dst->memref,
                                  indices);
  });
  return none();
}

void tilec::frontend::addComputeBuiltins(ModuleObject &language) {
  auto &m = language.members;
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
  m["gemm"] = builtin("T.gemm", gemm);
  m["cumsum"] = builtin("T.cumsum", cumsum);
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
}
