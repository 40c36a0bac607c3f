//===- ParseExpr.cpp - Parsing of .tile expressions -----------------------===//
//
// Part of tilec. Python's expression grammar, one function per precedence
// level, with the nesting of expressions and the height of each syntax tree
// bounded.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Parser.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

ExprPtr Parser::parseTestList(bool allowStar) {
  SMLoc loc = peek().loc;
  ExprPtr first = parseStarredOrTest();
  if (!first)
    return nullptr;
  if (!at(TokenKind::comma))
    return rejectLoneStarred(std::move(first));
  std::vector<ExprPtr> elements;
  elements.push_back(std::move(first));
  while (consumeIf(TokenKind::comma)) {
    // A trailing comma ends the tuple.
    if (at(TokenKind::newline) || at(TokenKind::equal) || at(TokenKind::eof) ||
        at(TokenKind::r_paren) || at(TokenKind::semi) || at(TokenKind::colon))
      break;
    ExprPtr element = parseStarredOrTest();
    if (!element)
      return nullptr;
    elements.push_back(std::move(element));
  }
  (void)allowStar;
  return checkHeight(std::make_unique<TupleExpr>(loc, std::move(elements)));
}

ExprPtr Parser::parseStarredOrTest() {
  if (!at(TokenKind::star))
    return parseTest();
  SMLoc starLoc = consume().loc;
  ExprPtr value = parseOrTest();
  if (!value)
    return nullptr;
  return checkHeight(std::make_unique<StarredExpr>(starLoc, std::move(value)));
}

ExprPtr Parser::rejectLoneStarred(ExprPtr expr) {
  if (!llvm::isa<StarredExpr>(*expr))
    return expr;
  emitError(expr->getLoc(), "a starred expression stands only in a tuple, a "
                            "list or a call's arguments: add a comma "
                            "('*rest,')");
  return nullptr;
}

ExprPtr Parser::parseTest() {
  bool tooDeep;
  DepthGuard guard(depth, tooDeep);
  if (tooDeep) {
    emitError(peek().loc, "expression is nested too deeply");
    return nullptr;
  }
  if (at(TokenKind::kw_lambda))
    return parseLambda();
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
  case TokenKind::string:
  case TokenKind::fstring:
    return parseStrings();
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
    return parseLambda();
  default:
    errorExpected("an expression");
    return nullptr;
  }
}

ExprPtr Parser::parseLambda() {
  SMLoc loc = consume().loc;
  std::vector<Parameter> params;
  if (!parseParameters(TokenKind::colon, /*annotations=*/false, params))
    return nullptr;
  if (!expect(TokenKind::colon, "':'"))
    return nullptr;
  ExprPtr body = parseTest();
  if (!body)
    return nullptr;
  const Expr *bodyExpr = body.get();
  Block block;
  block.push_back(
      std::make_unique<ReturnStmt>(body->getLoc(), std::move(body)));
  auto def = std::make_unique<FunctionDefStmt>(
      loc, "<lambda>", loc, std::vector<ExprPtr>(), std::move(params), nullptr,
      std::move(block));
  return checkHeight(
      std::make_unique<LambdaExpr>(loc, std::move(def), bodyExpr));
}

ExprPtr Parser::parseStrings() {
  SMLoc loc = peek().loc;
  std::vector<std::string> pieces = {""};
  std::vector<FStringExpr::Field> fields;
  bool formatted = false;
  while (at(TokenKind::string) || at(TokenKind::fstring)) {
    Token token = consume();
    if (token.is(TokenKind::string)) {
      pieces.back() += token.stringValue;
      continue;
    }
    formatted = true;
    pieces.back() += token.fstringPieces.front();
    for (auto [i, field] : llvm::enumerate(token.fstringFields)) {
      // `{x=}` writes the expression's text, then its value (its repr
      // unless a conversion or a format is given), as Python 3.8 does.
      StringRef expression = field.expression;
      char conversion = field.conversion;
      StringRef trimmed = expression.rtrim();
      if (trimmed.ends_with("=") && !trimmed.ends_with("==") &&
          !trimmed.ends_with("!=") && !trimmed.ends_with("<=") &&
          !trimmed.ends_with(">=")) {
        pieces.back() += expression.str();
        expression = trimmed.drop_back();
        if (!conversion && field.spec.empty())
          conversion = 'r';
      }
      Parser inner(source, expression);
      ExprPtr value = inner.parseTestList();
      if (!value)
        return nullptr;
      if (!inner.at(TokenKind::eof)) {
        inner.errorExpected("'}' after the f-string's expression");
        return nullptr;
      }
      fields.push_back({std::move(value), conversion, field.spec});
      pieces.push_back(token.fstringPieces[i + 1]);
    }
  }
  if (!formatted)
    return std::make_unique<StringExpr>(loc, std::move(pieces.front()));
  return checkHeight(
      std::make_unique<FStringExpr>(loc, std::move(pieces), std::move(fields)));
}

ExprPtr Parser::parseComprehension(SMLoc loc, ComprehensionExpr::Form form,
                                   ExprPtr element, ExprPtr value) {
  std::vector<ComprehensionExpr::Clause> clauses;
  while (consumeIf(TokenKind::kw_for)) {
    ComprehensionExpr::Clause clause;
    clause.target = parseForTarget();
    if (!clause.target || !expect(TokenKind::kw_in, "'in'"))
      return nullptr;
    // As in Python: no conditional expression without parentheses here,
    // so that `if` starts a condition.
    clause.iter = parseOrTest();
    if (!clause.iter)
      return nullptr;
    while (consumeIf(TokenKind::kw_if)) {
      ExprPtr condition = parseOrTest();
      if (!condition)
        return nullptr;
      clause.conditions.push_back(std::move(condition));
    }
    clauses.push_back(std::move(clause));
  }
  return checkHeight(std::make_unique<ComprehensionExpr>(
      loc, form, std::move(element), std::move(value), std::move(clauses)));
}

ExprPtr Parser::parseParenthesized() {
  SMLoc loc = consume().loc;
  if (consumeIf(TokenKind::r_paren))
    return std::make_unique<TupleExpr>(loc, std::vector<ExprPtr>());
  ExprPtr first = parseStarredOrTest();
  if (first && !at(TokenKind::comma))
    first = rejectLoneStarred(std::move(first));
  if (!first)
    return nullptr;
  if (at(TokenKind::kw_for)) {
    ExprPtr generator = parseComprehension(
        loc, ComprehensionExpr::Form::Generator, std::move(first), nullptr);
    if (!generator || !expect(TokenKind::r_paren, "')'"))
      return nullptr;
    return generator;
  }
  if (consumeIf(TokenKind::r_paren))
    return first;
  std::vector<ExprPtr> elements;
  elements.push_back(std::move(first));
  while (consumeIf(TokenKind::comma)) {
    if (at(TokenKind::r_paren))
      break;
    ExprPtr element = parseStarredOrTest();
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
    ExprPtr element = parseStarredOrTest();
    if (!element)
      return nullptr;
    if (at(TokenKind::kw_for) && elements.empty() &&
        !llvm::isa<StarredExpr>(*element)) {
      ExprPtr list = parseComprehension(loc, ComprehensionExpr::Form::List,
                                        std::move(element), nullptr);
      if (!list || !expect(TokenKind::r_square, "']'"))
        return nullptr;
      return list;
    }
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
    if (consumeIf(TokenKind::star_star)) {
      ExprPtr mapping = parseTest();
      if (!mapping)
        return nullptr;
      keys.push_back(nullptr);
      values.push_back(std::move(mapping));
      if (!consumeIf(TokenKind::comma))
        break;
      continue;
    }
    if (keys.empty() && at(TokenKind::star))
      return parseSetDisplay(loc, nullptr);
    ExprPtr key = parseTest();
    if (!key)
      return nullptr;
    if (keys.empty() && !at(TokenKind::colon))
      return parseSetDisplay(loc, std::move(key));
    if (!expect(TokenKind::colon, "':'"))
      return nullptr;
    ExprPtr value = parseTest();
    if (!value)
      return nullptr;
    if (at(TokenKind::kw_for) && keys.empty()) {
      ExprPtr dict = parseComprehension(loc, ComprehensionExpr::Form::Dict,
                                        std::move(key), std::move(value));
      if (!dict || !expect(TokenKind::r_brace, "'}'"))
        return nullptr;
      return dict;
    }
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

ExprPtr Parser::parseSetDisplay(SMLoc loc, ExprPtr first) {
  if (first && at(TokenKind::kw_for)) {
    ExprPtr set = parseComprehension(loc, ComprehensionExpr::Form::Set,
                                     std::move(first), nullptr);
    if (!set || !expect(TokenKind::r_brace, "'}'"))
      return nullptr;
    return set;
  }
  std::vector<ExprPtr> elements;
  bool more = true;
  if (first) {
    elements.push_back(std::move(first));
    more = consumeIf(TokenKind::comma);
  }
  while (more && !at(TokenKind::r_brace)) {
    ExprPtr element = parseStarredOrTest();
    if (!element)
      return nullptr;
    elements.push_back(std::move(element));
    more = consumeIf(TokenKind::comma);
  }
  if (!expect(TokenKind::r_brace, "'}'"))
    return nullptr;
  return checkHeight(
      std::make_unique<ListExpr>(loc, std::move(elements), /*isSet=*/true));
}

ExprPtr Parser::parseCall(ExprPtr callee) {
  SMLoc paren = consume().loc;
  SMLoc loc = callee->getLoc();
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
  while (!at(TokenKind::r_paren)) {
    if (at(TokenKind::star_star)) {
      Keyword keyword;
      keyword.loc = consume().loc;
      keyword.value = parseTest();
      if (!keyword.value)
        return nullptr;
      keywords.push_back(std::move(keyword));
    } else if (at(TokenKind::star)) {
      SMLoc starLoc = consume().loc;
      ExprPtr value = parseTest();
      if (!value)
        return nullptr;
      if (llvm::any_of(keywords,
                       [](const Keyword &k) { return k.name.empty(); })) {
        emitError(starLoc, "iterable argument unpacking follows keyword "
                           "argument unpacking");
        return nullptr;
      }
      args.push_back(std::make_unique<StarredExpr>(starLoc, std::move(value)));
    } else if (at(TokenKind::identifier) && peek(1).is(TokenKind::equal)) {
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
      // A generator as the only argument needs no parentheses of its own.
      if (at(TokenKind::kw_for)) {
        if (!args.empty() || !keywords.empty()) {
          emitError(peek().loc, "a generator argument needs parentheses "
                                "unless it is the only argument");
          return nullptr;
        }
        SMLoc argLoc = arg->getLoc();
        arg = parseComprehension(argLoc, ComprehensionExpr::Form::Generator,
                                 std::move(arg), nullptr);
        if (!arg)
          return nullptr;
        if (!at(TokenKind::r_paren)) {
          emitError(peek().loc, "a generator argument needs parentheses "
                                "unless it is the only argument");
          return nullptr;
        }
      }
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
