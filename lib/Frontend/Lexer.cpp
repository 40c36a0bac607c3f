//===- Lexer.cpp - Tokenizer for .tile files ------------------------------===//
//
// Part of tilec. Follows Python's lexical rules (indentation with tabs
// expanded to multiples of 8, inconsistent tab/space mixing rejected,
// implicit joining inside brackets) for the subset .tile needs; anything
// else is an error that says what is not supported.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Lexer.h"

#include "llvm/ADT/APInt.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <cstdlib>

using namespace tilec::frontend;
using llvm::StringRef;

StringRef tilec::frontend::getTokenSpelling(TokenKind kind) {
  switch (kind) {
  case TokenKind::eof:
    return "end of file";
  case TokenKind::error:
    return "invalid token";
  case TokenKind::newline:
    return "end of line";
  case TokenKind::indent:
    return "indentation";
  case TokenKind::dedent:
    return "end of block";
  case TokenKind::identifier:
    return "identifier";
  case TokenKind::integer:
    return "integer";
  case TokenKind::floating:
    return "number";
  case TokenKind::string:
    return "string";
  case TokenKind::fstring:
    return "f-string";
#define TOK_KEYWORD(SPELLING)                                                  \
  case TokenKind::kw_##SPELLING:                                               \
    return "'" #SPELLING "'";
#define TOK_PUNCT(NAME, SPELLING)                                              \
  case TokenKind::NAME:                                                        \
    return "'" SPELLING "'";
#include "tilec/Frontend/TokenKinds.def"
  }
  return "token";
}

bool Token::isKeyword() const {
  switch (kind) {
#define TOK_KEYWORD(SPELLING) case TokenKind::kw_##SPELLING:
#include "tilec/Frontend/TokenKinds.def"
    return true;
  default:
    return false;
  }
}

static bool isIdentifierStart(char c) { return llvm::isAlpha(c) || c == '_'; }
static bool isIdentifierChar(char c) { return llvm::isAlnum(c) || c == '_'; }

Lexer::Lexer(TileSource &source) : source(source) {
  StringRef text = source.getText();
  curPtr = text.begin();
  bufferEnd = text.end();
  if (text.starts_with("\xEF\xBB\xBF"))
    curPtr += 3;

  // Text with an encoding error is not lexed at all: anything said about it
  // would follow from that one error.
  const auto *begin = reinterpret_cast<const llvm::UTF8 *>(curPtr);
  const auto *cursor = begin;
  const auto *end = reinterpret_cast<const llvm::UTF8 *>(bufferEnd);
  if (!llvm::isLegalUTF8String(&cursor, end)) {
    const char *bad = reinterpret_cast<const char *>(cursor);
    source.emitError(llvm::SMLoc::getFromPointer(bad))
        << "invalid UTF-8 byte 0x"
        << llvm::utohexstr(static_cast<unsigned char>(*bad), false, 2)
        << "; .tile files must be UTF-8";
    curPtr = bufferEnd;
  }
}

Lexer::Lexer(TileSource &source, StringRef range)
    : source(source), curPtr(range.begin()), bufferEnd(range.end()) {
  atLineStart = false;
  inField = true;
}

Token Lexer::makeToken(TokenKind kind, const char *start) {
  Token token;
  token.kind = kind;
  token.text = StringRef(start, curPtr - start);
  token.loc = llvm::SMLoc::getFromPointer(start);
  return token;
}

Token Lexer::emitError(const char *loc, const llvm::Twine &message) {
  source.emitError(llvm::SMLoc::getFromPointer(loc)) << message;
  Token token;
  token.kind = TokenKind::error;
  token.loc = llvm::SMLoc::getFromPointer(loc);
  token.text = StringRef(loc, curPtr > loc ? curPtr - loc : 0);
  return token;
}

void Lexer::skipComment() {
  while (curPtr != bufferEnd && *curPtr != '\n' && *curPtr != '\r')
    ++curPtr;
}

bool Lexer::handleLineStart() {
  unsigned column = 0, altColumn = 0;
  const char *lineStart = curPtr;
  for (; curPtr != bufferEnd; ++curPtr) {
    if (*curPtr == ' ') {
      ++column;
      ++altColumn;
    } else if (*curPtr == '\t') {
      column = (column / 8 + 1) * 8;
      ++altColumn;
    } else if (*curPtr == '\f') {
      column = altColumn = 0;
    } else {
      break;
    }
  }
  // Blank and comment-only lines do not change the indentation.
  if (curPtr == bufferEnd || *curPtr == '\n' || *curPtr == '\r' ||
      *curPtr == '#')
    return true;

  const char *inconsistent = "inconsistent use of tabs and spaces in "
                             "indentation; indent with spaces only";
  if (column == indents.back()) {
    if (altColumn != altIndents.back()) {
      emitError(lineStart, inconsistent);
      return false;
    }
  } else if (column > indents.back()) {
    if (altColumn <= altIndents.back()) {
      emitError(lineStart, inconsistent);
      return false;
    }
    indents.push_back(column);
    altIndents.push_back(altColumn);
    pendingIndent = true;
  } else {
    while (column < indents.back()) {
      indents.pop_back();
      altIndents.pop_back();
      ++pendingDedents;
    }
    if (column != indents.back()) {
      emitError(curPtr, "unindent does not match any outer indentation level");
      return false;
    }
    if (altColumn != altIndents.back()) {
      emitError(lineStart, inconsistent);
      return false;
    }
  }
  return true;
}

Token Lexer::lex() {
  while (true) {
    if (pendingDedents) {
      --pendingDedents;
      return makeToken(TokenKind::dedent, curPtr);
    }
    if (pendingIndent) {
      pendingIndent = false;
      return makeToken(TokenKind::indent, curPtr);
    }
    if (atLineStart && brackets.empty()) {
      atLineStart = false;
      if (!handleLineStart())
        return makeToken(TokenKind::error, curPtr);
      if (pendingDedents || pendingIndent)
        continue;
    }

    while (curPtr != bufferEnd &&
           (*curPtr == ' ' || *curPtr == '\t' || *curPtr == '\f'))
      ++curPtr;

    if (curPtr == bufferEnd) {
      if (!brackets.empty()) {
        const char *open = brackets.front();
        brackets.clear();
        return emitError(open, "'" + StringRef(open, 1) + "' was never closed");
      }
      if (lineHasTokens && !inField) {
        lineHasTokens = false;
        return makeToken(TokenKind::newline, curPtr);
      }
      if (indents.size() > 1) {
        indents.pop_back();
        altIndents.pop_back();
        return makeToken(TokenKind::dedent, curPtr);
      }
      return makeToken(TokenKind::eof, curPtr);
    }

    const char *start = curPtr;
    char c = *curPtr;
    if (c == '#') {
      skipComment();
      continue;
    }
    if (c == '\\') {
      ++curPtr;
      if (curPtr != bufferEnd && *curPtr == '\r')
        ++curPtr;
      if (curPtr != bufferEnd && *curPtr == '\n') {
        ++curPtr;
        continue;
      }
      return emitError(start,
                       "unexpected character after line continuation '\\'");
    }
    if (c == '\n' || c == '\r') {
      ++curPtr;
      if (c == '\r' && curPtr != bufferEnd && *curPtr == '\n')
        ++curPtr;
      if (!brackets.empty() || inField)
        continue;
      atLineStart = true;
      if (lineHasTokens) {
        lineHasTokens = false;
        return makeToken(TokenKind::newline, start);
      }
      continue;
    }

    lineHasTokens = true;
    if (isIdentifierStart(c)) {
      // String prefixes: r, b, u, f and their pairs, in any case.
      const char *end = curPtr;
      while (end != bufferEnd && end - curPtr < 2 &&
             StringRef("rRbBuUfF").contains(*end))
        ++end;
      if (end != bufferEnd && (*end == '"' || *end == '\''))
        return lexString(start, StringRef(start, end - start));
      return lexIdentifier(start);
    }
    if (llvm::isDigit(c) ||
        (c == '.' && curPtr + 1 != bufferEnd && llvm::isDigit(curPtr[1])))
      return lexNumber(start);
    if (c == '"' || c == '\'')
      return lexString(start, "");
    return lexPunctuation(start);
  }
}

Token Lexer::lexIdentifier(const char *start) {
  while (curPtr != bufferEnd && isIdentifierChar(*curPtr))
    ++curPtr;
  StringRef text(start, curPtr - start);
  TokenKind kind = llvm::StringSwitch<TokenKind>(text)
#define TOK_KEYWORD(SPELLING) .Case(#SPELLING, TokenKind::kw_##SPELLING)
#include "tilec/Frontend/TokenKinds.def"
                       .Default(TokenKind::identifier);
  if (curPtr != bufferEnd && static_cast<unsigned char>(*curPtr) >= 0x80) {
    while (curPtr != bufferEnd && (isIdentifierChar(*curPtr) ||
                                   static_cast<unsigned char>(*curPtr) >= 0x80))
      ++curPtr;
    return emitError(start, "identifiers in .tile files are ASCII: '" +
                                StringRef(start, curPtr - start) + "'");
  }
  return makeToken(kind, start);
}

Token Lexer::lexNumber(const char *start) {
  auto consumeDigits = [&](auto isDigitOfBase) {
    while (curPtr != bufferEnd && (isDigitOfBase(*curPtr) ||
                                   (*curPtr == '_' && curPtr + 1 != bufferEnd &&
                                    isDigitOfBase(curPtr[1]))))
      ++curPtr;
  };
  auto finish = [&](TokenKind kind, unsigned radix, StringRef digits) -> Token {
    if (curPtr != bufferEnd && (*curPtr == 'j' || *curPtr == 'J')) {
      ++curPtr;
      return emitError(start, "complex numbers are not supported in .tile");
    }
    if (curPtr != bufferEnd && (isIdentifierChar(*curPtr) || *curPtr == '.')) {
      while (curPtr != bufferEnd &&
             (isIdentifierChar(*curPtr) || *curPtr == '.'))
        ++curPtr;
      return emitError(start, "invalid number '" +
                                  StringRef(start, curPtr - start) + "'");
    }
    std::string clean;
    for (char d : digits)
      if (d != '_')
        clean.push_back(d);
    Token token = makeToken(kind, start);
    if (kind == TokenKind::floating) {
      token.floatValue = std::strtod(clean.c_str(), nullptr);
      return token;
    }
    llvm::APInt value;
    if (StringRef(clean).getAsInteger(radix, value) ||
        value.getActiveBits() > 63)
      return emitError(start, "integer literal '" + token.text +
                                  "' does not fit in 64 bits");
    token.intValue = static_cast<int64_t>(value.getZExtValue());
    return token;
  };

  if (*curPtr == '0' && curPtr + 1 != bufferEnd &&
      StringRef("xXoObB").contains(curPtr[1])) {
    char base = llvm::toLower(curPtr[1]);
    curPtr += 2;
    const char *digitsStart = curPtr;
    unsigned radix = base == 'x' ? 16 : base == 'o' ? 8 : 2;
    if (radix == 16)
      consumeDigits([](char d) { return llvm::isHexDigit(d); });
    else if (radix == 8)
      consumeDigits([](char d) { return d >= '0' && d <= '7'; });
    else
      consumeDigits([](char d) { return d == '0' || d == '1'; });
    if (curPtr == digitsStart)
      return emitError(start, "number '" + StringRef(start, curPtr - start) +
                                  "' has no digits");
    return finish(TokenKind::integer, radix,
                  StringRef(digitsStart, curPtr - digitsStart));
  }

  auto isDecimal = [](char d) { return llvm::isDigit(d); };
  consumeDigits(isDecimal);
  bool isFloat = false;
  if (curPtr != bufferEnd && *curPtr == '.') {
    isFloat = true;
    ++curPtr;
    consumeDigits(isDecimal);
  }
  if (curPtr != bufferEnd && (*curPtr == 'e' || *curPtr == 'E')) {
    const char *exponent = curPtr++;
    if (curPtr != bufferEnd && (*curPtr == '+' || *curPtr == '-'))
      ++curPtr;
    if (curPtr == bufferEnd || !llvm::isDigit(*curPtr)) {
      curPtr = exponent + 1;
      return emitError(start, "exponent of '" +
                                  StringRef(start, curPtr - start) +
                                  "' has no digits");
    }
    consumeDigits(isDecimal);
    isFloat = true;
  }
  StringRef digits(start, curPtr - start);
  if (!isFloat && digits.size() > 1 && digits[0] == '0' &&
      digits.find_first_not_of("0_") != StringRef::npos)
    return emitError(start, "leading zeros in decimal integer literals are "
                            "not permitted; use 0o for octal");
  return finish(isFloat ? TokenKind::floating : TokenKind::integer, 10, digits);
}

/// Appends the UTF-8 encoding of `codePoint` to `out`.
static bool appendCodePoint(uint32_t codePoint, std::string &out) {
  char buffer[UNI_MAX_UTF8_BYTES_PER_CODE_POINT];
  char *cursor = buffer;
  if (!llvm::ConvertCodePointToUTF8(codePoint, cursor))
    return false;
  out.append(buffer, cursor);
  return true;
}

Token Lexer::lexString(const char *start, StringRef prefix) {
  bool raw = prefix.contains_insensitive('r');
  bool formatted = prefix.contains_insensitive('f');
  bool bytes = prefix.contains_insensitive('b');
  curPtr = start + prefix.size();
  char quote = *curPtr;
  bool triple =
      curPtr + 2 < bufferEnd && curPtr[1] == quote && curPtr[2] == quote;
  curPtr += triple ? 3 : 1;

  std::string value;
  std::vector<std::string> pieces;
  std::vector<Token::FStringField> fields;
  bool broken = false;
  while (true) {
    if (curPtr == bufferEnd)
      return emitError(start, triple ? "unterminated triple-quoted string"
                                     : "unterminated string literal");
    char c = *curPtr;
    if (c == quote) {
      if (!triple) {
        ++curPtr;
        break;
      }
      if (curPtr + 2 < bufferEnd + 0 && curPtr[1] == quote &&
          curPtr[2] == quote) {
        curPtr += 3;
        break;
      }
    }
    if ((c == '\n' || c == '\r') && !triple)
      return emitError(start, "unterminated string literal");
    if (formatted && !broken && (c == '{' || c == '}')) {
      // `{{` and `}}` are the braces themselves.
      if (curPtr + 1 != bufferEnd && curPtr[1] == c) {
        value.push_back(c);
        curPtr += 2;
        continue;
      }
      if (c == '}') {
        emitError(curPtr++, "single '}' is not allowed in an f-string");
        broken = true;
        continue;
      }
      ++curPtr;
      Token::FStringField field;
      // After an error (reported), the rest of the string is still its.
      if (!lexFStringField(quote, triple, field)) {
        broken = true;
        continue;
      }
      pieces.push_back(std::move(value));
      value.clear();
      fields.push_back(std::move(field));
      continue;
    }
    if (c != '\\' || raw) {
      if (c == '\\' && curPtr + 1 != bufferEnd) {
        // A raw string keeps the backslash and the character after it.
        value.push_back(c);
        ++curPtr;
        c = *curPtr;
      }
      value.push_back(c);
      ++curPtr;
      continue;
    }
    // An escape sequence.
    const char *escape = curPtr++;
    if (curPtr == bufferEnd)
      continue;
    char e = *curPtr++;
    auto readHex = [&](unsigned count) -> std::optional<uint32_t> {
      if (bufferEnd - curPtr < count)
        return std::nullopt;
      uint32_t result = 0;
      for (unsigned i = 0; i < count; ++i) {
        if (!llvm::isHexDigit(curPtr[i]))
          return std::nullopt;
        result = result * 16 + llvm::hexDigitValue(curPtr[i]);
      }
      curPtr += count;
      return result;
    };
    switch (e) {
    case '\n':
      break;
    case '\r':
      if (curPtr != bufferEnd && *curPtr == '\n')
        ++curPtr;
      break;
    case '\\':
    case '\'':
    case '"':
      value.push_back(e);
      break;
    case 'n':
      value.push_back('\n');
      break;
    case 't':
      value.push_back('\t');
      break;
    case 'r':
      value.push_back('\r');
      break;
    case 'a':
      value.push_back('\a');
      break;
    case 'b':
      value.push_back('\b');
      break;
    case 'f':
      value.push_back('\f');
      break;
    case 'v':
      value.push_back('\v');
      break;
    case 'x':
    case 'u':
    case 'U': {
      std::optional<uint32_t> codePoint = readHex(e == 'x'   ? 2
                                                  : e == 'u' ? 4
                                                             : 8);
      if (!codePoint || !appendCodePoint(*codePoint, value)) {
        emitError(escape, "invalid '\\" + llvm::Twine(e) +
                              "' escape in string literal");
        continue;
      }
      break;
    }
    default:
      if (e >= '0' && e <= '7') {
        unsigned octal = e - '0';
        for (int i = 0;
             i < 2 && curPtr != bufferEnd && *curPtr >= '0' && *curPtr <= '7';
             ++i)
          octal = octal * 8 + (*curPtr++ - '0');
        appendCodePoint(octal, value);
        break;
      }
      // Python keeps unknown escapes as written.
      value.push_back('\\');
      value.push_back(e);
      break;
    }
  }

  if (bytes)
    return emitError(start, "bytes literals are not supported in .tile");
  if (broken)
    return makeToken(TokenKind::error, start);
  Token token =
      makeToken(formatted ? TokenKind::fstring : TokenKind::string, start);
  if (formatted) {
    pieces.push_back(std::move(value));
    token.fstringPieces = std::move(pieces);
    token.fstringFields = std::move(fields);
  } else {
    token.stringValue = std::move(value);
  }
  return token;
}

bool Lexer::lexFStringField(char quote, bool triple,
                            Token::FStringField &field) {
  const char *open = curPtr - 1;
  auto closesString = [&] {
    return *curPtr == quote &&
           (!triple || (bufferEnd - curPtr >= 3 && curPtr[1] == quote &&
                        curPtr[2] == quote));
  };
  // The expression: up to `!`, `:` or `}` outside brackets and strings.
  const char *expressionStart = curPtr;
  unsigned depth = 0;
  char inString = 0;
  for (; curPtr != bufferEnd; ++curPtr) {
    char c = *curPtr;
    if (inString) {
      if (c == '\\' && curPtr + 1 != bufferEnd)
        ++curPtr;
      else if (c == inString)
        inString = 0;
      continue;
    }
    // Outside the expression's strings, a backslash would continue a line.
    if (c == '\\') {
      emitError(curPtr, "a backslash is not allowed in an f-string's "
                        "expression outside its strings");
      return false;
    }
    if (c == '\n' && !triple)
      break;
    if (closesString())
      break;
    if (c == '\'' || c == '"') {
      inString = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (depth == 0 &&
               (c == '}' || c == ':' ||
                (c == '!' && curPtr + 1 != bufferEnd && curPtr[1] != '='))) {
      break;
    }
  }
  field.expression = StringRef(expressionStart, curPtr - expressionStart);
  if (field.expression.trim().empty()) {
    emitError(open, "an f-string's replacement field needs an expression");
    return false;
  }
  if (curPtr != bufferEnd && *curPtr == '!') {
    ++curPtr;
    if (curPtr == bufferEnd || !StringRef("rsa").contains(*curPtr)) {
      emitError(curPtr - 1, "an f-string's conversion is !r, !s or !a");
      return false;
    }
    field.conversion = *curPtr++;
  }
  if (curPtr != bufferEnd && *curPtr == ':') {
    for (++curPtr; curPtr != bufferEnd && *curPtr != '}' && !closesString() &&
                   *curPtr != '\n';
         ++curPtr) {
      if (*curPtr == '{') {
        emitError(curPtr, "replacement fields inside an f-string's format "
                          "spec are not supported in .tile");
        return false;
      }
      field.spec.push_back(*curPtr);
    }
  }
  if (curPtr == bufferEnd || *curPtr != '}') {
    emitError(open, "f-string: expecting '}'");
    return false;
  }
  ++curPtr;
  return true;
}

Token Lexer::lexPunctuation(const char *start) {
  auto rest = [&](size_t n) {
    return bufferEnd - curPtr >= static_cast<ptrdiff_t>(n)
               ? StringRef(curPtr, n)
               : StringRef();
  };
  static constexpr std::pair<StringRef, TokenKind> kPunctuation[] = {
      {"**=", TokenKind::star_star_equal},
      {"//=", TokenKind::slash_slash_equal},
      {"<<=", TokenKind::less_less_equal},
      {">>=", TokenKind::greater_greater_equal},
      {"...", TokenKind::ellipsis},
      {"**", TokenKind::star_star},
      {"//", TokenKind::slash_slash},
      {"<<", TokenKind::less_less},
      {">>", TokenKind::greater_greater},
      {"<=", TokenKind::less_equal},
      {">=", TokenKind::greater_equal},
      {"==", TokenKind::equal_equal},
      {"!=", TokenKind::not_equal},
      {"->", TokenKind::arrow},
      {"+=", TokenKind::plus_equal},
      {"-=", TokenKind::minus_equal},
      {"*=", TokenKind::star_equal},
      {"/=", TokenKind::slash_equal},
      {"%=", TokenKind::percent_equal},
      {"&=", TokenKind::amp_equal},
      {"|=", TokenKind::pipe_equal},
      {"^=", TokenKind::caret_equal},
      {"@=", TokenKind::at_equal},
      {":=", TokenKind::walrus},
      {"(", TokenKind::l_paren},
      {")", TokenKind::r_paren},
      {"[", TokenKind::l_square},
      {"]", TokenKind::r_square},
      {"{", TokenKind::l_brace},
      {"}", TokenKind::r_brace},
      {":", TokenKind::colon},
      {",", TokenKind::comma},
      {";", TokenKind::semi},
      {".", TokenKind::dot},
      {"@", TokenKind::at},
      {"=", TokenKind::equal},
      {"+", TokenKind::plus},
      {"-", TokenKind::minus},
      {"*", TokenKind::star},
      {"/", TokenKind::slash},
      {"%", TokenKind::percent},
      {"~", TokenKind::tilde},
      {"&", TokenKind::amp},
      {"|", TokenKind::pipe},
      {"^", TokenKind::caret},
      {"<", TokenKind::less},
      {">", TokenKind::greater},
  };
  for (auto [spelling, kind] : kPunctuation) {
    if (rest(spelling.size()) != spelling)
      continue;
    curPtr += spelling.size();
    char c = spelling[0];
    if (spelling.size() == 1 && (c == '(' || c == '[' || c == '{')) {
      brackets.push_back(start);
    } else if (spelling.size() == 1 && (c == ')' || c == ']' || c == '}')) {
      if (brackets.empty())
        return emitError(start, "unmatched '" + spelling + "'");
      char open = *brackets.back();
      char expected = open == '(' ? ')' : open == '[' ? ']' : '}';
      if (c != expected) {
        source.emitError(llvm::SMLoc::getFromPointer(start))
            << "closing '" << c << "' does not match '" << open << "'";
        brackets.pop_back();
        Token token = makeToken(TokenKind::error, start);
        return token;
      }
      brackets.pop_back();
    }
    return makeToken(kind, start);
  }

  unsigned char byte = static_cast<unsigned char>(*curPtr);
  if (byte >= 0x80) {
    const auto *cursor = reinterpret_cast<const llvm::UTF8 *>(curPtr);
    llvm::UTF32 codePoint = 0;
    llvm::UTF32 *target = &codePoint;
    llvm::ConvertUTF8toUTF32(&cursor,
                             reinterpret_cast<const llvm::UTF8 *>(bufferEnd),
                             &target, target + 1, llvm::strictConversion);
    const char *next = reinterpret_cast<const char *>(cursor);
    curPtr = next > curPtr ? next : curPtr + 1;
    return emitError(start, "unexpected character '" +
                                StringRef(start, curPtr - start) + "' (U+" +
                                llvm::utohexstr(codePoint, false, 4) + ")");
  }
  ++curPtr;
  if (byte == 0)
    return emitError(start, "null character in source");
  if (byte < 0x20 || byte == 0x7f)
    return emitError(start, "unexpected control character 0x" +
                                llvm::utohexstr(byte, false, 2));
  return emitError(start, "unexpected character '" + StringRef(start, 1) + "'");
}
