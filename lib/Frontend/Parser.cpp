//===- Parser.cpp - Parser for .tile files --------------------------------===//
//
// Part of tilec. Follows Python's grammar for the constructs .tile keeps
// and names the ones it drops, so that a TileLang user who pastes a helper
// with a lambda or a while loop learns why it does not compile. This file
// holds the token stream, error recovery and the entry points; statements
// are parsed in ParseStmt.cpp and expressions in ParseExpr.cpp.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Parser.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

/// The deepest syntax tree an expression may have (Expr::getHeight): a sum
/// of 1000 terms. Chains of operators, calls, subscripts and attributes
/// build deep trees without nesting in the source; evaluating, printing and
/// freeing them recurses as deep as the tree.
static constexpr unsigned kMaxExpressionHeight = 1000;

Parser::Parser(TileSource &source) : source(source), lexer(source) {}

Parser::Parser(TileSource &source, llvm::StringRef range)
    : source(source), lexer(source, range) {}

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

const Token &Parser::peek(unsigned ahead) {
  while (lookahead.size() <= ahead)
    lookahead.push_back(lexer.lex());
  return lookahead[ahead];
}

Token Parser::consume() {
  peek();
  Token token = std::move(lookahead.front());
  lookahead.pop_front();
  return token;
}

bool Parser::consumeIf(TokenKind kind) {
  if (!at(kind))
    return false;
  consume();
  return true;
}

void Parser::emitError(SMLoc loc, const llvm::Twine &message) {
  source.emitError(loc) << message;
}

ExprPtr Parser::checkHeight(ExprPtr expr, SMLoc loc) {
  if (!expr || expr->getHeight() <= kMaxExpressionHeight)
    return expr;
  emitError(loc.isValid() ? loc : expr->getLoc(),
            "expression is too deep: its syntax tree has more than " +
                llvm::Twine(kMaxExpressionHeight) +
                " levels (a chain of operators, calls, subscripts or "
                "attributes that long); compute it in steps with "
                "intermediate variables");
  return nullptr;
}

void Parser::errorExpected(StringRef what) {
  // The lexer has already explained an invalid token.
  if (at(TokenKind::error))
    return;
  const Token &token = peek();
  std::string found = token.is(TokenKind::identifier) ||
                              token.is(TokenKind::integer) ||
                              token.is(TokenKind::floating)
                          ? ("'" + token.text + "'").str()
                          : getTokenSpelling(token.kind).str();
  emitError(token.loc, "expected " + what + ", found " + found);
}

bool Parser::expect(TokenKind kind, StringRef what) {
  if (consumeIf(kind))
    return true;
  errorExpected(what);
  return false;
}

void Parser::recover() {
  while (!at(TokenKind::eof) && !at(TokenKind::newline) &&
         !at(TokenKind::dedent) && !at(TokenKind::indent))
    consume();
  consumeIf(TokenKind::newline);
  // The body of a compound statement whose header failed.
  if (at(TokenKind::indent)) {
    unsigned level = 0;
    do {
      if (at(TokenKind::indent))
        ++level;
      else if (at(TokenKind::dedent))
        --level;
      consume();
    } while (level != 0 && !at(TokenKind::eof));
  }
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::unique_ptr<Module> Parser::parseModule() {
  auto module = std::make_unique<Module>();
  while (!at(TokenKind::eof) && !source.tooManyErrors()) {
    if (consumeIf(TokenKind::newline))
      continue;
    if (at(TokenKind::indent)) {
      emitError(peek().loc, "unexpected indentation");
      recover();
      continue;
    }
    if (at(TokenKind::dedent)) {
      consume();
      continue;
    }
    if (at(TokenKind::error)) {
      // The lexer has reported it; the rest of the line is unreliable.
      recover();
      continue;
    }
    parseStatement(module->body);
  }
  return module;
}

ExprPtr Parser::parseStandaloneExpression() {
  ExprPtr expr = parseTestList();
  if (!expr)
    return nullptr;
  consumeIf(TokenKind::newline);
  if (!at(TokenKind::eof)) {
    errorExpected("end of value");
    return nullptr;
  }
  return expr;
}
