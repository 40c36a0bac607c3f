//===- AST.h - Syntax tree of .tile files -----------------------*- C++ -*-===//
//
// Part of tilec. The Python subset a .tile file is written in: expressions
// and statements as the parser produces them, before any evaluation.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_AST_H
#define TILEC_FRONTEND_AST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec::frontend {

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  MatMul,
  LShift,
  RShift,
  BitAnd,
  BitOr,
  BitXor,
};

enum class UnaryOp { Neg, Pos, Invert, Not };

enum class CompareOp { Eq, Ne, Lt, Le, Gt, Ge, In, NotIn, Is, IsNot };

enum class BoolOp { And, Or };

/// How an operator is written in Python: `+`, `//`, `not in`.
llvm::StringRef spell(BinaryOp op);
llvm::StringRef spell(UnaryOp op);
llvm::StringRef spell(CompareOp op);
llvm::StringRef spell(BoolOp op);

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

class Expr {
public:
  enum class Kind {
    Name,
    Int,
    Float,
    String,
    Bool,
    None,
    Ellipsis,
    Tuple,
    List,
    Dict,
    Attribute,
    Call,
    Subscript,
    Slice,
    Binary,
    Unary,
    BoolOp,
    Compare,
    IfExp,
    Comprehension,
    Starred,
    FString,
    Lambda,
  };

  Expr(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;

  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }
  /// The number of nodes on the longest path from this node to a leaf: 1
  /// for a name or a literal, n for a sum of n terms. Whatever walks the
  /// tree recursively (evaluation, printing, destruction) recurses that
  /// deep, so the parser bounds it.
  unsigned getHeight() const { return height; }

protected:
  /// Makes this node one level above the deepest of `children` (null ones,
  /// such as a slice's missing bounds, do not count).
  void setHeightAbove(llvm::ArrayRef<const Expr *> children);
  void setHeightAboveAll(const std::vector<std::unique_ptr<Expr>> &children);

private:
  Kind kind;
  llvm::SMLoc loc;
  unsigned height = 1;
};

using ExprPtr = std::unique_ptr<Expr>;

template <Expr::Kind K> class ExprBase : public Expr {
public:
  explicit ExprBase(llvm::SMLoc loc) : Expr(K, loc) {}
  static bool classof(const Expr *e) { return e->getKind() == K; }
};

class NameExpr : public ExprBase<Expr::Kind::Name> {
public:
  NameExpr(llvm::SMLoc loc, std::string name)
      : ExprBase(loc), name(std::move(name)) {}
  std::string name;
};

class IntExpr : public ExprBase<Expr::Kind::Int> {
public:
  IntExpr(llvm::SMLoc loc, int64_t value) : ExprBase(loc), value(value) {}
  int64_t value;
};

class FloatExpr : public ExprBase<Expr::Kind::Float> {
public:
  FloatExpr(llvm::SMLoc loc, double value) : ExprBase(loc), value(value) {}
  double value;
};

class StringExpr : public ExprBase<Expr::Kind::String> {
public:
  StringExpr(llvm::SMLoc loc, std::string value)
      : ExprBase(loc), value(std::move(value)) {}
  std::string value;
};

class BoolExpr : public ExprBase<Expr::Kind::Bool> {
public:
  BoolExpr(llvm::SMLoc loc, bool value) : ExprBase(loc), value(value) {}
  bool value;
};

class NoneExpr : public ExprBase<Expr::Kind::None> {
public:
  using ExprBase::ExprBase;
};

class EllipsisExpr : public ExprBase<Expr::Kind::Ellipsis> {
public:
  using ExprBase::ExprBase;
};

class TupleExpr : public ExprBase<Expr::Kind::Tuple> {
public:
  TupleExpr(llvm::SMLoc loc, std::vector<ExprPtr> elements)
      : ExprBase(loc), elements(std::move(elements)) {
    setHeightAboveAll(this->elements);
  }
  std::vector<ExprPtr> elements;
};

/// `[a, b]`, or the set display `{a, b}`.
class ListExpr : public ExprBase<Expr::Kind::List> {
public:
  ListExpr(llvm::SMLoc loc, std::vector<ExprPtr> elements, bool isSet = false)
      : ExprBase(loc), elements(std::move(elements)), isSet(isSet) {
    setHeightAboveAll(this->elements);
  }
  std::vector<ExprPtr> elements;
  bool isSet;
};

class DictExpr : public ExprBase<Expr::Kind::Dict> {
public:
  DictExpr(llvm::SMLoc loc, std::vector<ExprPtr> keys,
           std::vector<ExprPtr> values)
      : ExprBase(loc), keys(std::move(keys)), values(std::move(values)) {
    std::vector<const Expr *> children;
    for (const ExprPtr &key : this->keys)
      children.push_back(key.get());
    for (const ExprPtr &value : this->values)
      children.push_back(value.get());
    setHeightAbove(children);
  }
  /// A null key marks `**value`, whose entries the dict takes.
  std::vector<ExprPtr> keys;
  std::vector<ExprPtr> values;
};

class AttributeExpr : public ExprBase<Expr::Kind::Attribute> {
public:
  AttributeExpr(llvm::SMLoc loc, ExprPtr value, std::string attr,
                llvm::SMLoc attrLoc)
      : ExprBase(loc), value(std::move(value)), attr(std::move(attr)),
        attrLoc(attrLoc) {
    setHeightAbove({this->value.get()});
  }
  ExprPtr value;
  std::string attr;
  llvm::SMLoc attrLoc;
};

struct Keyword {
  /// Empty for `**value`, whose entries are keyword arguments.
  std::string name;
  llvm::SMLoc loc;
  ExprPtr value;
};

class CallExpr : public ExprBase<Expr::Kind::Call> {
public:
  CallExpr(llvm::SMLoc loc, ExprPtr callee, std::vector<ExprPtr> args,
           std::vector<Keyword> keywords)
      : ExprBase(loc), callee(std::move(callee)), args(std::move(args)),
        keywords(std::move(keywords)) {
    std::vector<const Expr *> children = {this->callee.get()};
    for (const ExprPtr &arg : this->args)
      children.push_back(arg.get());
    for (const Keyword &keyword : this->keywords)
      children.push_back(keyword.value.get());
    setHeightAbove(children);
  }
  ExprPtr callee;
  std::vector<ExprPtr> args;
  std::vector<Keyword> keywords;
};

/// `value[i, j]`; each index may be a SliceExpr.
class SubscriptExpr : public ExprBase<Expr::Kind::Subscript> {
public:
  SubscriptExpr(llvm::SMLoc loc, ExprPtr value, std::vector<ExprPtr> indices)
      : ExprBase(loc), value(std::move(value)), indices(std::move(indices)) {
    std::vector<const Expr *> children = {this->value.get()};
    for (const ExprPtr &index : this->indices)
      children.push_back(index.get());
    setHeightAbove(children);
  }
  ExprPtr value;
  std::vector<ExprPtr> indices;
};

class SliceExpr : public ExprBase<Expr::Kind::Slice> {
public:
  SliceExpr(llvm::SMLoc loc, ExprPtr lower, ExprPtr upper, ExprPtr step)
      : ExprBase(loc), lower(std::move(lower)), upper(std::move(upper)),
        step(std::move(step)) {
    setHeightAbove({this->lower.get(), this->upper.get(), this->step.get()});
  }
  ExprPtr lower, upper, step; // each may be null
};

class BinaryExpr : public ExprBase<Expr::Kind::Binary> {
public:
  BinaryExpr(llvm::SMLoc loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : ExprBase(loc), op(op), lhs(std::move(lhs)), rhs(std::move(rhs)) {
    setHeightAbove({this->lhs.get(), this->rhs.get()});
  }
  BinaryOp op;
  ExprPtr lhs, rhs;
};

class UnaryExpr : public ExprBase<Expr::Kind::Unary> {
public:
  UnaryExpr(llvm::SMLoc loc, UnaryOp op, ExprPtr operand)
      : ExprBase(loc), op(op), operand(std::move(operand)) {
    setHeightAbove({this->operand.get()});
  }
  UnaryOp op;
  ExprPtr operand;
};

class BoolOpExpr : public ExprBase<Expr::Kind::BoolOp> {
public:
  BoolOpExpr(llvm::SMLoc loc, BoolOp op, std::vector<ExprPtr> operands)
      : ExprBase(loc), op(op), operands(std::move(operands)) {
    setHeightAboveAll(this->operands);
  }
  BoolOp op;
  std::vector<ExprPtr> operands;
};

/// `a < b <= c`: operands has one more element than ops.
class CompareExpr : public ExprBase<Expr::Kind::Compare> {
public:
  CompareExpr(llvm::SMLoc loc, std::vector<CompareOp> ops,
              std::vector<ExprPtr> operands, std::vector<llvm::SMLoc> opLocs)
      : ExprBase(loc), ops(std::move(ops)), operands(std::move(operands)),
        opLocs(std::move(opLocs)) {
    setHeightAboveAll(this->operands);
  }
  std::vector<CompareOp> ops;
  std::vector<ExprPtr> operands;
  std::vector<llvm::SMLoc> opLocs;
};

/// `then if cond else otherwise`.
class IfExpr : public ExprBase<Expr::Kind::IfExp> {
public:
  IfExpr(llvm::SMLoc loc, ExprPtr cond, ExprPtr then, ExprPtr otherwise)
      : ExprBase(loc), cond(std::move(cond)), then(std::move(then)),
        otherwise(std::move(otherwise)) {
    setHeightAbove({this->cond.get(), this->then.get(), this->otherwise.get()});
  }
  ExprPtr cond, then, otherwise;
};

/// `f"...{value!r:spec}..."`: the literal pieces around the replacement
/// fields (one more than the fields).
class FStringExpr : public ExprBase<Expr::Kind::FString> {
public:
  struct Field {
    ExprPtr value;
    char conversion = 0; // 'r', 's', 'a' or 0
    std::string spec;
  };
  FStringExpr(llvm::SMLoc loc, std::vector<std::string> pieces,
              std::vector<Field> fields)
      : ExprBase(loc), pieces(std::move(pieces)), fields(std::move(fields)) {
    std::vector<const Expr *> children;
    for (const Field &field : this->fields)
      children.push_back(field.value.get());
    setHeightAbove(children);
  }
  std::vector<std::string> pieces;
  std::vector<Field> fields;
};

/// `*value` among a call's arguments: the items of `value`, each an
/// argument.
class StarredExpr : public ExprBase<Expr::Kind::Starred> {
public:
  StarredExpr(llvm::SMLoc loc, ExprPtr value)
      : ExprBase(loc), value(std::move(value)) {
    setHeightAbove({this->value.get()});
  }
  ExprPtr value;
};

/// `[element for target in iter if condition ...]`, `{key: value for ...}`
/// and a generator `(element for ...)`, which evaluates to a list.
class ComprehensionExpr : public ExprBase<Expr::Kind::Comprehension> {
public:
  enum class Form { List, Dict, Set, Generator };
  struct Clause {
    ExprPtr target, iter;
    std::vector<ExprPtr> conditions;
  };
  ComprehensionExpr(llvm::SMLoc loc, Form form, ExprPtr element, ExprPtr value,
                    std::vector<Clause> clauses)
      : ExprBase(loc), form(form), element(std::move(element)),
        value(std::move(value)), clauses(std::move(clauses)) {
    std::vector<const Expr *> children = {this->element.get(),
                                          this->value.get()};
    for (const Clause &clause : this->clauses) {
      children.push_back(clause.target.get());
      children.push_back(clause.iter.get());
      for (const ExprPtr &condition : clause.conditions)
        children.push_back(condition.get());
    }
    setHeightAbove(children);
  }
  Form form;
  ExprPtr element;
  ExprPtr value; // the dict form's value; null otherwise
  std::vector<Clause> clauses;
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

class Stmt {
public:
  enum class Kind {
    Expr,
    Assign,
    AugAssign,
    AnnAssign,
    If,
    For,
    While,
    With,
    FunctionDef,
    Return,
    Pass,
    Break,
    Continue,
    Assert,
    Import,
    Class,
    Try,
    Raise,
    NameDecl,
  };

  Stmt(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Stmt() = default;

  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }

private:
  Kind kind;
  llvm::SMLoc loc;
};

template <Stmt::Kind K> class StmtBase : public Stmt {
public:
  explicit StmtBase(llvm::SMLoc loc) : Stmt(K, loc) {}
  static bool classof(const Stmt *s) { return s->getKind() == K; }
};

class ExprStmt : public StmtBase<Stmt::Kind::Expr> {
public:
  ExprStmt(llvm::SMLoc loc, ExprPtr value)
      : StmtBase(loc), value(std::move(value)) {}
  ExprPtr value;
};

/// `a = b = value`.
class AssignStmt : public StmtBase<Stmt::Kind::Assign> {
public:
  AssignStmt(llvm::SMLoc loc, std::vector<ExprPtr> targets, ExprPtr value)
      : StmtBase(loc), targets(std::move(targets)), value(std::move(value)) {}
  std::vector<ExprPtr> targets;
  ExprPtr value;
};

class AugAssignStmt : public StmtBase<Stmt::Kind::AugAssign> {
public:
  AugAssignStmt(llvm::SMLoc loc, ExprPtr target, BinaryOp op, llvm::SMLoc opLoc,
                ExprPtr value)
      : StmtBase(loc), target(std::move(target)), op(op), opLoc(opLoc),
        value(std::move(value)) {}
  ExprPtr target;
  BinaryOp op;
  llvm::SMLoc opLoc;
  ExprPtr value;
};

/// `target: annotation [= value]`.
class AnnAssignStmt : public StmtBase<Stmt::Kind::AnnAssign> {
public:
  AnnAssignStmt(llvm::SMLoc loc, ExprPtr target, ExprPtr annotation,
                ExprPtr value)
      : StmtBase(loc), target(std::move(target)),
        annotation(std::move(annotation)), value(std::move(value)) {}
  ExprPtr target, annotation, value; // value may be null
};

class IfStmt : public StmtBase<Stmt::Kind::If> {
public:
  IfStmt(llvm::SMLoc loc, ExprPtr cond, Block then, Block otherwise)
      : StmtBase(loc), cond(std::move(cond)), then(std::move(then)),
        otherwise(std::move(otherwise)) {}
  ExprPtr cond;
  Block then, otherwise; // an `elif` is an IfStmt alone in `otherwise`
};

class ForStmt : public StmtBase<Stmt::Kind::For> {
public:
  ForStmt(llvm::SMLoc loc, ExprPtr target, ExprPtr iter, Block body)
      : StmtBase(loc), target(std::move(target)), iter(std::move(iter)),
        body(std::move(body)) {}
  ExprPtr target, iter;
  Block body;
};

/// `while cond:`, which .tile runs at compile time.
class WhileStmt : public StmtBase<Stmt::Kind::While> {
public:
  WhileStmt(llvm::SMLoc loc, ExprPtr cond, Block body)
      : StmtBase(loc), cond(std::move(cond)), body(std::move(body)) {}
  ExprPtr cond;
  Block body;
};

struct WithItem {
  ExprPtr context;
  ExprPtr target; // may be null
};

class WithStmt : public StmtBase<Stmt::Kind::With> {
public:
  WithStmt(llvm::SMLoc loc, std::vector<WithItem> items, Block body)
      : StmtBase(loc), items(std::move(items)), body(std::move(body)) {}
  std::vector<WithItem> items;
  Block body;
};

struct Parameter {
  /// How arguments reach the parameter: by position or name, by name only
  /// (after `*` or `*args`), or as the tuple of the positional arguments
  /// left over (`*args`) or the dict of the keyword arguments (`**kwargs`).
  enum class Kind { Positional, KeywordOnly, VarPositional, VarKeyword };
  std::string name;
  llvm::SMLoc loc;
  Kind kind = Kind::Positional;
  ExprPtr annotation;   // may be null
  ExprPtr defaultValue; // may be null

  /// Whether the parameter collects arguments: `*args` or `**kwargs`.
  bool collects() const {
    return kind == Kind::VarPositional || kind == Kind::VarKeyword;
  }
};

class FunctionDefStmt : public StmtBase<Stmt::Kind::FunctionDef> {
public:
  FunctionDefStmt(llvm::SMLoc loc, std::string name, llvm::SMLoc nameLoc,
                  std::vector<ExprPtr> decorators,
                  std::vector<Parameter> params, ExprPtr returns, Block body)
      : StmtBase(loc), name(std::move(name)), nameLoc(nameLoc),
        decorators(std::move(decorators)), params(std::move(params)),
        returns(std::move(returns)), body(std::move(body)) {}
  std::string name;
  llvm::SMLoc nameLoc;
  std::vector<ExprPtr> decorators;
  std::vector<Parameter> params;
  ExprPtr returns; // may be null
  Block body;
};

/// `lambda a, b=1: a + b`: a function whose body returns one expression,
/// held as the definition `def <lambda>(a, b=1): return a + b`.
class LambdaExpr : public ExprBase<Expr::Kind::Lambda> {
public:
  LambdaExpr(llvm::SMLoc loc, std::unique_ptr<FunctionDefStmt> def,
             const Expr *body)
      : ExprBase(loc), def(std::move(def)) {
    std::vector<const Expr *> children = {body};
    for (const Parameter &param : this->def->params)
      children.push_back(param.defaultValue.get());
    setHeightAbove(children);
  }
  std::unique_ptr<FunctionDefStmt> def;
};

class ReturnStmt : public StmtBase<Stmt::Kind::Return> {
public:
  ReturnStmt(llvm::SMLoc loc, ExprPtr value)
      : StmtBase(loc), value(std::move(value)) {}
  ExprPtr value; // may be null
};

class PassStmt : public StmtBase<Stmt::Kind::Pass> {
public:
  using StmtBase::StmtBase;
};

class BreakStmt : public StmtBase<Stmt::Kind::Break> {
public:
  using StmtBase::StmtBase;
};

class ContinueStmt : public StmtBase<Stmt::Kind::Continue> {
public:
  using StmtBase::StmtBase;
};

class AssertStmt : public StmtBase<Stmt::Kind::Assert> {
public:
  AssertStmt(llvm::SMLoc loc, ExprPtr cond, ExprPtr message)
      : StmtBase(loc), cond(std::move(cond)), message(std::move(message)) {}
  ExprPtr cond, message; // message may be null
};

/// `class Name(bases): body`: host code. The name is bound to a value of
/// the host program; the bases and the body are not evaluated.
class ClassStmt : public StmtBase<Stmt::Kind::Class> {
public:
  ClassStmt(llvm::SMLoc loc, std::string name, llvm::SMLoc nameLoc, Block body)
      : StmtBase(loc), name(std::move(name)), nameLoc(nameLoc),
        body(std::move(body)) {}
  std::string name;
  llvm::SMLoc nameLoc;
  Block body;
};

/// `try: body except ...: handler else: ... finally: ...`. Compile-time
/// errors stop compilation, so only the path without an exception runs:
/// the body, then `else`, then `finally`.
class TryStmt : public StmtBase<Stmt::Kind::Try> {
public:
  struct Handler {
    ExprPtr type; // may be null: a bare `except:`
    std::string name;
    Block body;
  };
  TryStmt(llvm::SMLoc loc, Block body, std::vector<Handler> handlers,
          Block orelse, Block finally)
      : StmtBase(loc), body(std::move(body)), handlers(std::move(handlers)),
        orelse(std::move(orelse)), finally(std::move(finally)) {}
  Block body;
  std::vector<Handler> handlers;
  Block orelse, finally;
};

/// `raise [exception [from cause]]`: an error at compile time.
class RaiseStmt : public StmtBase<Stmt::Kind::Raise> {
public:
  RaiseStmt(llvm::SMLoc loc, ExprPtr exception, ExprPtr cause)
      : StmtBase(loc), exception(std::move(exception)),
        cause(std::move(cause)) {}
  ExprPtr exception, cause; // both may be null
};

/// `global a, b` or `nonlocal a, b`: assignments to these names in the
/// enclosing function's body bind them in the module or in an enclosing
/// function.
class NameDeclStmt : public StmtBase<Stmt::Kind::NameDecl> {
public:
  struct Name {
    std::string name;
    llvm::SMLoc loc;
  };
  NameDeclStmt(llvm::SMLoc loc, bool isGlobal, std::vector<Name> names)
      : StmtBase(loc), isGlobal(isGlobal), names(std::move(names)) {}
  bool isGlobal;
  std::vector<Name> names;
};

/// `import a.b as c` (module set, names empty) or `from a.b import x as y`.
class ImportStmt : public StmtBase<Stmt::Kind::Import> {
public:
  struct Alias {
    std::string name;   // dotted module name, the imported name, or *
    std::string asName; // empty when there is no `as`
    llvm::SMLoc loc;
  };
  ImportStmt(llvm::SMLoc loc, std::string fromModule, std::vector<Alias> names)
      : StmtBase(loc), fromModule(std::move(fromModule)),
        names(std::move(names)) {}
  std::string fromModule; // empty for `import ...`
  std::vector<Alias> names;
};

/// A parsed .tile file.
struct Module {
  Block body;
};

/// Appends the names an assignment to `target` binds: a name, or the names
/// in a tuple or list of targets, starred ones included.
void collectTargetNames(
    const Expr &target,
    llvm::SmallVectorImpl<std::pair<llvm::StringRef, llvm::SMLoc>> &names);

/// Appends the names that the statements of `block` bind where they run:
/// assignment, loop and `with` targets, imports, functions and classes, in
/// nested blocks too but not inside function or class bodies.
void collectBoundNames(
    const Block &block,
    llvm::SmallVectorImpl<std::pair<llvm::StringRef, llvm::SMLoc>> &names);

/// Formats a float the way Python's repr does (`0.5`, `1e-06`, `3.0`).
std::string formatFloat(double value);

/// Prints the tree in an indented, S-expression-like form (`--emit=ast`).
void printAST(const Module &module, llvm::raw_ostream &os);

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_AST_H
