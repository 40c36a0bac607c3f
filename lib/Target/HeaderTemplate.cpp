//===- HeaderTemplate.cpp - C text with placeholders ----------------------===//
//
// Part of tilec. Renders the templates of the generated header: drops the
// templates' own comments, evaluates the conditionals on template flags and
// replaces the placeholders.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/HeaderTemplate.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;
using namespace tilec;

HeaderTemplate &HeaderTemplate::set(StringRef name, StringRef value) {
  values[name] = value.str();
  return *this;
}

HeaderTemplate &HeaderTemplate::setPrefix(StringRef name, StringRef value) {
  prefixes[name] = value.str();
  return *this;
}

HeaderTemplate &HeaderTemplate::setFlag(StringRef name, bool value) {
  flags[name] = value;
  return *this;
}

static bool isIdentifierChar(char c) { return isAlnum(c) || c == '_'; }

/// The identifier at the start of `text`, or nothing.
static StringRef takeIdentifier(StringRef text) {
  if (text.empty() || isDigit(text[0]))
    return {};
  return text.take_while(isIdentifierChar);
}

void HeaderTemplate::substitute(StringRef line, raw_ostream &os) const {
  size_t i = 0;
  while (i < line.size()) {
    // A digit or letter that continues a word (`0x7f`) starts nothing.
    StringRef word = i && isIdentifierChar(line[i - 1])
                         ? StringRef()
                         : takeIdentifier(line.drop_front(i));
    if (word.empty()) {
      os << line[i++];
      continue;
    }
    i += word.size();
    auto value = values.find(word);
    if (value != values.end()) {
      os << value->second;
      continue;
    }
    // The longest prefix that matches, so that the choice does not depend
    // on the map's order.
    const StringMapEntry<std::string> *best = nullptr;
    for (const auto &prefix : prefixes) {
      StringRef name = prefix.getKey();
      if ((word == name || (word.starts_with(name) &&
                            word.drop_front(name.size()).starts_with("_"))) &&
          (!best || name.size() > best->getKey().size()))
        best = &prefix;
    }
    if (best)
      os << best->second << word.drop_front(best->getKey().size());
    else
      os << word;
  }
}

namespace {
/// An open conditional of the template's text.
struct Conditional {
  /// Whether it tests a template flag, which rendering evaluates.
  bool onFlag;
  /// Whether the lines of its current branch are kept, outer ones included.
  bool active;
  /// Whether the lines around it are kept.
  bool outerActive;
};
} // namespace

void HeaderTemplate::render(StringRef text, raw_ostream &os) const {
  SmallVector<Conditional> open;
  bool active = true;
  unsigned lineNumber = 0;
  auto fail = [&](const Twine &message) {
    report_fatal_error("header template, line " + Twine(lineNumber) + ": " +
                       message);
  };
  while (!text.empty()) {
    ++lineNumber;
    size_t end = text.find('\n');
    StringRef line = end == StringRef::npos ? text : text.take_front(end + 1);
    text = text.drop_front(line.size());
    StringRef content = line.trim(" \t\r\n");
    if (content.starts_with("//"))
      continue;

    if (content.starts_with("#")) {
      StringRef rest = content.drop_front().ltrim(" \t");
      StringRef directive = takeIdentifier(rest);
      rest = rest.drop_front(directive.size()).trim(" \t");
      if (directive == "if" && rest.ltrim("! \t").starts_with("TILEC_")) {
        bool negated = rest.consume_front("!");
        rest = rest.ltrim(" \t");
        StringRef name = takeIdentifier(rest);
        if (name.size() != rest.size())
          fail("a template conditional tests one flag: " + content);
        auto flag = flags.find(name);
        if (flag == flags.end())
          fail("no value for flag " + name);
        bool holds = flag->second != negated;
        open.push_back({true, active && holds, active});
        active = open.back().active;
        continue;
      }
      if (directive == "if" || directive == "ifdef" || directive == "ifndef") {
        open.push_back({false, active, active});
      } else if (directive == "elif" || directive == "elifdef" ||
                 directive == "elifndef") {
        if (open.empty() || open.back().onFlag)
          fail("#" + directive + " after a template conditional");
      } else if (directive == "else") {
        if (open.empty())
          fail("#else without #if");
        if (open.back().onFlag) {
          Conditional &cond = open.back();
          // The branch not taken: active now if the first branch was not.
          cond.active = cond.outerActive && !cond.active;
          active = cond.active;
          continue;
        }
      } else if (directive == "endif") {
        if (open.empty())
          fail("#endif without #if");
        Conditional cond = open.pop_back_val();
        active = cond.outerActive;
        if (cond.onFlag)
          continue;
      }
    }

    if (!active)
      continue;
    auto block = values.find(content);
    if (block != values.end()) {
      os << block->second;
      continue;
    }
    substitute(line, os);
  }
  if (!open.empty())
    fail("a conditional is left open at the end");
}
