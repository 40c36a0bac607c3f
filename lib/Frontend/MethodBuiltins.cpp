//===- MethodBuiltins.cpp - Methods of Python values at compile time ------===//
//
// Part of tilec. The methods of ints, strings, tuples, lists and dicts that
// TileLang files call on compile-time values (`n.bit_length()`,
// `name.startswith("fp8")`, `configs.get("block_M", 128)`), as builtins
// bound to their receiver. Lists and dicts change in place, as in Python
// (`configs.append(...)`, `options.update(...)`); the evaluator checks each
// change (Evaluator::prepareChange).
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
  if (attr == "isdigit" || attr == "isalpha" || attr == "isalnum")
    return bind(
        self, ("str." + attr).str(), {}, 0,
        [value, kind = attr.str()](Evaluator &, const Ref &, const Args &) {
          auto test = [&](char c) {
            return kind == "isdigit"   ? llvm::isDigit(c)
                   : kind == "isalpha" ? llvm::isAlpha(c)
                                       : llvm::isAlnum(c);
          };
          return boolean(!value.empty() && llvm::all_of(value, test));
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

/// `list.pop(i)`'s and `list.insert(i, x)`'s position: Python's rules for
/// negative and, for insert, out-of-range positions.
static std::optional<size_t> listPosition(Evaluator &eval, const Args &args,
                                          size_t i, size_t size, bool insert,
                                          StringRef method) {
  if (!args.has(i))
    return size - (insert ? 0 : 1);
  std::optional<int64_t> position =
      constIntArg(eval, args[i], args.loc(i), method);
  if (!position)
    return std::nullopt;
  if (insert) {
    int64_t p = *position < 0 ? *position + int64_t(size) : *position;
    return size_t(std::clamp<int64_t>(p, 0, size));
  }
  std::optional<int64_t> p = normalizeIndex(*position, size);
  if (!p) {
    eval.error(args.loc(i), method + " index out of range");
    return std::nullopt;
  }
  return size_t(*p);
}

static Ref listMethod(const Ref &self, StringRef attr) {
  auto list = [](const Ref &self) -> const TupleObject & {
    return llvm::cast<TupleObject>(*self);
  };
  if (attr == "append")
    return bind(self, "list.append", {"object"}, 1,
                [list](Evaluator &eval, const Ref &self, const Args &args) {
                  Ref item = eval.load(args[0], args.loc(0));
                  if (isPoison(item) ||
                      !eval.prepareChange(*self, {item}, args.loc(0)))
                    return poison();
                  list(self).elements.push_back(item);
                  return none();
                });
  if (attr == "extend")
    return bind(self, "list.extend", {"iterable"}, 1,
                [list](Evaluator &eval, const Ref &self, const Args &args) {
                  std::optional<std::vector<Ref>> items =
                      iterate(eval, args[0], args.loc(0));
                  if (!items || !eval.prepareChange(*self, *items, args.loc(0)))
                    return poison();
                  llvm::append_range(list(self).elements, *items);
                  return none();
                });
  if (attr == "insert")
    return bind(self, "list.insert", {"index", "object"}, 2,
                [list](Evaluator &eval, const Ref &self, const Args &args) {
                  auto &elements = list(self).elements;
                  std::optional<size_t> at = listPosition(
                      eval, args, 0, elements.size(), true, "list.insert");
                  Ref item = eval.load(args[1], args.loc(1));
                  if (!at || isPoison(item) ||
                      !eval.prepareChange(*self, {item}, args.loc(1)))
                    return poison();
                  elements.insert(elements.begin() + *at, item);
                  return none();
                });
  if (attr == "pop")
    return builtin(
        "list.pop", [self, list](Evaluator &eval, const CallArgs &call) -> Ref {
          std::optional<Args> args =
              bindArgs(eval, call, "list.pop", {"index"}, 0);
          if (!args)
            return poison();
          auto &elements = list(self).elements;
          if (elements.empty())
            return eval.error(call.loc, "pop from an empty list");
          std::optional<size_t> at =
              listPosition(eval, *args, 0, elements.size(), false, "list.pop");
          if (!at)
            return poison();
          Ref item = elements[*at];
          elements.erase(elements.begin() + *at);
          return item;
        });
  if (attr == "remove")
    return bind(
        self, "list.remove", {"value"}, 1,
        [list](Evaluator &eval, const Ref &self, const Args &args) -> Ref {
          auto &elements = list(self).elements;
          auto it = llvm::find_if(elements, [&](const Ref &element) {
            return constEquals(element, args[0]).value_or(false);
          });
          if (it == elements.end())
            return eval.error(args.loc(0),
                              "list.remove(x): x is not in the list");
          elements.erase(it);
          return none();
        });
  if (attr == "clear" || attr == "reverse") {
    bool clear = attr == "clear";
    return bind(self, ("list." + attr).str(), {}, 0,
                [list, clear](Evaluator &, const Ref &self, const Args &) {
                  auto &elements = list(self).elements;
                  if (clear)
                    elements.clear();
                  else
                    std::reverse(elements.begin(), elements.end());
                  return none();
                });
  }
  return nullptr;
}

std::pair<Ref, Ref> *tilec::frontend::findEntry(const DictObject &dict,
                                                const Ref &key) {
  for (auto &entry : dict.entries)
    if (constEquals(entry.first, key).value_or(false))
      return &entry;
  return nullptr;
}

bool tilec::frontend::setDictItem(Evaluator &eval, const DictObject &dict,
                                  const Ref &key, const Ref &value, SMLoc loc) {
  if (isChangeable(*key)) {
    eval.error(loc, "a " + getTypeName(*key) +
                        " cannot be a dict key: it can change");
    return false;
  }
  if (!eval.prepareChange(dict, {key, value}, loc))
    return false;
  if (std::pair<Ref, Ref> *entry = findEntry(dict, key))
    entry->second = value;
  else
    dict.entries.push_back({key, value});
  return true;
}

static Ref dictMethod(const Ref &self, StringRef attr) {
  const auto &dict = llvm::cast<DictObject>(*self);
  if (attr == "get")
    return bind(self, "dict.get", {"key", "default"}, 1,
                [](Evaluator &, const Ref &self, const Args &args) -> Ref {
                  if (std::pair<Ref, Ref> *entry =
                          findEntry(llvm::cast<DictObject>(*self), args[0]))
                    return entry->second;
                  return args.has(1) ? args[1] : none();
                });
  if (attr == "update")
    // update(other, **keywords): the keywords are not parameters.
    return builtin(
        "dict.update", [self](Evaluator &eval, const CallArgs &call) -> Ref {
          const auto &target = llvm::cast<DictObject>(*self);
          if (call.args.size() > 1)
            return eval.error(call.argLocs[1],
                              "dict.update takes at most one positional "
                              "argument");
          if (!call.args.empty()) {
            auto *other = llvm::dyn_cast<DictObject>(call.args[0].get());
            if (!other)
              return eval.error(call.argLocs[0],
                                "dict.update takes a dict, got a " +
                                    getTypeName(*call.args[0]));
            for (auto [key, value] : std::vector(other->entries))
              if (!setDictItem(eval, target, key, value, call.argLocs[0]))
                return poison();
          }
          for (auto [i, keyword] : llvm::enumerate(call.keywords))
            if (!setDictItem(eval, target, string(keyword.first),
                             keyword.second, call.keywordLocs[i]))
              return poison();
          return none();
        });
  if (attr == "setdefault")
    return bind(self, "dict.setdefault", {"key", "default"}, 1,
                [](Evaluator &eval, const Ref &self, const Args &args) -> Ref {
                  const auto &dict = llvm::cast<DictObject>(*self);
                  if (std::pair<Ref, Ref> *entry = findEntry(dict, args[0]))
                    return entry->second;
                  Ref value = args.has(1) ? args[1] : none();
                  if (!setDictItem(eval, dict, args[0], value, args.loc(0)))
                    return poison();
                  return value;
                });
  if (attr == "pop")
    return bind(self, "dict.pop", {"key", "default"}, 1,
                [](Evaluator &eval, const Ref &self, const Args &args) -> Ref {
                  const auto &dict = llvm::cast<DictObject>(*self);
                  if (std::pair<Ref, Ref> *entry = findEntry(dict, args[0])) {
                    Ref value = entry->second;
                    dict.entries.erase(dict.entries.begin() +
                                       (entry - dict.entries.data()));
                    return value;
                  }
                  if (args.has(1))
                    return args[1];
                  return eval.error(args.loc(0), "key " + repr(*args[0]) +
                                                     " is not in the dict");
                });
  if (attr == "clear")
    return bind(self, "dict.clear", {}, 0,
                [](Evaluator &, const Ref &self, const Args &) {
                  llvm::cast<DictObject>(*self).entries.clear();
                  return none();
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
  // A dtype has the methods of its name, as TileLang's dtypes are strings.
  if (auto *dtype = llvm::dyn_cast<DTypeObject>(self.get()))
    return strMethod(string(dtype->dtype.name), dtype->dtype.name, attr);
  if (auto *tuple = llvm::dyn_cast<TupleObject>(self.get())) {
    if (tuple->isList)
      if (Ref method = listMethod(self, attr))
        return method;
    return sequenceMethod(self, attr);
  }
  if (llvm::isa<DictObject>(self.get()))
    return dictMethod(self, attr);
  if (auto *value = llvm::dyn_cast<IntObject>(self.get()))
    return intMethod(self, value->value, attr);
  return nullptr;
}
