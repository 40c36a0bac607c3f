//===- Evaluator.cpp - Compile-time evaluation of .tile files -------------===//
//
// Part of tilec. The evaluator's state: scopes, diagnostics, -D values, and
// the run of a whole file. Statements are evaluated in EvalStmt.cpp,
// expressions and calls in EvalExpr.cpp, operators in EvalOperators.cpp and
// conversions between values in EvalConversions.cpp; EvalKernels.cpp makes
// the kernel functions.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Evaluator.h"
#include "tilec/Frontend/Parser.h"
#include "tilec/Warnings.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

/// As deep as the syntax tree of an expression may be: values built in a
/// loop (`t = (t,)`) nest without bound otherwise.
static constexpr unsigned kMaxNestingDepth = 1000;
/// Most items a list or dict may come to hold by changing in place.
static constexpr size_t kMaxSequenceLength = 1 << 20;

//===----------------------------------------------------------------------===//
// Scope
//===----------------------------------------------------------------------===//

Scope::Binding *Scope::lookupLocal(StringRef name) {
  if (auto owner = declared.find(name); owner != declared.end())
    return owner->second->lookupLocal(name);
  auto it = vars.find(name);
  return it == vars.end() ? nullptr : &it->second;
}

Scope::Binding *Scope::lookup(StringRef name) {
  for (Scope *s = this; s; s = s->parent.get())
    if (Binding *binding = s->lookupLocal(name))
      return binding;
  return nullptr;
}

void Scope::set(StringRef name, Ref value, unsigned regionDepth, SMLoc loc) {
  if (auto owner = declared.find(name); owner != declared.end())
    return owner->second->set(name, std::move(value), regionDepth, loc);
  vars[name] = Binding{std::move(value), regionDepth, loc};
}

Scope *Scope::getRoot() {
  Scope *s = this;
  while (s->parent)
    s = s->parent.get();
  return s;
}

Scope *Scope::findNonlocalOwner(StringRef name) {
  for (Scope *s = parent.get(); s && s->parent; s = s->parent.get())
    if (s->lookupLocal(name))
      return s;
  return nullptr;
}

std::vector<std::pair<std::string, SMLoc>>
Scope::popRegion(unsigned regionDepth) {
  std::vector<std::pair<std::string, SMLoc>> removed;
  for (auto &entry : vars)
    if (entry.second.regionDepth > regionDepth)
      removed.emplace_back(entry.first().str(), entry.second.loc);
  for (auto &[name, loc] : removed)
    vars.erase(name);
  return removed;
}

void Scope::collectNames(std::vector<std::string> &names) const {
  for (const Scope *s = this; s; s = s->parent.get())
    for (const auto &entry : s->vars)
      names.push_back(entry.first().str());
}

//===----------------------------------------------------------------------===//
// Evaluator
//===----------------------------------------------------------------------===//

Evaluator::Evaluator(TileSource &source, mlir::ModuleOp module,
                     const ImportOptions &options, Namespaces namespaces)
    : source(source), module(module), options(options), emitter(source, module),
      builder(emitter.getBuilder()), namespaces(std::move(namespaces)) {
  moduleScope = makeScope(nullptr);
  scope = moduleScope;
}

Evaluator::~Evaluator() {
  // A function's closure holds the scope that binds the function; empty
  // every scope so that these cycles are freed.
  for (const std::weak_ptr<Scope> &weak : scopes)
    if (std::shared_ptr<Scope> scope = weak.lock())
      scope->clear();
}

std::shared_ptr<Scope> Evaluator::makeScope(std::shared_ptr<Scope> parent) {
  auto scope = std::make_shared<Scope>(std::move(parent));
  // Most call scopes are gone by the time the list grows: keep it short.
  if (scopes.size() == scopes.capacity()) {
    llvm::erase_if(scopes, [](const std::weak_ptr<Scope> &weak) {
      return weak.expired();
    });
    scopes.reserve(2 * scopes.size() + 16);
  }
  scopes.push_back(scope);
  return scope;
}

Ref Evaluator::checkNesting(Ref value, SMLoc loc) {
  if (getNestingDepth(*value) <= kMaxNestingDepth)
    return value;
  return error(loc, "this value nests tuples, lists or dicts more than " +
                        llvm::Twine(kMaxNestingDepth) + " deep");
}

Ref Evaluator::buildSet(llvm::ArrayRef<Ref> items, SMLoc loc) {
  Ref unhashable;
  Ref set = makeSet(items, unhashable);
  if (!set)
    return error(loc, "unhashable type: '" + getTypeName(*unhashable) + "'");
  return checkNesting(set, loc);
}

Ref Evaluator::hostValueError(const HostObject &host, SMLoc loc) {
  if (isUnmodeledTilelangName(host.description))
    return error(loc, "'" + host.description +
                          "' is a part of TileLang that tilec does not "
                          "provide; docs/language.md lists what it does");
  return error(loc, "'" + host.description +
                        "' belongs to the host program, which tilec does not "
                        "run; code that builds kernels can use only "
                        "constants, -D values and kernel parameters");
}

bool Evaluator::prepareChange(const Object &container,
                              llvm::ArrayRef<Ref> added, SMLoc loc) {
  Nesting &nesting = *getNesting(container);
  bool contained = nesting.contained;
  size_t size = llvm::isa<DictObject>(container)
                    ? llvm::cast<DictObject>(container).entries.size()
                    : llvm::cast<TupleObject>(container).elements.size();
  if (size + added.size() > kMaxSequenceLength) {
    error(loc, "this change makes a " + getTypeName(container) +
                   " of more than " + llvm::Twine(kMaxSequenceLength) +
                   " items");
    return false;
  }
  unsigned depth = nesting.depth;
  unsigned newDepth = depth;
  for (const Ref &item : added) {
    newDepth = std::max(newDepth, getNestingDepth(*item) + 1);
    // A value that holds its own holder would be printed, compared and
    // freed without end. Only a container that another value holds can be
    // reached from `item`: walk what `item` holds then, without recursion.
    if (!contained && item.get() != &container)
      continue;
    std::vector<const Object *> pending = {item.get()};
    llvm::DenseSet<const Object *> seen;
    while (!pending.empty()) {
      const Object *object = pending.back();
      pending.pop_back();
      if (!seen.insert(object).second)
        continue;
      if (object == &container) {
        error(loc, "a " + getTypeName(container) +
                       " cannot hold itself in .tile, directly or through "
                       "other values");
        return false;
      }
      auto visit = [&](const Ref &held) {
        if (llvm::isa<TupleObject, DictObject>(*held))
          pending.push_back(held.get());
      };
      if (auto *tuple = llvm::dyn_cast<TupleObject>(object)) {
        llvm::for_each(tuple->elements, visit);
      } else if (auto *dict = llvm::dyn_cast<DictObject>(object)) {
        for (const auto &[key, value] : dict->entries) {
          visit(key);
          visit(value);
        }
      }
    }
  }
  if (newDepth > kMaxNestingDepth ||
      (contained && containedGrowth + (newDepth - depth) > kMaxNestingDepth)) {
    error(loc, "this change nests tuples, lists or dicts more than " +
                   llvm::Twine(kMaxNestingDepth) + " deep");
    return false;
  }
  if (contained)
    containedGrowth += newDepth - depth;
  for (const Ref &item : added)
    markContained(*item);
  nesting.depth = newDepth;
  return true;
}

bool Evaluator::checkChangeable(const Expr &receiver, SMLoc loc) {
  const Expr *root = &receiver;
  while (true) {
    if (auto *subscript = llvm::dyn_cast<SubscriptExpr>(root))
      root = subscript->value.get();
    else if (auto *attribute = llvm::dyn_cast<AttributeExpr>(root))
      root = attribute->value.get();
    else
      break;
  }
  auto *name = llvm::dyn_cast<NameExpr>(root);
  if (!name)
    return true;
  Scope::Binding *binding = scope->lookup(name->name);
  if (!binding || binding->regionDepth >= regionDepth)
    return true;
  error(loc, "cannot change '" + name->name +
                 "' here: it was bound outside this run-time loop or if, "
                 "which the compiler emits once; build it before the loop, "
                 "or in a compile-time loop (range)");
  return false;
}

Ref Evaluator::error(SMLoc loc, const llvm::Twine &message) {
  emitError(loc) << message;
  return poison();
}

void Evaluator::emitRemark(SMLoc loc, const llvm::Twine &message) {
  mlir::emitRemark(getLoc(loc)) << message;
}

bool Evaluator::requireKernel(SMLoc loc, StringRef what) {
  if (inKernel())
    return true;
  emitError(loc) << what
                 << " must be inside a T.Kernel block (with T.Kernel(...) "
                    "as ...:)";
  return false;
}

std::string Evaluator::suggest(StringRef name,
                               llvm::ArrayRef<std::string> candidates) {
  // About one edit per three characters, at most three.
  unsigned limit = std::clamp<size_t>(name.size() / 3, 1, 3);
  std::string best;
  unsigned bestDistance = limit + 1;
  for (const std::string &candidate : candidates) {
    if (candidate == name || candidate.empty() || candidate[0] == '_')
      continue;
    unsigned distance = name.edit_distance_insensitive(candidate, true, limit);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// -D values
//===----------------------------------------------------------------------===//

void Evaluator::parseDefines() {
  if (options.defines.empty())
    return;
  // The -D options, one per line, so that an error in a value is shown with
  // its option.
  std::string commandLine;
  for (const auto &[name, text] : options.defines)
    commandLine += "-D " + name + "=" + text + "\n";
  llvm::SourceMgr &sourceMgr = source.getSourceMgr();
  unsigned id = sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(commandLine, "<command line>"),
      SMLoc());
  StringRef rest = sourceMgr.getMemoryBuffer(id)->getBuffer();
  for (const auto &[name, text] : options.defines) {
    // A value may hold a newline: each option is cut by its length.
    StringRef option = rest.take_front(name.size() + text.size() + 4);
    rest = rest.drop_front(option.size() + 1);
    StringRef valueText = option.take_back(text.size());
    TileSource defineSource(sourceMgr, id, getContext(), valueText);
    mlir::Location loc =
        defineSource.getLoc(SMLoc::getFromPointer(option.begin() + 3));
    Parser parser(defineSource);
    ExprPtr expr = parser.parseStandaloneExpression();
    source.addErrors(defineSource.getNumErrors());
    if (!expr)
      continue;
    // A bare word is a string, so that -D dtype=bfloat16 and
    // -D layout=bshd need no quotes.
    Ref value;
    if (auto *nameExpr = llvm::dyn_cast<NameExpr>(expr.get());
        nameExpr && nameExpr->name != "T") {
      value = string(nameExpr->name);
    } else {
      auto defineScope = makeScope(nullptr);
      defineScope->set("T", namespaces.language, 0);
      std::swap(scope, defineScope);
      value = eval(*expr);
      std::swap(scope, defineScope);
    }
    auto it = defines.find(name);
    if (it != defines.end())
      it->second = Define{value, loc, false};
    else
      defines.insert({StringRef(name), Define{value, loc, false}});
  }
}

Ref Evaluator::takeDefine(StringRef name) {
  auto it = defines.find(name);
  if (it == defines.end())
    return nullptr;
  it->second.used = true;
  return it->second.value;
}

//===----------------------------------------------------------------------===//
// Imports of sibling files
//===----------------------------------------------------------------------===//

Ref Evaluator::importSibling(StringRef name, SMLoc loc) {
  llvm::SourceMgr &sourceMgr = source.getSourceMgr();
  unsigned importer = sourceMgr.FindBufferContainingLoc(loc);
  if (importer == 0)
    return nullptr;
  std::vector<std::string> folders = {
      llvm::sys::path::parent_path(
          sourceMgr.getMemoryBuffer(importer)->getBufferIdentifier())
          .str()};
  llvm::append_range(folders, options.importPaths);
  std::string path;
  for (const std::string &folder : folders) {
    for (StringRef extension : {".tile", ".py"}) {
      llvm::SmallString<256> candidate(folder);
      llvm::sys::path::append(candidate, name + extension);
      if (llvm::sys::fs::is_regular_file(candidate)) {
        path = candidate.str().str();
        break;
      }
    }
    if (!path.empty())
      break;
  }
  if (path.empty())
    return nullptr;
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real))
    real = path;
  auto known = importedModules.find(real);
  if (known != importedModules.end()) {
    if (!known->second)
      return error(loc, "'" + name +
                            "' is imported while it is imported: "
                            "its files import each other in a "
                            "circle");
    return known->second;
  }

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return error(loc,
                 "cannot read '" + path + "': " + file.getError().message());
  unsigned bufferId =
      sourceMgr.AddNewSourceBuffer(normalizeSourceText(std::move(*file)), loc);
  if (options.importedFiles)
    options.importedFiles->push_back(path);
  TileSource fileSource(sourceMgr, bufferId, getContext());
  Parser parser(fileSource);
  std::unique_ptr<Module> ast = parser.parseModule();
  source.addErrors(fileSource.getNumErrors());
  if (fileSource.hasErrors())
    return poison();

  // The file runs as Python imports a module: in a scope of its own, whose
  // names become the module's members; -D values are the main file's.
  importedModules[real] = nullptr;
  std::shared_ptr<Scope> fileScope = makeScope(nullptr);
  fileScope->set("__name__", string(name.str()), /*regionDepth=*/0);
  fileScope->set("__file__", string(path), /*regionDepth=*/0);
  std::swap(scope, fileScope);
  execBlock(ast->body);
  std::swap(scope, fileScope);
  auto module = std::make_shared<ModuleObject>(name.str());
  std::vector<std::string> names;
  fileScope->collectNames(names);
  for (const std::string &member : names)
    if (!StringRef(member).starts_with("__"))
      module->members[member] = fileScope->lookupLocal(member)->value;
  importedAsts.push_back(std::move(ast));
  importedModules[real] = module;
  return module;
}

//===----------------------------------------------------------------------===//
// Running a file
//===----------------------------------------------------------------------===//

mlir::LogicalResult Evaluator::run(const Module &ast) {
  parseDefines();
  if (source.hasErrors())
    return mlir::failure();
  // The file is compiled as a module is imported, not run as a script: its
  // `if __name__ == "__main__":` block, the host program's, is skipped.
  const llvm::SourceMgr &sourceMgr = source.getSourceMgr();
  unsigned bufferId = sourceMgr.FindBufferContainingLoc(
      SMLoc::getFromPointer(source.getBuffer().begin()));
  StringRef path = sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier();
  moduleScope->set("__name__", string(llvm::sys::path::stem(path).str()),
                   /*regionDepth=*/0);
  moduleScope->set("__file__", string(path.str()), /*regionDepth=*/0);
  execBlock(ast.body);
  if (!source.tooManyErrors())
    instantiateKernels(ast);
  for (auto &[name, define] : defines) {
    if (define.used || source.hasErrors())
      continue;
    mlir::emitWarning(define.loc)
        << "-D " << name
        << " is not used: no module constant, kernel parameter or T.const "
           "has that name"
        << getWarningTag(Warning::UnusedDefine);
  }
  if (source.tooManyErrors())
    emitError(SMLoc::getFromPointer(source.getBuffer().begin()))
        << "too many errors; stopping";
  return mlir::failure(source.hasErrors());
}
