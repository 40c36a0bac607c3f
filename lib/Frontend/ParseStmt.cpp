//===- ParseStmt.cpp - Parsing of .tile statements ------------------------===//
//
// Part of tilec. Simple and compound statements, blocks and their
// indentation, and the Python statements .tile rejects with a reason.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Parser.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

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
    compound = parseWhile();
    break;
  case TokenKind::kw_class:
    compound = parseClass();
    break;
  case TokenKind::kw_try:
    compound = parseTry();
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
  case TokenKind::kw_nonlocal: {
    bool isGlobal = consume().kind == TokenKind::kw_global;
    std::vector<NameDeclStmt::Name> names;
    do {
      if (!at(TokenKind::identifier)) {
        errorExpected("a name");
        return nullptr;
      }
      SMLoc nameLoc = peek().loc;
      names.push_back({consume().text.str(), nameLoc});
    } while (consumeIf(TokenKind::comma));
    return std::make_unique<NameDeclStmt>(loc, isGlobal, std::move(names));
  }
  case TokenKind::kw_raise: {
    consume();
    ExprPtr exception, cause;
    if (!at(TokenKind::newline) && !at(TokenKind::semi) &&
        !at(TokenKind::eof)) {
      exception = parseTest();
      if (!exception)
        return nullptr;
      if (consumeIf(TokenKind::kw_from)) {
        cause = parseTest();
        if (!cause)
          return nullptr;
      }
    }
    return std::make_unique<RaiseStmt>(loc, std::move(exception),
                                       std::move(cause));
  }
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
  case Expr::Kind::Starred:
    return isAssignable(llvm::cast<StarredExpr>(expr)->value.get());
  case Expr::Kind::Tuple:
    for (const ExprPtr &e : llvm::cast<TupleExpr>(expr)->elements)
      if (!isAssignable(e.get()))
        return false;
    return true;
  case Expr::Kind::List:
    if (llvm::cast<ListExpr>(expr)->isSet)
      return false;
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
  // A decorated class is host code: its decorators are not evaluated.
  if (at(TokenKind::kw_class))
    return parseClass();
  if (!at(TokenKind::kw_def)) {
    errorExpected("'def' after decorators");
    recover();
    return nullptr;
  }
  return parseFunctionDef(std::move(decorators), loc);
}

bool Parser::parseParameters(TokenKind closer, bool annotations,
                             std::vector<Parameter> &params) {
  using Kind = Parameter::Kind;
  bool sawDefault = false;
  // After `*` or `*args`, parameters are keyword-only.
  bool keywordOnly = false;
  std::optional<SMLoc> bareStar;
  while (!at(closer)) {
    if (!params.empty() && params.back().kind == Kind::VarKeyword) {
      emitError(peek().loc, "a parameter follows '**" + params.back().name +
                                "', which must be the last");
      return false;
    }
    if (at(TokenKind::slash)) {
      emitError(peek().loc, "positional-only markers are not supported in "
                            ".tile");
      return false;
    }
    Kind kind = keywordOnly ? Kind::KeywordOnly : Kind::Positional;
    SMLoc starLoc = peek().loc;
    if (at(TokenKind::star) || at(TokenKind::star_star)) {
      bool single = consume().is(TokenKind::star);
      if (single && keywordOnly) {
        emitError(starLoc, "'*' may appear only once among the parameters");
        return false;
      }
      kind = single ? Kind::VarPositional : Kind::VarKeyword;
      keywordOnly = true;
      if (single && (at(TokenKind::comma) || at(closer))) {
        bareStar = starLoc;
        if (!consumeIf(TokenKind::comma))
          break;
        continue;
      }
    }
    if (!at(TokenKind::identifier)) {
      errorExpected("a parameter name");
      return false;
    }
    Parameter param;
    param.loc = peek().loc;
    param.name = consume().text.str();
    param.kind = kind;
    for (const Parameter &other : params) {
      if (other.name == param.name) {
        emitError(param.loc, "duplicate parameter '" + param.name + "'");
        return false;
      }
    }
    if (annotations && consumeIf(TokenKind::colon)) {
      param.annotation = parseTest();
      if (!param.annotation)
        return false;
    }
    if (at(TokenKind::equal) && param.collects()) {
      emitError(peek().loc,
                "'" + param.name + "' collects arguments and takes no default");
      return false;
    }
    if (consumeIf(TokenKind::equal)) {
      param.defaultValue = parseTest();
      if (!param.defaultValue)
        return false;
      sawDefault |= kind == Kind::Positional;
    } else if (sawDefault && kind == Kind::Positional) {
      emitError(param.loc, "parameter '" + param.name +
                               "' without a default follows one with a "
                               "default");
      return false;
    }
    if (kind == Kind::KeywordOnly)
      bareStar.reset();
    params.push_back(std::move(param));
    if (!consumeIf(TokenKind::comma))
      break;
  }
  if (bareStar) {
    emitError(*bareStar, "a bare '*' must be followed by keyword-only "
                         "parameters");
    return false;
  }
  return true;
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
  if (!expect(TokenKind::l_paren, "'('") ||
      !parseParameters(TokenKind::r_paren, /*annotations=*/true, params))
    return fail();
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

ExprPtr Parser::parseForTarget() {
  // Names, nested in tuples and lists and starred as in `for i, (a, *b)
  // in ...`: parsed below comparisons so that `in` is not taken as an
  // operator.
  bool tooDeep;
  DepthGuard guard(depth, tooDeep);
  if (tooDeep) {
    emitError(peek().loc, "expression is nested too deeply");
    return nullptr;
  }
  std::vector<ExprPtr> targets;
  SMLoc targetLoc = peek().loc;
  TokenKind close = TokenKind::eof;
  if (consumeIf(TokenKind::l_paren))
    close = TokenKind::r_paren;
  else if (consumeIf(TokenKind::l_square))
    close = TokenKind::r_square;
  do {
    ExprPtr target;
    if (at(TokenKind::l_paren) || at(TokenKind::l_square)) {
      target = parseForTarget();
    } else if (at(TokenKind::star)) {
      SMLoc starLoc = consume().loc;
      if (!at(TokenKind::identifier)) {
        errorExpected("a loop variable after '*'");
        return nullptr;
      }
      Token name = consume();
      target = std::make_unique<StarredExpr>(
          starLoc, std::make_unique<NameExpr>(name.loc, name.text.str()));
    } else if (at(TokenKind::identifier)) {
      Token name = consume();
      target = std::make_unique<NameExpr>(name.loc, name.text.str());
    } else {
      errorExpected("a loop variable");
    }
    if (!target)
      return nullptr;
    targets.push_back(std::move(target));
  } while (consumeIf(TokenKind::comma) && !at(TokenKind::kw_in) && !at(close));
  if (close != TokenKind::eof &&
      !expect(close, close == TokenKind::r_paren ? "')'" : "']'"))
    return nullptr;
  if (targets.size() == 1 && close == TokenKind::eof &&
      !llvm::isa<StarredExpr>(*targets.front()))
    return std::move(targets.front());
  if (close == TokenKind::r_square)
    return std::make_unique<ListExpr>(targetLoc, std::move(targets));
  return std::make_unique<TupleExpr>(targetLoc, std::move(targets));
}

StmtPtr Parser::parseClass() {
  SMLoc loc = consume().loc;
  if (!at(TokenKind::identifier)) {
    errorExpected("a class name");
    recover();
    return nullptr;
  }
  Token name = consume();
  // The bases are the host program's: skipped, as the body is not run.
  if (at(TokenKind::l_paren)) {
    unsigned depth = 0;
    do {
      if (at(TokenKind::l_paren))
        ++depth;
      else if (at(TokenKind::r_paren))
        --depth;
      else if (at(TokenKind::newline) || at(TokenKind::eof)) {
        errorExpected("')' after the bases of the class");
        recover();
        return nullptr;
      }
      consume();
    } while (depth != 0);
  }
  Block body;
  if (!parseSuite(body)) {
    recover();
    return nullptr;
  }
  return std::make_unique<ClassStmt>(loc, name.text.str(), name.loc,
                                     std::move(body));
}

StmtPtr Parser::parseTry() {
  SMLoc loc = consume().loc;
  Block body;
  if (!parseSuite(body)) {
    recover();
    return nullptr;
  }
  std::vector<TryStmt::Handler> handlers;
  while (at(TokenKind::kw_except)) {
    consume();
    TryStmt::Handler handler;
    if (!at(TokenKind::colon)) {
      handler.type = parseTest();
      if (!handler.type) {
        recover();
        return nullptr;
      }
      if (consumeIf(TokenKind::kw_as)) {
        if (!at(TokenKind::identifier)) {
          errorExpected("a name after 'as'");
          recover();
          return nullptr;
        }
        handler.name = consume().text.str();
      }
    }
    if (!parseSuite(handler.body)) {
      recover();
      return nullptr;
    }
    handlers.push_back(std::move(handler));
  }
  Block orelse, finally;
  if (!handlers.empty() && at(TokenKind::kw_else)) {
    consume();
    if (!parseSuite(orelse)) {
      recover();
      return nullptr;
    }
  }
  if (consumeIf(TokenKind::kw_finally) && !parseSuite(finally)) {
    recover();
    return nullptr;
  }
  if (handlers.empty() && finally.empty()) {
    errorExpected("'except' or 'finally' after the try block");
    recover();
    return nullptr;
  }
  return std::make_unique<TryStmt>(loc, std::move(body), std::move(handlers),
                                   std::move(orelse), std::move(finally));
}

StmtPtr Parser::parseWhile() {
  SMLoc loc = consume().loc;
  ExprPtr cond = parseTest();
  if (!cond) {
    recover();
    return nullptr;
  }
  Block body;
  if (!parseSuite(body)) {
    recover();
    return nullptr;
  }
  if (at(TokenKind::kw_else)) {
    emitError(peek().loc, "while-else is not supported in .tile");
    consume();
    Block ignored;
    if (!parseSuite(ignored))
      recover();
  }
  return std::make_unique<WhileStmt>(loc, std::move(cond), std::move(body));
}

StmtPtr Parser::parseFor() {
  SMLoc loc = consume().loc;
  ExprPtr target = parseForTarget();
  if (!target) {
    recover();
    return nullptr;
  }
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
    if (at(TokenKind::star) && !parenthesized && names.empty()) {
      ImportStmt::Alias alias;
      alias.loc = consume().loc;
      alias.name = "*";
      names.push_back(std::move(alias));
      break;
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
