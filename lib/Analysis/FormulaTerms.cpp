//===- FormulaTerms.cpp - Sums of terms: bounds, reach and tables ---------===//
//
// Part of tilec. The questions about formulas that need no prover: sums
// normalized into terms (so that what cancels does), the bounds of terms,
// the values a sum of independent terms can reach, a sum split by the
// variables of its terms, and tables of a formula's values over small
// ranges of its variables.
//
//===----------------------------------------------------------------------===//

#include "IndexFormulasImpl.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

#include <functional>
#include <numeric>

using namespace mlir;
using namespace tilec;
using namespace tilec::detail;

/// Bounds of `ast` from those of the variables it is made of, where its
/// arithmetic is linear, or divides by positive constants.
static std::optional<std::pair<int64_t, int64_t>>
astBounds(Z3_context ctx, Z3_ast ast, ArrayRef<Variable> vars,
          DenseMap<void *, std::optional<std::pair<int64_t, int64_t>>> &memo) {
  auto it = memo.find(fromAst(ast));
  if (it != memo.end())
    return it->second;
  using Bounds = std::optional<std::pair<int64_t, int64_t>>;
  auto compute = [&]() -> Bounds {
    int64_t value;
    if (Z3_get_ast_kind(ctx, ast) == Z3_NUMERAL_AST)
      return Z3_get_numeral_int64(ctx, ast, &value) ? Bounds({value, value})
                                                    : Bounds();
    if (Z3_get_ast_kind(ctx, ast) != Z3_APP_AST)
      return std::nullopt;
    Z3_app app = Z3_to_app(ctx, ast);
    Z3_func_decl decl = Z3_get_app_decl(ctx, app);
    unsigned numArgs = Z3_get_app_num_args(ctx, app);
    auto arg = [&](unsigned i) {
      return astBounds(ctx, Z3_get_app_arg(ctx, app, i), vars, memo);
    };
    auto numeral = [&](unsigned i) -> std::optional<int64_t> {
      int64_t v;
      Z3_ast a = Z3_get_app_arg(ctx, app, i);
      if (Z3_get_ast_kind(ctx, a) == Z3_NUMERAL_AST &&
          Z3_get_numeral_int64(ctx, a, &v))
        return v;
      return std::nullopt;
    };
    switch (Z3_get_decl_kind(ctx, decl)) {
    case Z3_OP_UNINTERPRETED: {
      Z3_symbol name = Z3_get_decl_name(ctx, decl);
      if (numArgs != 0 || Z3_get_symbol_kind(ctx, name) != Z3_INT_SYMBOL)
        return std::nullopt;
      unsigned index = Z3_get_symbol_int(ctx, name);
      if (index >= vars.size() || !vars[index].lo || !vars[index].hi)
        return std::nullopt;
      return std::make_pair(*vars[index].lo, *vars[index].hi);
    }
    case Z3_OP_ADD:
    case Z3_OP_SUB: {
      Bounds first = arg(0);
      if (!first)
        return std::nullopt;
      __int128 lo = first->first, hi = first->second;
      bool add = Z3_get_decl_kind(ctx, decl) == Z3_OP_ADD;
      for (unsigned i = 1; i < numArgs; ++i) {
        Bounds next = arg(i);
        if (!next)
          return std::nullopt;
        lo += add ? next->first : -__int128(next->second);
        hi += add ? next->second : -__int128(next->first);
      }
      std::optional<int64_t> l = bounded(lo), h = bounded(hi);
      return l && h ? Bounds({*l, *h}) : Bounds();
    }
    case Z3_OP_UMINUS: {
      Bounds first = arg(0);
      if (!first)
        return std::nullopt;
      return Bounds({-first->second, -first->first});
    }
    case Z3_OP_MUL: {
      __int128 lo = 1, hi = 1;
      for (unsigned i = 0; i < numArgs; ++i) {
        Bounds next = arg(i);
        if (!next)
          return std::nullopt;
        __int128 corners[] = {lo * next->first, lo * next->second,
                              hi * next->first, hi * next->second};
        lo = *std::min_element(std::begin(corners), std::end(corners));
        hi = *std::max_element(std::begin(corners), std::end(corners));
        if (!bounded(lo) || !bounded(hi))
          return std::nullopt;
      }
      return Bounds({int64_t(lo), int64_t(hi)});
    }
    case Z3_OP_IDIV:
    case Z3_OP_MOD: {
      std::optional<int64_t> divisor = numeral(1);
      Bounds dividend = arg(0);
      if (!divisor || *divisor <= 0)
        return std::nullopt;
      if (Z3_get_decl_kind(ctx, decl) == Z3_OP_MOD) {
        if (dividend && dividend->first >= 0 && dividend->second < *divisor)
          return dividend;
        return Bounds({0, *divisor - 1});
      }
      if (!dividend)
        return std::nullopt;
      return Bounds({llvm::divideFloorSigned(dividend->first, *divisor),
                     llvm::divideFloorSigned(dividend->second, *divisor)});
    }
    case Z3_OP_ITE: {
      Bounds a = arg(1), b = arg(2);
      if (!a || !b)
        return std::nullopt;
      return Bounds(
          {std::min(a->first, b->first), std::max(a->second, b->second)});
    }
    default:
      return std::nullopt;
    }
  };
  Bounds bounds = compute();
  memo[fromAst(ast)] = bounds;
  return bounds;
}

/// The indices of the variables `ast` mentions.
static void collectVariables(Z3_context ctx, Z3_ast ast,
                             SmallVectorImpl<unsigned> &into) {
  if (Z3_get_ast_kind(ctx, ast) != Z3_APP_AST)
    return;
  Z3_app app = Z3_to_app(ctx, ast);
  Z3_func_decl decl = Z3_get_app_decl(ctx, app);
  unsigned numArgs = Z3_get_app_num_args(ctx, app);
  if (numArgs == 0 && Z3_get_decl_kind(ctx, decl) == Z3_OP_UNINTERPRETED) {
    Z3_symbol name = Z3_get_decl_name(ctx, decl);
    if (Z3_get_symbol_kind(ctx, name) == Z3_INT_SYMBOL)
      into.push_back(Z3_get_symbol_int(ctx, name));
    else
      into.push_back(~0u);
    return;
  }
  for (unsigned i = 0; i < numArgs; ++i)
    collectVariables(ctx, Z3_get_app_arg(ctx, app, i), into);
}

std::optional<IndexFormulas::LinearForm> IndexFormulas::linearize(void *ast) {
  auto it = linearMemo.find(ast);
  if (it != linearMemo.end())
    return it->second;
  Z3_context ctx = impl->ctx;
  LinearForm form;
  DenseMap<void *, __int128> coefficients;
  __int128 constantPart = 0;
  bool ok = true;
  std::function<void(Z3_ast, __int128)> add = [&](Z3_ast term, __int128 scale) {
    int64_t value;
    if (!ok)
      return;
    if (!bounded(scale)) {
      ok = false;
      return;
    }
    if (Z3_get_ast_kind(ctx, term) == Z3_NUMERAL_AST) {
      if (!Z3_get_numeral_int64(ctx, term, &value)) {
        ok = false;
        return;
      }
      constantPart += scale * value;
      return;
    }
    if (Z3_get_ast_kind(ctx, term) == Z3_APP_AST) {
      Z3_app app = Z3_to_app(ctx, term);
      unsigned numArgs = Z3_get_app_num_args(ctx, app);
      switch (Z3_get_decl_kind(ctx, Z3_get_app_decl(ctx, app))) {
      case Z3_OP_ADD:
        for (unsigned i = 0; i < numArgs; ++i)
          add(Z3_get_app_arg(ctx, app, i), scale);
        return;
      case Z3_OP_SUB:
        for (unsigned i = 0; i < numArgs; ++i)
          add(Z3_get_app_arg(ctx, app, i), i ? -scale : scale);
        return;
      case Z3_OP_UMINUS:
        add(Z3_get_app_arg(ctx, app, 0), -scale);
        return;
      case Z3_OP_MUL: {
        // A product with at most one factor that is not a numeral.
        __int128 factor = scale;
        Z3_ast rest = nullptr;
        for (unsigned i = 0; i < numArgs; ++i) {
          Z3_ast arg = Z3_get_app_arg(ctx, app, i);
          if (Z3_get_ast_kind(ctx, arg) == Z3_NUMERAL_AST &&
              Z3_get_numeral_int64(ctx, arg, &value)) {
            factor *= value;
            if (!bounded(factor)) {
              ok = false;
              return;
            }
          } else if (!rest) {
            rest = arg;
          } else {
            rest = term;
            factor = scale;
            break;
          }
        }
        if (rest == term)
          break;
        if (!rest) {
          constantPart += factor;
          return;
        }
        add(rest, factor);
        return;
      }
      default:
        break;
      }
    }
    coefficients[fromAst(term)] += scale;
  };
  add(toAst(ast), 1);
  std::optional<LinearForm> result;
  if (ok && bounded(constantPart)) {
    form.constant = static_cast<int64_t>(constantPart);
    for (auto [term, coefficient] : coefficients) {
      if (coefficient == 0)
        continue;
      if (!bounded(coefficient)) {
        ok = false;
        break;
      }
      form.terms.push_back({term, static_cast<int64_t>(coefficient)});
    }
    // Terms in the order Z3 made them, so that the same form is the same
    // term, in every run.
    llvm::sort(form.terms, [&](const auto &a, const auto &b) {
      return Z3_get_ast_id(ctx, toAst(a.first)) <
             Z3_get_ast_id(ctx, toAst(b.first));
    });
    if (ok)
      result = form;
  }
  linearMemo[ast] = result;
  return result;
}

Formula IndexFormulas::fromLinear(const Formula &original,
                                  const LinearForm &form) {
  Z3_context ctx = impl->ctx;
  SmallVector<Z3_ast> summands;
  __int128 lo = form.constant, hi = form.constant;
  bool bounds = true;
  for (auto [term, coefficient] : form.terms) {
    Z3_ast c = toAst(constant(coefficient).ast);
    Z3_ast args[] = {c, toAst(term)};
    summands.push_back(coefficient == 1 ? toAst(term)
                                        : Z3_mk_mul(ctx, 2, args));
    auto termBounds = astBounds(ctx, toAst(term), vars, boundsMemo);
    if (!termBounds) {
      bounds = false;
      continue;
    }
    __int128 a = __int128(coefficient) * termBounds->first;
    __int128 b = __int128(coefficient) * termBounds->second;
    lo += std::min(a, b);
    hi += std::max(a, b);
  }
  if (form.constant != 0 || summands.empty())
    summands.push_back(toAst(constant(form.constant).ast));
  Formula result = original;
  result.ast = fromAst(summands.size() == 1
                           ? summands.front()
                           : Z3_mk_add(ctx, summands.size(), summands.data()));
  if (bounds && bounded(lo) && bounded(hi)) {
    result.lo = std::max<int64_t>(lo, result.lo.value_or(lo));
    result.hi = std::min<int64_t>(hi, result.hi.value_or(hi));
  }
  return result;
}

Formula IndexFormulas::simplify(const Formula &formula) {
  if (Z3_get_sort_kind(impl->ctx, Z3_get_sort(impl->ctx, toAst(formula.ast))) !=
      Z3_INT_SORT)
    return formula;
  std::optional<LinearForm> form = linearize(formula.ast);
  if (!form)
    return formula;
  return fromLinear(formula, *form);
}

std::optional<IndexFormulas::Split>
IndexFormulas::split(const Formula &formula,
                     function_ref<bool(unsigned)> keep) {
  Z3_context ctx = impl->ctx;
  std::optional<LinearForm> form = linearize(formula.ast);
  if (!form)
    return std::nullopt;
  LinearForm kept;
  SmallVector<unsigned> keptVariables;
  __int128 restLo = form->constant, restHi = form->constant;
  for (auto [term, coefficient] : form->terms) {
    SmallVector<unsigned> termVariables;
    collectVariables(ctx, toAst(term), termVariables);
    if (llvm::all_of(termVariables, [&](unsigned var) {
          return var < vars.size() && keep(var);
        })) {
      kept.terms.push_back({term, coefficient});
      llvm::append_range(keptVariables, termVariables);
      continue;
    }
    auto bounds = astBounds(ctx, toAst(term), vars, boundsMemo);
    if (!bounds)
      return std::nullopt;
    __int128 a = __int128(coefficient) * bounds->first;
    __int128 b = __int128(coefficient) * bounds->second;
    restLo += std::min(a, b);
    restHi += std::max(a, b);
  }
  std::optional<int64_t> lo = bounded(restLo), hi = bounded(restHi);
  if (!lo || !hi)
    return std::nullopt;
  Formula keptFormula = formula;
  keptFormula.lo = keptFormula.hi = std::nullopt;
  keptFormula = fromLinear(keptFormula, kept);
  llvm::sort(keptVariables);
  keptVariables.erase(llvm::unique(keptVariables), keptVariables.end());
  keptFormula.variables.assign(keptVariables.begin(), keptVariables.end());
  return Split{keptFormula, *lo, *hi};
}

std::optional<std::pair<Formula, Formula>>
IndexFormulas::separate(const Formula &formula,
                        function_ref<bool(unsigned)> inFirst) {
  std::optional<LinearForm> form = linearize(formula.ast);
  if (!form)
    return std::nullopt;
  LinearForm first, second;
  first.constant = form->constant;
  SmallVector<unsigned> firstVariables, secondVariables;
  for (auto [term, coefficient] : form->terms) {
    SmallVector<unsigned> termVariables;
    collectVariables(impl->ctx, toAst(term), termVariables);
    bool anyFirst = false, anySecond = false;
    for (unsigned var : termVariables) {
      if (var >= vars.size())
        return std::nullopt;
      (inFirst(var) ? anyFirst : anySecond) = true;
    }
    if (anyFirst && anySecond)
      return std::nullopt;
    (anySecond ? second : first).terms.push_back({term, coefficient});
    llvm::append_range(anySecond ? secondVariables : firstVariables,
                       termVariables);
  }
  auto make = [&](const LinearForm &part, SmallVector<unsigned> &variables) {
    Formula result = formula;
    result.lo = result.hi = std::nullopt;
    result = fromLinear(result, part);
    llvm::sort(variables);
    variables.erase(llvm::unique(variables), variables.end());
    result.variables.assign(variables.begin(), variables.end());
    return result;
  };
  return std::make_pair(make(first, firstVariables),
                        make(second, secondVariables));
}

namespace {
/// A formula compiled for evaluation at many points: instructions in
/// dependency order, each writing the register of its own index.
struct Program {
  enum Op {
    Constant,
    Load,
    Add,
    Sub,
    Neg,
    Mul,
    Div,
    Mod,
    Ite,
    Eq,
    Le,
    Lt,
    And,
    Or,
    Not
  };
  struct Instruction {
    Op op;
    /// Operand registers.
    unsigned a = 0, b = 0, c = 0;
    /// A constant's value, a divisor, or the slot of a loaded variable.
    int64_t immediate = 0;
  };
  std::vector<Instruction> code;
};

/// Compiles `ast`; the variables it loads are numbered by `slots`.
std::optional<unsigned> compile(Z3_context ctx, Z3_ast ast,
                                const DenseMap<unsigned, unsigned> &slots,
                                Program &program,
                                DenseMap<void *, unsigned> &done) {
  if (auto it = done.find(fromAst(ast)); it != done.end())
    return it->second;
  using Op = Program::Op;
  auto emit = [&](Op op, unsigned a = 0, unsigned b = 0, unsigned c = 0,
                  int64_t immediate = 0) {
    program.code.push_back({op, a, b, c, immediate});
    return static_cast<unsigned>(program.code.size() - 1);
  };
  int64_t value;
  std::optional<unsigned> result;
  if (Z3_get_ast_kind(ctx, ast) == Z3_NUMERAL_AST) {
    if (!Z3_get_numeral_int64(ctx, ast, &value))
      return std::nullopt;
    result = emit(Op::Constant, 0, 0, 0, value);
  } else if (Z3_get_ast_kind(ctx, ast) == Z3_APP_AST) {
    Z3_app app = Z3_to_app(ctx, ast);
    Z3_func_decl decl = Z3_get_app_decl(ctx, app);
    unsigned numArgs = Z3_get_app_num_args(ctx, app);
    Z3_decl_kind kind = Z3_get_decl_kind(ctx, decl);
    SmallVector<unsigned, 4> args;
    if (kind != Z3_OP_UNINTERPRETED)
      for (unsigned i = 0; i < numArgs; ++i) {
        std::optional<unsigned> arg =
            compile(ctx, Z3_get_app_arg(ctx, app, i), slots, program, done);
        if (!arg)
          return std::nullopt;
        args.push_back(*arg);
      }
    // n-ary operators as chains of binary ones.
    auto chain = [&](Op op) {
      unsigned acc = args[0];
      for (unsigned i = 1; i < args.size(); ++i)
        acc = emit(op, acc, args[i]);
      return acc;
    };
    switch (kind) {
    case Z3_OP_UNINTERPRETED: {
      Z3_symbol name = Z3_get_decl_name(ctx, decl);
      if (numArgs || Z3_get_symbol_kind(ctx, name) != Z3_INT_SYMBOL)
        return std::nullopt;
      auto slot = slots.find(Z3_get_symbol_int(ctx, name));
      if (slot == slots.end())
        return std::nullopt;
      // The slot is an immediate: operands a, b and c name registers.
      result = emit(Op::Load, 0, 0, 0, slot->second);
      break;
    }
    case Z3_OP_TRUE:
    case Z3_OP_FALSE:
      result = emit(Op::Constant, 0, 0, 0, kind == Z3_OP_TRUE);
      break;
    case Z3_OP_ADD:
      result = chain(Op::Add);
      break;
    case Z3_OP_SUB:
      result = chain(Op::Sub);
      break;
    case Z3_OP_MUL:
      result = chain(Op::Mul);
      break;
    case Z3_OP_AND:
      result = chain(Op::And);
      break;
    case Z3_OP_OR:
      result = chain(Op::Or);
      break;
    case Z3_OP_UMINUS:
      result = emit(Op::Neg, args[0]);
      break;
    case Z3_OP_NOT:
      result = emit(Op::Not, args[0]);
      break;
    case Z3_OP_IDIV:
    case Z3_OP_MOD: {
      const Program::Instruction &divisor = program.code[args[1]];
      if (divisor.op != Op::Constant || divisor.immediate <= 0)
        return std::nullopt;
      result = emit(kind == Z3_OP_IDIV ? Op::Div : Op::Mod, args[0], 0, 0,
                    divisor.immediate);
      break;
    }
    case Z3_OP_ITE:
      result = emit(Op::Ite, args[0], args[1], args[2]);
      break;
    case Z3_OP_EQ:
      result = emit(Op::Eq, args[0], args[1]);
      break;
    case Z3_OP_LE:
      result = emit(Op::Le, args[0], args[1]);
      break;
    case Z3_OP_LT:
      result = emit(Op::Lt, args[0], args[1]);
      break;
    case Z3_OP_GE:
      result = emit(Op::Le, args[1], args[0]);
      break;
    case Z3_OP_GT:
      result = emit(Op::Lt, args[1], args[0]);
      break;
    default:
      return std::nullopt;
    }
  }
  if (result)
    done[fromAst(ast)] = *result;
  return result;
}
} // namespace

std::pair<Formula, int64_t>
IndexFormulas::splitConstant(const Formula &formula) {
  std::optional<LinearForm> form = linearize(formula.ast);
  if (!form || form->constant == 0)
    return {formula, 0};
  LinearForm terms = *form;
  terms.constant = 0;
  Formula rest = formula;
  rest.lo = rest.hi = std::nullopt;
  return {fromLinear(rest, terms), form->constant};
}

std::optional<ArrayRef<int64_t>>
IndexFormulas::tabulate(const Formula &formula, ArrayRef<unsigned> variables,
                        int64_t maxAssignments) {
  int64_t count = 1;
  DenseMap<unsigned, unsigned> slots;
  for (auto [slot, var] : llvm::enumerate(variables)) {
    if (var >= vars.size() || !vars[var].lo || !vars[var].hi ||
        *vars[var].hi < *vars[var].lo)
      return std::nullopt;
    count *= *vars[var].hi - *vars[var].lo + 1;
    if (count > maxAssignments)
      return std::nullopt;
    slots[var] = slot;
  }
  auto key = std::make_pair(formula.ast, SmallVector<unsigned>(variables));
  auto [it, inserted] = tables.try_emplace(key);
  if (!inserted) {
    if (!it->second)
      return std::nullopt;
    return ArrayRef<int64_t>(*it->second);
  }
  Program program;
  DenseMap<void *, unsigned> done;
  std::optional<unsigned> root =
      compile(impl->ctx, toAst(formula.ast), slots, program, done);
  if (!root)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (unsigned var : variables)
    values.push_back(*vars[var].lo);
  std::vector<int64_t> table;
  table.reserve(count);
  SmallVector<int64_t, 32> registers(program.code.size());
  using Op = Program::Op;
  for (int64_t n = 0; n < count; ++n) {
    for (auto [i, instruction] : llvm::enumerate(program.code)) {
      int64_t a = registers[instruction.a], b = registers[instruction.b];
      int64_t &r = registers[i];
      bool overflow = false;
      switch (instruction.op) {
      case Op::Constant:
        r = instruction.immediate;
        break;
      case Op::Load:
        r = values[instruction.immediate];
        break;
      case Op::Add:
        overflow = __builtin_add_overflow(a, b, &r);
        break;
      case Op::Sub:
        overflow = __builtin_sub_overflow(a, b, &r);
        break;
      case Op::Neg:
        overflow = __builtin_sub_overflow(int64_t(0), a, &r);
        break;
      case Op::Mul:
        overflow = __builtin_mul_overflow(a, b, &r);
        break;
      case Op::Div:
        r = llvm::divideFloorSigned(a, instruction.immediate);
        break;
      case Op::Mod:
        r = a - llvm::divideFloorSigned(a, instruction.immediate) *
                    instruction.immediate;
        break;
      case Op::Ite:
        r = a ? b : registers[instruction.c];
        break;
      case Op::Eq:
        r = a == b;
        break;
      case Op::Le:
        r = a <= b;
        break;
      case Op::Lt:
        r = a < b;
        break;
      case Op::And:
        r = a && b;
        break;
      case Op::Or:
        r = a || b;
        break;
      case Op::Not:
        r = !a;
        break;
      }
      if (overflow)
        return std::nullopt;
    }
    table.push_back(registers[*root]);
    for (unsigned i = 0; i < values.size(); ++i) {
      if (values[i] < *vars[variables[i]].hi) {
        ++values[i];
        break;
      }
      values[i] = *vars[variables[i]].lo;
    }
  }
  it->second = std::move(table);
  return ArrayRef<int64_t>(*it->second);
}

/// Records what `fact` says terms are multiples of: x mod d == 0, and the
/// conjunctions of such facts.
static void collectDivisors(Z3_context ctx, Z3_ast fact,
                            DenseMap<void *, int64_t> &divisors) {
  if (Z3_get_ast_kind(ctx, fact) != Z3_APP_AST)
    return;
  Z3_app app = Z3_to_app(ctx, fact);
  Z3_decl_kind kind = Z3_get_decl_kind(ctx, Z3_get_app_decl(ctx, app));
  if (kind == Z3_OP_AND) {
    for (unsigned i = 0, e = Z3_get_app_num_args(ctx, app); i < e; ++i)
      collectDivisors(ctx, Z3_get_app_arg(ctx, app, i), divisors);
    return;
  }
  if (kind != Z3_OP_EQ || Z3_get_app_num_args(ctx, app) != 2)
    return;
  for (unsigned side = 0; side < 2; ++side) {
    Z3_ast mod = Z3_get_app_arg(ctx, app, side);
    Z3_ast zero = Z3_get_app_arg(ctx, app, 1 - side);
    int64_t value, divisor;
    if (Z3_get_ast_kind(ctx, zero) != Z3_NUMERAL_AST ||
        !Z3_get_numeral_int64(ctx, zero, &value) || value != 0 ||
        Z3_get_ast_kind(ctx, mod) != Z3_APP_AST)
      continue;
    Z3_app modApp = Z3_to_app(ctx, mod);
    if (Z3_get_decl_kind(ctx, Z3_get_app_decl(ctx, modApp)) != Z3_OP_MOD ||
        !Z3_get_numeral_int64(ctx, Z3_get_app_arg(ctx, modApp, 1), &divisor) ||
        divisor <= 0)
      continue;
    int64_t &known = divisors[fromAst(Z3_get_app_arg(ctx, modApp, 0))];
    known = known ? std::lcm(known, divisor) : divisor;
  }
}

bool IndexFormulas::isMultipleByTerms(const Formula &formula, int64_t divisor,
                                      ArrayRef<Formula> facts) {
  std::optional<LinearForm> form = linearize(formula.ast);
  if (!form || divisor <= 0 || form->constant % divisor != 0)
    return false;
  Z3_context ctx = impl->ctx;
  DenseMap<void *, int64_t> divisors;
  for (const Formula &fact : facts)
    collectDivisors(ctx, toAst(fact.ast), divisors);
  // The largest divisor of `divisor` that a term is known to be a
  // multiple of: from the facts, or its factors', for a product.
  std::function<int64_t(Z3_ast)> divisorOf = [&](Z3_ast term) -> int64_t {
    int64_t known = divisors.lookup(fromAst(term));
    int64_t result = known ? std::gcd(known, divisor) : 1;
    if (Z3_get_ast_kind(ctx, term) != Z3_APP_AST)
      return result;
    Z3_app app = Z3_to_app(ctx, term);
    if (Z3_get_decl_kind(ctx, Z3_get_app_decl(ctx, app)) != Z3_OP_MUL)
      return result;
    int64_t product = 1;
    for (unsigned i = 0, e = Z3_get_app_num_args(ctx, app); i < e; ++i) {
      Z3_ast arg = Z3_get_app_arg(ctx, app, i);
      int64_t value;
      int64_t factor = Z3_get_ast_kind(ctx, arg) == Z3_NUMERAL_AST &&
                               Z3_get_numeral_int64(ctx, arg, &value)
                           ? std::gcd(value, divisor)
                           : divisorOf(arg);
      product = std::gcd(product * factor, divisor);
    }
    return std::lcm(result, product);
  };
  return llvm::all_of(form->terms, [&](const auto &term) {
    __int128 multiple = __int128(term.second) * divisorOf(toAst(term.first));
    return multiple % divisor == 0;
  });
}

bool IndexFormulas::mayReach(const Formula &formula, int64_t lo, int64_t hi) {
  std::optional<LinearForm> form = linearize(formula.ast);
  if (!form)
    return true;
  // What the terms reach, less the constant: shared by the distances
  // between unrolled copies of a store, which differ in the constant.
  LinearForm terms = *form;
  terms.constant = 0;
  void *shape = fromLinear(constant(0), terms).ast;
  auto [it, inserted] = reachMemo.try_emplace(shape);
  if (inserted)
    it->second = reachOf(terms);
  const std::optional<SmallVector<std::pair<int64_t, int64_t>, 4>> &reach =
      it->second;
  if (!reach)
    return true;
  return llvm::any_of(*reach, [&](const std::pair<int64_t, int64_t> &range) {
    return __int128(range.first) + form->constant <= hi &&
           __int128(lo) <= __int128(range.second) + form->constant;
  });
}

std::optional<SmallVector<std::pair<int64_t, int64_t>, 4>>
IndexFormulas::reachOf(const LinearForm &form) {
  // The values the sum reaches so far, as disjoint sorted intervals; past
  // kMaxIntervals the closest merge, which only adds values.
  constexpr size_t kMaxIntervals = 32;
  constexpr int64_t kMaxSpread = 16;
  using Interval = std::pair<__int128, __int128>;
  SmallVector<Interval> reach{{form.constant, form.constant}};
  auto normalize = [&](SmallVectorImpl<Interval> &set) {
    llvm::sort(set);
    SmallVector<Interval> merged;
    for (const Interval &interval : set) {
      if (!merged.empty() && interval.first <= merged.back().second + 1)
        merged.back().second = std::max(merged.back().second, interval.second);
      else
        merged.push_back(interval);
    }
    while (merged.size() > kMaxIntervals) {
      // Close the smallest gap.
      size_t best = 0;
      for (size_t i = 1; i + 1 < merged.size(); ++i)
        if (merged[i + 1].first - merged[i].second <
            merged[best + 1].first - merged[best].second)
          best = i;
      merged[best].second = merged[best + 1].second;
      merged.erase(merged.begin() + best + 1);
    }
    set.assign(merged.begin(), merged.end());
  };
  for (auto [term, coefficient] : form.terms) {
    auto bounds = astBounds(impl->ctx, toAst(term), vars, boundsMemo);
    if (!bounds)
      return std::nullopt;
    SmallVector<Interval> next;
    int64_t count = bounds->second - bounds->first + 1;
    if (count <= kMaxSpread) {
      for (int64_t v = bounds->first; v <= bounds->second; ++v)
        for (const Interval &interval : reach)
          next.push_back({interval.first + __int128(coefficient) * v,
                          interval.second + __int128(coefficient) * v});
    } else {
      __int128 a = __int128(coefficient) * bounds->first;
      __int128 b = __int128(coefficient) * bounds->second;
      for (const Interval &interval : reach)
        next.push_back({interval.first + std::min(a, b),
                        interval.second + std::max(a, b)});
    }
    normalize(next);
    reach = std::move(next);
  }
  SmallVector<std::pair<int64_t, int64_t>, 4> result;
  for (auto [first, last] : reach) {
    std::optional<int64_t> a = bounded(first), b = bounded(last);
    if (!a || !b)
      return std::nullopt;
    result.push_back({*a, *b});
  }
  return result;
}

std::optional<std::tuple<unsigned, unsigned, int64_t>>
IndexFormulas::matchScaledDifference(const Formula &formula) {
  std::optional<LinearForm> form = linearize(formula.ast);
  if (!form || form->constant != 0 || form->terms.size() != 2)
    return std::nullopt;
  auto variableOf = [&](void *term) -> std::optional<unsigned> {
    Z3_ast ast = toAst(term);
    SmallVector<unsigned> variables;
    if (Z3_get_ast_kind(impl->ctx, ast) != Z3_APP_AST ||
        Z3_get_app_num_args(impl->ctx, Z3_to_app(impl->ctx, ast)) != 0)
      return std::nullopt;
    collectVariables(impl->ctx, ast, variables);
    if (variables.size() != 1 || variables.front() >= vars.size())
      return std::nullopt;
    return variables.front();
  };
  auto [first, a] = form->terms[0];
  auto [second, b] = form->terms[1];
  std::optional<unsigned> x = variableOf(first), y = variableOf(second);
  if (!x || !y || a != -b)
    return std::nullopt;
  if (a < 0)
    return std::make_tuple(*y, *x, b);
  return std::make_tuple(*x, *y, a);
}
