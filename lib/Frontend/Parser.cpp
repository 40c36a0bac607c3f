//===- Parser.cpp - Parser for .tile files --------------------------------===//
//
// Part of tilec. Follows Python's grammar for the constructs .tile keeps
// and names the ones it drops, so that a TileLang user who pastes a helper
// with a lambda or a while loop learns why it does not compile.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Parser.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

/// Python stops at a few hundred levels too; this keeps the stack small.
static constexpr unsigned kMaxDepth = 100;

/// The deepest syntax tree an expression may have (Expr::getHeight): a sum
/// of 1000 terms. Chains of operators, calls, subscripts and attributes
/// build deep trees without nesting in the source; evaluating, printing and
/// freeing them recurses as deep as the tree.
static constexpr unsigned kMaxExpressionHeight = 1000;

namespace {
/// Counts one level of nesting; reports once when the limit is passed.
class DepthGuard {
public:
  DepthGuard(unsigned &depth, bool &exceeded) : depth(depth) {
    exceeded = ++depth > kMaxDepth;
  }
  ~DepthGuard() { --depth; }

private:
  unsigned &depth;
};
} // namespace

Parser::Parser(TileSource &source) : source(source), lexer(source) {}

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
// Statements
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

void Parser::parseBlockContents(Block &block) {
  while (!at(TokenKind::dedent) && !at(TokenKind::eof) &&
         !source.tooManyErrors()) {
    if (consumeIf(TokenKind::newline))
      continue;
    if (at(TokenKind::indent)) {
      emitError(peek().loc, "unexpected indentation");
      recover();
      continue;
    }
    if (at(TokenKind::error)) {
      recover();
      continue;
    }
    parseStatement(block);
  }
  consumeIf(TokenKind::dedent);
}

bool Parser::parseSuite(Block &block) {
  if (!expect(TokenKind::colon, "':'"))
    return false;
  bool tooDeep;
  DepthGuard guard(blockDepth, tooDeep);
  if (tooDeep) {
    emitError(peek().loc, elifDepth ? "blocks are nested too deeply (each "
                                      "elif nests in the else block of the "
                                      "if before it)"
                                    : "blocks are nested too deeply");
    return false;
  }
  if (consumeIf(TokenKind::newline)) {
    if (!at(TokenKind::indent)) {
      errorExpected("an indented block");
      return false;
    }
    consume();
    parseBlockContents(block);
    return true;
  }
  // A body on the same line: `if x: y = 1`.
  return parseSimpleStatements(block);
}

StmtPtr Parser::unsupportedStatement(StringRef what, StringRef why) {
  emitError(peek().loc, what + " not supported in .tile: " + why);
  recover();
  // The clauses that belong to the rejected statement go with it.
  while (at(TokenKind::kw_except) || at(TokenKind::kw_finally) ||
         at(TokenKind::kw_else) || at(TokenKind::kw_elif))
    recover();
  return nullptr;
}

void Parser::parseStatement(Block &block) {
  StmtPtr compound;
  switch (peek().kind) {
  case TokenKind::at:
    compound = parseDecorated();
    break;
  case TokenKind::kw_def: {
    SMLoc loc = peek().loc;
    compound = parseFunctionDef({}, loc);
    break;
  }
  case TokenKind::kw_if:
    compound = parseIf();
    break;
  case TokenKind::kw_for:
    compound = parseFor();
    break;
  case TokenKind::kw_with:
    compound = parseWith();
    break;
  case TokenKind::kw_while:
    compound = unsupportedStatement("while loops are",
                                    "kernel loops need known trip counts; use "
                                    "T.serial, range or T.Pipelined");
    break;
  case TokenKind::kw_class:
    compound = unsupportedStatement("classes are",
                                    "a .tile file holds kernels, functions "
                                    "and constants");
    break;
  case TokenKind::kw_try:
    compound = unsupportedStatement("try statements are",
                                    "compile-time errors stop compilation "
                                    "and kernels cannot raise");
    break;
  case TokenKind::kw_async:
    compound = unsupportedStatement("async functions are",
                                    "kernels are compiled, not awaited");
    break;
  default:
    // Simple statements, possibly several separated by ';'.
    parseSimpleStatements(block);
    return;
  }
  if (compound)
    block.push_back(std::move(compound));
}

bool Parser::parseSimpleStatements(Block &block) {
  while (true) {
    StmtPtr stmt = parseSimpleStatement();
    if (!stmt) {
      recover();
      return false;
    }
    block.push_back(std::move(stmt));
    if (!consumeIf(TokenKind::semi))
      break;
    if (at(TokenKind::newline) || at(TokenKind::eof))
      break;
  }
  if (at(TokenKind::eof) || consumeIf(TokenKind::newline))
    return true;
  errorExpected("end of line");
  recover();
  return false;
}

StmtPtr Parser::parseSimpleStatement() {
  SMLoc loc = peek().loc;
  switch (peek().kind) {
  case TokenKind::kw_pass:
    consume();
    return std::make_unique<PassStmt>(loc);
  case TokenKind::kw_break:
    consume();
    return std::make_unique<BreakStmt>(loc);
  case TokenKind::kw_continue:
    consume();
    return std::make_unique<ContinueStmt>(loc);
  case TokenKind::kw_return: {
    consume();
    ExprPtr value;
    if (!at(TokenKind::newline) && !at(TokenKind::semi) &&
        !at(TokenKind::eof)) {
      value = parseTestList();
      if (!value)
        return nullptr;
    }
    return std::make_unique<ReturnStmt>(loc, std::move(value));
  }
  case TokenKind::kw_assert: {
    consume();
    ExprPtr cond = parseTest();
    if (!cond)
      return nullptr;
    ExprPtr message;
    if (consumeIf(TokenKind::comma)) {
      message = parseTest();
      if (!message)
        return nullptr;
    }
    return std::make_unique<AssertStmt>(loc, std::move(cond),
                                        std::move(message));
  }
  case TokenKind::kw_import:
    return parseImport();
  case TokenKind::kw_from:
    return parseFromImport();
  case TokenKind::kw_del:
    emitError(loc, "del is not supported in .tile: buffers live for the "
                   "whole kernel");
    return nullptr;
  case TokenKind::kw_global:
  case TokenKind::kw_nonlocal:
    emitError(loc, peek().text + " declarations are not supported in .tile; "
                                 "pass values as parameters instead");
    return nullptr;
  case TokenKind::kw_raise:
    emitError(loc, "raise is not supported in .tile; use assert to reject a "
                   "configuration at compile time");
    return nullptr;
  case TokenKind::kw_yield:
    emitError(loc, "generators (yield) are not supported in .tile");
    return nullptr;
  default:
    return parseExpressionStatement();
  }
}

static bool isAugmentedAssign(TokenKind kind, BinaryOp &op) {
  switch (kind) {
  case TokenKind::plus_equal:
    op = BinaryOp::Add;
    return true;
  case TokenKind::minus_equal:
    op = BinaryOp::Sub;
    return true;
  case TokenKind::star_equal:
    op = BinaryOp::Mul;
    return true;
  case TokenKind::slash_equal:
    op = BinaryOp::Div;
    return true;
  case TokenKind::slash_slash_equal:
    op = BinaryOp::FloorDiv;
    return true;
  case TokenKind::percent_equal:
    op = BinaryOp::Mod;
    return true;
  case TokenKind::star_star_equal:
    op = BinaryOp::Pow;
    return true;
  case TokenKind::amp_equal:
    op = BinaryOp::BitAnd;
    return true;
  case TokenKind::pipe_equal:
    op = BinaryOp::BitOr;
    return true;
  case TokenKind::caret_equal:
    op = BinaryOp::BitXor;
    return true;
  case TokenKind::less_less_equal:
    op = BinaryOp::LShift;
    return true;
  case TokenKind::greater_greater_equal:
    op = BinaryOp::RShift;
    return true;
  case TokenKind::at_equal:
    op = BinaryOp::MatMul;
    return true;
  default:
    return false;
  }
}

/// Whether `expr` can be assigned to: a name, an attribute, a subscript, or
/// a tuple or list of those.
static bool isAssignable(const Expr *expr) {
  switch (expr->getKind()) {
  case Expr::Kind::Name:
  case Expr::Kind::Attribute:
  case Expr::Kind::Subscript:
    return true;
  case Expr::Kind::Tuple:
    for (const ExprPtr &e : llvm::cast<TupleExpr>(expr)->elements)
      if (!isAssignable(e.get()))
        return false;
    return true;
  case Expr::Kind::List:
    for (const ExprPtr &e : llvm::cast<ListExpr>(expr)->elements)
      if (!isAssignable(e.get()))
        return false;
    return true;
  default:
    return false;
  }
}

StmtPtr Parser::parseExpressionStatement() {
  SMLoc loc = peek().loc;
  ExprPtr first = parseTestList(/*allowStar=*/true);
  if (!first)
    return nullptr;

  if (at(TokenKind::colon)) {
    consume();
    if (!llvm::isa<NameExpr, AttributeExpr, SubscriptExpr>(first.get())) {
      emitError(first->getLoc(), "only a single name, attribute or element "
                                 "can be annotated");
      return nullptr;
    }
    ExprPtr annotation = parseTest();
    if (!annotation)
      return nullptr;
    ExprPtr value;
    if (consumeIf(TokenKind::equal)) {
      value = parseTestList();
      if (!value)
        return nullptr;
    }
    return std::make_unique<AnnAssignStmt>(
        loc, std::move(first), std::move(annotation), std::move(value));
  }

  BinaryOp op;
  if (isAugmentedAssign(peek().kind, op)) {
    SMLoc opLoc = consume().loc;
    if (!llvm::isa<NameExpr, AttributeExpr, SubscriptExpr>(first.get())) {
      emitError(first->getLoc(), "illegal target for augmented assignment");
      return nullptr;
    }
    ExprPtr value = parseTestList();
    if (!value)
      return nullptr;
    return std::make_unique<AugAssignStmt>(loc, std::move(first), op, opLoc,
                                           std::move(value));
  }

  if (!at(TokenKind::equal))
    return std::make_unique<ExprStmt>(loc, std::move(first));

  std::vector<ExprPtr> targets;
  targets.push_back(std::move(first));
  ExprPtr value;
  while (consumeIf(TokenKind::equal)) {
    value = parseTestList(/*allowStar=*/true);
    if (!value)
      return nullptr;
    if (at(TokenKind::equal))
      targets.push_back(std::move(value));
  }
  for (const ExprPtr &target : targets) {
    if (!isAssignable(target.get())) {
      emitError(target->getLoc(), "cannot assign to this expression");
      return nullptr;
    }
  }
  return std::make_unique<AssignStmt>(loc, std::move(targets),
                                      std::move(value));
}

StmtPtr Parser::parseDecorated() {
  SMLoc loc = peek().loc;
  std::vector<ExprPtr> decorators;
  while (consumeIf(TokenKind::at)) {
    ExprPtr decorator = parseTest();
    if (!decorator || !expect(TokenKind::newline, "end of line after the "
                                                  "decorator")) {
      recover();
      return nullptr;
    }
    decorators.push_back(std::move(decorator));
  }
  if (at(TokenKind::kw_class))
    return unsupportedStatement("classes are",
                                "a .tile file holds kernels, functions and "
                                "constants");
  if (!at(TokenKind::kw_def)) {
    errorExpected("'def' after decorators");
    recover();
    return nullptr;
  }
  return parseFunctionDef(std::move(decorators), loc);
}

StmtPtr Parser::parseFunctionDef(std::vector<ExprPtr> decorators, SMLoc loc) {
  consume(); // def
  if (!at(TokenKind::identifier)) {
    errorExpected("a function name");
    recover();
    return nullptr;
  }
  Token name = consume();
  std::vector<Parameter> params;
  auto fail = [&]() -> StmtPtr {
    recover();
    return nullptr;
  };
  if (!expect(TokenKind::l_paren, "'('"))
    return fail();
  bool sawDefault = false;
  while (!at(TokenKind::r_paren)) {
    if (at(TokenKind::star) || at(TokenKind::star_star)) {
      emitError(peek().loc, "variadic parameters (*args, **kwargs) are not "
                            "supported in .tile");
      return fail();
    }
    if (at(TokenKind::slash)) {
      emitError(peek().loc, "positional-only markers are not supported in "
                            ".tile");
      return fail();
    }
    if (!at(TokenKind::identifier)) {
      errorExpected("a parameter name");
      return fail();
    }
    Token paramName = consume();
    Parameter param;
    param.name = paramName.text.str();
    param.loc = paramName.loc;
    for (const Parameter &other : params) {
      if (other.name == param.name) {
        emitError(param.loc, "duplicate parameter '" + param.name + "'");
        return fail();
      }
    }
    if (consumeIf(TokenKind::colon)) {
      param.annotation = parseTest();
      if (!param.annotation)
        return fail();
    }
    if (consumeIf(TokenKind::equal)) {
      param.defaultValue = parseTest();
      if (!param.defaultValue)
        return fail();
      sawDefault = true;
    } else if (sawDefault) {
      emitError(param.loc, "parameter '" + param.name +
                               "' without a default follows one with a "
                               "default");
      return fail();
    }
    params.push_back(std::move(param));
    if (!consumeIf(TokenKind::comma))
      break;
  }
  if (!expect(TokenKind::r_paren, "')' after the parameters"))
    return fail();
  ExprPtr returns;
  if (consumeIf(TokenKind::arrow)) {
    returns = parseTest();
    if (!returns)
      return fail();
  }
  Block body;
  if (!parseSuite(body)) {
    recover();
    return nullptr;
  }
  return std::make_unique<FunctionDefStmt>(
      loc, name.text.str(), name.loc, std::move(decorators), std::move(params),
      std::move(returns), std::move(body));
}

StmtPtr Parser::parseIf() {
  SMLoc loc = consume().loc; // if / elif
  // A failed clause takes the rest of the statement with it.
  auto fail = [&]() -> StmtPtr {
    recover();
    while (at(TokenKind::kw_elif) || at(TokenKind::kw_else))
      recover();
    return nullptr;
  };
  ExprPtr cond = parseTest();
  if (!cond)
    return fail();
  Block then;
  if (!parseSuite(then))
    return fail();
  Block otherwise;
  if (at(TokenKind::kw_elif)) {
    // An elif is an if nested in the else block, in the tree and in the
    // code generated for it, so it counts as a level of blocks.
    bool tooDeep;
    DepthGuard guard(blockDepth, tooDeep);
    if (tooDeep) {
      emitError(peek().loc, "blocks are nested too deeply (each elif nests "
                            "in the else block of the if before it)");
      return fail();
    }
    ++elifDepth;
    StmtPtr elif = parseIf();
    --elifDepth;
    if (elif)
      otherwise.push_back(std::move(elif));
  } else if (consumeIf(TokenKind::kw_else)) {
    if (!parseSuite(otherwise))
      recover();
  }
  return std::make_unique<IfStmt>(loc, std::move(cond), std::move(then),
                                  std::move(otherwise));
}

StmtPtr Parser::parseFor() {
  SMLoc loc = consume().loc;
  // The target is a name or a tuple of names: parse below comparisons so
  // that `in` is not taken as an operator.
  std::vector<ExprPtr> targets;
  SMLoc targetLoc = peek().loc;
  bool parenthesized = consumeIf(TokenKind::l_paren);
  do {
    if (!at(TokenKind::identifier)) {
      errorExpected("a loop variable");
      recover();
      return nullptr;
    }
    Token name = consume();
    targets.push_back(std::make_unique<NameExpr>(name.loc, name.text.str()));
  } while (consumeIf(TokenKind::comma) && !at(TokenKind::kw_in) &&
           !at(TokenKind::r_paren));
  if (parenthesized && !expect(TokenKind::r_paren, "')'")) {
    recover();
    return nullptr;
  }
  ExprPtr target =
      targets.size() == 1 && !parenthesized
          ? std::move(targets.front())
          : std::make_unique<TupleExpr>(targetLoc, std::move(targets));
  if (!expect(TokenKind::kw_in, "'in'")) {
    recover();
    return nullptr;
  }
  ExprPtr iter = parseTestList();
  if (!iter) {
    recover();
    return nullptr;
  }
  Block body;
  if (!parseSuite(body)) {
    recover();
    return nullptr;
  }
  if (at(TokenKind::kw_else)) {
    emitError(peek().loc, "for-else is not supported in .tile");
    consume();
    Block ignored;
    if (!parseSuite(ignored))
      recover();
  }
  return std::make_unique<ForStmt>(loc, std::move(target), std::move(iter),
                                   std::move(body));
}

StmtPtr Parser::parseWith() {
  SMLoc loc = consume().loc;
  std::vector<WithItem> items;
  do {
    WithItem item;
    item.context = parseTest();
    if (!item.context) {
      recover();
      return nullptr;
    }
    if (consumeIf(TokenKind::kw_as)) {
      // `as bx` or `as (bx, by)` / `as bx, by` is ambiguous with a second
      // item; like TileLang, accept a parenthesized tuple or a single name.
      item.target = parsePrimary();
      if (!item.target) {
        recover();
        return nullptr;
      }
      if (!isAssignable(item.target.get())) {
        emitError(item.target->getLoc(), "cannot bind to this expression");
        recover();
        return nullptr;
      }
    }
    items.push_back(std::move(item));
  } while (consumeIf(TokenKind::comma));
  Block body;
  if (!parseSuite(body)) {
    recover();
    return nullptr;
  }
  return std::make_unique<WithStmt>(loc, std::move(items), std::move(body));
}

bool Parser::parseDottedName(std::string &name, SMLoc &loc) {
  if (!at(TokenKind::identifier)) {
    errorExpected("a module name");
    return false;
  }
  loc = peek().loc;
  name = consume().text.str();
  while (consumeIf(TokenKind::dot)) {
    if (!at(TokenKind::identifier)) {
      errorExpected("a module name after '.'");
      return false;
    }
    name += "." + consume().text.str();
  }
  return true;
}

StmtPtr Parser::parseImport() {
  SMLoc loc = consume().loc;
  std::vector<ImportStmt::Alias> names;
  do {
    ImportStmt::Alias alias;
    if (!parseDottedName(alias.name, alias.loc))
      return nullptr;
    if (consumeIf(TokenKind::kw_as)) {
      if (!at(TokenKind::identifier)) {
        errorExpected("a name after 'as'");
        return nullptr;
      }
      alias.asName = consume().text.str();
    }
    names.push_back(std::move(alias));
  } while (consumeIf(TokenKind::comma));
  return std::make_unique<ImportStmt>(loc, "", std::move(names));
}

StmtPtr Parser::parseFromImport() {
  SMLoc loc = consume().loc;
  std::string module;
  SMLoc moduleLoc;
  if (at(TokenKind::dot)) {
    emitError(peek().loc, "relative imports are not supported in .tile");
    return nullptr;
  }
  if (!parseDottedName(module, moduleLoc))
    return nullptr;
  if (!expect(TokenKind::kw_import, "'import'"))
    return nullptr;
  bool parenthesized = consumeIf(TokenKind::l_paren);
  std::vector<ImportStmt::Alias> names;
  do {
    if (parenthesized && at(TokenKind::r_paren))
      break;
    if (at(TokenKind::star)) {
      emitError(peek().loc, "'import *' is not supported in .tile; name what "
                            "you import");
      return nullptr;
    }
    if (!at(TokenKind::identifier)) {
      errorExpected("a name to import");
      return nullptr;
    }
    ImportStmt::Alias alias;
    alias.loc = peek().loc;
    alias.name = consume().text.str();
    if (consumeIf(TokenKind::kw_as)) {
      if (!at(TokenKind::identifier)) {
        errorExpected("a name after 'as'");
        return nullptr;
      }
      alias.asName = consume().text.str();
    }
    names.push_back(std::move(alias));
  } while (consumeIf(TokenKind::comma));
  if (parenthesized && !expect(TokenKind::r_paren, "')'"))
    return nullptr;
  return std::make_unique<ImportStmt>(loc, module, std::move(names));
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

ExprPtr Parser::parseTestList(bool allowStar) {
  SMLoc loc = peek().loc;
  if (at(TokenKind::star)) {
    emitError(loc, "unpacking with '*' is not supported in .tile");
    return nullptr;
  }
  ExprPtr first = parseTest();
  if (!first || !at(TokenKind::comma))
    return first;
  std::vector<ExprPtr> elements;
  elements.push_back(std::move(first));
  while (consumeIf(TokenKind::comma)) {
    // A trailing comma ends the tuple.
    if (at(TokenKind::newline) || at(TokenKind::equal) || at(TokenKind::eof) ||
        at(TokenKind::r_paren) || at(TokenKind::semi) || at(TokenKind::colon))
      break;
    if (at(TokenKind::star)) {
      emitError(peek().loc, "unpacking with '*' is not supported in .tile");
      return nullptr;
    }
    ExprPtr element = parseTest();
    if (!element)
      return nullptr;
    elements.push_back(std::move(element));
  }
  (void)allowStar;
  return checkHeight(std::make_unique<TupleExpr>(loc, std::move(elements)));
}

ExprPtr Parser::parseTest() {
  bool tooDeep;
  DepthGuard guard(depth, tooDeep);
  if (tooDeep) {
    emitError(peek().loc, "expression is nested too deeply");
    return nullptr;
  }
  if (at(TokenKind::kw_lambda)) {
    emitError(peek().loc, "lambda expressions are not supported in .tile; "
                          "define a function with def");
    return nullptr;
  }
  if (at(TokenKind::kw_yield) || at(TokenKind::kw_await)) {
    emitError(peek().loc, peek().text + " is not supported in .tile");
    return nullptr;
  }
  ExprPtr value = parseOrTest();
  if (!value)
    return nullptr;
  if (at(TokenKind::walrus)) {
    emitError(peek().loc, "assignment expressions (:=) are not supported in "
                          ".tile");
    return nullptr;
  }
  if (!at(TokenKind::kw_if))
    return value;
  SMLoc loc = consume().loc;
  ExprPtr cond = parseOrTest();
  if (!cond || !expect(TokenKind::kw_else, "'else' in a conditional "
                                           "expression"))
    return nullptr;
  ExprPtr otherwise = parseTest();
  if (!otherwise)
    return nullptr;
  return checkHeight(std::make_unique<IfExpr>(
      loc, std::move(cond), std::move(value), std::move(otherwise)));
}

ExprPtr Parser::parseBoolOp(TokenKind keyword, BoolOp op,
                            ExprPtr (Parser::*parseOperand)()) {
  ExprPtr first = (this->*parseOperand)();
  if (!first || !at(keyword))
    return first;
  SMLoc loc = peek().loc;
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(first));
  while (consumeIf(keyword)) {
    ExprPtr next = (this->*parseOperand)();
    if (!next)
      return nullptr;
    operands.push_back(std::move(next));
  }
  return checkHeight(
      std::make_unique<BoolOpExpr>(loc, op, std::move(operands)));
}

ExprPtr Parser::parseOrTest() {
  return parseBoolOp(TokenKind::kw_or, BoolOp::Or, &Parser::parseAndTest);
}

ExprPtr Parser::parseAndTest() {
  return parseBoolOp(TokenKind::kw_and, BoolOp::And, &Parser::parseNotTest);
}

ExprPtr Parser::parseNotTest() {
  if (!at(TokenKind::kw_not))
    return parseComparison();
  SMLoc loc = consume().loc;
  bool tooDeep;
  DepthGuard guard(depth, tooDeep);
  if (tooDeep) {
    emitError(loc, "expression is nested too deeply");
    return nullptr;
  }
  ExprPtr operand = parseNotTest();
  if (!operand)
    return nullptr;
  return checkHeight(
      std::make_unique<UnaryExpr>(loc, UnaryOp::Not, std::move(operand)));
}

ExprPtr Parser::parseComparison() {
  ExprPtr first = parseBinary(0);
  if (!first)
    return nullptr;
  std::vector<CompareOp> ops;
  std::vector<SMLoc> opLocs;
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(first));
  while (true) {
    CompareOp op;
    SMLoc opLoc = peek().loc;
    switch (peek().kind) {
    case TokenKind::equal_equal:
      op = CompareOp::Eq;
      break;
    case TokenKind::not_equal:
      op = CompareOp::Ne;
      break;
    case TokenKind::less:
      op = CompareOp::Lt;
      break;
    case TokenKind::less_equal:
      op = CompareOp::Le;
      break;
    case TokenKind::greater:
      op = CompareOp::Gt;
      break;
    case TokenKind::greater_equal:
      op = CompareOp::Ge;
      break;
    case TokenKind::kw_in:
      op = CompareOp::In;
      break;
    case TokenKind::kw_is:
      op = peek(1).is(TokenKind::kw_not) ? CompareOp::IsNot : CompareOp::Is;
      break;
    case TokenKind::kw_not:
      if (!peek(1).is(TokenKind::kw_in))
        goto done;
      op = CompareOp::NotIn;
      break;
    default:
      goto done;
    }
    consume();
    if (op == CompareOp::IsNot || op == CompareOp::NotIn)
      consume();
    ExprPtr next = parseBinary(0);
    if (!next)
      return nullptr;
    ops.push_back(op);
    opLocs.push_back(opLoc);
    operands.push_back(std::move(next));
  }
done:
  if (ops.empty())
    return std::move(operands.front());
  SMLoc loc = operands.front()->getLoc();
  return checkHeight(std::make_unique<CompareExpr>(
      loc, std::move(ops), std::move(operands), std::move(opLocs)));
}

namespace {
/// Binary operator levels from loosest to tightest: | ^ & shifts sums terms.
struct BinaryLevel {
  std::initializer_list<std::pair<TokenKind, BinaryOp>> ops;
};
} // namespace

static const BinaryLevel kBinaryLevels[] = {
    {{{TokenKind::pipe, BinaryOp::BitOr}}},
    {{{TokenKind::caret, BinaryOp::BitXor}}},
    {{{TokenKind::amp, BinaryOp::BitAnd}}},
    {{{TokenKind::less_less, BinaryOp::LShift},
      {TokenKind::greater_greater, BinaryOp::RShift}}},
    {{{TokenKind::plus, BinaryOp::Add}, {TokenKind::minus, BinaryOp::Sub}}},
    {{{TokenKind::star, BinaryOp::Mul},
      {TokenKind::slash, BinaryOp::Div},
      {TokenKind::slash_slash, BinaryOp::FloorDiv},
      {TokenKind::percent, BinaryOp::Mod},
      {TokenKind::at, BinaryOp::MatMul}}},
};

ExprPtr Parser::parseBinary(unsigned level) {
  if (level == std::size(kBinaryLevels))
    return parseFactor();
  ExprPtr lhs = parseBinary(level + 1);
  if (!lhs)
    return nullptr;
  while (true) {
    std::optional<BinaryOp> op;
    for (auto [kind, binaryOp] : kBinaryLevels[level].ops)
      if (at(kind))
        op = binaryOp;
    if (!op)
      return lhs;
    SMLoc loc = consume().loc;
    ExprPtr rhs = parseBinary(level + 1);
    if (!rhs)
      return nullptr;
    lhs = checkHeight(
        std::make_unique<BinaryExpr>(loc, *op, std::move(lhs), std::move(rhs)));
    if (!lhs)
      return nullptr;
  }
}

ExprPtr Parser::parseFactor() {
  std::optional<UnaryOp> op;
  if (at(TokenKind::minus))
    op = UnaryOp::Neg;
  else if (at(TokenKind::plus))
    op = UnaryOp::Pos;
  else if (at(TokenKind::tilde))
    op = UnaryOp::Invert;
  if (!op)
    return parsePower();
  SMLoc loc = consume().loc;
  bool tooDeep;
  DepthGuard guard(depth, tooDeep);
  if (tooDeep) {
    emitError(loc, "expression is nested too deeply");
    return nullptr;
  }
  ExprPtr operand = parseFactor();
  if (!operand)
    return nullptr;
  return checkHeight(std::make_unique<UnaryExpr>(loc, *op, std::move(operand)));
}

ExprPtr Parser::parsePower() {
  ExprPtr base = parsePrimary();
  if (!base || !at(TokenKind::star_star))
    return base;
  SMLoc loc = consume().loc;
  bool tooDeep;
  DepthGuard guard(depth, tooDeep);
  if (tooDeep) {
    emitError(loc, "expression is nested too deeply");
    return nullptr;
  }
  // Right-associative, and binds tighter than a unary minus on its left.
  ExprPtr exponent = parseFactor();
  if (!exponent)
    return nullptr;
  return checkHeight(std::make_unique<BinaryExpr>(
      loc, BinaryOp::Pow, std::move(base), std::move(exponent)));
}

ExprPtr Parser::parsePrimary() {
  ExprPtr value = parseAtom();
  while (value) {
    if (at(TokenKind::dot)) {
      SMLoc dot = consume().loc;
      if (!at(TokenKind::identifier)) {
        errorExpected("an attribute name after '.'");
        return nullptr;
      }
      Token name = consume();
      SMLoc start = value->getLoc();
      value =
          checkHeight(std::make_unique<AttributeExpr>(
                          start, std::move(value), name.text.str(), name.loc),
                      dot);
    } else if (at(TokenKind::l_paren)) {
      value = parseCall(std::move(value));
    } else if (at(TokenKind::l_square)) {
      value = parseSubscript(std::move(value));
    } else {
      break;
    }
  }
  return value;
}

ExprPtr Parser::parseAtom() {
  bool tooDeep;
  DepthGuard guard(depth, tooDeep);
  if (tooDeep) {
    emitError(peek().loc, "expression is nested too deeply");
    return nullptr;
  }
  const Token &token = peek();
  SMLoc loc = token.loc;
  switch (token.kind) {
  case TokenKind::identifier: {
    std::string name = token.text.str();
    consume();
    return std::make_unique<NameExpr>(loc, std::move(name));
  }
  case TokenKind::integer: {
    int64_t value = token.intValue;
    consume();
    return std::make_unique<IntExpr>(loc, value);
  }
  case TokenKind::floating: {
    double value = token.floatValue;
    consume();
    return std::make_unique<FloatExpr>(loc, value);
  }
  case TokenKind::string: {
    std::string value;
    while (at(TokenKind::string))
      value += consume().stringValue;
    return std::make_unique<StringExpr>(loc, std::move(value));
  }
  case TokenKind::kw_True:
  case TokenKind::kw_False: {
    bool value = token.is(TokenKind::kw_True);
    consume();
    return std::make_unique<BoolExpr>(loc, value);
  }
  case TokenKind::kw_None:
    consume();
    return std::make_unique<NoneExpr>(loc);
  case TokenKind::ellipsis:
    consume();
    return std::make_unique<EllipsisExpr>(loc);
  case TokenKind::l_paren:
    return parseParenthesized();
  case TokenKind::l_square:
    return parseListDisplay();
  case TokenKind::l_brace:
    return parseDictDisplay();
  case TokenKind::kw_await:
  case TokenKind::kw_yield:
    emitError(loc, token.text + " is not supported in .tile");
    return nullptr;
  case TokenKind::kw_lambda:
    emitError(loc, "lambda expressions are not supported in .tile; define a "
                   "function with def");
    return nullptr;
  default:
    errorExpected("an expression");
    return nullptr;
  }
}

ExprPtr Parser::rejectComprehension(SMLoc loc) {
  emitError(loc, "comprehensions are not supported in .tile; build the "
                 "sequence with a for loop or write it out");
  return nullptr;
}

ExprPtr Parser::parseParenthesized() {
  SMLoc loc = consume().loc;
  if (consumeIf(TokenKind::r_paren))
    return std::make_unique<TupleExpr>(loc, std::vector<ExprPtr>());
  ExprPtr first = parseTest();
  if (!first)
    return nullptr;
  if (at(TokenKind::kw_for))
    return rejectComprehension(peek().loc);
  if (consumeIf(TokenKind::r_paren))
    return first;
  std::vector<ExprPtr> elements;
  elements.push_back(std::move(first));
  while (consumeIf(TokenKind::comma)) {
    if (at(TokenKind::r_paren))
      break;
    ExprPtr element = parseTest();
    if (!element)
      return nullptr;
    elements.push_back(std::move(element));
  }
  if (!expect(TokenKind::r_paren, "')'"))
    return nullptr;
  return checkHeight(std::make_unique<TupleExpr>(loc, std::move(elements)));
}

ExprPtr Parser::parseListDisplay() {
  SMLoc loc = consume().loc;
  std::vector<ExprPtr> elements;
  while (!at(TokenKind::r_square)) {
    ExprPtr element = parseTest();
    if (!element)
      return nullptr;
    if (at(TokenKind::kw_for))
      return rejectComprehension(peek().loc);
    elements.push_back(std::move(element));
    if (!consumeIf(TokenKind::comma))
      break;
  }
  if (!expect(TokenKind::r_square, "']'"))
    return nullptr;
  return checkHeight(std::make_unique<ListExpr>(loc, std::move(elements)));
}

ExprPtr Parser::parseDictDisplay() {
  SMLoc loc = consume().loc;
  std::vector<ExprPtr> keys, values;
  while (!at(TokenKind::r_brace)) {
    if (at(TokenKind::star_star)) {
      emitError(peek().loc, "dictionary unpacking is not supported in .tile");
      return nullptr;
    }
    ExprPtr key = parseTest();
    if (!key)
      return nullptr;
    if (at(TokenKind::kw_for))
      return rejectComprehension(peek().loc);
    if (!at(TokenKind::colon)) {
      emitError(key->getLoc(), "sets are not supported in .tile; use a tuple "
                               "or a list");
      return nullptr;
    }
    consume();
    ExprPtr value = parseTest();
    if (!value)
      return nullptr;
    if (at(TokenKind::kw_for))
      return rejectComprehension(peek().loc);
    keys.push_back(std::move(key));
    values.push_back(std::move(value));
    if (!consumeIf(TokenKind::comma))
      break;
  }
  if (!expect(TokenKind::r_brace, "'}'"))
    return nullptr;
  return checkHeight(
      std::make_unique<DictExpr>(loc, std::move(keys), std::move(values)));
}

ExprPtr Parser::parseCall(ExprPtr callee) {
  SMLoc paren = consume().loc;
  SMLoc loc = callee->getLoc();
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  while (!at(TokenKind::r_paren)) {
    if (at(TokenKind::star) || at(TokenKind::star_star)) {
      emitError(peek().loc, "argument unpacking (*args, **kwargs) is not "
                            "supported in .tile");
      return nullptr;
    }
    if (at(TokenKind::identifier) && peek(1).is(TokenKind::equal)) {
      Keyword keyword;
      keyword.loc = peek().loc;
      keyword.name = consume().text.str();
      consume(); // =
      for (const Keyword &other : keywords) {
        if (other.name == keyword.name) {
          emitError(keyword.loc,
                    "keyword argument '" + keyword.name + "' repeated");
          return nullptr;
        }
      }
      keyword.value = parseTest();
      if (!keyword.value)
        return nullptr;
      keywords.push_back(std::move(keyword));
    } else {
      ExprPtr arg = parseTest();
      if (!arg)
        return nullptr;
      if (at(TokenKind::kw_for))
        return rejectComprehension(peek().loc);
      if (!keywords.empty()) {
        emitError(arg->getLoc(),
                  "positional argument follows keyword argument");
        return nullptr;
      }
      args.push_back(std::move(arg));
    }
    if (!consumeIf(TokenKind::comma))
      break;
  }
  if (!expect(TokenKind::r_paren, "')' to end the call"))
    return nullptr;
  return checkHeight(std::make_unique<CallExpr>(loc, std::move(callee),
                                                std::move(args),
                                                std::move(keywords)),
                     paren);
}

ExprPtr Parser::parseSubscript(ExprPtr value) {
  SMLoc bracket = consume().loc;
  SMLoc loc = value->getLoc();
  std::vector<ExprPtr> indices;
  while (!at(TokenKind::r_square)) {
    ExprPtr index = parseSubscriptItem();
    if (!index)
      return nullptr;
    indices.push_back(std::move(index));
    if (!consumeIf(TokenKind::comma))
      break;
  }
  if (indices.empty()) {
    errorExpected("an index");
    return nullptr;
  }
  if (!expect(TokenKind::r_square, "']'"))
    return nullptr;
  return checkHeight(std::make_unique<SubscriptExpr>(loc, std::move(value),
                                                     std::move(indices)),
                     bracket);
}

ExprPtr Parser::parseSubscriptItem() {
  SMLoc loc = peek().loc;
  ExprPtr lower;
  if (!at(TokenKind::colon)) {
    lower = parseTest();
    if (!lower || !at(TokenKind::colon))
      return lower;
  }
  consume(); // :
  ExprPtr upper, step;
  auto endsPart = [&] {
    return at(TokenKind::colon) || at(TokenKind::comma) ||
           at(TokenKind::r_square);
  };
  if (!endsPart()) {
    upper = parseTest();
    if (!upper)
      return nullptr;
  }
  if (consumeIf(TokenKind::colon) && !endsPart()) {
    step = parseTest();
    if (!step)
      return nullptr;
  }
  return checkHeight(std::make_unique<SliceExpr>(
      loc, std::move(lower), std::move(upper), std::move(step)));
}
