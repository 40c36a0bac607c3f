//===- BuiltinsInternal.h - Shared by the builtins' files -------*- C++ -*-===//
//
// Part of tilec. Private to lib/Frontend. The builtins come in families, a
// file each, that add their names to `T` and, where Python has the same
// function, to Python's builtins; Builtins.cpp makes the namespaces from
// them. This declares each family and the argument checking they share.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_FRONTEND_BUILTINSINTERNAL_H
#define TILEC_LIB_FRONTEND_BUILTINSINTERNAL_H

#include "tilec/Frontend/Evaluator.h"

namespace tilec::frontend {

//===----------------------------------------------------------------------===//
// Families of builtins
//===----------------------------------------------------------------------===//

/// The dtypes and T.dtype; the types of kernel parameters (T.Tensor,
/// T.Buffer, T.dynamic, T.symbolic); T.const and T.empty of eager kernels
/// (TypeBuiltins.cpp).
void addTypeBuiltins(ModuleObject &language, mlir::MLIRContext *context);
/// Buffers and the movement of data: T.alloc_*, T.copy, T.fill, T.clear,
/// T.atomic_add (MemoryBuiltins.cpp).
void addMemoryBuiltins(ModuleObject &language);
/// T.gemm with T.GemmWarpPolicy, and T.reduce_* (ComputeBuiltins.cpp).
void addComputeBuiltins(ModuleObject &language);
/// T.Kernel and the loops: T.Parallel, T.Pipelined, T.serial, T.unroll, and
/// Python's range (ControlBuiltins.cpp).
void addControlBuiltins(ModuleObject &language, ModuleObject &python);
/// One thread's view of the block: T.get_thread_binding, the lane, warp
/// and warpgroup indices, T.sync_threads and the warp shuffles
/// (ThreadBuiltins.cpp).
void addThreadBuiltins(ModuleObject &language);
/// T.print and T.device_assert.
void addDebugBuiltins(ModuleObject &language);
/// T.assume, T.use_swizzle, T.annotate_layout (AnnotationBuiltins.cpp).
void addAnnotationBuiltins(ModuleObject &language);
/// tilelang.layout's make_swizzled_layout (AnnotationBuiltins.cpp).
void addLayoutBuiltins(ModuleObject &layout);
/// tilelang.cuda.intrinsics' make_mma_swizzle_layout
/// (AnnotationBuiltins.cpp).
void addMmaLayoutBuiltins(ModuleObject &intrinsics);
/// Scalar math: T.exp and its kin, T.max, T.min, T.abs, T.ceildiv,
/// T.if_then_else, T.infinity, T.cast, and Python's max, min and abs
/// (MathBuiltins.cpp).
void addMathBuiltins(ModuleObject &language, ModuleObject &python);
/// The other Python builtins .tile keeps (PythonBuiltins.cpp).
void addPythonBuiltins(ModuleObject &python);
/// The method `attr` of the compile-time value `self`, bound to it, or null
/// when it has none.
Ref getMethod(const Ref &self, llvm::StringRef attr);
/// `value` formatted as Python's format(value, spec) does, or nullopt when
/// the spec does not apply to it.
std::optional<std::string> formatValue(const Object &value,
                                       llvm::StringRef spec);
/// Python's functools module: partial.
void addFunctoolsModule(ModuleObject &functools);
/// TVM's tir.const, which TileLang files use for typed constants.
void addTvmModule(ModuleObject &tvm, ModuleObject &language);
/// Python's itertools module: product.
void addItertoolsModule(ModuleObject &itertools);
/// Python's math module, evaluated at compile time.
void addPythonMathModule(ModuleObject &math);
/// The names of torch that annotations use: Tensor and the dtypes.
void addTorchModule(ModuleObject &torch, mlir::MLIRContext *context);
/// tilelang.cdiv, tilelang.math, tilelang.PassConfigKey and the runtime
/// settings that have nothing to set in tilec.
void addTilelangHelpers(ModuleObject &tilelang, ModuleObject &language);

//===----------------------------------------------------------------------===//
// Arguments (BuiltinArgs.cpp)
//===----------------------------------------------------------------------===//

/// A builtin named `name`, as messages call it.
inline Ref builtin(std::string name, BuiltinObject::Handler handler) {
  return std::make_shared<BuiltinObject>(std::move(name), std::move(handler));
}

/// Bound arguments of one builtin call.
struct Args {
  std::vector<Ref> values;
  std::vector<llvm::SMLoc> locs;
  const Ref &operator[](size_t i) const { return values[i]; }
  bool has(size_t i) const { return values[i] != nullptr; }
  llvm::SMLoc loc(size_t i) const { return locs[i]; }
};

/// Binds the arguments of a call to `function`'s parameter `names`, of
/// which the first `numRequired` must be given, as Python does. Missing
/// optional arguments are null. Reports errors naming `function`.
std::optional<Args> bindArgs(Evaluator &eval, const CallArgs &call,
                             llvm::StringRef function,
                             llvm::ArrayRef<llvm::StringRef> names,
                             size_t numRequired);

/// The entry of `dict` under `key`, compared as Python compares keys;
/// null when there is none.
std::pair<Ref, Ref> *findEntry(const DictObject &dict, const Ref &key);
/// Sets `dict[key] = value` in place, as Python does; false after an error
/// at `loc` (a key that can change, a cycle, too deep a value).
bool setDictItem(Evaluator &eval, const DictObject &dict, const Ref &key,
                 const Ref &value, llvm::SMLoc loc);

/// A compile-time integer argument, or an error naming `what`.
std::optional<int64_t> constIntArg(Evaluator &eval, const Ref &arg,
                                   llvm::SMLoc loc, llvm::StringRef what);
/// Argument `i`, a dimension of the grid or of the block's threads (0, 1
/// or 2; 0 when not given), or an error naming `what`.
std::optional<unsigned> dimensionArg(Evaluator &eval, const Args &args,
                                     size_t i, llvm::StringRef what);
/// A compile-time bool argument (ints count), or an error naming `what`;
/// std::nullopt also for an argument not given.
std::optional<bool> constBoolArg(Evaluator &eval, const Ref &arg,
                                 llvm::SMLoc loc, llvm::StringRef what);
/// Argument `i`, a compile-time bool, or `fallback` when not given;
/// std::nullopt after an error naming `what`.
std::optional<bool> boolArg(Evaluator &eval, const Args &args, size_t i,
                            llvm::StringRef what, bool fallback);
/// A whole buffer argument of a tile primitive.
std::shared_ptr<const BufferObject> bufferArg(Evaluator &eval, const Ref &arg,
                                              llvm::SMLoc loc,
                                              llvm::StringRef what);
/// Whether the product of `extents` is at most `limit`, overflow aside.
bool hasAtMostElements(llvm::ArrayRef<int64_t> extents, int64_t limit);
/// The items of a compile-time iterable: a tuple or list, a string's
/// characters, a dict's keys or a compile-time range.
std::optional<std::vector<Ref>> iterate(Evaluator &eval, const Ref &value,
                                        llvm::SMLoc loc);

} // namespace tilec::frontend

#endif // TILEC_LIB_FRONTEND_BUILTINSINTERNAL_H
