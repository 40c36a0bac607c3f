//===- FormatSpec.cpp - Python's format spec mini-language ----------------===//
//
// Part of tilec. Formats compile-time values as an f-string's replacement
// field asks (`{value:>8.3f}`): fill and alignment, sign, `#`, zero padding,
// width, grouping, precision, and the types s, d, b, o, x, X, c, e, E, f, F,
// g, G and %.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstdio>

using namespace tilec::frontend;
using llvm::StringRef;

namespace {
struct Spec {
  char fill = ' ';
  char align = 0; // '<', '>', '^', '=' or 0 for the type's default
  char sign = '-';
  bool alternate = false;
  size_t width = 0;
  char grouping = 0;
  std::optional<int> precision;
  char type = 0;
};
} // namespace

/// Parses `text`, or returns nullopt for what the mini-language does not
/// allow.
static std::optional<Spec> parseSpec(StringRef text) {
  Spec spec;
  auto isAlign = [](char c) { return StringRef("<>^=").contains(c); };
  if (text.size() >= 2 && isAlign(text[1])) {
    spec.fill = text[0];
    spec.align = text[1];
    text = text.drop_front(2);
  } else if (!text.empty() && isAlign(text[0])) {
    spec.align = text[0];
    text = text.drop_front();
  }
  if (!text.empty() && StringRef("+- ").contains(text[0])) {
    spec.sign = text[0];
    text = text.drop_front();
  }
  if (text.consume_front("#"))
    spec.alternate = true;
  if (text.starts_with("0") && !spec.align) {
    spec.fill = '0';
    spec.align = '=';
  }
  size_t digits = text.find_first_not_of("0123456789");
  if (digits == StringRef::npos)
    digits = text.size();
  if (digits && text.take_front(digits).getAsInteger(10, spec.width))
    return std::nullopt;
  text = text.drop_front(digits);
  if (!text.empty() && (text[0] == ',' || text[0] == '_')) {
    spec.grouping = text[0];
    text = text.drop_front();
  }
  if (text.consume_front(".")) {
    size_t end = text.find_first_not_of("0123456789");
    if (end == 0)
      return std::nullopt;
    if (end == StringRef::npos)
      end = text.size();
    unsigned precision;
    if (text.take_front(end).getAsInteger(10, precision) || precision > 100)
      return std::nullopt;
    spec.precision = precision;
    text = text.drop_front(end);
  }
  if (!text.empty()) {
    spec.type = text[0];
    text = text.drop_front();
  }
  if (!text.empty() ||
      (spec.type && !StringRef("sdboxXceEfFgG%").contains(spec.type)))
    return std::nullopt;
  return spec;
}

/// Inserts `separator` every three digits of the integer part of `digits`.
static std::string group(StringRef digits, char separator) {
  size_t end = digits.find_first_not_of("0123456789");
  if (end == StringRef::npos)
    end = digits.size();
  std::string result;
  for (size_t i = 0; i < end; ++i) {
    if (i && (end - i) % 3 == 0)
      result.push_back(separator);
    result.push_back(digits[i]);
  }
  return result + digits.drop_front(end).str();
}

std::optional<std::string> tilec::frontend::formatValue(const Object &value,
                                                        StringRef specText) {
  std::optional<Spec> parsed = parseSpec(specText);
  if (!parsed)
    return std::nullopt;
  Spec spec = *parsed;
  std::string body, sign;
  bool numeric = false;
  if (auto *text = llvm::dyn_cast<StrObject>(&value)) {
    if (spec.type && spec.type != 's')
      return std::nullopt;
    body = text->value;
    if (spec.precision)
      body = body.substr(0, *spec.precision);
  } else if (llvm::isa<IntObject, BoolObject, FloatObject>(value)) {
    numeric = true;
    bool isFloat = llvm::isa<FloatObject>(value);
    double number = isFloat ? llvm::cast<FloatObject>(value).value
                    : llvm::isa<IntObject>(value)
                        ? double(llvm::cast<IntObject>(value).value)
                        : double(llvm::cast<BoolObject>(value).value);
    char type = spec.type;
    if (!type && llvm::isa<BoolObject>(value) && specText.empty())
      return std::string(llvm::cast<BoolObject>(value).value ? "True"
                                                             : "False");
    if (StringRef("dboxXc").contains(type) && type) {
      if (isFloat)
        return std::nullopt;
      int64_t integerValue = llvm::isa<IntObject>(value)
                                 ? llvm::cast<IntObject>(value).value
                                 : int64_t(llvm::cast<BoolObject>(value).value);
      uint64_t magnitude = integerValue < 0 ? 0 - uint64_t(integerValue)
                                            : uint64_t(integerValue);
      if (integerValue < 0)
        sign = "-";
      switch (type) {
      case 'd':
        body = llvm::utostr(magnitude);
        break;
      case 'x':
      case 'X':
        body = llvm::utohexstr(magnitude, /*LowerCase=*/type == 'x');
        if (spec.alternate)
          body = (type == 'x' ? "0x" : "0X") + body;
        break;
      case 'o':
      case 'b': {
        unsigned bits = type == 'o' ? 3 : 1;
        do {
          body.insert(body.begin(),
                      char('0' + (magnitude & ((1u << bits) - 1))));
          magnitude >>= bits;
        } while (magnitude);
        if (spec.alternate)
          body = (type == 'o' ? "0o" : "0b") + body;
        break;
      }
      case 'c':
        if (integerValue < 0 || integerValue > 127)
          return std::nullopt;
        body = std::string(1, char(integerValue));
        sign.clear();
        break;
      }
    } else if (!type && !isFloat && !spec.precision) {
      int64_t integerValue = llvm::isa<IntObject>(value)
                                 ? llvm::cast<IntObject>(value).value
                                 : int64_t(llvm::cast<BoolObject>(value).value);
      if (integerValue < 0)
        sign = "-";
      body = llvm::utostr(integerValue < 0 ? 0 - uint64_t(integerValue)
                                           : uint64_t(integerValue));
    } else {
      if (std::signbit(number) && !std::isnan(number))
        sign = "-";
      double magnitude = std::fabs(number);
      if (type == '%')
        magnitude *= 100;
      if (std::isnan(number) || std::isinf(number)) {
        body = std::isnan(number) ? "nan" : "inf";
        if (StringRef("EFG").contains(type) && type)
          body = StringRef(body).upper();
      } else if (!type && !spec.precision) {
        body = formatFloat(magnitude);
      } else {
        char conversion = type == '%' ? 'f' : type ? type : 'g';
        int precision = spec.precision.value_or(6);
        char format[16];
        std::snprintf(format, sizeof(format), "%%%s.%d%c",
                      spec.alternate ? "#" : "", precision, conversion);
        char buffer[512];
        std::snprintf(buffer, sizeof(buffer), format, magnitude);
        body = buffer;
        // Python's `g` without a type keeps a decimal point in floats.
        if (!type && isFloat && body.find_first_of(".e") == std::string::npos)
          body += ".0";
        if (type == '%')
          body += "%";
      }
    }
    if (sign.empty() && spec.sign != '-')
      sign = std::string(1, spec.sign);
    if (spec.grouping)
      body = group(body, spec.grouping);
  } else {
    if (!specText.empty())
      return std::nullopt;
    return str(value);
  }
  // Padding to the width.
  std::string result = sign + body;
  if (result.size() >= spec.width)
    return result;
  size_t padding = spec.width - result.size();
  char align = spec.align ? spec.align : numeric ? '>' : '<';
  std::string fill(padding, spec.fill);
  switch (align) {
  case '<':
    return result + fill;
  case '>':
    return fill + result;
  case '^':
    return std::string(padding / 2, spec.fill) + result +
           std::string(padding - padding / 2, spec.fill);
  default: // '=': after the sign
    return sign + fill + body;
  }
}
