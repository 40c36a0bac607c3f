//===- EvalKernels.cpp - Kernels of .tile files ---------------------------===//
//
// Part of tilec. After the module has run, each kernel is instantiated into
// a func.func: a @T.prim_func with its typed parameters, a factory called
// with its -D values and defaults, or an eager @tilelang.jit function, whose
// function is built at its first T.Kernel once the body has typed its
// tensor parameters.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Evaluator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace tilec;
using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Kernel functions
//===----------------------------------------------------------------------===//

Ref Evaluator::resolveDynamicDim(const DynamicDimObject &dim, SMLoc loc) {
  if (!currentFunction || !currentFunction->func)
    return nullptr;
  auto it = currentFunction->dims.find(&dim);
  if (it == currentFunction->dims.end())
    return error(loc, "dynamic dimension '" + dim.name +
                          "' is not the extent of any tensor parameter of "
                          "this kernel");
  LinearForm linear;
  linear.terms.push_back({it->second, 1});
  return std::make_shared<ScalarObject>(it->second, getIndexDType(getContext()),
                                        linear);
}

bool Evaluator::buildKernelFunction(StringRef name,
                                    std::vector<KernelParam> &params,
                                    Scope &kernelScope, SMLoc loc) {
  mlir::MLIRContext *context = getContext();
  // Dynamic dimensions become trailing index arguments, in the order they
  // first appear in the tensor shapes. Dimensions are one argument per name:
  // two `T.dynamic("m")` calls mean the same extent, as a reader expects.
  llvm::SmallVector<const DynamicDimObject *> dims;
  auto dimIndex = [&](const DynamicDimObject *dim) -> size_t {
    return llvm::find_if(dims,
                         [&](const DynamicDimObject *other) {
                           return other->name == dim->name;
                         }) -
           dims.begin();
  };
  llvm::SmallVector<mlir::Type> argTypes;
  for (const KernelParam &param : params) {
    if (param.scalar) {
      argTypes.push_back(param.scalar->type);
      continue;
    }
    llvm::SmallVector<int64_t> shape;
    for (const Ref &extent : param.tensor->shape) {
      if (auto *dim = llvm::dyn_cast<DynamicDimObject>(extent.get())) {
        shape.push_back(mlir::ShapedType::kDynamic);
        if (dimIndex(dim) == dims.size()) {
          for (const KernelParam &other : params) {
            if (other.name != dim->name)
              continue;
            emitError(param.loc) << "dynamic dimension '" << dim->name
                                 << "' has the name of a parameter of '" << name
                                 << "'; rename one of them";
            return false;
          }
          dims.push_back(dim);
        }
      } else {
        shape.push_back(*getConstInt(extent));
      }
    }
    argTypes.push_back(mlir::MemRefType::get(shape, param.tensor->dtype.type));
  }
  for (size_t i = 0; i < dims.size(); ++i)
    argTypes.push_back(dims[i]->dtype.type.isIndex()
                           ? dims[i]->dtype.type
                           : mlir::IndexType::get(context));

  llvm::SmallVector<StringRef> argNames;
  for (const KernelParam &param : params)
    argNames.push_back(param.name);
  for (const DynamicDimObject *dim : dims)
    argNames.push_back(dim->name);
  // The caller restores the insertion point; this leaves it in the entry
  // block of the new function.
  mlir::func::FuncOp func =
      emitter.emitKernelFunction(name, argTypes, argNames, loc);
  if (!func)
    return false;
  mlir::Block *entry = &func.getBody().front();
  currentFunction->func = func;

  for (const KernelParam &param : params)
    if (param.tensor)
      for (const Ref &extent : param.tensor->shape)
        if (auto *dim = llvm::dyn_cast<DynamicDimObject>(extent.get()))
          currentFunction->dims[dim] =
              entry->getArgument(params.size() + dimIndex(dim));
  for (auto [i, param] : llvm::enumerate(params)) {
    mlir::Value arg = entry->getArgument(i);
    if (param.scalar) {
      Ref value = std::make_shared<ScalarObject>(arg, *param.scalar);
      kernelScope.set(param.name, value, regionDepth, param.loc);
      continue;
    }
    auto buffer = std::make_shared<BufferObject>();
    buffer->memref = arg;
    buffer->dtype = param.tensor->dtype;
    buffer->scope = tile::MemoryScope::Global;
    buffer->name = param.name;
    llvm::SmallVector<int64_t> dimArgs;
    bool dynamic = false;
    for (const Ref &extent : param.tensor->shape) {
      if (auto *dim = llvm::dyn_cast<DynamicDimObject>(extent.get())) {
        buffer->shape.push_back(resolveDynamicDim(*dim, param.loc));
        dimArgs.push_back(params.size() + dimIndex(dim));
        dynamic = true;
      } else {
        buffer->shape.push_back(extent);
        dimArgs.push_back(-1);
      }
    }
    if (dynamic)
      emitter.setDynamicDims(func, i, dimArgs);
    kernelScope.set(param.name, buffer, regionDepth, param.loc);
  }
  return true;
}

void Evaluator::emitPrimFunc(const FunctionObject &function, StringRef name,
                             SMLoc loc) {
  const FunctionDefStmt &def = *function.def;
  // Parameter types are evaluated where the function was defined.
  std::vector<KernelParam> params;
  bool ok = true;
  std::shared_ptr<Scope> definitionScope = function.closure;
  std::swap(scope, definitionScope);
  for (const Parameter &param : def.params) {
    KernelParam kernelParam;
    kernelParam.name = param.name;
    kernelParam.loc = param.loc;
    if (param.collects()) {
      error(param.loc, "a T.prim_func takes one tensor or scalar per "
                       "parameter; '" +
                           param.name +
                           "' would collect several. Give each its own "
                           "parameter, or collect them in the factory that "
                           "defines the kernel");
      ok = false;
      continue;
    }
    if (!param.annotation) {
      error(param.loc, "parameter '" + param.name +
                           "' of a T.prim_func needs a type: T.Tensor(shape, "
                           "dtype) or a scalar dtype such as T.int32");
      ok = false;
      continue;
    }
    Ref annotation = eval(*param.annotation);
    if (isPoison(annotation)) {
      ok = false;
      continue;
    }
    if (auto spec =
            std::dynamic_pointer_cast<const TensorSpecObject>(annotation)) {
      kernelParam.tensor = spec;
    } else if (auto *dtype = llvm::dyn_cast<DTypeObject>(annotation.get())) {
      kernelParam.scalar = dtype->dtype;
    } else {
      error(param.annotation->getLoc(),
            "parameter '" + param.name +
                "' must be typed with T.Tensor(shape, dtype) or a scalar "
                "dtype, not a " +
                getTypeName(*annotation));
      ok = false;
      continue;
    }
    params.push_back(std::move(kernelParam));
  }
  std::swap(scope, definitionScope);
  if (!ok)
    return;

  KernelFunction kernel;
  kernel.name = name.str();
  kernel.function = &function;
  kernel.built = true;
  currentFunction = &kernel;
  auto kernelScope = makeScope(function.closure);
  mlir::OpBuilder::InsertionGuard guard(builder);
  if (buildKernelFunction(name, params, *kernelScope, loc)) {
    std::swap(scope, kernelScope);
    execBlock(def.body);
    std::swap(scope, kernelScope);
    emitter.emitReturn(loc);
  }
  currentFunction = nullptr;
}

bool Evaluator::ensureFunction(SMLoc loc) {
  if (!currentFunction)
    return false;
  KernelFunction &kernel = *currentFunction;
  if (kernel.built)
    return true;
  kernel.built = true;

  std::vector<KernelParam> params;
  bool ok = true;
  for (const Parameter &param : kernel.function->def->params) {
    Scope::Binding *binding = kernel.scope->lookupLocal(param.name);
    if (!binding || !llvm::isa<PendingTensorObject>(*binding->value))
      continue;
    auto it = kernel.annotations.find(param.name);
    if (it == kernel.annotations.end()) {
      error(param.loc, "parameter '" + param.name +
                           "' has no value and no tensor annotation; "
                           "annotate it before T.Kernel ('" +
                           param.name +
                           ": T.Tensor(shape, dtype)') or give it with -D " +
                           param.name + "=VALUE");
      ok = false;
      continue;
    }
    KernelParam kernelParam;
    kernelParam.name = param.name;
    kernelParam.loc = param.loc;
    kernelParam.tensor = it->second;
    params.push_back(std::move(kernelParam));
  }
  // Outputs from T.empty, named after the variables holding them.
  for (KernelParam &output : kernel.outputs) {
    std::string name;
    std::vector<std::string> names;
    kernel.scope->collectNames(names);
    for (const std::string &candidate : names) {
      Scope::Binding *binding = kernel.scope->lookupLocal(candidate);
      if (binding && binding->value == output.placeholder) {
        name = candidate;
        break;
      }
    }
    if (name.empty()) {
      error(output.loc, "the result of T.empty must be assigned to a name");
      ok = false;
      continue;
    }
    output.name = name;
    params.push_back(output);
  }
  if (!ok)
    return false;
  // The function is created at the end of the module, then the builder
  // goes back to where the eager body is being evaluated... which is the
  // function itself: eager kernels emit nothing before their T.Kernel.
  if (!buildKernelFunction(kernel.name, params, *kernel.scope, loc))
    return false;
  return true;
}

Ref Evaluator::lookupConst(StringRef name, SMLoc loc) {
  if (Ref value = takeDefine(name))
    return value;
  return error(loc, "T.const '" + name + "' needs a value: give it with -D " +
                        name + "=VALUE");
}

Ref Evaluator::allocateWorkspace(llvm::ArrayRef<Ref> shape, const DType &dtype,
                                 SMLoc shapeLoc, SMLoc loc) {
  if (!currentFunction)
    return error(loc, "T.alloc_global must be inside a @T.prim_func or "
                      "@tilelang.jit function");
  if (inKernel())
    return error(loc, "T.alloc_global allocates global memory for the whole "
                      "kernel function; call it outside its T.Kernel "
                      "blocks");
  if (!ensureFunction(loc))
    return poison();
  mlir::func::FuncOp func = currentFunction->func;
  // Extents are constants or the function's own dynamic extents, from
  // which the header sizes the workspace.
  auto buffer = std::make_shared<BufferObject>();
  llvm::SmallVector<int64_t> staticShape, dimArgs;
  bool dynamic = false;
  for (const Ref &extent : shape) {
    if (isPoison(extent))
      return poison();
    mlir::Value dimValue;
    if (auto *dim = llvm::dyn_cast<DynamicDimObject>(extent.get())) {
      auto it = llvm::find_if(currentFunction->dims, [&](const auto &entry) {
        return entry.first == dim || entry.first->name == dim->name;
      });
      if (it == currentFunction->dims.end())
        return error(shapeLoc, "the extent '" + dim->name +
                                   "' of T.alloc_global is not the extent "
                                   "of any tensor parameter of this kernel");
      dimValue = it->second;
    } else if (auto *scalar = llvm::dyn_cast<ScalarObject>(extent.get())) {
      for (const auto &entry : currentFunction->dims)
        if (entry.second == scalar->value)
          dimValue = entry.second;
    }
    if (dimValue) {
      staticShape.push_back(mlir::ShapedType::kDynamic);
      dimArgs.push_back(
          llvm::cast<mlir::BlockArgument>(dimValue).getArgNumber());
      buffer->shape.push_back(std::make_shared<ScalarObject>(
          dimValue, getIndexDType(getContext())));
      dynamic = true;
      continue;
    }
    std::optional<int64_t> value = getConstInt(extent);
    if (!value || *value <= 0)
      return error(shapeLoc, "the extents of T.alloc_global are positive "
                             "compile-time integers or the kernel's "
                             "dynamic extents");
    staticShape.push_back(*value);
    dimArgs.push_back(-1);
    buffer->shape.push_back(extent);
  }
  if (staticShape.empty())
    return error(shapeLoc, "a tensor needs at least one dimension");
  mlir::Value memref = emitter.emitWorkspace(
      func, staticShape, dtype.type,
      dynamic ? llvm::ArrayRef<int64_t>(dimArgs) : llvm::ArrayRef<int64_t>(),
      loc);
  if (!memref)
    return poison();
  buffer->memref = memref;
  buffer->dtype = dtype;
  buffer->scope = tile::MemoryScope::Global;
  return buffer;
}

Ref Evaluator::declareOutput(std::shared_ptr<const TensorSpecObject> spec,
                             SMLoc loc) {
  if (!currentFunction || !currentFunction->eager)
    return error(loc, "T.empty declares an output of a @tilelang.jit kernel "
                      "and is only valid in one");
  if (currentFunction->built)
    return error(loc, "T.empty must come before the T.Kernel block");
  KernelParam output;
  output.loc = loc;
  output.tensor = std::move(spec);
  output.placeholder = std::make_shared<PendingTensorObject>("");
  currentFunction->outputs.push_back(output);
  return output.placeholder;
}

void Evaluator::emitEagerKernel(const FunctionObject &function, SMLoc loc) {
  const FunctionDefStmt &def = *function.def;
  KernelFunction kernel;
  kernel.name = def.name;
  kernel.function = &function;
  kernel.eager = true;
  kernel.scope = makeScope(function.closure);
  // Parameters take -D values or defaults; the rest are tensors that the
  // body annotates.
  for (auto [i, param] : llvm::enumerate(def.params)) {
    if (param.collects()) {
      Ref empty = param.kind == Parameter::Kind::VarPositional
                      ? tuple({})
                      : Ref(std::make_shared<DictObject>(
                            std::vector<std::pair<Ref, Ref>>()));
      kernel.scope->set(param.name, empty, regionDepth, param.loc);
      continue;
    }
    Ref value = takeDefine(param.name);
    if (!value)
      value = function.defaults[i];
    if (!value)
      value = std::make_shared<PendingTensorObject>(param.name);
    kernel.scope->set(param.name, value, regionDepth, param.loc);
  }
  currentFunction = &kernel;
  mlir::OpBuilder::InsertionGuard guard(builder);
  std::shared_ptr<Scope> outerScope = scope;
  scope = kernel.scope;
  execBlock(def.body);
  scope = outerScope;
  if (!kernel.built && !source.hasErrors())
    error(loc, "@tilelang.jit kernel '" + def.name +
                   "' has no T.Kernel "
                   "block");
  if (kernel.func) {
    builder.setInsertionPointToEnd(&kernel.func.getBody().front());
    emitter.emitReturn(loc);
  }
  currentFunction = nullptr;
}

//===----------------------------------------------------------------------===//
// Instantiation
//===----------------------------------------------------------------------===//

Ref Evaluator::instantiateFactory(const FunctionObject &function, SMLoc loc) {
  CallArgs noArgs;
  noArgs.loc = loc;
  const std::vector<Parameter> &params = function.def->params;
  return callFunction(
      function, noArgs, loc, [&](const Parameter &param) -> Ref {
        if (Ref value = takeDefine(param.name))
          return value;
        if (function.defaults[&param - params.data()])
          return nullptr;
        return error(param.loc, "parameter '" + param.name + "' of '" +
                                    function.def->name +
                                    "' has no default; set it with -D " +
                                    param.name + "=VALUE");
      });
}

/// Whether `def` directly defines a `@T.prim_func`, i.e. is a factory.
static bool definesPrimFunc(const FunctionDefStmt &def) {
  std::function<bool(const Block &)> scan = [&](const Block &block) {
    for (const StmtPtr &stmt : block) {
      if (auto *inner = llvm::dyn_cast<FunctionDefStmt>(stmt.get())) {
        for (const ExprPtr &decorator : inner->decorators) {
          const Expr *callee = decorator.get();
          if (auto *call = llvm::dyn_cast<CallExpr>(callee))
            callee = call->callee.get();
          if (auto *attr = llvm::dyn_cast<AttributeExpr>(callee);
              attr && attr->attr == "prim_func")
            return true;
          if (auto *name = llvm::dyn_cast<NameExpr>(callee);
              name && name->name == "prim_func")
            return true;
        }
      } else if (auto *ifStmt = llvm::dyn_cast<IfStmt>(stmt.get())) {
        if (scan(ifStmt->then) || scan(ifStmt->otherwise))
          return true;
      }
    }
    return false;
  };
  return scan(def.body);
}

/// Whether `def`'s body opens a T.Kernel block itself (an eager kernel), as
/// opposed to returning a kernel another function makes.
static bool opensKernel(const FunctionDefStmt &def) {
  std::function<bool(const Block &)> scan = [&](const Block &block) {
    for (const StmtPtr &stmt : block) {
      if (llvm::isa<WithStmt>(stmt.get()))
        return true;
      if (auto *ifStmt = llvm::dyn_cast<IfStmt>(stmt.get()))
        if (scan(ifStmt->then) || scan(ifStmt->otherwise))
          return true;
    }
    return false;
  };
  return scan(def.body);
}

void Evaluator::instantiateKernels(const Module &ast) {
  std::vector<std::string> available;
  // --kernel a,b: the names asked for, and those not seen yet.
  llvm::SmallVector<StringRef> requested;
  if (!options.kernel.empty())
    StringRef(options.kernel).split(requested, ',', -1, /*KeepEmpty=*/false);
  llvm::StringSet<> wanted, missing;
  for (StringRef name : requested) {
    wanted.insert(name.trim());
    missing.insert(name.trim());
  }
  // In a file with @tilelang.jit functions, those are its kernels, as in
  // TileLang: an undecorated function that makes a T.prim_func is a
  // helper they call.
  bool anyJit = llvm::any_of(
      topLevelDefs, [](const auto &entry) { return entry.second->isJit; });
  for (auto &[def, function] : topLevelDefs) {
    enum { PrimFunc, Factory, Eager, Helper } kind = Helper;
    if (function->isPrimFunc)
      kind = PrimFunc;
    else if (definesPrimFunc(*def))
      kind = function->isJit || !anyJit ? Factory : Helper;
    else if (function->isJit)
      kind = opensKernel(*def) ? Eager : Factory;
    if (kind == Helper)
      continue;
    available.push_back(def->name);
    if (!wanted.empty() && !wanted.contains(def->name))
      continue;
    missing.erase(def->name);
    if (source.tooManyErrors())
      return;
    switch (kind) {
    case PrimFunc:
      emitPrimFunc(*function, def->name, def->nameLoc);
      break;
    case Eager:
      emitEagerKernel(*function, def->nameLoc);
      break;
    case Factory: {
      Ref result = instantiateFactory(*function, def->nameLoc);
      if (isPoison(result))
        break;
      auto *primFunc = llvm::dyn_cast<FunctionObject>(result.get());
      if (!primFunc || !primFunc->isPrimFunc) {
        error(def->nameLoc,
              "kernel factory '" + def->name + "' must return its T.prim_func");
        break;
      }
      emitPrimFunc(*primFunc, def->name, def->nameLoc);
      break;
    }
    case Helper:
      break;
    }
  }

  SMLoc fileStart = SMLoc::getFromPointer(source.getBuffer().begin());
  if (!missing.empty()) {
    std::string list = available.empty() ? "none" : llvm::join(available, ", ");
    for (StringRef name : requested)
      if (missing.contains(name.trim()))
        error(fileStart, "no kernel named '" + name.trim().str() +
                             "' in this file (kernels: " + list + ")");
  } else if (available.empty() && !source.hasErrors()) {
    error(fileStart, "this file defines no kernel: write a @T.prim_func, a "
                     "function that returns one, or a @tilelang.jit "
                     "function");
  }
  (void)ast;
}
