//===- BuiltinArgs.cpp - Arguments of .tile builtins ----------------------===//
//
// Part of tilec. Binding a builtin call's arguments to its parameters as
// Python does, and the checks of argument kinds the builtins share.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

std::optional<Args> tilec::frontend::bindArgs(Evaluator &eval,
                                              const CallArgs &call,
                                              StringRef function,
                                              llvm::ArrayRef<StringRef> names,
                                              size_t numRequired) {
  Args args;
  std::vector<Ref> &values = args.values;
  std::vector<SMLoc> &locs = args.locs;
  values.assign(names.size(), nullptr);
  locs.assign(names.size(), call.loc);
  if (call.args.size() > names.size()) {
    std::string most =
        names.empty() ? std::string("no arguments")
                      : "at most " + std::to_string(names.size()) +
                            (names.size() == 1 ? " argument" : " arguments");
    eval.error(call.argLocs[names.size()],
               function + "() takes " + most + " (" +
                   llvm::Twine(call.args.size()) + " given)");
    return std::nullopt;
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
      std::string hint = Evaluator::suggest(keyword.first, candidates);
      eval.error(call.keywordLocs[i],
                 function + "() got an unexpected keyword argument '" +
                     keyword.first + "'" +
                     (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
      return std::nullopt;
    }
    size_t index = it - names.begin();
    if (values[index]) {
      eval.error(call.keywordLocs[i], function +
                                          "() got multiple values for "
                                          "argument '" +
                                          keyword.first + "'");
      return std::nullopt;
    }
    values[index] = keyword.second;
    locs[index] = call.keywordLocs[i];
  }
  for (size_t i = 0; i < numRequired; ++i) {
    if (!values[i]) {
      eval.error(call.loc,
                 function + "() is missing argument '" + names[i] + "'");
      return std::nullopt;
    }
  }
  return args;
}

std::optional<int64_t> tilec::frontend::constIntArg(Evaluator &eval,
                                                    const Ref &arg, SMLoc loc,
                                                    StringRef what) {
  Ref value = eval.load(arg, loc);
  if (isPoison(value))
    return std::nullopt;
  if (std::optional<int64_t> i = getConstInt(value))
    return i;
  eval.error(loc, what + " must be a compile-time integer, got a " +
                      getTypeName(*value));
  return std::nullopt;
}

std::optional<unsigned> tilec::frontend::dimensionArg(Evaluator &eval,
                                                      const Args &args,
                                                      size_t i,
                                                      StringRef what) {
  if (!args.has(i))
    return 0;
  std::optional<int64_t> dim = constIntArg(eval, args[i], args.loc(i), what);
  if (!dim)
    return std::nullopt;
  if (*dim < 0 || *dim > 2) {
    eval.error(args.loc(i), what + " is 0, 1 or 2, got " + llvm::Twine(*dim));
    return std::nullopt;
  }
  return *dim;
}

std::optional<bool> tilec::frontend::constBoolArg(Evaluator &eval,
                                                  const Ref &arg, SMLoc loc,
                                                  StringRef what) {
  if (!arg)
    return std::nullopt;
  if (auto *b = llvm::dyn_cast<BoolObject>(arg.get()))
    return b->value;
  if (std::optional<int64_t> i = getConstInt(arg))
    return *i != 0;
  if (!isPoison(arg))
    eval.error(loc, what + " must be a compile-time bool, got a " +
                        getTypeName(*arg));
  return std::nullopt;
}

std::optional<bool> tilec::frontend::boolArg(Evaluator &eval, const Args &args,
                                             size_t i, StringRef what,
                                             bool fallback) {
  if (!args.has(i))
    return fallback;
  return constBoolArg(eval, args[i], args.loc(i), what);
}

std::shared_ptr<const BufferObject> tilec::frontend::bufferArg(Evaluator &eval,
                                                               const Ref &arg,
                                                               SMLoc loc,
                                                               StringRef what) {
  if (isPoison(arg))
    return nullptr;
  if (auto buffer = std::dynamic_pointer_cast<const BufferObject>(arg)) {
    if (!buffer->isVar)
      return buffer;
    eval.error(loc, what +
                        " must be a buffer, got the T.alloc_var "
                        "variable '" +
                        buffer->name + "'");
    return nullptr;
  }
  if (auto *access = llvm::dyn_cast<AccessObject>(arg.get()))
    eval.error(loc, what + " must be a whole buffer, not a part of '" +
                        access->buffer->name +
                        "': allocate the part as a buffer of its own");
  else
    eval.error(loc, what + " must be a buffer, got a " + getTypeName(*arg));
  return nullptr;
}

bool tilec::frontend::hasAtMostElements(llvm::ArrayRef<int64_t> extents,
                                        int64_t limit) {
  int64_t elements = 1;
  for (int64_t extent : extents)
    if (llvm::MulOverflow(elements, extent, elements) || elements > limit)
      return false;
  return true;
}

std::optional<std::vector<Ref>>
tilec::frontend::iterate(Evaluator &eval, const Ref &value, SMLoc loc) {
  if (auto *sequence = llvm::dyn_cast<TupleObject>(value.get()))
    return sequence->elements;
  if (auto *set = llvm::dyn_cast<SetObject>(value.get()))
    return set->elements;
  std::vector<Ref> items;
  // A dtype is its name, as TileLang's dtypes are strings.
  if (llvm::isa<StrObject, DTypeObject>(*value)) {
    auto *dtype = llvm::dyn_cast<DTypeObject>(value.get());
    StringRef text = dtype ? StringRef(dtype->dtype.name)
                           : StringRef(llvm::cast<StrObject>(*value).value);
    for (char c : text)
      items.push_back(string(std::string(1, c)));
    return items;
  }
  if (auto *dict = llvm::dyn_cast<DictObject>(value.get())) {
    for (const auto &entry : dict->entries)
      items.push_back(entry.first);
    return items;
  }
  if (auto *range = llvm::dyn_cast<IterableObject>(value.get())) {
    // range outside kernels; inside, range and T.serial with constant
    // bounds (a comprehension's, say) iterate at compile time too.
    bool serial = range->compileTimeRange ||
                  range->loopKind == IterableObject::LoopKind::Serial ||
                  range->loopKind == IterableObject::LoopKind::Unroll;
    auto constant = [&](const Ref &bound, int64_t absent) {
      return bound ? getConstInt(bound) : std::optional<int64_t>(absent);
    };
    std::optional<int64_t> start = constant(range->start, 0);
    std::optional<int64_t> stop = constant(range->stop, 0);
    std::optional<int64_t> step = constant(range->step, 1);
    if (!serial || !range->stop || !start || !stop || !step || *step == 0) {
      eval.error(loc, "this iterates at compile time: over range with "
                      "constant bounds, a tuple, a list, a dict or a "
                      "string, not a T.Parallel or T.Pipelined loop");
      return std::nullopt;
    }
    for (int64_t i = *start; *step > 0 ? i < *stop : i > *stop; i += *step) {
      if (items.size() >= kMaxCompileTimeSteps) {
        eval.error(loc, "compile-time loop has too many iterations");
        return std::nullopt;
      }
      items.push_back(integer(i));
    }
    return items;
  }
  if (!isPoison(value))
    eval.error(loc, "a " + getTypeName(*value) + " is not iterable");
  return std::nullopt;
}
