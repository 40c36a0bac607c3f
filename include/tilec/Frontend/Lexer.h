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
#include <vector>

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
  /// Decoded contents of a string literal; of an f-string, the literal
  /// text between its replacement fields (one more piece than fields).
  std::string stringValue;
  std::vector<std::string> fstringPieces;
  /// An f-string's replacement fields: the source of each expression, its
  /// conversion ('r', 's', 'a' or 0) and its format spec.
  struct FStringField {
    llvm::StringRef expression;
    char conversion = 0;
    std::string spec;
  };
  std::vector<FStringField> fstringFields;

  bool is(TokenKind k) const { return kind == k; }
  bool isKeyword() const;
};

class Lexer {
public:
  explicit Lexer(TileSource &source);
  /// Lexes `range`, a part of the source's text, as the inside of brackets
  /// (an f-string's replacement field): no newlines or indentation.
  Lexer(TileSource &source, llvm::StringRef range);

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
  /// Scans the replacement field that starts after the `{` before
  /// `curPtr`, up to and past its `}`, inside a string closed by `quote`.
  /// Returns false after reporting an error.
  bool lexFStringField(char quote, bool triple, Token::FStringField &field);
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
  /// Lexing an f-string's replacement field: no newlines or indentation.
  bool inField = false;
  /// Whether the current logical line produced a token (so a NEWLINE is due).
  bool lineHasTokens = false;
};

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_LEXER_H
