//===- Builtins.cpp - The T namespace and Python builtins -----------------===//
//
// Part of tilec. Assembles the namespaces .tile code sees from the families
// of builtins: `T` (tilelang.language), Python's builtins, and the tilelang
// package with its submodules.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Builtins.h"
#include "BuiltinsInternal.h"

using namespace tilec::frontend;

static Ref decoratorOnly(std::string name) {
  return builtin(name, [name](Evaluator &eval, const CallArgs &call) {
    return eval.error(call.loc, "@" + name +
                                    " is a decorator; write it "
                                    "above a def");
  });
}

/// The `T` namespace: tilelang.language.
static std::shared_ptr<ModuleObject>
createLanguageModule(mlir::MLIRContext *context,
                     std::shared_ptr<ModuleObject> python) {
  auto t = std::make_shared<ModuleObject>("T");
  t->members["prim_func"] = decoratorOnly("T.prim_func");
  t->members["macro"] = decoratorOnly("T.macro");
  addTypeBuiltins(*t, context);
  addMemoryBuiltins(*t);
  addComputeBuiltins(*t);
  addControlBuiltins(*t, *python);
  addThreadBuiltins(*t);
  addDebugBuiltins(*t);
  addAnnotationBuiltins(*t);
  addMathBuiltins(*t, *python);
  return t;
}

static std::shared_ptr<ModuleObject>
createTilelangModule(std::shared_ptr<ModuleObject> language) {
  auto tilelang = std::make_shared<ModuleObject>("tilelang");
  auto jit = decoratorOnly("tilelang.jit");
  auto autotune = decoratorOnly("tilelang.autotune");
  tilelang->members["language"] = language;
  tilelang->members["jit"] = jit;
  tilelang->members["autotune"] = autotune;
  auto layout = std::make_shared<ModuleObject>("tilelang.layout");
  addLayoutBuiltins(*layout);
  tilelang->members["layout"] = layout;
  // tilelang.cuda.intrinsics (and its layout.mma_layout) for the layout
  // helper kernels import from it.
  auto mmaLayout = std::make_shared<ModuleObject>(
      "tilelang.cuda.intrinsics.layout.mma_layout");
  addMmaLayoutBuiltins(*mmaLayout);
  auto intrinsicsLayout =
      std::make_shared<ModuleObject>("tilelang.cuda.intrinsics.layout");
  intrinsicsLayout->members["mma_layout"] = mmaLayout;
  auto intrinsics = std::make_shared<ModuleObject>("tilelang.cuda.intrinsics");
  intrinsics->members = mmaLayout->members;
  intrinsics->members["layout"] = intrinsicsLayout;
  auto cuda = std::make_shared<ModuleObject>("tilelang.cuda");
  cuda->members["intrinsics"] = intrinsics;
  tilelang->members["cuda"] = cuda;
  auto autotuner = std::make_shared<ModuleObject>("tilelang.autotuner");
  autotuner->members["autotune"] = autotune;
  autotuner->members["set_autotune_inputs"] =
      builtin("set_autotune_inputs", [](Evaluator &eval, const CallArgs &call) {
        eval.emitRemark(call.loc, "set_autotune_inputs(...) is ignored: "
                                  "tilec tunes nothing when it compiles");
        return none();
      });
  tilelang->members["autotuner"] = autotuner;
  // tilelang.tileop holds the gemm's warp policy that T re-exports.
  auto tileop = std::make_shared<ModuleObject>("tilelang.tileop");
  auto tileopBase = std::make_shared<ModuleObject>("tilelang.tileop.base");
  tileopBase->members["GemmWarpPolicy"] = language->members["GemmWarpPolicy"];
  tileop->members["GemmWarpPolicy"] = language->members["GemmWarpPolicy"];
  tileop->members["base"] = tileopBase;
  tilelang->members["tileop"] = tileop;
  auto transform = std::make_shared<ModuleObject>("tilelang.transform");
  transform->members["simplify_prim_func"] =
      decoratorOnly("tilelang.transform.simplify_prim_func");
  tilelang->members["transform"] = transform;
  tilelang->members["set_autotune_inputs"] =
      autotuner->members["set_autotune_inputs"];
  addTilelangHelpers(*tilelang, *language);
  transform->members["PassConfigKey"] = tilelang->members["PassConfigKey"];
  return tilelang;
}

Namespaces
tilec::frontend::createBuiltinNamespaces(mlir::MLIRContext *context) {
  Namespaces namespaces;
  namespaces.python = std::make_shared<ModuleObject>("builtins");
  addPythonBuiltins(*namespaces.python);
  namespaces.language = createLanguageModule(context, namespaces.python);
  namespaces.tvm = std::make_shared<ModuleObject>("tvm");
  addTvmModule(*namespaces.tvm, *namespaces.language);
  // `from tilelang import tvm`: TileLang re-exports its TVM.
  namespaces.makeTilelang = [language = namespaces.language,
                             tvm = namespaces.tvm] {
    auto tilelang = createTilelangModule(language);
    tilelang->members["tvm"] = tvm;
    return tilelang;
  };
  namespaces.math = std::make_shared<ModuleObject>("math");
  addPythonMathModule(*namespaces.math);
  namespaces.functools = std::make_shared<ModuleObject>("functools");
  addFunctoolsModule(*namespaces.functools);
  // Memoizing decorators: a compile-time function gives the same result
  // for the same arguments anyway.
  for (const char *name : {"lru_cache", "cache"})
    namespaces.functools->members[name] =
        decoratorOnly("functools." + std::string(name));
  namespaces.itertools = std::make_shared<ModuleObject>("itertools");
  addItertoolsModule(*namespaces.itertools);
  namespaces.torch = std::make_shared<ModuleObject>("torch");
  addTorchModule(*namespaces.torch, context);
  return namespaces;
}
