//===- MethodBuiltins.cpp - Methods of Python values at compile time ------===//
//
// Part of tilec. The methods of ints, strings, tuples, lists and dicts that
// TileLang files call on compile-time values (`n.bit_length()`,
// `name.startswith("fp8")`, `configs.get("block_M", 128)`), as builtins
// bound to their receiver. Values are immutable in .tile, so methods that
// change their receiver (list.append) are not among them.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

namespace {
/// A method of `self`: `handler(eval, self, args)`.
using Method = std::function<Ref(Evaluator &, const Ref &, const Args &)>;
} // namespace

static Ref bind(const Ref &self, std::string name,
                std::vector<llvm::StringRef> params, size_t required,
                Method method) {
  return builtin(name, [=](Evaluator &eval, const CallArgs &call) -> Ref {
    std::optional<Args> args = bindArgs(eval, call, name, params, required);
    if (!args)
      return poison();
    return method(eval, self, *args);
  });
}

/// The string argument `i` of a method, or null after an error.
static const StrObject *stringArg(Evaluator &eval, const Args &args, size_t i,
                                  StringRef method) {
  auto *str = llvm::dyn_cast<StrObject>(args[i].get());
  if (!str && !isPoison(args[i]))
    eval.error(args.loc(i),
               method + " takes a str, got " + getTypeName(*args[i]));
  return str;
}

static Ref intMethod(const Ref &self, int64_t value, StringRef attr) {
  if (attr == "bit_length")
    return bind(self, "int.bit_length", {}, 0,
                [value](Evaluator &, const Ref &, const Args &) {
                  uint64_t magnitude =
                      value < 0 ? 0 - uint64_t(value) : uint64_t(value);
                  return integer(64 - llvm::countl_zero(magnitude));
                });
  return nullptr;
}

static Ref strMethod(const Ref &self, const std::string &value,
                     StringRef attr) {
  auto affix = [&](bool prefix) {
    std::string name = prefix ? "str.startswith" : "str.endswith";
    return bind(self, name, {"affix"}, 1,
                [=](Evaluator &eval, const Ref &, const Args &args) -> Ref {
                  const StrObject *affix = stringArg(eval, args, 0, name);
                  if (!affix)
                    return poison();
                  return boolean(
                      prefix ? StringRef(value).starts_with(affix->value)
                             : StringRef(value).ends_with(affix->value));
                });
  };
  if (attr == "startswith")
    return affix(true);
  if (attr == "endswith")
    return affix(false);
  if (attr == "upper" || attr == "lower" || attr == "strip")
    return bind(self, ("str." + attr).str(), {}, 0,
                [value, upper = attr == "upper", strip = attr == "strip"](
                    Evaluator &, const Ref &, const Args &) {
                  if (strip)
                    return string(StringRef(value).trim().str());
                  return string(upper ? StringRef(value).upper()
                                      : StringRef(value).lower());
                });
  if (attr == "replace")
    return bind(
        self, "str.replace", {"old", "new"}, 2,
        [value](Evaluator &eval, const Ref &, const Args &args) -> Ref {
          const StrObject *from = stringArg(eval, args, 0, "str.replace");
          const StrObject *to = stringArg(eval, args, 1, "str.replace");
          if (!from || !to)
            return poison();
          if (from->value.empty())
            return eval.error(args.loc(0), "str.replace of an empty "
                                           "string is not supported");
          std::string result = value;
          for (size_t at = result.find(from->value); at != std::string::npos;
               at = result.find(from->value, at + to->value.size()))
            result.replace(at, from->value.size(), to->value);
          return string(result);
        });
  if (attr == "split")
    return bind(self, "str.split", {"sep"}, 0,
                [value](Evaluator &eval, const Ref &, const Args &args) -> Ref {
                  llvm::SmallVector<StringRef> parts;
                  if (args.has(0) && !llvm::isa<NoneObject>(*args[0])) {
                    const StrObject *sep =
                        stringArg(eval, args, 0, "str.split");
                    if (!sep)
                      return poison();
                    if (sep->value.empty())
                      return eval.error(args.loc(0), "empty separator");
                    StringRef(value).split(parts, sep->value);
                  } else {
                    StringRef(value).split(parts, ' ', -1,
                                           /*KeepEmpty=*/false);
                  }
                  std::vector<Ref> items;
                  for (StringRef part : parts)
                    items.push_back(string(part.str()));
                  return tuple(std::move(items), /*isList=*/true);
                });
  if (attr == "join")
    return bind(self, "str.join", {"iterable"}, 1,
                [value](Evaluator &eval, const Ref &, const Args &args) -> Ref {
                  std::optional<std::vector<Ref>> items =
                      iterate(eval, args[0], args.loc(0));
                  if (!items)
                    return poison();
                  std::vector<std::string> parts;
                  for (const Ref &item : *items) {
                    auto *str = llvm::dyn_cast<StrObject>(item.get());
                    if (!str)
                      return eval.error(args.loc(0),
                                        "str.join takes strings, got a " +
                                            getTypeName(*item));
                    parts.push_back(str->value);
                  }
                  return string(llvm::join(parts, value));
                });
  return nullptr;
}

static Ref sequenceMethod(const Ref &self, StringRef attr) {
  if (attr != "index" && attr != "count")
    return nullptr;
  bool count = attr == "count";
  std::string name =
      (llvm::cast<TupleObject>(*self).isList ? "list." : "tuple.") + attr.str();
  return bind(
      self, name, {"value"}, 1,
      [count, name](Evaluator &eval, const Ref &self, const Args &args) -> Ref {
        const auto &elements = llvm::cast<TupleObject>(*self).elements;
        int64_t found = 0;
        for (auto [i, element] : llvm::enumerate(elements)) {
          if (!constEquals(element, args[0]).value_or(false))
            continue;
          if (!count)
            return integer(i);
          ++found;
        }
        if (count)
          return integer(found);
        return eval.error(args.loc(0), name + "(x): x is not in the sequence");
      });
}

static Ref dictMethod(const Ref &self, StringRef attr) {
  const auto &dict = llvm::cast<DictObject>(*self);
  if (attr == "get")
    return bind(self, "dict.get", {"key", "default"}, 1,
                [](Evaluator &, const Ref &self, const Args &args) -> Ref {
                  for (const auto &entry :
                       llvm::cast<DictObject>(*self).entries)
                    if (constEquals(entry.first, args[0]).value_or(false))
                      return entry.second;
                  return args.has(1) ? args[1] : none();
                });
  if (attr == "keys" || attr == "values" || attr == "items") {
    std::vector<Ref> items;
    for (const auto &[key, value] : dict.entries)
      items.push_back(attr == "keys"     ? key
                      : attr == "values" ? value
                                         : tuple({key, value}));
    Ref result = tuple(std::move(items), /*isList=*/true);
    return bind(
        self, ("dict." + attr).str(), {}, 0,
        [result](Evaluator &, const Ref &, const Args &) { return result; });
  }
  return nullptr;
}

Ref tilec::frontend::getMethod(const Ref &self, StringRef attr) {
  if (auto *str = llvm::dyn_cast<StrObject>(self.get()))
    return strMethod(self, str->value, attr);
  if (llvm::isa<TupleObject>(self.get()))
    return sequenceMethod(self, attr);
  if (llvm::isa<DictObject>(self.get()))
    return dictMethod(self, attr);
  if (auto *value = llvm::dyn_cast<IntObject>(self.get()))
    return intMethod(self, value->value, attr);
  return nullptr;
}
