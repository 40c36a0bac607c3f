//===- Lexer.h - Tokenizer for .tile files ----------------------*- C++ -*-===//
//
// Part of tilec. Splits a .tile file into Python tokens: logical lines with
// INDENT/DEDENT markers, implicit line joining inside brackets, backslash
// continuations, numbers, strings and operators.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_LEXER_H
#define TILEC_FRONTEND_LEXER_H

#include "tilec/Frontend/Source.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace tilec::frontend {

enum class TokenKind {
#define TOK_MARKER(NAME) NAME,
#define TOK_LITERAL(NAME) NAME,
#define TOK_KEYWORD(SPELLING) kw_##SPELLING,
#define TOK_PUNCT(NAME, SPELLING) NAME,
#include "tilec/Frontend/TokenKinds.def"
};

/// How a token kind is written, for messages: `'('`, `'def'`, `newline`.
llvm::StringRef getTokenSpelling(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::eof;
  /// The token's text in the buffer (empty for markers).
  llvm::StringRef text;
  llvm::SMLoc loc;
  /// Value of an integer literal.
  int64_t intValue = 0;
  /// Value of a floating-point literal.
  double floatValue = 0.0;
  /// Decoded contents of a string literal.
  std::string stringValue;

  bool is(TokenKind k) const { return kind == k; }
  bool isKeyword() const;
};

class Lexer {
public:
  explicit Lexer(TileSource &source);

  /// Returns the next token. After an error it returns an `error` token and
  /// carries on from the next character, so parsing can go on.
  Token lex();

private:
  Token makeToken(TokenKind kind, const char *start);
  Token emitError(const char *loc, const llvm::Twine &message);
  /// Measures the indentation of a new logical line and queues INDENT or
  /// DEDENT tokens. Returns false at the end of the buffer.
  bool handleLineStart();
  Token lexIdentifier(const char *start);
  Token lexNumber(const char *start);
  Token lexString(const char *start, llvm::StringRef prefix);
  Token lexPunctuation(const char *start);
  void skipComment();

  TileSource &source;
  const char *curPtr;
  const char *bufferEnd;

  /// Columns of the enclosing indentation levels, with tabs expanded to the
  /// next multiple of 8 and, to detect inconsistent mixing, counted as 1.
  llvm::SmallVector<unsigned> indents{0};
  llvm::SmallVector<unsigned> altIndents{0};
  /// Open brackets; inside them newlines and indentation are ignored.
  llvm::SmallVector<const char *> brackets;
  unsigned pendingDedents = 0;
  bool pendingIndent = false;
  bool atLineStart = true;
  /// Whether the current logical line produced a token (so a NEWLINE is due).
  bool lineHasTokens = false;
};

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_LEXER_H
