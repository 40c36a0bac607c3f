//===- ControlBuiltins.cpp - The kernel and loops in .tile ----------------===//
//
// Part of tilec. T.Kernel describes a launch, and T.Parallel, T.Pipelined,
// T.serial, T.unroll and Python's range what a for loop iterates over; the
// evaluator turns them into regions of IR when the with or for statement
// runs.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

/// An integer loop bound: a compile-time int or a run-time integer.
static Ref boundArg(Evaluator &eval, const Ref &arg, SMLoc loc,
                    StringRef what) {
  Ref value = eval.load(arg, loc);
  if (isPoison(value))
    return value;
  if (getConstInt(value))
    return value;
  if (auto *scalar = llvm::dyn_cast<ScalarObject>(value.get());
      scalar && scalar->dtype.isInteger())
    return value;
  return eval.error(loc,
                    what + " must be an integer, got a " + getTypeName(*value));
}

static std::optional<std::vector<int64_t>>
intListArg(Evaluator &eval, const Ref &arg, SMLoc loc, StringRef what) {
  std::vector<int64_t> values;
  for (const Ref &element : asSequence(arg)) {
    std::optional<int64_t> value = getConstInt(element);
    if (!value) {
      eval.error(loc, what + " must be a list of compile-time integers");
      return std::nullopt;
    }
    values.push_back(*value);
  }
  return values;
}

static Ref parallel(Evaluator &eval, const CallArgs &call) {
  if (!call.keywords.empty())
    return eval.error(call.keywordLocs.front(),
                      "T.Parallel() got an unexpected keyword argument '" +
                          call.keywords.front().first + "'");
  if (call.args.empty())
    return eval.error(call.loc, "T.Parallel needs at least one extent");
  auto iterable = std::make_shared<IterableObject>();
  iterable->loopKind = IterableObject::LoopKind::Parallel;
  for (auto [arg, loc] : llvm::zip(call.args, call.argLocs)) {
    Ref value = eval.load(arg, loc);
    std::optional<int64_t> extent = getConstInt(value);
    if (!extent)
      return eval.error(loc, "T.Parallel extents must be compile-time "
                             "integers, got a " +
                                 getTypeName(*value));
    if (*extent <= 0)
      return eval.error(loc, "T.Parallel extents must be positive, got " +
                                 llvm::Twine(*extent));
    iterable->extents.push_back(*extent);
  }
  return iterable;
}

/// TVM's T.parallel(stop) or T.parallel(0, stop): a one-dimensional
/// T.Parallel, which nested ones make a loop nest of.
static Ref tirParallel(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.parallel", {"start", "stop"}, 1);
  if (!args)
    return poison();
  if (args->has(1)) {
    std::optional<int64_t> start =
        getConstInt(eval.load((*args)[0], args->loc(0)));
    if (start != 0)
      return eval.error(args->loc(0),
                        "T.parallel loops start at 0 in tilec; loop over "
                        "T.parallel(stop - start) and add the start");
  }
  CallArgs extent;
  extent.loc = call.loc;
  extent.args = {(*args)[args->has(1) ? 1 : 0]};
  extent.argLocs = {args->loc(args->has(1) ? 1 : 0)};
  return parallel(eval, extent);
}

static Ref pipelined(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(
      eval, call, "T.Pipelined",
      {"start", "stop", "num_stages", "order", "stage", "sync", "group"}, 1);
  if (!args)
    return poison();
  auto iterable = std::make_shared<IterableObject>();
  iterable->loopKind = IterableObject::LoopKind::Pipelined;
  Ref first = boundArg(eval, (*args)[0], args->loc(0), "the loop bound");
  if (args->has(1)) {
    iterable->start = first;
    iterable->stop = boundArg(eval, (*args)[1], args->loc(1), "stop");
  } else {
    iterable->start = integer(0);
    iterable->stop = first;
  }
  if (isPoison(iterable->start) || isPoison(iterable->stop))
    return poison();
  if (args->has(2)) {
    std::optional<int64_t> stages =
        constIntArg(eval, (*args)[2], args->loc(2), "num_stages");
    if (!stages)
      return poison();
    if (*stages < 0)
      return eval.error(args->loc(2), "num_stages must not be negative");
    iterable->numStages = *stages;
  }
  if (args->has(3) != args->has(4))
    return eval.error(call.loc, "T.Pipelined takes order and stage "
                                "together");
  if (args->has(3)) {
    iterable->order = intListArg(eval, (*args)[3], args->loc(3), "order");
    iterable->stage = intListArg(eval, (*args)[4], args->loc(4), "stage");
    if (!iterable->order || !iterable->stage)
      return poison();
  }
  for (size_t i : {5, 6})
    if (args->has(i) && !llvm::isa<NoneObject>(*(*args)[i]))
      return eval.error(args->loc(i),
                        llvm::Twine(i == 5 ? "sync" : "group") +
                            " is not supported by tilec's pipeliner yet");
  return iterable;
}

static BuiltinObject::Handler serialLoop(IterableObject::LoopKind kind,
                                         std::string name, bool isPythonRange) {
  return [=](Evaluator &eval, const CallArgs &call) -> Ref {
    std::optional<Args> args =
        bindArgs(eval, call, name, {"start", "stop", "step"}, 1);
    if (!args)
      return poison();
    auto iterable = std::make_shared<IterableObject>();
    iterable->loopKind = kind;
    Ref first = boundArg(eval, (*args)[0], args->loc(0), "the loop bound");
    if (args->has(1)) {
      iterable->start = first;
      iterable->stop = boundArg(eval, (*args)[1], args->loc(1), "stop");
    } else {
      iterable->start = integer(0);
      iterable->stop = first;
    }
    iterable->step = args->has(2)
                         ? boundArg(eval, (*args)[2], args->loc(2), "step")
                         : integer(1);
    for (const Ref &bound : {iterable->start, iterable->stop, iterable->step})
      if (isPoison(bound))
        return bound;
    if (std::optional<int64_t> step = getConstInt(iterable->step);
        step && *step <= 0)
      return eval.error(args->has(2) ? args->loc(2) : call.loc,
                        name + "() step must be positive");
    // Python's range outside a kernel runs at compile time.
    if (isPythonRange && !eval.inKernel()) {
      for (const Ref &bound : {iterable->start, iterable->stop, iterable->step})
        if (!getConstInt(bound))
          return eval.error(call.loc, "range() outside a kernel needs "
                                      "compile-time bounds");
      iterable->compileTimeRange = true;
    }
    return iterable;
  };
}

/// T.Persistent(domain, wave_size, index, group_size=8): the tiles of
/// `domain` that block `index` of a persistent wave of `wave_size` blocks
/// visits.
static Ref persistent(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.Persistent",
               {"domain", "wave_size", "index", "group_size"}, 3);
  if (!args)
    return poison();
  auto iterable = std::make_shared<IterableObject>();
  iterable->loopKind = IterableObject::LoopKind::Persistent;
  Ref domain = eval.load((*args)[0], args->loc(0));
  if (isPoison(domain))
    return domain;
  if (!llvm::isa<TupleObject>(*domain))
    return eval.error(args->loc(0), "T.Persistent takes the tile grid as a "
                                    "list of extents, got a " +
                                        getTypeName(*domain));
  for (const Ref &extent : asSequence(domain)) {
    Ref bound = boundArg(eval, extent, args->loc(0), "a tile grid extent");
    if (isPoison(bound))
      return bound;
    iterable->domain.push_back(bound);
  }
  if (iterable->domain.empty())
    return eval.error(args->loc(0), "T.Persistent needs at least one extent");
  iterable->waveSize = boundArg(eval, (*args)[1], args->loc(1), "wave_size");
  iterable->waveIndex = boundArg(eval, (*args)[2], args->loc(2), "index");
  iterable->groupSize =
      args->has(3) ? boundArg(eval, (*args)[3], args->loc(3), "group_size")
                   : integer(8);
  for (const Ref &value :
       {iterable->waveSize, iterable->waveIndex, iterable->groupSize})
    if (isPoison(value))
      return value;
  if (std::optional<int64_t> wave = getConstInt(iterable->waveSize);
      wave && *wave <= 0)
    return eval.error(args->loc(1),
                      "wave_size must be positive, got " + llvm::Twine(*wave));
  return iterable;
}

static Ref kernel(Evaluator &eval, const CallArgs &call) {
  auto launch = std::make_shared<KernelLaunchObject>();
  launch->loc = call.loc;
  launch->threads = {128};
  for (auto [i, keyword] : llvm::enumerate(call.keywords)) {
    SMLoc loc = call.keywordLocs[i];
    if (keyword.first == "threads") {
      launch->threads.clear();
      for (const Ref &extent : asSequence(keyword.second)) {
        std::optional<int64_t> value = getConstInt(extent);
        if (!value)
          return eval.error(loc, "threads must be compile-time integers");
        if (*value <= 0)
          return eval.error(loc, "threads must be positive, got " +
                                     llvm::Twine(*value));
        launch->threads.push_back(*value);
      }
      if (launch->threads.empty() || launch->threads.size() > 3)
        return eval.error(loc, "threads has one to three dimensions");
      int64_t total = 1;
      for (int64_t extent : launch->threads)
        total *= extent;
      if (total > 1024)
        return eval.error(loc, "a block has at most 1024 threads, got " +
                                   llvm::Twine(total));
    } else if (keyword.first == "is_cpu" || keyword.first == "prelude") {
      return eval.error(loc, "T.Kernel(" + keyword.first +
                                 "=...) is not supported by tilec");
    } else {
      return eval.error(loc, "T.Kernel() got an unexpected keyword "
                             "argument '" +
                                 keyword.first + "'");
    }
  }
  if (call.args.empty() || call.args.size() > 3)
    return eval.error(call.loc, "T.Kernel takes one to three grid "
                                "extents, got " +
                                    llvm::Twine(call.args.size()));
  for (auto [arg, loc] : llvm::zip(call.args, call.argLocs)) {
    Ref extent = boundArg(eval, arg, loc, "a grid extent");
    if (isPoison(extent))
      return extent;
    if (std::optional<int64_t> value = getConstInt(extent);
        value && *value <= 0)
      return eval.error(loc, "grid extents must be positive, got " +
                                 llvm::Twine(*value));
    launch->grid.push_back(extent);
  }
  return launch;
}

/// T.get_block_binding(dim=0): the block index along `dim`, as T.Kernel's
/// `as (bx, by)` binds it.
static Ref getBlockBinding(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.get_block_binding", {"dim"}, 0);
  if (!args)
    return poison();
  std::optional<unsigned> dim =
      dimensionArg(eval, *args, 0, "the grid dimension");
  if (!dim)
    return poison();
  return eval.blockIndex(*dim, call.loc);
}

void tilec::frontend::addControlBuiltins(ModuleObject &language,
                                         ModuleObject &python) {
  auto &m = language.members;
  m["Kernel"] = builtin("T.Kernel", kernel);
  m["get_block_binding"] = builtin("T.get_block_binding", getBlockBinding);
  m["Parallel"] = builtin("T.Parallel", parallel);
  m["parallel"] = builtin("T.parallel", tirParallel);
  m["Pipelined"] = builtin("T.Pipelined", pipelined);
  m["Persistent"] = builtin("T.Persistent", persistent);
  m["serial"] = builtin("T.serial", serialLoop(IterableObject::LoopKind::Serial,
                                               "T.serial", false));
  m["Serial"] = m["serial"];
  m["unroll"] = builtin("T.unroll", serialLoop(IterableObject::LoopKind::Unroll,
                                               "T.unroll", false));
  // Each thread runs every iteration, unrolled so that accesses to
  // consecutive elements merge into vector ones.
  m["vectorized"] =
      builtin("T.vectorized", serialLoop(IterableObject::LoopKind::Unroll,
                                         "T.vectorized", false));
  python.members["range"] = builtin(
      "range", serialLoop(IterableObject::LoopKind::Serial, "range", true));
}
