//===- AST.cpp - Syntax tree of .tile files -------------------------------===//
//
// Part of tilec. Operator spellings and the `--emit=ast` printer, which
// writes expressions fully parenthesized so tests can see how they grouped.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/AST.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

void Expr::setHeightAbove(llvm::ArrayRef<const Expr *> children) {
  height = 1;
  for (const Expr *child : children)
    if (child)
      height = std::max(height, child->getHeight() + 1);
}

void Expr::setHeightAboveAll(const std::vector<ExprPtr> &children) {
  height = 1;
  for (const ExprPtr &child : children)
    if (child)
      height = std::max(height, child->getHeight() + 1);
}

StringRef tilec::frontend::spell(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "//";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Pow:
    return "**";
  case BinaryOp::MatMul:
    return "@";
  case BinaryOp::LShift:
    return "<<";
  case BinaryOp::RShift:
    return ">>";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  }
  return "?";
}

StringRef tilec::frontend::spell(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Pos:
    return "+";
  case UnaryOp::Invert:
    return "~";
  case UnaryOp::Not:
    return "not";
  }
  return "?";
}

StringRef tilec::frontend::spell(CompareOp op) {
  switch (op) {
  case CompareOp::Eq:
    return "==";
  case CompareOp::Ne:
    return "!=";
  case CompareOp::Lt:
    return "<";
  case CompareOp::Le:
    return "<=";
  case CompareOp::Gt:
    return ">";
  case CompareOp::Ge:
    return ">=";
  case CompareOp::In:
    return "in";
  case CompareOp::NotIn:
    return "not in";
  case CompareOp::Is:
    return "is";
  case CompareOp::IsNot:
    return "is not";
  }
  return "?";
}

StringRef tilec::frontend::spell(BoolOp op) {
  return op == BoolOp::And ? "and" : "or";
}

void tilec::frontend::collectTargetNames(
    const Expr &target,
    llvm::SmallVectorImpl<std::pair<StringRef, SMLoc>> &names) {
  if (auto *name = llvm::dyn_cast<NameExpr>(&target))
    names.push_back({name->name, name->getLoc()});
  else if (auto *starred = llvm::dyn_cast<StarredExpr>(&target))
    collectTargetNames(*starred->value, names);
  else if (auto *tuple = llvm::dyn_cast<TupleExpr>(&target))
    for (const ExprPtr &element : tuple->elements)
      collectTargetNames(*element, names);
  else if (auto *list = llvm::dyn_cast<ListExpr>(&target))
    for (const ExprPtr &element : list->elements)
      collectTargetNames(*element, names);
}

void tilec::frontend::collectBoundNames(
    const Block &block,
    llvm::SmallVectorImpl<std::pair<StringRef, SMLoc>> &names) {
  for (const StmtPtr &stmt : block) {
    if (auto *assign = llvm::dyn_cast<AssignStmt>(stmt.get())) {
      for (const ExprPtr &target : assign->targets)
        collectTargetNames(*target, names);
    } else if (auto *aug = llvm::dyn_cast<AugAssignStmt>(stmt.get())) {
      collectTargetNames(*aug->target, names);
    } else if (auto *ann = llvm::dyn_cast<AnnAssignStmt>(stmt.get())) {
      if (ann->value)
        collectTargetNames(*ann->target, names);
    } else if (auto *ifStmt = llvm::dyn_cast<IfStmt>(stmt.get())) {
      collectBoundNames(ifStmt->then, names);
      collectBoundNames(ifStmt->otherwise, names);
    } else if (auto *forStmt = llvm::dyn_cast<ForStmt>(stmt.get())) {
      collectTargetNames(*forStmt->target, names);
      collectBoundNames(forStmt->body, names);
    } else if (auto *whileStmt = llvm::dyn_cast<WhileStmt>(stmt.get())) {
      collectBoundNames(whileStmt->body, names);
    } else if (auto *with = llvm::dyn_cast<WithStmt>(stmt.get())) {
      for (const WithItem &item : with->items)
        if (item.target)
          collectTargetNames(*item.target, names);
      collectBoundNames(with->body, names);
    } else if (auto *def = llvm::dyn_cast<FunctionDefStmt>(stmt.get())) {
      names.push_back({def->name, def->nameLoc});
    } else if (auto *cls = llvm::dyn_cast<ClassStmt>(stmt.get())) {
      names.push_back({cls->name, cls->nameLoc});
    } else if (auto *tryStmt = llvm::dyn_cast<TryStmt>(stmt.get())) {
      collectBoundNames(tryStmt->body, names);
      for (const TryStmt::Handler &handler : tryStmt->handlers)
        collectBoundNames(handler.body, names);
      collectBoundNames(tryStmt->orelse, names);
      collectBoundNames(tryStmt->finally, names);
    } else if (auto *import = llvm::dyn_cast<ImportStmt>(stmt.get())) {
      for (const ImportStmt::Alias &alias : import->names) {
        if (alias.name == "*")
          continue;
        StringRef bound = !alias.asName.empty() ? StringRef(alias.asName)
                          : import->fromModule.empty()
                              ? StringRef(alias.name).split('.').first
                              : StringRef(alias.name);
        names.push_back({bound, alias.loc});
      }
    }
  }
}

std::string tilec::frontend::formatFloat(double value) {
  // Like Python's repr: the shortest form that reads back as the same value.
  char buffer[32];
  for (int precision = 1; precision <= 17; ++precision) {
    snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    if (std::strtod(buffer, nullptr) == value)
      break;
  }
  std::string text = buffer;
  if (text.find_first_of(".eni") == std::string::npos)
    text += ".0";
  return text;
}

/// Writes `param`'s name with the marker of its kind: `*args`, `**kwargs`,
/// and a bare `*` before the first keyword-only parameter that no `*args`
/// precedes (`starred` says whether one was written).
static void printParameterName(llvm::raw_ostream &os, const Parameter &param,
                               bool &starred) {
  switch (param.kind) {
  case Parameter::Kind::Positional:
    break;
  case Parameter::Kind::KeywordOnly:
    if (!starred)
      os << "*, ";
    break;
  case Parameter::Kind::VarPositional:
    os << "*";
    break;
  case Parameter::Kind::VarKeyword:
    os << "**";
    break;
  }
  starred |= param.kind != Parameter::Kind::Positional;
  os << param.name;
}

namespace {
class ASTPrinter {
public:
  explicit ASTPrinter(llvm::raw_ostream &os) : os(os) {}

  void print(const Expr *expr);
  void print(const Block &block, unsigned indent);
  void print(const Stmt *stmt, unsigned indent);

private:
  void printList(const std::vector<ExprPtr> &elements) {
    llvm::interleaveComma(elements, os,
                          [&](const ExprPtr &e) { print(e.get()); });
  }
  void printString(StringRef value) {
    os << '"';
    os.write_escaped(value);
    os << '"';
  }

  llvm::raw_ostream &os;
};
} // namespace

void ASTPrinter::print(const Expr *expr) {
  if (!expr) {
    os << "<null>";
    return;
  }
  switch (expr->getKind()) {
  case Expr::Kind::Name:
    os << llvm::cast<NameExpr>(expr)->name;
    return;
  case Expr::Kind::Int:
    os << llvm::cast<IntExpr>(expr)->value;
    return;
  case Expr::Kind::Float:
    os << formatFloat(llvm::cast<FloatExpr>(expr)->value);
    return;
  case Expr::Kind::String:
    printString(llvm::cast<StringExpr>(expr)->value);
    return;
  case Expr::Kind::Bool:
    os << (llvm::cast<BoolExpr>(expr)->value ? "True" : "False");
    return;
  case Expr::Kind::None:
    os << "None";
    return;
  case Expr::Kind::Ellipsis:
    os << "...";
    return;
  case Expr::Kind::Tuple: {
    const auto &elements = llvm::cast<TupleExpr>(expr)->elements;
    os << "(";
    printList(elements);
    if (elements.size() == 1)
      os << ",";
    os << ")";
    return;
  }
  case Expr::Kind::List: {
    bool isSet = llvm::cast<ListExpr>(expr)->isSet;
    os << (isSet ? "{" : "[");
    printList(llvm::cast<ListExpr>(expr)->elements);
    os << (isSet ? "}" : "]");
    return;
  }
  case Expr::Kind::Dict: {
    const auto *dict = llvm::cast<DictExpr>(expr);
    os << "{";
    for (size_t i = 0; i < dict->keys.size(); ++i) {
      if (i)
        os << ", ";
      if (!dict->keys[i]) {
        os << "**";
        print(dict->values[i].get());
        continue;
      }
      print(dict->keys[i].get());
      os << ": ";
      print(dict->values[i].get());
    }
    os << "}";
    return;
  }
  case Expr::Kind::Attribute: {
    const auto *attr = llvm::cast<AttributeExpr>(expr);
    print(attr->value.get());
    os << "." << attr->attr;
    return;
  }
  case Expr::Kind::Call: {
    const auto *call = llvm::cast<CallExpr>(expr);
    print(call->callee.get());
    os << "(";
    printList(call->args);
    for (const Keyword &keyword : call->keywords) {
      if (&keyword != &call->keywords.front() || !call->args.empty())
        os << ", ";
      os << (keyword.name.empty() ? "**" : keyword.name + "=");
      print(keyword.value.get());
    }
    os << ")";
    return;
  }
  case Expr::Kind::Subscript: {
    const auto *subscript = llvm::cast<SubscriptExpr>(expr);
    print(subscript->value.get());
    os << "[";
    printList(subscript->indices);
    os << "]";
    return;
  }
  case Expr::Kind::Slice: {
    const auto *slice = llvm::cast<SliceExpr>(expr);
    if (slice->lower)
      print(slice->lower.get());
    os << ":";
    if (slice->upper)
      print(slice->upper.get());
    if (slice->step) {
      os << ":";
      print(slice->step.get());
    }
    return;
  }
  case Expr::Kind::Binary: {
    const auto *binary = llvm::cast<BinaryExpr>(expr);
    os << "(";
    print(binary->lhs.get());
    os << " " << spell(binary->op) << " ";
    print(binary->rhs.get());
    os << ")";
    return;
  }
  case Expr::Kind::Unary: {
    const auto *unary = llvm::cast<UnaryExpr>(expr);
    os << "(" << spell(unary->op) << (unary->op == UnaryOp::Not ? " " : "");
    print(unary->operand.get());
    os << ")";
    return;
  }
  case Expr::Kind::BoolOp: {
    const auto *boolOp = llvm::cast<BoolOpExpr>(expr);
    os << "(";
    llvm::interleave(
        boolOp->operands, os, [&](const ExprPtr &e) { print(e.get()); },
        (llvm::Twine(" ") + spell(boolOp->op) + " ").str());
    os << ")";
    return;
  }
  case Expr::Kind::Compare: {
    const auto *compare = llvm::cast<CompareExpr>(expr);
    os << "(";
    print(compare->operands[0].get());
    for (size_t i = 0; i < compare->ops.size(); ++i) {
      os << " " << spell(compare->ops[i]) << " ";
      print(compare->operands[i + 1].get());
    }
    os << ")";
    return;
  }
  case Expr::Kind::IfExp: {
    const auto *ifExp = llvm::cast<IfExpr>(expr);
    os << "(";
    print(ifExp->then.get());
    os << " if ";
    print(ifExp->cond.get());
    os << " else ";
    print(ifExp->otherwise.get());
    os << ")";
    return;
  }
  case Expr::Kind::FString: {
    const auto *fstring = llvm::cast<FStringExpr>(expr);
    os << "f\"";
    for (auto [i, piece] : llvm::enumerate(fstring->pieces)) {
      for (char c : piece)
        os << (c == '{' ? "{{" : c == '}' ? "}}" : std::string(1, c));
      if (i == fstring->fields.size())
        break;
      const FStringExpr::Field &field = fstring->fields[i];
      os << "{";
      print(field.value.get());
      if (field.conversion)
        os << "!" << field.conversion;
      if (!field.spec.empty())
        os << ":" << field.spec;
      os << "}";
    }
    os << "\"";
    return;
  }
  case Expr::Kind::Lambda: {
    const FunctionDefStmt &def = *llvm::cast<LambdaExpr>(expr)->def;
    os << "(lambda";
    bool starred = false;
    for (const Parameter &param : def.params) {
      os << (&param == &def.params.front() ? " " : ", ");
      printParameterName(os, param, starred);
      if (param.defaultValue) {
        os << "=";
        print(param.defaultValue.get());
      }
    }
    os << ": ";
    print(llvm::cast<ReturnStmt>(*def.body.front()).value.get());
    os << ")";
    return;
  }
  case Expr::Kind::Starred:
    os << "*";
    print(llvm::cast<StarredExpr>(expr)->value.get());
    return;
  case Expr::Kind::Comprehension: {
    const auto *comprehension = llvm::cast<ComprehensionExpr>(expr);
    using Form = ComprehensionExpr::Form;
    bool braces =
        comprehension->form == Form::Dict || comprehension->form == Form::Set;
    os << (comprehension->form == Form::List ? "[" : braces ? "{" : "(");
    print(comprehension->element.get());
    if (comprehension->value) {
      os << ": ";
      print(comprehension->value.get());
    }
    for (const ComprehensionExpr::Clause &clause : comprehension->clauses) {
      os << " for ";
      print(clause.target.get());
      os << " in ";
      print(clause.iter.get());
      for (const ExprPtr &condition : clause.conditions) {
        os << " if ";
        print(condition.get());
      }
    }
    os << (comprehension->form == Form::List ? "]" : braces ? "}" : ")");
    return;
  }
  }
}

void ASTPrinter::print(const Block &block, unsigned indent) {
  for (const StmtPtr &stmt : block)
    print(stmt.get(), indent);
}

void ASTPrinter::print(const Stmt *stmt, unsigned indent) {
  os.indent(indent);
  switch (stmt->getKind()) {
  case Stmt::Kind::Expr:
    print(llvm::cast<ExprStmt>(stmt)->value.get());
    os << "\n";
    return;
  case Stmt::Kind::Assign: {
    const auto *assign = llvm::cast<AssignStmt>(stmt);
    for (const ExprPtr &target : assign->targets) {
      print(target.get());
      os << " = ";
    }
    print(assign->value.get());
    os << "\n";
    return;
  }
  case Stmt::Kind::AugAssign: {
    const auto *aug = llvm::cast<AugAssignStmt>(stmt);
    print(aug->target.get());
    os << " " << spell(aug->op) << "= ";
    print(aug->value.get());
    os << "\n";
    return;
  }
  case Stmt::Kind::AnnAssign: {
    const auto *ann = llvm::cast<AnnAssignStmt>(stmt);
    print(ann->target.get());
    os << ": ";
    print(ann->annotation.get());
    if (ann->value) {
      os << " = ";
      print(ann->value.get());
    }
    os << "\n";
    return;
  }
  case Stmt::Kind::If: {
    const auto *ifStmt = llvm::cast<IfStmt>(stmt);
    os << "if ";
    print(ifStmt->cond.get());
    os << ":\n";
    print(ifStmt->then, indent + 2);
    if (!ifStmt->otherwise.empty()) {
      os.indent(indent) << "else:\n";
      print(ifStmt->otherwise, indent + 2);
    }
    return;
  }
  case Stmt::Kind::For: {
    const auto *forStmt = llvm::cast<ForStmt>(stmt);
    os << "for ";
    print(forStmt->target.get());
    os << " in ";
    print(forStmt->iter.get());
    os << ":\n";
    print(forStmt->body, indent + 2);
    return;
  }
  case Stmt::Kind::While: {
    const auto *whileStmt = llvm::cast<WhileStmt>(stmt);
    os << "while ";
    print(whileStmt->cond.get());
    os << ":\n";
    print(whileStmt->body, indent + 2);
    return;
  }
  case Stmt::Kind::With: {
    const auto *with = llvm::cast<WithStmt>(stmt);
    os << "with ";
    llvm::interleaveComma(with->items, os, [&](const WithItem &item) {
      print(item.context.get());
      if (item.target) {
        os << " as ";
        print(item.target.get());
      }
    });
    os << ":\n";
    print(with->body, indent + 2);
    return;
  }
  case Stmt::Kind::FunctionDef: {
    const auto *def = llvm::cast<FunctionDefStmt>(stmt);
    for (const ExprPtr &decorator : def->decorators) {
      os << "@";
      print(decorator.get());
      os << "\n";
      os.indent(indent);
    }
    os << "def " << def->name << "(";
    bool starred = false;
    llvm::interleaveComma(def->params, os, [&](const Parameter &param) {
      printParameterName(os, param, starred);
      if (param.annotation) {
        os << ": ";
        print(param.annotation.get());
      }
      if (param.defaultValue) {
        os << " = ";
        print(param.defaultValue.get());
      }
    });
    os << ")";
    if (def->returns) {
      os << " -> ";
      print(def->returns.get());
    }
    os << ":\n";
    print(def->body, indent + 2);
    return;
  }
  case Stmt::Kind::Return: {
    const auto *ret = llvm::cast<ReturnStmt>(stmt);
    os << "return";
    if (ret->value) {
      os << " ";
      print(ret->value.get());
    }
    os << "\n";
    return;
  }
  case Stmt::Kind::Pass:
    os << "pass\n";
    return;
  case Stmt::Kind::NameDecl: {
    const auto *decl = llvm::cast<NameDeclStmt>(stmt);
    os << (decl->isGlobal ? "global " : "nonlocal ");
    llvm::interleaveComma(decl->names, os,
                          [&](const NameDeclStmt::Name &n) { os << n.name; });
    os << "\n";
    return;
  }
  case Stmt::Kind::Break:
    os << "break\n";
    return;
  case Stmt::Kind::Continue:
    os << "continue\n";
    return;
  case Stmt::Kind::Assert: {
    const auto *assert = llvm::cast<AssertStmt>(stmt);
    os << "assert ";
    print(assert->cond.get());
    if (assert->message) {
      os << ", ";
      print(assert->message.get());
    }
    os << "\n";
    return;
  }
  case Stmt::Kind::Class: {
    const auto *classStmt = llvm::cast<ClassStmt>(stmt);
    os << "class " << classStmt->name << ":\n";
    print(classStmt->body, indent + 2);
    return;
  }
  case Stmt::Kind::Try: {
    const auto *tryStmt = llvm::cast<TryStmt>(stmt);
    os << "try:\n";
    print(tryStmt->body, indent + 2);
    for (const TryStmt::Handler &handler : tryStmt->handlers) {
      os.indent(indent) << "except";
      if (handler.type) {
        os << " ";
        print(handler.type.get());
      }
      if (!handler.name.empty())
        os << " as " << handler.name;
      os << ":\n";
      print(handler.body, indent + 2);
    }
    if (!tryStmt->orelse.empty()) {
      os.indent(indent) << "else:\n";
      print(tryStmt->orelse, indent + 2);
    }
    if (!tryStmt->finally.empty()) {
      os.indent(indent) << "finally:\n";
      print(tryStmt->finally, indent + 2);
    }
    return;
  }
  case Stmt::Kind::Raise: {
    const auto *raise = llvm::cast<RaiseStmt>(stmt);
    os << "raise";
    if (raise->exception) {
      os << " ";
      print(raise->exception.get());
    }
    if (raise->cause) {
      os << " from ";
      print(raise->cause.get());
    }
    os << "\n";
    return;
  }
  case Stmt::Kind::Import: {
    const auto *import = llvm::cast<ImportStmt>(stmt);
    if (!import->fromModule.empty())
      os << "from " << import->fromModule << " ";
    os << "import ";
    llvm::interleaveComma(import->names, os,
                          [&](const ImportStmt::Alias &alias) {
                            os << alias.name;
                            if (!alias.asName.empty())
                              os << " as " << alias.asName;
                          });
    os << "\n";
    return;
  }
  }
}

void tilec::frontend::printAST(const Module &module, llvm::raw_ostream &os) {
  ASTPrinter(os).print(module.body, 0);
}
