//===- PythonBuiltins.cpp - Python's builtins in .tile --------------------===//
//
// Part of tilec. The Python builtins .tile keeps, as Python defines them:
// len, int, float, bool, str, tuple, list, sum, round, enumerate and zip;
// print is there to say that it is not supported. range, min, max and abs
// are added with the loops and the math functions they share.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

#include <cmath>

using namespace tilec::frontend;
using llvm::StringRef;

static Ref len(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "len", {"obj"}, 1);
  if (!args)
    return poison();
  const Ref &value = (*args)[0];
  if (auto *sequence = llvm::dyn_cast<TupleObject>(value.get()))
    return integer(sequence->elements.size());
  if (auto *str = llvm::dyn_cast<StrObject>(value.get()))
    return integer(str->value.size());
  if (auto *dict = llvm::dyn_cast<DictObject>(value.get()))
    return integer(dict->entries.size());
  if (auto *set = llvm::dyn_cast<SetObject>(value.get()))
    return integer(set->elements.size());
  if (auto *buffer = llvm::dyn_cast<BufferObject>(value.get()))
    if (!buffer->shape.empty())
      return buffer->shape.front();
  if (isPoison(value))
    return value;
  return eval.error(args->loc(0), "object of type '" + getTypeName(*value) +
                                      "' has no len()");
}

static Ref convertBuiltin(Evaluator &eval, const CallArgs &call,
                          StringRef name) {
  std::optional<Args> args = bindArgs(eval, call, name, {"x"}, 0);
  if (!args)
    return poison();
  if (!args->has(0))
    return name == "int"     ? integer(0)
           : name == "float" ? floating(0.0)
           : name == "bool"  ? boolean(false)
                             : string("");
  Ref x = eval.load((*args)[0], args->loc(0));
  if (isPoison(x))
    return x;
  if (name == "str") {
    if (llvm::isa<StrObject>(*x))
      return x;
    if (llvm::isa<ScalarObject>(*x))
      return eval.error(args->loc(0), "str() needs a compile-time value");
    return string(str(*x));
  }
  if (name == "bool") {
    if (std::optional<bool> known = eval.truth(x, args->loc(0)))
      return boolean(*known);
    return eval.cast(x, *lookupDType("bool", eval.getContext()), args->loc(0));
  }
  if (auto *str = llvm::dyn_cast<StrObject>(x.get())) {
    StringRef text = StringRef(str->value).trim();
    if (name == "int") {
      int64_t value;
      if (!text.getAsInteger(10, value))
        return integer(value);
    } else {
      double value;
      if (!text.getAsDouble(value))
        return floating(value);
    }
    return eval.error(args->loc(0), "invalid literal for " + name + "(): '" +
                                        str->value + "'");
  }
  DType type =
      *lookupDType(name == "int" ? "int32" : "float32", eval.getContext());
  if (std::optional<double> number = getConstNumber(x)) {
    if (name == "float")
      return floating(*number);
    if (std::optional<int64_t> exact = getConstInt(x))
      return integer(*exact);
    // A compile-time float truncates toward zero, as in Python, wherever
    // the call is: code before a kernel indexes lists with it.
    if (std::isnan(*number) || std::isinf(*number))
      return eval.error(args->loc(0),
                        std::string("cannot convert float ") +
                            (std::isnan(*number) ? "NaN" : "infinity") +
                            " to integer");
    if (std::fabs(*number) >= 0x1p63)
      return eval.error(args->loc(0),
                        "int() of a float beyond 64-bit integers");
    return integer(static_cast<int64_t>(std::trunc(*number)));
  }
  return eval.cast(x, type, args->loc(0));
}

static Ref sequenceBuiltin(Evaluator &eval, const CallArgs &call,
                           StringRef name) {
  std::optional<Args> args = bindArgs(eval, call, name, {"iterable"}, 0);
  if (!args)
    return poison();
  if (!args->has(0))
    return tuple({}, name == "list");
  std::optional<std::vector<Ref>> items =
      iterate(eval, (*args)[0], args->loc(0));
  if (!items)
    return poison();
  return tuple(std::move(*items), name == "list");
}

static Ref sum(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "sum", {"iterable", "start"}, 1);
  if (!args)
    return poison();
  std::optional<std::vector<Ref>> items =
      iterate(eval, (*args)[0], args->loc(0));
  if (!items)
    return poison();
  Ref total = args->has(1) ? (*args)[1] : integer(0);
  for (const Ref &element : *items)
    total = eval.binary(BinaryOp::Add, total, element, call.loc);
  return total;
}

/// any(iterable) or all(iterable): over values known at compile time.
static BuiltinObject::Handler anyAll(bool isAll) {
  std::string name = isAll ? "all" : "any";
  return [isAll, name](Evaluator &eval, const CallArgs &call) -> Ref {
    std::optional<Args> args = bindArgs(eval, call, name, {"iterable"}, 1);
    if (!args)
      return poison();
    std::optional<std::vector<Ref>> items =
        iterate(eval, (*args)[0], args->loc(0));
    if (!items)
      return poison();
    for (const Ref &element : *items) {
      std::optional<bool> known = eval.truth(element, args->loc(0));
      if (!known)
        return eval.error(args->loc(0), name + "() needs values known at "
                                               "compile time");
      if (*known != isAll)
        return boolean(!isAll);
    }
    return boolean(isAll);
  };
}

/// sorted(iterable, reverse=False) of numbers or of strings.
static Ref sortedBuiltin(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "sorted", {"iterable", "reverse"}, 1);
  if (!args)
    return poison();
  std::optional<std::vector<Ref>> items =
      iterate(eval, (*args)[0], args->loc(0));
  if (!items)
    return poison();
  bool reverse = false;
  if (args->has(1)) {
    std::optional<bool> known = eval.truth((*args)[1], args->loc(1));
    if (!known)
      return eval.error(args->loc(1), "reverse must be known at compile time");
    reverse = *known;
  }
  bool strings = !items->empty() && llvm::isa<StrObject>(*items->front());
  for (const Ref &item : *items)
    if (strings ? !llvm::isa<StrObject>(*item) : !getConstNumber(item))
      return eval.error(args->loc(0), "sorted() takes numbers or strings "
                                      "known at compile time");
  auto less = [strings](const Ref &a, const Ref &b) {
    if (strings)
      return llvm::cast<StrObject>(*a).value < llvm::cast<StrObject>(*b).value;
    return *getConstNumber(a) < *getConstNumber(b);
  };
  std::vector<Ref> result = *items;
  std::stable_sort(result.begin(), result.end(),
                   [&](const Ref &a, const Ref &b) {
                     return reverse ? less(b, a) : less(a, b);
                   });
  return tuple(std::move(result), /*isList=*/true);
}

/// dict(), dict(mapping or pairs), dict(**keywords) and both.
static Ref dictBuiltin(Evaluator &eval, const CallArgs &call) {
  if (call.args.size() > 1)
    return eval.error(call.argLocs[1], "dict() takes at most one positional "
                                       "argument");
  DictBuilder entries;
  if (!call.args.empty()) {
    const Ref &source = call.args.front();
    if (auto *dict = llvm::dyn_cast<DictObject>(source.get())) {
      for (const auto &[key, value] : dict->entries)
        entries.put(key, value);
    } else {
      std::optional<std::vector<Ref>> items =
          iterate(eval, source, call.argLocs.front());
      if (!items)
        return poison();
      for (const Ref &item : *items) {
        auto *pair = llvm::dyn_cast<TupleObject>(item.get());
        if (!pair || pair->elements.size() != 2)
          return eval.error(call.argLocs.front(),
                            "dict() takes pairs of a key and a value");
        entries.put(pair->elements[0], pair->elements[1]);
      }
    }
  }
  for (const auto &[name, value] : call.keywords)
    entries.put(string(name), value);
  return eval.checkNesting(std::make_shared<DictObject>(entries.take()),
                           call.loc);
}

static Ref reversedBuiltin(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "reversed", {"sequence"}, 1);
  if (!args)
    return poison();
  std::optional<std::vector<Ref>> items =
      iterate(eval, (*args)[0], args->loc(0));
  if (!items)
    return poison();
  std::reverse(items->begin(), items->end());
  return tuple(std::move(*items), /*isList=*/true);
}

/// isinstance(value, type) for Python's types: int, float, bool, str,
/// tuple, list and dict (a tuple of them too).
static Ref isinstanceBuiltin(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "isinstance", {"object", "classinfo"}, 2);
  if (!args)
    return poison();
  const Ref &value = (*args)[0];
  std::function<std::optional<bool>(const Ref &)> matches =
      [&](const Ref &type) -> std::optional<bool> {
    if (auto *types = llvm::dyn_cast<TupleObject>(type.get())) {
      for (const Ref &element : types->elements) {
        std::optional<bool> match = matches(element);
        if (!match || *match)
          return match;
      }
      return false;
    }
    auto *builtin = llvm::dyn_cast<BuiltinObject>(type.get());
    if (!builtin)
      return std::nullopt;
    StringRef name = builtin->name;
    if (name == "int")
      return llvm::isa<IntObject, BoolObject>(*value);
    if (name == "float")
      return llvm::isa<FloatObject>(*value);
    if (name == "bool")
      return llvm::isa<BoolObject>(*value);
    if (name == "str")
      return llvm::isa<StrObject>(*value);
    if (name == "tuple" || name == "list") {
      auto *sequence = llvm::dyn_cast<TupleObject>(value.get());
      return sequence && sequence->isList == (name == "list");
    }
    if (name == "dict")
      return llvm::isa<DictObject>(*value);
    if (name == "set" || name == "frozenset")
      return llvm::isa<SetObject>(*value);
    return std::nullopt;
  };
  std::optional<bool> match = matches((*args)[1]);
  if (!match)
    return eval.error(args->loc(1), "isinstance() takes int, float, bool, "
                                    "str, tuple, list, dict or set, or a "
                                    "tuple of them");
  return boolean(*match);
}

static Ref roundBuiltin(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "round", {"number"}, 1);
  if (!args)
    return poison();
  std::optional<double> value = getConstNumber((*args)[0]);
  if (!value)
    return eval.error(args->loc(0), "round() needs a compile-time number");
  double rounded = std::nearbyint(*value); // ties to even, like Python
  if (!std::isfinite(rounded) || std::fabs(rounded) >= 9.2e18)
    return eval.error(args->loc(0), "cannot round " + formatFloat(*value));
  return integer(static_cast<int64_t>(rounded));
}

static Ref enumerateBuiltin(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "enumerate", {"iterable"}, 1);
  if (!args)
    return poison();
  std::optional<std::vector<Ref>> items =
      iterate(eval, (*args)[0], args->loc(0));
  if (!items)
    return poison();
  std::vector<Ref> pairs;
  for (auto [i, element] : llvm::enumerate(*items))
    pairs.push_back(tuple({integer(i), element}));
  return eval.checkNesting(tuple(std::move(pairs), true), call.loc);
}

static Ref zipBuiltin(Evaluator &eval, const CallArgs &call) {
  if (!call.keywords.empty())
    return eval.error(call.keywordLocs.front(),
                      "zip() takes no keyword arguments");
  size_t length = SIZE_MAX;
  std::vector<std::vector<Ref>> sequences;
  for (auto [arg, loc] : llvm::zip(call.args, call.argLocs)) {
    std::optional<std::vector<Ref>> items = iterate(eval, arg, loc);
    if (!items)
      return poison();
    sequences.push_back(std::move(*items));
    length = std::min(length, sequences.back().size());
  }
  std::vector<Ref> tuples;
  for (size_t i = 0; i < length && !sequences.empty(); ++i) {
    std::vector<Ref> items;
    for (const auto &sequence : sequences)
      items.push_back(sequence[i]);
    tuples.push_back(tuple(std::move(items)));
  }
  return eval.checkNesting(tuple(std::move(tuples), true), call.loc);
}

void tilec::frontend::addPythonBuiltins(ModuleObject &python) {
  auto &m = python.members;
  m["len"] = builtin("len", len);
  for (const char *name : {"int", "float", "bool", "str"})
    m[name] = builtin(name, [name](Evaluator &eval, const CallArgs &call) {
      return convertBuiltin(eval, call, name);
    });
  for (const char *name : {"tuple", "list"})
    m[name] = builtin(name, [name](Evaluator &eval, const CallArgs &call) {
      return sequenceBuiltin(eval, call, name);
    });
  m["sum"] = builtin("sum", sum);
  m["sorted"] = builtin("sorted", sortedBuiltin);
  m["dict"] = builtin("dict", dictBuiltin);
  // Sets do not change once made, so set and frozenset are one.
  for (const char *name : {"set", "frozenset"})
    m[name] = builtin(name, [name](Evaluator &eval, const CallArgs &call) {
      std::optional<Args> args = bindArgs(eval, call, name, {"iterable"}, 0);
      if (!args)
        return poison();
      if (!args->has(0))
        return eval.buildSet({}, call.loc);
      std::optional<std::vector<Ref>> items =
          iterate(eval, (*args)[0], args->loc(0));
      if (!items)
        return poison();
      return eval.buildSet(*items, args->loc(0));
    });
  m["reversed"] = builtin("reversed", reversedBuiltin);
  m["isinstance"] = builtin("isinstance", isinstanceBuiltin);
  m["any"] = builtin("any", anyAll(false));
  m["all"] = builtin("all", anyAll(true));
  m["round"] = builtin("round", roundBuiltin);
  m["enumerate"] = builtin("enumerate", enumerateBuiltin);
  m["zip"] = builtin("zip", zipBuiltin);
  // Host code prints; the compiler's output is the kernel. The arguments
  // are evaluated, and nothing is printed.
  m["print"] =
      builtin("print", [](Evaluator &, const CallArgs &) { return none(); });
}
