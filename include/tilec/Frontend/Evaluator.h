//===- Evaluator.h - Compile-time evaluation of .tile files -----*- C++ -*-===//
//
// Part of tilec. Runs a parsed .tile file at compile time. Module code,
// kernel factories and compile-time parameters are evaluated like Python;
// kernel bodies are evaluated too, but operations on run-time values (block
// indices, loaded elements) emit IR instead of computing. The builtins it
// is given (Builtins.h) check their arguments through it, and the tile IR
// of kernels is built by its TileEmitter. The result is one func.func per
// kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_EVALUATOR_H
#define TILEC_FRONTEND_EVALUATOR_H

#include "tilec/Frontend/Source.h"
#include "tilec/Frontend/TileEmitter.h"
#include "tilec/Frontend/Values.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace tilec::frontend {

/// Options of a front-end run.
/// The module attribute in which the front end records what the kernels'
/// `@tilelang.jit(pass_configs=...)` ask of the compilation: a dictionary
/// of `fast_math`, `tma` and `warp_specialize` booleans.
inline constexpr llvm::StringLiteral kPassConfigsAttr = "tilec.pass_configs";

/// Iterations of compile-time loops, bounded to stop runaway input.
inline constexpr uint64_t kMaxCompileTimeSteps = 1u << 20;

struct ImportOptions {
  /// `-D NAME=VALUE` pairs, in command-line order.
  std::vector<std::pair<std::string, std::string>> defines;
  /// Compile only these kernels, comma-separated (all when empty).
  std::string kernel;
  /// What TileLang's device queries (driver.get_num_sms()) answer: the
  /// multiprocessors of the GPU the target is taken to mean, and a note
  /// that says which (0 when there is no such GPU).
  int64_t multiprocessors = 0;
  std::string multiprocessorsNote;
  /// Whether the target's 8-bit floats are the fnuz kinds (AMD's), which
  /// TileLang's determine_fp8_type() then answers.
  bool fnuzFloat8 = false;
  /// The threads of a warp on the target (T.get_lane_idx, the shuffles).
  int64_t warpSize = 32;
  /// Whether every target has barriers among part of a block and among
  /// the threads of a warp (T.sync_threads(id, count), T.sync_warp).
  bool partialBarriers = true;
  /// Whether every target prints and asserts in kernels (T.print,
  /// T.device_assert).
  bool devicePrint = true;
  /// Folders `import` searches after the importing file's own (-I).
  std::vector<std::string> importPaths;
  /// Where to list the files `import` read besides the main one, for
  /// depfiles (none when null).
  std::vector<std::string> *importedFiles = nullptr;
};

/// The modules .tile code reaches without defining them, made by the
/// builtins (createBuiltinNamespaces).
struct Namespaces {
  /// `T`, i.e. tilelang.language; -D values may use it too.
  std::shared_ptr<ModuleObject> language;
  /// Python's builtins (range, len, min...), visible everywhere.
  std::shared_ptr<ModuleObject> python;
  /// Makes the `tilelang` package, anew for each import statement.
  std::function<std::shared_ptr<ModuleObject>()> makeTilelang;
  /// Python's math module, evaluated at compile time.
  std::shared_ptr<ModuleObject> math;
  /// Python's itertools module: product.
  std::shared_ptr<ModuleObject> itertools;
  /// Python's functools module: partial.
  std::shared_ptr<ModuleObject> functools;
  /// tvm.tir's const.
  std::shared_ptr<ModuleObject> tvm;
  /// torch, whose names kernel files carry in annotations.
  std::shared_ptr<ModuleObject> torch;
};

/// Names bound in a module or a function call.
class Scope {
public:
  explicit Scope(std::shared_ptr<Scope> parent = nullptr)
      : parent(std::move(parent)) {}

  struct Binding {
    Ref value;
    /// How many run-time regions (kernel, loops, run-time ifs) enclosed the
    /// assignment; see Evaluator::assignName.
    unsigned regionDepth = 0;
    llvm::SMLoc loc;
  };

  /// The binding of `name` here or in an enclosing scope.
  Binding *lookup(llvm::StringRef name);
  Binding *lookupLocal(llvm::StringRef name);
  void set(llvm::StringRef name, Ref value, unsigned regionDepth,
           llvm::SMLoc loc = {});
  /// Removes the bindings made deeper than `regionDepth` and returns their
  /// names and locations.
  std::vector<std::pair<std::string, llvm::SMLoc>>
  popRegion(unsigned regionDepth);
  /// Every name visible from here, for suggestions.
  void collectNames(std::vector<std::string> &names) const;
  /// Drops every binding.
  void clear() {
    vars.clear();
    declared.clear();
  }

  /// Whether `name` is bound in this scope itself, not through a declaration.
  bool hasOwnBinding(llvm::StringRef name) const { return vars.count(name); }
  /// Makes `name` here stand for its binding in `owner`, an enclosing scope,
  /// as `global` and `nonlocal` declare.
  void declare(llvm::StringRef name, Scope *owner) { declared[name] = owner; }
  /// The scope whose parents enclose this one: a module's.
  Scope *getRoot();
  /// The nearest enclosing scope, below the root, that binds `name`: what
  /// `nonlocal name` refers to.
  Scope *findNonlocalOwner(llvm::StringRef name);

private:
  llvm::StringMap<Binding> vars;
  /// Names declared global or nonlocal here, and the scopes that bind them.
  llvm::StringMap<Scope *> declared;
  std::shared_ptr<Scope> parent;
};

class Evaluator {
public:
  Evaluator(TileSource &source, mlir::ModuleOp module,
            const ImportOptions &options, Namespaces namespaces);
  ~Evaluator();

  /// Runs the module and emits its kernels. Fails if any error was
  /// reported.
  mlir::LogicalResult run(const Module &ast);

  //===--------------------------------------------------------------------===//
  // Services for the builtins
  //===--------------------------------------------------------------------===//

  TileSource &getSource() { return source; }
  mlir::MLIRContext *getContext() { return module.getContext(); }
  mlir::OpBuilder &getBuilder() { return builder; }
  TileEmitter &getEmitter() { return emitter; }
  mlir::Location getLoc(llvm::SMLoc loc) { return source.getLoc(loc); }

  /// Reports an error and returns a poison value, which later uses accept
  /// silently so that one mistake gives one message.
  Ref error(llvm::SMLoc loc, const llvm::Twine &message);
  mlir::InFlightDiagnostic emitError(llvm::SMLoc loc) {
    return source.emitError(loc);
  }
  void emitRemark(llvm::SMLoc loc, const llvm::Twine &message);
  const ImportOptions &getOptions() const { return options; }

  /// Whether IR can be emitted here: inside a kernel function's body.
  bool inFunction() const { return currentFunction != nullptr; }
  /// Whether code here runs on the GPU: inside a T.Kernel block.
  bool inKernel() const { return kernelDepth != 0; }
  /// Fails with a message naming `what` unless inside a T.Kernel block.
  bool requireKernel(llvm::SMLoc loc, llvm::StringRef what);
  /// The index of this block along grid dimension `dim` of the enclosing
  /// T.Kernel, as its `as (bx, by)` names give it.
  Ref blockIndex(unsigned dim, llvm::SMLoc loc);
  /// The index of this thread along dimension `dim` of the enclosing
  /// T.Kernel's threads (T.get_thread_binding).
  Ref threadIndex(unsigned dim, llvm::SMLoc loc);
  /// This thread's index in its block, dimension x varying fastest.
  Ref linearThreadIndex(llvm::SMLoc loc);
  /// The thread extents of the enclosing T.Kernel (empty outside one).
  llvm::ArrayRef<int64_t> kernelThreads() const;
  /// The grid dimensions of the enclosing T.Kernel (0 outside one).
  unsigned kernelGridRank() const;
  /// The value of `-D name=...`, marked used; null when not given.
  Ref takeDefine(llvm::StringRef name);

  /// Returns `value`, or poison after reporting at `loc` that it nests
  /// tuples, lists or dicts deeper than the evaluator allows.
  Ref checkNesting(Ref value, llvm::SMLoc loc);
  /// The set of `items`, or poison after reporting at `loc` an item that
  /// cannot be hashed.
  Ref buildSet(llvm::ArrayRef<Ref> items, llvm::SMLoc loc);
  /// An assignment to an attribute or item of `host`: nothing outside
  /// kernels, an error inside one.
  void changeHostValue(const HostObject &host, llvm::SMLoc loc);
  /// Reports at `loc` that code that builds kernels uses `host`, a value
  /// of the host program, which tilec does not run; returns poison.
  Ref hostValueError(const HostObject &host, llvm::SMLoc loc);
  /// The host value that an operation with a host operand gives, or null
  /// when neither `lhs` nor `rhs` is one.
  Ref hostOperation(const Ref &lhs, const Ref &rhs);
  /// Prepares list or dict `container` to take `added`: checks that none
  /// of them holds `container` (a cycle) and that the result nests within
  /// the limits, then records its new depth. False after an error at `loc`.
  bool prepareChange(const Object &container, llvm::ArrayRef<Ref> added,
                     llvm::SMLoc loc);
  /// Whether the list or dict that `receiver` names can change here: not
  /// when it was bound outside the run-time loop or if being emitted,
  /// whose body is emitted once. Reports at `loc` when not.
  bool checkChangeable(const Expr &receiver, llvm::SMLoc loc);
  /// A dtype given as a dtype object or a string such as "float16".
  std::optional<DType> getDType(const Ref &value, llvm::SMLoc loc,
                                llvm::StringRef what);

  /// Turns an element access into the loaded value; other values are
  /// returned as they are.
  Ref load(const Ref &value, llvm::SMLoc loc);
  /// The current value of a T.alloc_var variable.
  Ref readVariable(const BufferObject &variable, llvm::SMLoc loc);
  /// `value` as a run-time scalar (loads elements); errors on anything that
  /// is not a number.
  Ref toScalar(const Ref &value, llvm::SMLoc loc);
  /// An SSA value of `dtype` holding `value` (a compile-time number or a
  /// run-time scalar), converting as needed.
  mlir::Value materialize(const Ref &value, const DType &dtype,
                          llvm::SMLoc loc);
  /// An `index` SSA value for an integer value.
  mlir::Value materializeIndex(const Ref &value, llvm::SMLoc loc);
  /// Converts a run-time value between dtypes.
  mlir::Value convert(mlir::Value value, const DType &from, const DType &to,
                      llvm::SMLoc loc);
  /// The dtype of a number: its own for run-time values, int32 or float32
  /// for compile-time ones.
  DType dtypeOf(const Ref &value);
  /// The dtype an operation on numbers `l` and `r` computes in: a Python
  /// constant takes the other operand's type (float32 if it is a float and
  /// the other an integer); otherwise the wider type, floats over integers.
  DType promote(const Ref &l, const Ref &r);

  /// Python operators on compile-time values, IR on run-time ones.
  Ref binary(BinaryOp op, const Ref &lhs, const Ref &rhs, llvm::SMLoc loc);
  Ref unary(UnaryOp op, const Ref &operand, llvm::SMLoc loc);
  Ref compare(CompareOp op, const Ref &lhs, const Ref &rhs, llvm::SMLoc loc);
  /// `cond ? a : b` for run-time `cond`: arith.select of the two values,
  /// or an scf.if where a side reads a buffer element, read on that side
  /// only.
  Ref select(const Ref &cond, const Ref &a, const Ref &b, llvm::SMLoc loc);
  /// Truth of a compile-time value; std::nullopt for run-time values.
  std::optional<bool> truth(const Ref &value, llvm::SMLoc loc);
  /// `value` as an i1 run-time condition.
  mlir::Value materializeCondition(const Ref &value, llvm::SMLoc loc);
  /// Converts a value to `dtype` (T.cast): at compile time when it is a
  /// constant outside a kernel function, as a typed IR value otherwise.
  Ref cast(const Ref &value, const DType &dtype, llvm::SMLoc loc);

  /// Stores `value` into the element `access` (converting it to the
  /// buffer's dtype).
  void store(const AccessObject &access, const Ref &value, llvm::SMLoc loc);
  /// Builds the access `buffer[indices]` with bounds checks on constants.
  Ref subscriptBuffer(const std::shared_ptr<const BufferObject> &buffer,
                      const std::vector<Ref> &indices,
                      const std::vector<llvm::SMLoc> &locs, llvm::SMLoc loc);

  /// The value T.dynamic dims and tensor shapes refer to in the kernel
  /// function being emitted.
  Ref resolveDynamicDim(const DynamicDimObject &dim, llvm::SMLoc loc);

  /// Calls a function or builtin.
  Ref call(const Ref &callee, const CallArgs &args, llvm::SMLoc loc);

  /// The `T.const` names of an eager kernel: their -D values.
  Ref lookupConst(llvm::StringRef name, llvm::SMLoc loc);
  /// Allocates a buffer of the kernel function's workspace
  /// (`T.alloc_global`): a trailing argument that the header carves out of
  /// the caller's workspace pointer.
  Ref allocateWorkspace(llvm::ArrayRef<Ref> shape, const DType &dtype,
                        llvm::SMLoc shapeLoc, llvm::SMLoc loc);
  /// Declares an output tensor of an eager kernel (`T.empty`).
  Ref declareOutput(std::shared_ptr<const TensorSpecObject> spec,
                    llvm::SMLoc loc);
  /// Builds the kernel function of an eager kernel once its tensor
  /// parameters are known; a no-op in other kernels.
  bool ensureFunction(llvm::SMLoc loc);

  /// Suggests the closest of `candidates` to `name`, or "".
  static std::string suggest(llvm::StringRef name,
                             llvm::ArrayRef<std::string> candidates);

private:
  /// How a statement ends: on to the next, or a return, break or continue
  /// for the enclosing function or compile-time loop to take.
  enum class Flow { Normal, Return, Break, Continue };

  // Statements (EvalStmt.cpp).
  Flow execBlock(const Block &block);
  Flow execWhile(const WhileStmt &stmt);
  /// A loop that `break` and `continue` act on: one the interpreter runs
  /// at compile time, or one of the kernel's. In a kernel's loop they set
  /// flags, made at the first of them, that skip the rest of the iteration
  /// and, for break, the iterations after it.
  struct LoopContext {
    bool compileTime = true;
    /// The kernel's loop, and the block each iteration runs.
    mlir::Operation *loop = nullptr;
    mlir::Block *body = nullptr;
    /// Thread-local flags: skip the rest of this iteration; the loop was
    /// left.
    mlir::Value skip, left;
    /// The break and continue statements emitted in the loop so far.
    unsigned exits = 0;
  };
  /// The loops around the statement being run, innermost last.
  std::vector<LoopContext> enclosingLoops;
  /// Emits a break or continue of the kernel's innermost loop.
  void emitLoopExit(bool isBreak, llvm::SMLoc loc);
  /// Makes each iteration of `loop` start with its skip flag cleared (set
  /// once the loop was left) and a while loop stop once it was left.
  void finishLoopExits(const LoopContext &loop);
  Flow execStmt(const Stmt &stmt);
  void execAssign(const AssignStmt &stmt);
  void execAugAssign(const AugAssignStmt &stmt);
  void execAnnAssign(const AnnAssignStmt &stmt);
  Flow execIf(const IfStmt &stmt);
  Flow execFor(const ForStmt &stmt);
  Flow execWith(const WithStmt &stmt);
  /// `with T.ws(...):`, the body run by a range of the block's threads.
  Flow execThreadRange(const WithStmt &stmt, const ThreadRangeObject &range);
  void execFunctionDef(const FunctionDefStmt &stmt);
  Ref evalComprehension(const ComprehensionExpr &expr);
  Ref evalFString(const FStringExpr &expr);
  /// Applies `@tilelang.jit(pass_configs=...)`: the keys with a tilec
  /// equivalent go into the module's kPassConfigsAttr.
  void applyPassConfigs(const Keyword &configs);
  void execImport(const ImportStmt &stmt);
  void execRaise(const RaiseStmt &stmt);
  void execAssert(const AssertStmt &stmt);
  /// Emits the waves of a T.Persistent loop and, in each, the guard of
  /// the tile it visits; returns the guarded block and the tile's
  /// coordinates, which the loop's names take.
  mlir::Block *emitPersistent(const IterableObject &iter, llvm::SMLoc loc,
                              llvm::SmallVectorImpl<mlir::Value> &coordinates);
  Flow execRuntimeLoop(const ForStmt &stmt, const IterableObject &iter);
  Flow execCompileTimeLoop(const ForStmt &stmt, std::vector<Ref> items);
  /// Emits `stmt` as a loop of the kernel (scf.while) when its condition is
  /// a run-time value; false, having emitted nothing, when the condition is
  /// known at compile time.
  bool emitRuntimeWhile(const WhileStmt &stmt);
  /// Runs `block` as the body of a run-time region (loop, kernel, if):
  /// names first bound inside stay inside.
  Flow execRegion(const Block &block,
                  llvm::function_ref<void()> bindTargets = nullptr);

  /// Assigns to a target expression (name, tuple, element).
  void assign(const Expr &target, const Ref &value, llvm::SMLoc loc);
  void assignName(const std::string &name, const Ref &value, llvm::SMLoc loc);
  /// `global` and `nonlocal`: later assignments in this function bind the
  /// names in the module or in an enclosing function.
  void execNameDecl(const NameDeclStmt &stmt);

  // Expressions (EvalExpr.cpp).
  Ref eval(const Expr &expr);
  Ref evalName(const NameExpr &expr);
  Ref evalAttribute(const AttributeExpr &expr);
  Ref evalCall(const CallExpr &expr);
  /// The T.alloc_var variable that `expr`, a name, refers to; null for any
  /// other expression or value.
  const BufferObject *lookupVariable(const Expr &expr);
  /// The base of an assignment's subscript `target`, evaluated once; null
  /// for a T.alloc_var, whose name alone reads it.
  Ref evalSubscriptBase(const SubscriptExpr &target);
  /// `expr`'s value; `base`, when given, is its base already evaluated.
  Ref evalSubscript(const SubscriptExpr &expr, Ref base = nullptr);
  /// `list[i] = value` or `dict[key] = value` in place, when `base`, the
  /// evaluated base of `target`, is a list or a dict; nullopt otherwise,
  /// else whether it succeeded.
  std::optional<bool> assignItem(const SubscriptExpr &target, const Ref &base,
                                 const Ref &value, llvm::SMLoc loc);
  Ref evalBoolOp(const BoolOpExpr &expr);
  Ref evalCompare(const CompareExpr &expr);
  Ref getAttribute(const Ref &value, llvm::StringRef attr, llvm::SMLoc loc);

  // Operators (EvalOperators.cpp).
  Ref unsupportedOperands(BinaryOp op, const Ref &lhs, const Ref &rhs,
                          llvm::SMLoc loc);

  // Function calls (EvalExpr.cpp).
  /// Calls a user function. `fallback` supplies values for parameters the
  /// call leaves out, before their defaults (the -D values of a factory).
  Ref callFunction(
      const FunctionObject &function, const CallArgs &args, llvm::SMLoc loc,
      llvm::function_ref<Ref(const Parameter &)> fallback = nullptr);
  /// Binds the arguments of a call to the parameters of `function` into
  /// `scope`, see callFunction.
  bool
  bindParameters(const FunctionObject &function, const CallArgs &args,
                 Scope &scope, llvm::SMLoc loc,
                 llvm::function_ref<Ref(const Parameter &)> fallback = nullptr);

  // Kernels (EvalKernels.cpp).
  struct KernelParam {
    std::string name;
    llvm::SMLoc loc;
    std::shared_ptr<const TensorSpecObject> tensor;
    std::optional<DType> scalar;
    /// The object the name is bound to until the function exists (eager
    /// kernels), so it can be rebound to the parameter.
    Ref placeholder;
  };
  /// A kernel function being emitted.
  struct KernelFunction {
    std::string name;
    mlir::func::FuncOp func;
    llvm::DenseMap<const DynamicDimObject *, mlir::Value> dims;
    /// Eager kernels build their function at the first T.Kernel.
    bool eager = false;
    bool built = false;
    const FunctionObject *function = nullptr;
    std::shared_ptr<Scope> scope;
    llvm::StringMap<std::shared_ptr<const TensorSpecObject>> annotations;
    std::vector<KernelParam> outputs;
    llvm::SmallVector<llvm::StringRef> constNames;
  };
  void instantiateKernels(const Module &ast);
  void emitPrimFunc(const FunctionObject &function, llvm::StringRef name,
                    llvm::SMLoc loc);
  void emitEagerKernel(const FunctionObject &function, llvm::SMLoc loc);
  Ref instantiateFactory(const FunctionObject &function, llvm::SMLoc loc);
  bool buildKernelFunction(llvm::StringRef name,
                           std::vector<KernelParam> &params, Scope &scope,
                           llvm::SMLoc loc);

  /// The module that `name`.tile or `name`.py defines, found beside the
  /// file holding `loc` or in an -I folder and evaluated on first import;
  /// null when there is no such file (Evaluator.cpp).
  Ref importSibling(llvm::StringRef name, llvm::SMLoc loc);
  /// Imported files' syntax trees, which their functions point into.
  std::vector<std::unique_ptr<Module>> importedAsts;
  /// The modules imported so far by path; null while one is evaluated.
  llvm::StringMap<Ref> importedModules;

  // -D values (Evaluator.cpp).
  void parseDefines();

  TileSource &source;
  mlir::ModuleOp module;
  const ImportOptions &options;
  TileEmitter emitter;
  /// The emitter's builder, where operators emit arithmetic.
  mlir::OpBuilder &builder;

  /// A new scope, remembered so that the destructor can break the cycles
  /// closures make.
  std::shared_ptr<Scope> makeScope(std::shared_ptr<Scope> parent);
  std::vector<std::weak_ptr<Scope>> scopes;

  std::shared_ptr<Scope> moduleScope;
  std::shared_ptr<Scope> scope;
  Namespaces namespaces;

  /// Top-level defs in order, with the function objects they made.
  std::vector<
      std::pair<const FunctionDefStmt *, std::shared_ptr<const FunctionObject>>>
      topLevelDefs;

  struct Define {
    Ref value;
    /// The `-D NAME=VALUE` line of the `<command line>` buffer.
    mlir::Location loc;
    bool used = false;
  };
  llvm::MapVector<llvm::StringRef, Define> defines;

  /// The kernel function being emitted.
  KernelFunction *currentFunction = nullptr;
  /// Nesting of T.Kernel blocks (0 or 1) and of run-time regions.
  unsigned kernelDepth = 0;
  /// The body of the T.Kernel block being evaluated, whose arguments are
  /// the block indices.
  mlir::Block *kernelBody = nullptr;
  unsigned regionDepth = 0;
  /// For each T.alloc_var variable read since it was last written, the
  /// value of its first such read: the key of the linear-form term of every
  /// read until the next write, so that `v + n - v` is n. Cleared where a
  /// run-time region begins or ends, whose body runs more than once or not
  /// at all.
  llvm::DenseMap<mlir::Value, mlir::Value> variableReads;
  unsigned callDepth = 0;
  /// Names whose bindings ended with a run-time region, for messages.
  llvm::StringMap<llvm::SMLoc> expiredNames;
  /// Iterations run by compile-time loops, bounded to stop runaway input.
  uint64_t compileTimeSteps = 0;
  /// How much deeper lists and dicts held by other values have grown by
  /// changing in place: their holders' recorded depths do not follow, so
  /// this bounds how far any value's real depth can exceed its record.
  unsigned containedGrowth = 0;
  Ref returnValue;
};

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_EVALUATOR_H
