//===- IndexFormulas.cpp - Integer formulas of a kernel's values ----------===//
//
// Part of tilec. Z3's C API, through a context whose terms live as long as
// it does (Z3_mk_context), so that formulas need no reference counting.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/IndexFormulas.h"
#include "IndexFormulasImpl.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/bit.h"

#include <algorithm>
#include <functional>
#include <z3.h>

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

IndexFormulas::IndexFormulas(unsigned resourceLimit)
    : impl(std::make_unique<Impl>(resourceLimit)) {}

IndexFormulas::~IndexFormulas() = default;

/// The truth of `a < b` where the bounds decide it.
static std::optional<bool> lessThan(const Formula &a, const Formula &b) {
  if (a.hi && b.lo && *a.hi < *b.lo)
    return true;
  if (a.lo && b.hi && *a.lo >= *b.hi)
    return false;
  return std::nullopt;
}

Formula IndexFormulas::variable(StringRef name, VariableKind kind,
                                std::optional<int64_t> lo,
                                std::optional<int64_t> hi) {
  unsigned index = vars.size();
  vars.push_back({name.str(), kind, lo, hi});
  Z3_ast ast =
      Z3_mk_const(impl->ctx, Z3_mk_int_symbol(impl->ctx, index), impl->intSort);
  varAsts.push_back(fromAst(ast));
  return variableFormula(index);
}

Formula IndexFormulas::variableFormula(unsigned index) const {
  Formula formula;
  formula.ast = varAsts[index];
  formula.variables.push_back(index);
  formula.exact = vars[index].kind != VariableKind::Opaque;
  formula.lo = vars[index].lo;
  formula.hi = vars[index].hi;
  return formula;
}

void IndexFormulas::bind(Value value, const Formula &formula) {
  memo[value] = formula;
}

Formula IndexFormulas::derive(void *ast, ArrayRef<const Formula *> operands,
                              void *exactWhen) {
  Formula result;
  result.ast = ast;
  for (const Formula *operand : operands) {
    result.exact &= operand->exact;
    llvm::append_range(result.variables, operand->variables);
    llvm::append_range(result.exactWhen, operand->exactWhen);
    for (void *definition : operand->definitions)
      if (!llvm::is_contained(result.definitions, definition))
        result.definitions.push_back(definition);
  }
  llvm::sort(result.variables);
  result.variables.erase(llvm::unique(result.variables),
                         result.variables.end());
  if (exactWhen)
    result.exactWhen.push_back(exactWhen);
  return result;
}

Formula IndexFormulas::constant(int64_t value) {
  Formula formula;
  void *&ast = constants[value];
  if (!ast)
    ast = fromAst(Z3_mk_int64(impl->ctx, value, impl->intSort));
  formula.ast = ast;
  formula.lo = formula.hi = value;
  return formula;
}

Formula IndexFormulas::boolean(bool value) {
  Formula formula;
  formula.ast = fromAst(value ? Z3_mk_true(impl->ctx) : Z3_mk_false(impl->ctx));
  formula.known = value;
  return formula;
}

Formula IndexFormulas::add(const Formula &a, const Formula &b) {
  Z3_ast args[] = {toAst(a.ast), toAst(b.ast)};
  Formula result = derive(fromAst(Z3_mk_add(impl->ctx, 2, args)), {&a, &b});
  if (a.lo && b.lo)
    result.lo = bounded(__int128(*a.lo) + *b.lo);
  if (a.hi && b.hi)
    result.hi = bounded(__int128(*a.hi) + *b.hi);
  return result;
}

Formula IndexFormulas::sub(const Formula &a, const Formula &b) {
  Z3_ast args[] = {toAst(a.ast), toAst(b.ast)};
  Formula result = derive(fromAst(Z3_mk_sub(impl->ctx, 2, args)), {&a, &b});
  if (a.lo && b.hi)
    result.lo = bounded(__int128(*a.lo) - *b.hi);
  if (a.hi && b.lo)
    result.hi = bounded(__int128(*a.hi) - *b.lo);
  return result;
}

Formula IndexFormulas::mul(const Formula &a, const Formula &b) {
  Z3_ast args[] = {toAst(a.ast), toAst(b.ast)};
  Formula result = derive(fromAst(Z3_mk_mul(impl->ctx, 2, args)), {&a, &b});
  if (a.lo && a.hi && b.lo && b.hi) {
    __int128 corners[] = {__int128(*a.lo) * *b.lo, __int128(*a.lo) * *b.hi,
                          __int128(*a.hi) * *b.lo, __int128(*a.hi) * *b.hi};
    result.lo =
        bounded(*std::min_element(std::begin(corners), std::end(corners)));
    result.hi =
        bounded(*std::max_element(std::begin(corners), std::end(corners)));
  } else if (a.nonNegative() && b.nonNegative()) {
    // Products of non-negative factors are at least the product of their
    // lower bounds, whatever the upper ones.
    result.lo = bounded(__int128(*a.lo) * *b.lo);
  }
  return result;
}

Formula IndexFormulas::floorDiv(const Formula &a, int64_t b) {
  assert(b > 0 && "floorDiv by a positive constant");
  // A quotient the bounds fix is a constant: the prover's work grows with
  // every division it sees (thread / 128 in a block of 128).
  if (b == 1)
    return a;
  if (a.lo && a.hi &&
      llvm::divideFloorSigned(*a.lo, b) == llvm::divideFloorSigned(*a.hi, b)) {
    // Of `a`'s variables and exactness still, for counter-examples.
    int64_t quotient = llvm::divideFloorSigned(*a.lo, b);
    Formula result = derive(constant(quotient).ast, {&a});
    result.lo = result.hi = quotient;
    return result;
  }
  // For a positive divisor, Z3's integer division is the floor.
  Formula result = derive(
      fromAst(Z3_mk_div(impl->ctx, toAst(a.ast), toAst(constant(b).ast))),
      {&a});
  if (a.lo)
    result.lo = llvm::divideFloorSigned(*a.lo, b);
  if (a.hi)
    result.hi = llvm::divideFloorSigned(*a.hi, b);
  return result;
}

Formula IndexFormulas::mod(const Formula &a, int64_t b) {
  assert(b > 0 && "mod by a positive constant");
  if (a.lo && a.hi && *a.lo >= 0 && *a.hi < b)
    return a;
  Formula result = derive(
      fromAst(Z3_mk_mod(impl->ctx, toAst(a.ast), toAst(constant(b).ast))),
      {&a});
  result.lo = 0;
  result.hi = b - 1;
  if (a.lo && a.hi && *a.lo >= 0 && *a.hi < b) {
    result.lo = a.lo;
    result.hi = a.hi;
  }
  return result;
}

Formula IndexFormulas::bitXor(const Formula &a, const Formula &b) {
  if (!a.nonNegative() || !b.nonNegative() || (!a.hi && !b.hi))
    return Formula();
  // `low` has the fewer bits; the bits of `high` above them pass through.
  bool aIsLow = a.hi && (!b.hi || *a.hi <= *b.hi);
  const Formula &low = aIsLow ? a : b;
  const Formula &high = aIsLow ? b : a;
  unsigned bits = llvm::bit_width(static_cast<uint64_t>(*low.hi));
  if (bits > kMaxXorBits)
    return Formula();
  if (bits == 0)
    return high;
  Z3_context ctx = impl->ctx;
  auto times = [&](int64_t factor, Z3_ast x) {
    Z3_ast args[] = {toAst(constant(factor).ast), x};
    return Z3_mk_mul(ctx, 2, args);
  };
  auto between = [&](int64_t lo, const Formula &x, std::optional<int64_t> hi,
                     SmallVectorImpl<Z3_ast> &into) {
    into.push_back(Z3_mk_le(ctx, toAst(constant(lo).ast), toAst(x.ast)));
    if (hi)
      into.push_back(Z3_mk_le(ctx, toAst(x.ast), toAst(constant(*hi).ast)));
  };
  // high = upper * 2^bits + sum(highBit_i * 2^i) and low =
  // sum(lowBit_i * 2^i); bit i of the result is whether bits i differ.
  std::optional<int64_t> upperHi;
  if (high.hi)
    upperHi = *high.hi >> bits;
  Formula upper = variable("", VariableKind::Auxiliary, 0, upperHi);
  SmallVector<Formula> parts{upper};
  SmallVector<Z3_ast> definitions;
  between(0, upper, upperHi, definitions);
  Z3_ast upperPart = times(int64_t(1) << bits, toAst(upper.ast));
  SmallVector<Z3_ast> highSum{upperPart}, lowSum, resultSum{upperPart};
  for (unsigned i = 0; i < bits; ++i) {
    Formula highBit = variable("", VariableKind::Auxiliary, 0, 1);
    Formula lowBit = variable("", VariableKind::Auxiliary, 0, 1);
    between(0, highBit, 1, definitions);
    between(0, lowBit, 1, definitions);
    parts.push_back(highBit);
    parts.push_back(lowBit);
    int64_t weight = int64_t(1) << i;
    highSum.push_back(times(weight, toAst(highBit.ast)));
    lowSum.push_back(times(weight, toAst(lowBit.ast)));
    Z3_ast differ =
        Z3_mk_ite(ctx, Z3_mk_eq(ctx, toAst(highBit.ast), toAst(lowBit.ast)),
                  toAst(constant(0).ast), toAst(constant(1).ast));
    resultSum.push_back(times(weight, differ));
  }
  definitions.push_back(Z3_mk_eq(
      ctx, toAst(high.ast), Z3_mk_add(ctx, highSum.size(), highSum.data())));
  definitions.push_back(Z3_mk_eq(ctx, toAst(low.ast),
                                 Z3_mk_add(ctx, lowSum.size(), lowSum.data())));
  SmallVector<const Formula *> operands{&a, &b};
  for (const Formula &part : parts)
    operands.push_back(&part);
  Formula result = derive(
      fromAst(Z3_mk_add(ctx, resultSum.size(), resultSum.data())), operands);
  for (Z3_ast definition : definitions)
    result.definitions.push_back(fromAst(definition));
  result.lo = 0;
  if (upperHi)
    result.hi =
        bounded((__int128(*upperHi) << bits) + (int64_t(1) << bits) - 1);
  return result;
}

Formula IndexFormulas::lt(const Formula &a, const Formula &b) {
  Formula result = derive(
      fromAst(Z3_mk_lt(impl->ctx, toAst(a.ast), toAst(b.ast))), {&a, &b});
  result.known = lessThan(a, b);
  return result;
}

Formula IndexFormulas::le(const Formula &a, const Formula &b) {
  Formula result = derive(
      fromAst(Z3_mk_le(impl->ctx, toAst(a.ast), toAst(b.ast))), {&a, &b});
  if (std::optional<bool> greater = lessThan(b, a))
    result.known = !*greater;
  return result;
}

Formula IndexFormulas::eq(const Formula &a, const Formula &b) {
  Formula result = derive(
      fromAst(Z3_mk_eq(impl->ctx, toAst(a.ast), toAst(b.ast))), {&a, &b});
  if (lessThan(a, b) == true || lessThan(b, a) == true)
    result.known = false;
  else if (a.lo && a.lo == a.hi && b.lo && b.lo == b.hi)
    result.known = *a.lo == *b.lo;
  return result;
}

Formula IndexFormulas::logicalAnd(const Formula &a, const Formula &b) {
  Z3_ast args[] = {toAst(a.ast), toAst(b.ast)};
  Formula result = derive(fromAst(Z3_mk_and(impl->ctx, 2, args)), {&a, &b});
  if (a.known == false || b.known == false)
    result.known = false;
  else if (a.known == true && b.known == true)
    result.known = true;
  return result;
}

Formula IndexFormulas::logicalOr(const Formula &a, const Formula &b) {
  Z3_ast args[] = {toAst(a.ast), toAst(b.ast)};
  Formula result = derive(fromAst(Z3_mk_or(impl->ctx, 2, args)), {&a, &b});
  if (a.known == true || b.known == true)
    result.known = true;
  else if (a.known == false && b.known == false)
    result.known = false;
  return result;
}

Formula IndexFormulas::logicalNot(const Formula &a) {
  Formula result = derive(fromAst(Z3_mk_not(impl->ctx, toAst(a.ast))), {&a});
  if (a.known)
    result.known = !*a.known;
  return result;
}

Formula IndexFormulas::select(const Formula &cond, const Formula &a,
                              const Formula &b) {
  Formula result = derive(fromAst(Z3_mk_ite(impl->ctx, toAst(cond.ast),
                                            toAst(a.ast), toAst(b.ast))),
                          {&cond, &a, &b});
  if (cond.known) {
    const Formula &chosen = *cond.known ? a : b;
    result.lo = chosen.lo;
    result.hi = chosen.hi;
    result.known = chosen.known;
  } else {
    if (a.lo && b.lo)
      result.lo = std::min(*a.lo, *b.lo);
    if (a.hi && b.hi)
      result.hi = std::max(*a.hi, *b.hi);
    if (a.known && a.known == b.known)
      result.known = a.known;
  }
  return result;
}

void IndexFormulas::addFact(const Formula &fact) {
  for (unsigned var : fact.variables) {
    if (factsByVariable.size() <= var)
      factsByVariable.resize(var + 1);
    factsByVariable[var].push_back(facts.size());
  }
  facts.push_back(fact);
}

Formula IndexFormulas::copy(const Formula &formula, VariableCopies &copies) {
  // A variable's copy never changes once made: a formula's copy with the
  // same copies is the same.
  auto key = std::make_pair(formula.ast, static_cast<const void *>(&copies));
  if (auto it = copyMemo.find(key); it != copyMemo.end()) {
    Formula result = it->second;
    result.lo = formula.lo;
    result.hi = formula.hi;
    result.known = formula.known;
    return result;
  }
  Formula result = copyUncached(formula, copies);
  copyMemo[key] = result;
  return result;
}

Formula IndexFormulas::copyUncached(const Formula &formula,
                                    VariableCopies &copies) {
  SmallVector<Z3_ast> from, to;
  Formula result = formula;
  for (unsigned &index : result.variables) {
    if (vars[index].kind == VariableKind::Dimension)
      continue;
    unsigned copied;
    auto it = copies.find(index);
    if (it != copies.end()) {
      copied = it->second;
    } else {
      Variable original = vars[index];
      copied = variable(original.name, original.kind, original.lo, original.hi)
                   .variables.front();
      copies[index] = copied;
      // The copy's range: the facts about the original (facts added from
      // here on are about copies, and are not visited).
      for (size_t i = 0, e = facts.size(); i != e; ++i) {
        if (!llvm::is_contained(facts[i].variables, index))
          continue;
        Formula fact = facts[i];
        addFact(copy(fact, copies));
      }
    }
    from.push_back(toAst(varAsts[index]));
    to.push_back(toAst(varAsts[copied]));
    index = copied;
  }
  llvm::sort(result.variables);
  if (from.empty())
    return result;
  auto substitute = [&](void *ast) {
    return fromAst(Z3_substitute(impl->ctx, toAst(ast), from.size(),
                                 from.data(), to.data()));
  };
  result.ast = substitute(result.ast);
  for (void *&condition : result.exactWhen)
    condition = substitute(condition);
  for (void *&definition : result.definitions)
    definition = substitute(definition);
  return result;
}

Formula IndexFormulas::opaque(Value value, bool isBool) {
  if (!isBool)
    return variable("", VariableKind::Opaque);
  Formula formula;
  formula.ast = fromAst(Z3_mk_fresh_const(impl->ctx, "opaque", impl->boolSort));
  formula.exact = false;
  return formula;
}

Formula IndexFormulas::of(Value value) {
  auto it = memo.find(value);
  if (it != memo.end())
    return it->second;
  Formula formula = translate(value);
  memo[value] = formula;
  return formula;
}

/// The formula of an affine expression over `operands` (dims, then symbols).
static Formula affineFormula(IndexFormulas &f, AffineExpr expr,
                             ArrayRef<Formula> dims, ArrayRef<Formula> syms,
                             bool &modelled) {
  if (auto c = dyn_cast<AffineConstantExpr>(expr))
    return f.constant(c.getValue());
  if (auto d = dyn_cast<AffineDimExpr>(expr))
    return dims[d.getPosition()];
  if (auto s = dyn_cast<AffineSymbolExpr>(expr))
    return syms[s.getPosition()];
  auto bin = cast<AffineBinaryOpExpr>(expr);
  Formula lhs = affineFormula(f, bin.getLHS(), dims, syms, modelled);
  Formula rhs = affineFormula(f, bin.getRHS(), dims, syms, modelled);
  auto rhsConstant = dyn_cast<AffineConstantExpr>(bin.getRHS());
  switch (bin.getKind()) {
  case AffineExprKind::Add:
    return f.add(lhs, rhs);
  case AffineExprKind::Mul:
    return f.mul(lhs, rhs);
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv:
  case AffineExprKind::Mod:
    if (!rhsConstant || rhsConstant.getValue() <= 0) {
      modelled = false;
      return lhs;
    }
    if (bin.getKind() == AffineExprKind::Mod)
      return f.mod(lhs, rhsConstant.getValue());
    if (bin.getKind() == AffineExprKind::FloorDiv)
      return f.floorDiv(lhs, rhsConstant.getValue());
    return f.floorDiv(f.add(lhs, f.constant(rhsConstant.getValue() - 1)),
                      rhsConstant.getValue());
  default:
    modelled = false;
    return lhs;
  }
}

Formula IndexFormulas::affine(AffineExpr expr, ArrayRef<Formula> dims,
                              ArrayRef<Formula> symbols) {
  bool modelled = true;
  Formula result = affineFormula(*this, expr, dims, symbols, modelled);
  return modelled ? result : Formula();
}

Formula IndexFormulas::translate(Value value) {
  Type type = value.getType();
  bool isBool = type.isInteger(1);
  if (!type.isIntOrIndex())
    return opaque(value, isBool);
  APInt constantValue;
  if (matchPattern(value, m_ConstantInt(&constantValue))) {
    if (isBool)
      return boolean(!constantValue.isZero());
    if (constantValue.getSignificantBits() <= 64)
      return constant(constantValue.getSExtValue());
    return opaque(value, isBool);
  }
  Operation *op = value.getDefiningOp();
  if (!op)
    return opaque(value, isBool);

  Z3_context ctx = impl->ctx;
  auto operand = [&](unsigned i) { return of(op->getOperand(i)); };
  auto positiveConstant = [&](unsigned i) -> std::optional<int64_t> {
    APInt divisor;
    if (matchPattern(op->getOperand(i), m_ConstantInt(&divisor)) &&
        divisor.isStrictlyPositive() && divisor.getSignificantBits() <= 63)
      return divisor.getSExtValue();
    return std::nullopt;
  };
  // Makes `result` exact where `a` is non-negative, unless it is known to be.
  auto exactIfNonNegative = [&](Formula &result, const Formula &a) {
    if (!a.nonNegative())
      result.exactWhen.push_back(
          fromAst(Z3_mk_ge(ctx, toAst(a.ast), toAst(constant(0).ast))));
  };

  if (isa<arith::AddIOp>(op))
    return add(operand(0), operand(1));
  if (isa<arith::SubIOp>(op))
    return sub(operand(0), operand(1));
  if (isa<arith::MulIOp>(op))
    return mul(operand(0), operand(1));
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(op) &&
      !isBool && !op->getOperand(0).getType().isInteger(1))
    return operand(0);
  if (isa<arith::SelectOp>(op))
    return select(operand(0), operand(1), operand(2));
  // A condition of `and` / `or` whose second operand is evaluated only
  // where the first lets it: the value of the branch the condition takes.
  if (auto ifOp = dyn_cast<scf::IfOp>(op); ifOp && isBool) {
    unsigned i = cast<OpResult>(value).getResultNumber();
    return select(of(ifOp.getCondition()), of(ifOp.thenYield().getOperand(i)),
                  of(ifOp.elseYield().getOperand(i)));
  }
  if (isa<arith::MinSIOp, arith::MaxSIOp, arith::MinUIOp, arith::MaxUIOp>(op)) {
    Formula a = operand(0), b = operand(1);
    bool min = isa<arith::MinSIOp, arith::MinUIOp>(op);
    Formula result = select(lt(a, b), min ? a : b, min ? b : a);
    if (isa<arith::MinUIOp, arith::MaxUIOp>(op)) {
      exactIfNonNegative(result, a);
      exactIfNonNegative(result, b);
    }
    return result;
  }
  if (isa<arith::DivUIOp, arith::RemUIOp, arith::DivSIOp, arith::RemSIOp,
          arith::FloorDivSIOp, arith::CeilDivSIOp, arith::CeilDivUIOp,
          arith::ShRUIOp, arith::ShRSIOp, arith::ShLIOp>(op)) {
    std::optional<int64_t> divisor = positiveConstant(1);
    bool shift = isa<arith::ShRUIOp, arith::ShRSIOp, arith::ShLIOp>(op);
    if (shift) {
      if (!divisor || *divisor > 62)
        return opaque(value, isBool);
      divisor = int64_t(1) << *divisor;
    }
    if (!divisor)
      return opaque(value, isBool);
    Formula a = operand(0);
    int64_t b = *divisor;
    if (isa<arith::ShLIOp>(op))
      return mul(a, constant(b));
    if (isa<arith::FloorDivSIOp, arith::ShRSIOp>(op))
      return floorDiv(a, b);
    if (isa<arith::CeilDivSIOp>(op))
      return floorDiv(add(a, constant(b - 1)), b);
    if (isa<arith::DivSIOp, arith::RemSIOp>(op)) {
      // Truncating division: toward zero.
      Formula negated = sub(constant(0), a);
      Formula quotient = select(le(constant(0), a), floorDiv(a, b),
                                sub(constant(0), floorDiv(negated, b)));
      if (isa<arith::DivSIOp>(op))
        return quotient;
      return sub(a, mul(quotient, constant(b)));
    }
    // Unsigned: what the IR computes for a non-negative dividend.
    Formula result = isa<arith::RemUIOp>(op) ? mod(a, b)
                     : isa<arith::CeilDivUIOp>(op)
                         ? floorDiv(add(a, constant(b - 1)), b)
                         : floorDiv(a, b);
    exactIfNonNegative(result, a);
    return result;
  }
  if (auto andOp = dyn_cast<arith::AndIOp>(op)) {
    if (isBool)
      return logicalAnd(operand(0), operand(1));
    // A mask of contiguous bits [shift, shift + width) of a non-negative
    // value: its quotient by 2^shift, modulo 2^width, in place.
    // A mask that clears the low k bits: the multiple of 2^k below.
    APInt clear;
    if (matchPattern(op->getOperand(1), m_ConstantInt(&clear)) &&
        clear.isNegative() && (-clear).isPowerOf2() &&
        (-clear).getSignificantBits() <= 63) {
      int64_t unit = (-clear).getSExtValue();
      Formula a = operand(0);
      Formula result = mul(floorDiv(a, unit), constant(unit));
      exactIfNonNegative(result, a);
      return result;
    }
    std::optional<int64_t> mask = positiveConstant(1);
    if (mask && llvm::isShiftedMask_64(*mask)) {
      unsigned shift = llvm::countr_zero(static_cast<uint64_t>(*mask));
      unsigned width = llvm::popcount(static_cast<uint64_t>(*mask));
      Formula a = operand(0);
      Formula result =
          mod(floorDiv(a, int64_t(1) << shift), int64_t(1) << width);
      if (shift)
        result = mul(result, constant(int64_t(1) << shift));
      exactIfNonNegative(result, a);
      return result;
    }
    return opaque(value, isBool);
  }
  if (isa<arith::XOrIOp>(op) && !isBool) {
    if (Formula result = bitXor(operand(0), operand(1)))
      return result;
    return opaque(value, isBool);
  }
  if (isa<arith::OrIOp>(op) && isBool)
    return logicalOr(operand(0), operand(1));
  if (isa<arith::XOrIOp>(op) && isBool) {
    Formula a = operand(0), b = operand(1);
    return logicalNot(
        derive(fromAst(Z3_mk_eq(ctx, toAst(a.ast), toAst(b.ast))), {&a, &b}));
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    Formula a = operand(0), b = operand(1);
    Formula zero = constant(0);
    // Unsigned order of two's-complement values: the negative ones are the
    // largest.
    auto unsignedLt = [&](const Formula &x, const Formula &y) {
      if (x.nonNegative() && y.nonNegative())
        return lt(x, y);
      return select(le(zero, x), select(le(zero, y), lt(x, y), boolean(true)),
                    select(le(zero, y), boolean(false), lt(x, y)));
    };
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::eq:
      return eq(a, b);
    case arith::CmpIPredicate::ne:
      return logicalNot(eq(a, b));
    case arith::CmpIPredicate::slt:
      return lt(a, b);
    case arith::CmpIPredicate::sle:
      return le(a, b);
    case arith::CmpIPredicate::sgt:
      return lt(b, a);
    case arith::CmpIPredicate::sge:
      return le(b, a);
    case arith::CmpIPredicate::ult:
      return unsignedLt(a, b);
    case arith::CmpIPredicate::ule:
      return logicalNot(unsignedLt(b, a));
    case arith::CmpIPredicate::ugt:
      return unsignedLt(b, a);
    case arith::CmpIPredicate::uge:
      return logicalNot(unsignedLt(a, b));
    }
  }
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    AffineMap map = apply.getAffineMap();
    SmallVector<Formula> dims, syms;
    for (auto [i, v] : llvm::enumerate(apply.getMapOperands()))
      (i < map.getNumDims() ? dims : syms).push_back(of(v));
    bool modelled = true;
    Formula result =
        affineFormula(*this, map.getResult(0), dims, syms, modelled);
    return modelled ? result : opaque(value, isBool);
  }
  if (auto tid = dyn_cast<gpu::ThreadIdOp>(op)) {
    std::optional<APInt> bound;
    if (auto upper = tid.getUpperBound())
      bound = *upper;
    if (tid.getDimension() != gpu::Dimension::x || !bound)
      return opaque(value, isBool);
    if (thread && thread->hi == bound->getSExtValue() - 1)
      return *thread;
    Formula t = variable("thread", VariableKind::ThreadIndex, 0,
                         bound->getSExtValue() - 1);
    addFact(le(constant(0), t));
    addFact(lt(t, constant(bound->getSExtValue())));
    if (!thread)
      thread = t;
    return t;
  }
  if (isa<gpu::LaneIdOp>(op)) {
    Formula lane = variable("lane", VariableKind::ThreadIndex, 0, 63);
    addFact(le(constant(0), lane));
    addFact(lt(lane, constant(64)));
    return lane;
  }
  return opaque(value, isBool);
}

Formula IndexFormulas::blockThread(int64_t count) {
  if (thread && thread->hi == count - 1)
    return *thread;
  Formula t = variable("thread", VariableKind::ThreadIndex, 0, count - 1);
  addFact(le(constant(0), t));
  addFact(lt(t, constant(count)));
  thread = t;
  return t;
}

Proof IndexFormulas::prove(ArrayRef<Formula> assumptions, const Formula &goal,
                           CounterExample *counterExample,
                           ArrayRef<Formula> evaluate) {
  // What the bounds decide needs no prover: a goal known to hold, or a
  // path no execution takes.
  if (goal.known == true || llvm::any_of(assumptions, [](const Formula &f) {
        return f.known == false;
      }))
    return Proof::Proved;
  // Unrolled code asks the same question many times; terms are shared, so
  // equal questions have equal keys.
  SmallVector<void *> key{goal.ast};
  for (const Formula &assumption : assumptions)
    key.push_back(assumption.ast);
  if (!counterExample) {
    auto cached = answers.find(key);
    if (cached != answers.end())
      return cached->second;
  }
  // Queries that run out of resources are few and far between in real
  // kernels; after a handful, the rest are not asked, so that a hostile
  // input cannot make compilation slow (each takes about 0.5 s).
  if (exhausted >= kMaxExhausted)
    return Proof::Unknown;
  Proof proof = solve(assumptions, goal, counterExample, evaluate);
  answers[key] = proof;
  return proof;
}

Proof IndexFormulas::solve(ArrayRef<Formula> assumptions, const Formula &goal,
                           CounterExample *counterExample,
                           ArrayRef<Formula> evaluate) {
  ++queries;
  Z3_context ctx = impl->ctx;
  Z3_solver solver = impl->solver;
  Z3_solver_push(ctx, solver);
  llvm::scope_exit popped([&] { Z3_solver_pop(ctx, solver, 1); });
  bool exact = goal.exact;
  SmallVector<Z3_ast> conditions;
  llvm::SmallSetVector<unsigned, 8> mentioned;
  llvm::SmallPtrSet<void *, 8> defined;
  auto note = [&](const Formula &f) {
    exact &= f.exact;
    for (void *c : f.exactWhen)
      conditions.push_back(toAst(c));
    for (void *definition : f.definitions)
      if (defined.insert(definition).second)
        Z3_solver_assert(ctx, solver, toAst(definition));
    mentioned.insert(f.variables.begin(), f.variables.end());
  };
  for (const Formula &assumption : assumptions) {
    Z3_solver_assert(ctx, solver, toAst(assumption.ast));
    note(assumption);
  }
  note(goal);
  // The facts about the variables the question mentions, and about those
  // the facts mention in turn; the others cannot change the answer.
  // Run-time dimensions always: counter-examples name them all.
  SmallVector<unsigned> pending(mentioned.begin(), mentioned.end());
  for (auto [index, var] : llvm::enumerate(vars))
    if (var.kind == VariableKind::Dimension)
      pending.push_back(index);
  llvm::DenseSet<unsigned> visited(pending.begin(), pending.end());
  llvm::SmallDenseSet<unsigned, 32> asserted;
  while (!pending.empty()) {
    unsigned var = pending.pop_back_val();
    if (var >= factsByVariable.size())
      continue;
    for (unsigned index : factsByVariable[var]) {
      if (!asserted.insert(index).second)
        continue;
      Z3_solver_assert(ctx, solver, toAst(facts[index].ast));
      for (unsigned other : facts[index].variables)
        if (visited.insert(other).second)
          pending.push_back(other);
    }
  }
  Z3_solver_assert(ctx, solver, Z3_mk_not(ctx, toAst(goal.ast)));
  if (impl->failed())
    return Proof::Unknown;
  Z3_lbool answer = Z3_solver_check(ctx, solver);
  if (answer == Z3_L_UNDEF)
    ++exhausted;
  if (answer == Z3_L_FALSE)
    return Proof::Proved;
  if (answer != Z3_L_TRUE || !exact)
    return Proof::Unknown;
  // A failure only where an unsigned operation sees a negative value, say,
  // is not one of the IR.
  if (!conditions.empty()) {
    for (Z3_ast c : conditions)
      Z3_solver_assert(ctx, solver, c);
    if (Z3_solver_check(ctx, solver) != Z3_L_TRUE)
      return Proof::Unknown;
  }
  if (!counterExample)
    return Proof::Refuted;
  Z3_model model = Z3_solver_get_model(ctx, solver);
  Z3_model_inc_ref(ctx, model);
  // The variables the query mentions, and the run-time dimensions, on
  // which the others' ranges depend.
  auto valueOf = [&](void *ast) -> std::optional<int64_t> {
    Z3_ast valueAst;
    int64_t v;
    if (Z3_model_eval(ctx, model, toAst(ast), true, &valueAst) &&
        Z3_get_numeral_int64(ctx, valueAst, &v))
      return v;
    return std::nullopt;
  };
  // Any model would do; the smallest is the easiest to follow, and does
  // not depend on how the prover got there. Each variable in turn, in the
  // order they were made (dimensions, blocks, thread, loops), takes its
  // least value, by bisection from its lower bound.
  unsigned checks = 0;
  for (auto [index, var] : llvm::enumerate(vars)) {
    if (var.kind == VariableKind::Opaque ||
        var.kind == VariableKind::Auxiliary || !var.lo ||
        (var.kind != VariableKind::Dimension && !mentioned.contains(index)))
      continue;
    std::optional<int64_t> current = valueOf(varAsts[index]);
    if (!current)
      continue;
    int64_t low = *var.lo;
    while (low < *current && checks < kMaxMinimizingChecks) {
      int64_t mid = low + (*current - low) / 2;
      ++checks;
      Z3_solver_push(ctx, solver);
      Z3_solver_assert(ctx, solver,
                       Z3_mk_le(ctx, toAst(varAsts[index]),
                                Z3_mk_int64(ctx, mid, impl->intSort)));
      if (Z3_solver_check(ctx, solver) == Z3_L_TRUE) {
        Z3_model smaller = Z3_solver_get_model(ctx, solver);
        Z3_model_inc_ref(ctx, smaller);
        Z3_model_dec_ref(ctx, model);
        model = smaller;
        current = valueOf(varAsts[index]).value_or(mid);
      } else {
        low = mid + 1;
      }
      Z3_solver_pop(ctx, solver, 1);
    }
    Z3_solver_assert(ctx, solver,
                     Z3_mk_eq(ctx, toAst(varAsts[index]),
                              Z3_mk_int64(ctx, *current, impl->intSort)));
  }
  for (auto [index, var] : llvm::enumerate(vars)) {
    if (var.kind == VariableKind::Opaque ||
        var.kind == VariableKind::Auxiliary ||
        (var.kind != VariableKind::Dimension && !mentioned.contains(index)))
      continue;
    if (std::optional<int64_t> v = valueOf(varAsts[index]))
      counterExample->variables.push_back({static_cast<unsigned>(index), *v});
  }
  for (const Formula &formula : evaluate)
    counterExample->values.push_back(valueOf(formula.ast).value_or(0));
  Z3_model_dec_ref(ctx, model);
  return Proof::Refuted;
}
