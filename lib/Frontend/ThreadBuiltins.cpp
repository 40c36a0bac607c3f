//===- ThreadBuiltins.cpp - One thread's view of a block in .tile --------===//
//
// Part of tilec. Code outside T.Parallel runs on every thread of the block;
// these builtins let it tell the threads apart and exchange values:
// T.get_thread_binding and the lane, warp and warpgroup indices derived
// from it, T.sync_threads and T.sync_warp, and the warp shuffles.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

#include "tilec/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
namespace arith = mlir::arith;
namespace gpu = mlir::gpu;

/// T.get_thread_binding(dim=0): this thread's index along `dim` of the
/// block's threads.
static Ref getThreadBinding(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.get_thread_binding", {"dim"}, 0);
  if (!args || !eval.requireKernel(call.loc, "T.get_thread_binding"))
    return poison();
  std::optional<unsigned> dim =
      dimensionArg(eval, *args, 0, "the thread dimension");
  if (!dim)
    return poison();
  return eval.threadIndex(*dim, call.loc);
}

/// T.get_thread_bindings(): the thread's indices along every dimension.
static Ref getThreadBindings(Evaluator &eval, const CallArgs &call) {
  if (!bindArgs(eval, call, "T.get_thread_bindings", {}, 0) ||
      !eval.requireKernel(call.loc, "T.get_thread_bindings"))
    return poison();
  std::vector<Ref> indices;
  for (unsigned dim = 0; dim < eval.kernelThreads().size(); ++dim)
    indices.push_back(eval.threadIndex(dim, call.loc));
  return tuple(std::move(indices), /*isList=*/true);
}

/// TVM's T.thread_binding(start, stop=None, thread="threadIdx.x"), as
/// TileLang kernels write it: the index of this thread (or block, for
/// "blockIdx.*") along a dimension whose whole extent it names, plus start.
static Ref threadBinding(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.thread_binding", {"start", "stop", "thread"}, 1);
  if (!args || !eval.requireKernel(call.loc, "T.thread_binding"))
    return poison();
  // (extent) or (start, stop), as range takes them.
  std::optional<int64_t> first =
      constIntArg(eval, (*args)[0], args->loc(0), "the start");
  if (!first)
    return poison();
  int64_t start = 0, extent = *first;
  if (args->has(1)) {
    std::optional<int64_t> stop =
        constIntArg(eval, (*args)[1], args->loc(1), "the stop");
    if (!stop)
      return poison();
    start = *first;
    extent = *stop - *first;
  }
  auto *tag =
      args->has(2)
          ? llvm::dyn_cast<StrObject>(eval.load((*args)[2], args->loc(2)).get())
          : nullptr;
  StringRef name = tag ? StringRef(tag->value) : StringRef();
  auto [kind, axis] = name.split('.');
  if ((kind != "threadIdx" && kind != "blockIdx") ||
      (axis != "x" && axis != "y" && axis != "z"))
    return eval.error(args->has(2) ? args->loc(2) : call.loc,
                      "T.thread_binding takes thread=\"threadIdx.x\" (.y, "
                      ".z) or \"blockIdx.x\" (.y, .z)");
  unsigned dim = axis[0] - 'x';
  Ref index = kind == "threadIdx" ? eval.threadIndex(dim, call.loc)
                                  : eval.blockIndex(dim, call.loc);
  if (isPoison(index))
    return index;
  if (kind == "threadIdx" && eval.kernelThreads()[dim] != extent)
    return eval.error(call.loc, "T.thread_binding over " + llvm::Twine(extent) +
                                    " threads along " + axis +
                                    ", but T.Kernel has " +
                                    llvm::Twine(eval.kernelThreads()[dim]));
  if (start == 0)
    return index;
  mlir::OpBuilder &b = eval.getBuilder();
  mlir::Location loc = eval.getLoc(call.loc);
  return std::make_shared<ScalarObject>(
      arith::AddIOp::create(b, loc, llvm::cast<ScalarObject>(*index).value,
                            arith::ConstantIndexOp::create(b, loc, start)),
      getIndexDType(eval.getContext()));
}

/// An optional positive compile-time size argument, or `fallback`.
static std::optional<int64_t> sizeArg(Evaluator &eval, const Args &args,
                                      size_t i, int64_t fallback,
                                      StringRef what) {
  if (!args.has(i))
    return fallback;
  std::optional<int64_t> value = constIntArg(eval, args[i], args.loc(i), what);
  if (!value)
    return std::nullopt;
  if (*value <= 0) {
    eval.error(args.loc(i),
               what + " must be positive, got " + llvm::Twine(*value));
    return std::nullopt;
  }
  return value;
}

/// The block-linear thread index divided by `divisor`, modulo `modulus`
/// when it is given.
static Ref threadPart(Evaluator &eval, SMLoc loc, int64_t divisor,
                      std::optional<int64_t> modulus) {
  Ref linear = eval.linearThreadIndex(loc);
  if (isPoison(linear))
    return linear;
  mlir::OpBuilder &b = eval.getBuilder();
  mlir::Location location = eval.getLoc(loc);
  mlir::Value value = llvm::cast<ScalarObject>(*linear).value;
  auto constant = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, location, v);
  };
  if (divisor != 1)
    value = arith::DivUIOp::create(b, location, value, constant(divisor));
  if (modulus)
    value = arith::RemUIOp::create(b, location, value, constant(*modulus));
  return std::make_shared<ScalarObject>(value,
                                        getIndexDType(eval.getContext()));
}

/// T.get_lane_idx(warp_size=None): the thread's lane in its warp.
static Ref getLaneIdx(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.get_lane_idx", {"warp_size"}, 0);
  if (!args || !eval.requireKernel(call.loc, "T.get_lane_idx"))
    return poison();
  std::optional<int64_t> warp =
      sizeArg(eval, *args, 0, eval.getOptions().warpSize, "warp_size");
  if (!warp)
    return poison();
  return threadPart(eval, call.loc, 1, *warp);
}

/// T.get_warp_idx(warp_size=None) and T.get_warp_idx_sync: the thread's
/// warp in the block.
static BuiltinObject::Handler getWarpIdx(std::string name) {
  return [=](Evaluator &eval, const CallArgs &call) -> Ref {
    std::optional<Args> args = bindArgs(eval, call, name, {"warp_size"}, 0);
    if (!args || !eval.requireKernel(call.loc, name))
      return poison();
    std::optional<int64_t> warp =
        sizeArg(eval, *args, 0, eval.getOptions().warpSize, "warp_size");
    if (!warp)
      return poison();
    return threadPart(eval, call.loc, *warp, std::nullopt);
  };
}

/// T.get_warp_group_idx(warp_size=None, warps_per_group=None): the
/// thread's warpgroup (four warps unless told otherwise).
static Ref getWarpGroupIdx(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "T.get_warp_group_idx",
                                      {"warp_size", "warps_per_group"}, 0);
  if (!args || !eval.requireKernel(call.loc, "T.get_warp_group_idx"))
    return poison();
  std::optional<int64_t> warp =
      sizeArg(eval, *args, 0, eval.getOptions().warpSize, "warp_size");
  std::optional<int64_t> warps =
      warp ? sizeArg(eval, *args, 1, 4, "warps_per_group") : std::nullopt;
  if (!warps)
    return poison();
  return threadPart(eval, call.loc, *warp * *warps, std::nullopt);
}

/// The number of threads of the enclosing T.Kernel's block.
static int64_t blockThreadCount(Evaluator &eval) {
  int64_t threads = 1;
  for (int64_t extent : eval.kernelThreads())
    threads *= extent;
  return threads;
}

/// Fails with a message unless outside T.Parallel: a barrier is the
/// threads', which a parallel loop's elements are not.
static bool outsideParallel(Evaluator &eval, SMLoc loc, StringRef what) {
  if (!eval.getEmitter().insideParallel())
    return true;
  eval.error(loc, what + " inside T.Parallel is not supported: a barrier "
                         "is met by threads, not by elements; put it "
                         "before or after the loop");
  return false;
}

/// T.sync_threads(barrier_id=None, arrive_count=None): a barrier of the
/// whole block, or with a count below the block's threads a named barrier
/// among that many, whole warps (those that take a branch together).
static Ref syncThreads(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.sync_threads", {"barrier_id", "arrive_count"}, 0);
  if (!args || !eval.requireKernel(call.loc, "T.sync_threads") ||
      !outsideParallel(eval, call.loc, "T.sync_threads"))
    return poison();
  int64_t threads = blockThreadCount(eval);
  int64_t id = 0, count = threads;
  if (args->has(0)) {
    std::optional<int64_t> value =
        constIntArg(eval, (*args)[0], args->loc(0), "the barrier id");
    if (!value)
      return poison();
    if (*value < 0 || *value > 15)
      return eval.error(args->loc(0), "barrier id " + std::to_string(*value) +
                                          " is not one of the block's "
                                          "barriers 0 to 15");
    id = *value;
  }
  if (args->has(1)) {
    std::optional<int64_t> value =
        constIntArg(eval, (*args)[1], args->loc(1), "the arrive count");
    if (!value)
      return poison();
    int64_t warp = eval.getOptions().warpSize;
    if (*value <= 0 || *value > threads || *value % warp != 0)
      return eval.error(args->loc(1),
                        "a barrier waits for whole warps of the block's " +
                            std::to_string(threads) +
                            " threads: " + std::to_string(*value) +
                            " is not a multiple of " + std::to_string(warp) +
                            " up to " + std::to_string(threads));
    count = *value;
  }
  mlir::OpBuilder &b = eval.getBuilder();
  mlir::Location loc = eval.getLoc(call.loc);
  // Every thread waits: the block barrier, whatever its id.
  if (count == threads) {
    gpu::BarrierOp::create(b, loc);
    return none();
  }
  if (!eval.getOptions().partialBarriers)
    return eval.error(call.loc, "AMD targets have no barrier over part of "
                                "the block");
  tilec::tile::NamedBarrierOp::create(b, loc, id, count);
  return none();
}

/// T.sync_warp(mask=None): a barrier among the threads of the warp, all of
/// them.
static Ref syncWarp(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "T.sync_warp", {"mask"}, 0);
  if (!args || !eval.requireKernel(call.loc, "T.sync_warp") ||
      !outsideParallel(eval, call.loc, "T.sync_warp"))
    return poison();
  if (args->has(0)) {
    std::optional<int64_t> mask =
        constIntArg(eval, (*args)[0], args->loc(0), "the lane mask");
    if (!mask)
      return poison();
    if ((*mask & 0xffffffff) != 0xffffffff)
      return eval.error(args->loc(0),
                        "T.sync_warp over part of the warp is not "
                        "supported; give the full mask 0xffffffff");
  }
  if (!eval.getOptions().partialBarriers)
    return eval.error(call.loc, "AMD targets have no barrier among the "
                                "threads of a warp");
  tilec::tile::WarpBarrierOp::create(eval.getBuilder(), eval.getLoc(call.loc));
  return none();
}

/// T.ws(*warp_groups): the threads of consecutive warp groups of 128,
/// which the body of `with T.ws(...):` runs; the other threads skip it.
static Ref warpGroups(Evaluator &eval, const CallArgs &call) {
  if (!eval.requireKernel(call.loc, "T.ws"))
    return poison();
  if (!call.keywords.empty())
    return eval.error(call.keywordLocs.front(), "T.ws takes no keywords");
  if (call.args.empty())
    return eval.error(call.loc, "T.ws takes the indices of one or more warp "
                                "groups");
  // TileLang's warp groups are Hopper's: four warps of 32.
  constexpr int64_t kGroup = 128;
  int64_t threads = blockThreadCount(eval);
  std::vector<int64_t> groups;
  for (auto [arg, loc] : llvm::zip(call.args, call.argLocs)) {
    std::optional<int64_t> group =
        constIntArg(eval, arg, loc, "the warp group index");
    if (!group)
      return poison();
    if (*group < 0 || (*group + 1) * kGroup > threads)
      return eval.error(loc, "warp group " + std::to_string(*group) +
                                 " is not one of the block's: its " +
                                 std::to_string(threads) + " threads make " +
                                 std::to_string(threads / kGroup) +
                                 " groups of " + std::to_string(kGroup));
    groups.push_back(*group);
  }
  llvm::sort(groups);
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  if (groups.back() - groups.front() + 1 != int64_t(groups.size()))
    return eval.error(call.loc, "T.ws over warp groups that are not "
                                "consecutive is not supported; give each "
                                "run of groups its own T.ws");
  if (!eval.getOptions().partialBarriers)
    return eval.error(call.loc, "T.ws needs barriers over part of the "
                                "block, which AMD targets do not have");
  auto range = std::make_shared<ThreadRangeObject>();
  range->first = groups.front() * kGroup;
  range->count = int64_t(groups.size()) * kGroup;
  return range;
}

/// Where each argument of a shuffle builtin is: TileLang's spelling puts
/// the value first and the mask last, TVM's the mask first and the logical
/// warp size after the width.
struct ShuffleSignature {
  std::vector<StringRef> names;
  size_t required, value, delta, width, mask;
  std::optional<size_t> warpSize;
};

/// Argument `i`, a number of lanes: a power of two up to the target's warp
/// size (`warpSize`, also its default), or an error naming `what` and, in
/// it, the limit as `limit` names it.
static std::optional<int64_t> laneCountArg(Evaluator &eval, const Args &args,
                                           size_t i, int64_t warpSize,
                                           StringRef what, StringRef limit) {
  std::optional<int64_t> lanes = sizeArg(eval, args, i, warpSize, what);
  if (!lanes)
    return std::nullopt;
  if (*lanes > warpSize || !llvm::isPowerOf2_64(*lanes)) {
    eval.error(args.loc(i), what + " must be a power of two up to " + limit +
                                " (" + llvm::Twine(warpSize) + "), got " +
                                llvm::Twine(*lanes));
    return std::nullopt;
  }
  return lanes;
}

/// T.shfl_xor, T.shfl_down, T.shfl_up and T.shfl_sync(value, delta,
/// width=warp size, mask=all lanes), and TVM's T.tvm_warp_shuffle(_down,
/// _up): `value` as another lane of the warp holds it. Values narrower than
/// 32 bits travel widened, indices as 32-bit integers, and 64-bit values in
/// two halves.
static BuiltinObject::Handler shuffle(gpu::ShuffleMode mode, std::string name,
                                      ShuffleSignature sig) {
  return [=](Evaluator &eval, const CallArgs &call) -> Ref {
    std::optional<Args> args =
        bindArgs(eval, call, name, sig.names, sig.required);
    if (!args || !eval.requireKernel(call.loc, name))
      return poison();
    Ref value = eval.toScalar((*args)[sig.value], args->loc(sig.value));
    Ref delta = eval.toScalar((*args)[sig.delta], args->loc(sig.delta));
    if (isPoison(value) || isPoison(delta))
      return poison();
    int64_t warpSize = eval.getOptions().warpSize;
    if (sig.warpSize && !laneCountArg(eval, *args, *sig.warpSize, warpSize,
                                      "the warp size", "the target's"))
      return poison();
    std::optional<int64_t> width = laneCountArg(
        eval, *args, sig.width, warpSize, "the shuffle width", "the warp size");
    if (!width)
      return poison();
    // The mask names the lanes that take part; tilec's shuffles always
    // involve the whole warp, so only that mask is accepted.
    if (args->has(sig.mask)) {
      std::optional<int64_t> mask = constIntArg(
          eval, (*args)[sig.mask], args->loc(sig.mask), "the shuffle mask");
      if (!mask)
        return poison();
      if ((*mask & 0xffffffff) != 0xffffffff)
        return eval.error(args->loc(sig.mask),
                          "tilec's warp shuffles involve every lane: the "
                          "mask must be 0xffffffff");
    }
    if (!getConstInt(delta) && !eval.dtypeOf(delta).isInteger())
      return eval.error(
          args->loc(sig.delta),
          name + " takes an integer " + sig.names[sig.delta] + ", got a " +
              (llvm::isa<ScalarObject>(*delta) ? eval.dtypeOf(delta).name
                                               : getTypeName(*delta)));

    mlir::OpBuilder &b = eval.getBuilder();
    mlir::Location loc = eval.getLoc(call.loc);
    mlir::Type i32 = b.getI32Type();
    DType dtype = eval.dtypeOf(value);
    if (!getConstInt(value) && !getConstNumber(value) && !dtype.isFloat() &&
        !dtype.isInteger() && !dtype.isBool())
      return eval.error(args->loc(sig.value), name + " shuffles numbers");
    mlir::Value v = eval.materialize(value, dtype, call.loc);
    DType i32Type{"int32", i32};
    mlir::Value offset = eval.materialize(delta, i32Type, call.loc);
    mlir::Value widthValue = arith::ConstantIntOp::create(b, loc, *width, 32);
    auto shuffle32 = [&](mlir::Value word) {
      return gpu::ShuffleOp::create(b, loc, word, offset, widthValue, mode)
          .getShuffleResult();
    };

    mlir::Type type = v.getType();
    mlir::Value result;
    if (type.isIndex()) {
      // Indices (thread, lane and loop indices) fit 32 bits.
      result = arith::IndexCastOp::create(
          b, loc, type,
          shuffle32(arith::IndexCastOp::create(b, loc, i32, v).getResult()));
      return std::make_shared<ScalarObject>(result, dtype);
    }
    unsigned bits = type.getIntOrFloatBitWidth();
    if (bits == 32) {
      result = shuffle32(v);
    } else if (bits < 32) {
      // Widen, shuffle and narrow back; a float through f32, which holds
      // every narrower float exactly.
      if (mlir::isa<mlir::FloatType>(type)) {
        mlir::Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
        result = arith::TruncFOp::create(b, loc, type, shuffle32(wide));
      } else {
        mlir::Value wide =
            dtype.isUnsigned || dtype.isBool()
                ? arith::ExtUIOp::create(b, loc, i32, v).getResult()
                : arith::ExtSIOp::create(b, loc, i32, v).getResult();
        result = arith::TruncIOp::create(b, loc, type, shuffle32(wide));
      }
    } else {
      // 64 bits: the two halves travel separately.
      mlir::Type i64 = b.getI64Type();
      mlir::Value word = v;
      if (mlir::isa<mlir::FloatType>(type))
        word = arith::BitcastOp::create(b, loc, i64, v);
      mlir::Value low = arith::TruncIOp::create(b, loc, i32, word);
      mlir::Value high = arith::TruncIOp::create(
          b, loc, i32,
          arith::ShRUIOp::create(b, loc, word,
                                 arith::ConstantIntOp::create(b, loc, 32, 64)));
      mlir::Value lowOut = arith::ExtUIOp::create(b, loc, i64, shuffle32(low));
      mlir::Value highOut =
          arith::ExtUIOp::create(b, loc, i64, shuffle32(high));
      mlir::Value joined = arith::OrIOp::create(
          b, loc, lowOut,
          arith::ShLIOp::create(b, loc, highOut,
                                arith::ConstantIntOp::create(b, loc, 32, 64)));
      if (mlir::isa<mlir::FloatType>(type))
        result = arith::BitcastOp::create(b, loc, type, joined);
      else
        result = joined;
    }
    return std::make_shared<ScalarObject>(result, dtype);
  };
}

void tilec::frontend::addThreadBuiltins(ModuleObject &language) {
  auto &m = language.members;
  m["get_thread_binding"] = builtin("T.get_thread_binding", getThreadBinding);
  m["get_thread_bindings"] =
      builtin("T.get_thread_bindings", getThreadBindings);
  m["thread_binding"] = builtin("T.thread_binding", threadBinding);
  m["get_lane_idx"] = builtin("T.get_lane_idx", getLaneIdx);
  m["get_warp_idx"] = builtin("T.get_warp_idx", getWarpIdx("T.get_warp_idx"));
  m["get_warp_idx_sync"] =
      builtin("T.get_warp_idx_sync", getWarpIdx("T.get_warp_idx_sync"));
  m["get_warp_group_idx"] = builtin("T.get_warp_group_idx", getWarpGroupIdx);
  m["sync_threads"] = builtin("T.sync_threads", syncThreads);
  m["sync_warp"] = builtin("T.sync_warp", syncWarp);
  m["ws"] = builtin("T.ws", warpGroups);
  // TileLang's spelling: (value, delta, width=warp, mask=all lanes).
  auto tileLang = [](StringRef delta) {
    return ShuffleSignature{
        {"value", delta, "width", "mask"}, 2, 0, 1, 2, 3, std::nullopt};
  };
  // TVM's: (mask, value, delta, width, warp_size).
  ShuffleSignature tvm{
      {"mask", "value", "delta", "width", "warp_size"}, 5, 1, 2, 3, 0, 4};
  m["shfl_xor"] =
      builtin("T.shfl_xor",
              shuffle(gpu::ShuffleMode::XOR, "T.shfl_xor", tileLang("delta")));
  m["shfl_down"] =
      builtin("T.shfl_down", shuffle(gpu::ShuffleMode::DOWN, "T.shfl_down",
                                     tileLang("delta")));
  m["shfl_up"] = builtin("T.shfl_up", shuffle(gpu::ShuffleMode::UP, "T.shfl_up",
                                              tileLang("delta")));
  m["shfl_sync"] =
      builtin("T.shfl_sync", shuffle(gpu::ShuffleMode::IDX, "T.shfl_sync",
                                     tileLang("srcLane")));
  m["tvm_warp_shuffle"] =
      builtin("T.tvm_warp_shuffle",
              shuffle(gpu::ShuffleMode::IDX, "T.tvm_warp_shuffle", tvm));
  m["tvm_warp_shuffle_down"] =
      builtin("T.tvm_warp_shuffle_down",
              shuffle(gpu::ShuffleMode::DOWN, "T.tvm_warp_shuffle_down", tvm));
  m["tvm_warp_shuffle_up"] =
      builtin("T.tvm_warp_shuffle_up",
              shuffle(gpu::ShuffleMode::UP, "T.tvm_warp_shuffle_up", tvm));
}
