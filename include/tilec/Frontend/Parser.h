//===- Parser.h - Parser for .tile files ------------------------*- C++ -*-===//
//
// Part of tilec. A recursive-descent parser for the Python subset of .tile
// files. It reports every syntax error it finds (resynchronizing at the next
// statement) and says plainly when a Python construct is not part of .tile.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_PARSER_H
#define TILEC_FRONTEND_PARSER_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Lexer.h"

#include <deque>

namespace tilec::frontend {

class Parser {
public:
  explicit Parser(TileSource &source);
  /// Parses `range` of the source's text, an f-string's replacement field.
  Parser(TileSource &source, llvm::StringRef range);

  /// Parses a whole file. Errors are reported through the source; the
  /// returned module holds every statement that parsed.
  std::unique_ptr<Module> parseModule();

  /// Parses a buffer that holds one expression (a `-D NAME=VALUE` value).
  /// Returns null after reporting an error.
  ExprPtr parseStandaloneExpression();

private:
  // Tokens.
  const Token &peek(unsigned ahead = 0);
  Token consume();
  bool at(TokenKind kind) { return peek().is(kind); }
  bool consumeIf(TokenKind kind);
  /// Consumes a token of `kind` or reports "expected <what>".
  bool expect(TokenKind kind, llvm::StringRef what);
  void emitError(llvm::SMLoc loc, const llvm::Twine &message);
  void errorExpected(llvm::StringRef what);
  /// Returns `expr`, or null after reporting (at `loc`, or where `expr`
  /// starts) that its syntax tree is deeper than the parser allows.
  ExprPtr checkHeight(ExprPtr expr, llvm::SMLoc loc = llvm::SMLoc());
  /// Skips to the start of the next statement, and over the indented block
  /// of a statement that failed in its header.
  void recover();

  // Statements.
  void parseBlockContents(Block &block);
  /// Parses one line's statements (or one compound statement) into block.
  void parseStatement(Block &block);
  bool parseSimpleStatements(Block &block);
  StmtPtr parseSimpleStatement();
  StmtPtr parseExpressionStatement();
  bool parseSuite(Block &block);
  StmtPtr parseDecorated();
  StmtPtr parseFunctionDef(std::vector<ExprPtr> decorators, llvm::SMLoc loc);
  /// A def's (`closer` ')', with annotations) or a lambda's (`closer` ':')
  /// parameters, up to `closer`, with Python's rules for `*`, `*args`,
  /// keyword-only parameters, `**kwargs` and defaults. False after an error.
  bool parseParameters(TokenKind closer, bool annotations,
                       std::vector<Parameter> &params);
  StmtPtr parseIf();
  StmtPtr parseClass();
  StmtPtr parseTry();
  StmtPtr parseFor();
  StmtPtr parseWhile();
  ExprPtr parseLambda();
  StmtPtr parseWith();
  StmtPtr parseImport();
  StmtPtr parseFromImport();
  bool parseDottedName(std::string &name, llvm::SMLoc &loc);
  StmtPtr unsupportedStatement(llvm::StringRef what, llvm::StringRef why);

  // Expressions.
  ExprPtr parseTestList(bool allowStar = false);
  ExprPtr parseTest();
  /// `*value` (an element of a tuple or list, unpacked or gathered), or a
  /// test.
  ExprPtr parseStarredOrTest();
  /// `expr`, or null after reporting that a starred expression stands
  /// alone, outside a tuple, a list or a call's arguments.
  ExprPtr rejectLoneStarred(ExprPtr expr);
  /// `operand (keyword operand)*`, one BoolOpExpr when the keyword occurs.
  ExprPtr parseBoolOp(TokenKind keyword, BoolOp op,
                      ExprPtr (Parser::*parseOperand)());
  ExprPtr parseOrTest();
  ExprPtr parseAndTest();
  ExprPtr parseNotTest();
  ExprPtr parseComparison();
  ExprPtr parseBinary(unsigned level);
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  ExprPtr parseAtom();
  ExprPtr parseParenthesized();
  ExprPtr parseListDisplay();
  ExprPtr parseDictDisplay();
  ExprPtr parseCall(ExprPtr callee);
  ExprPtr parseSubscript(ExprPtr value);
  ExprPtr parseSubscriptItem();
  /// Reports a comprehension at the current `for` and skips past it.
  /// The `for ... in ... if ...` clauses after `element` (and `value` in a
  /// dict), the parser at the first `for`.
  ExprPtr parseComprehension(llvm::SMLoc loc, ComprehensionExpr::Form form,
                             ExprPtr element, ExprPtr value);
  /// The string literals and f-strings from the current token on,
  /// concatenated.
  ExprPtr parseStrings();
  /// A set display or comprehension after its `{` at `loc` and its first
  /// element, if that is not starred.
  ExprPtr parseSetDisplay(llvm::SMLoc loc, ExprPtr first);
  /// The target of a `for`: a name or a tuple of names.
  ExprPtr parseForTarget();

  /// Python stops at a few hundred levels too; this keeps the stack small.
  static constexpr unsigned kMaxDepth = 100;

  /// Counts one level of nesting while it lives; `exceeded` says whether
  /// the level passes kMaxDepth.
  class DepthGuard {
  public:
    DepthGuard(unsigned &depth, bool &exceeded) : depth(depth) {
      exceeded = ++depth > kMaxDepth;
    }
    ~DepthGuard() { --depth; }

  private:
    unsigned &depth;
  };

  TileSource &source;
  Lexer lexer;
  std::deque<Token> lookahead;
  /// Nesting of expressions and of blocks, bounded so that deep input
  /// cannot exhaust the stack.
  unsigned depth = 0;
  unsigned blockDepth = 0;
  /// The elif clauses that enclose the block being parsed.
  unsigned elifDepth = 0;
};

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_PARSER_H
