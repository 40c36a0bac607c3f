//===- Values.h - Values of the .tile evaluator -----------------*- C++ -*-===//
//
// Part of tilec. A .tile file is run at compile time: Python values (ints,
// floats, tuples, functions, dtypes) are computed, and whatever depends on
// the block indices or on memory becomes IR. A Value is either kind: a
// compile-time object, or a handle on IR (a runtime scalar, a buffer).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_VALUES_H
#define TILEC_FRONTEND_VALUES_H

#include "tilec/Dialect/Tile/IR/TileAttrs.h"
#include "tilec/Frontend/AST.h"

#include "mlir/IR/Types.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>

namespace tilec::frontend {

//===----------------------------------------------------------------------===//
// Data types
//===----------------------------------------------------------------------===//

/// A TileLang dtype: its canonical name and the MLIR element type. MLIR
/// integers are signless; signedness is kept here.
struct DType {
  std::string name;
  mlir::Type type;
  bool isUnsigned = false;

  bool isFloat() const { return mlir::isa<mlir::FloatType>(type); }
  bool isInteger() const { return type.isIntOrIndex() && !isBool(); }
  bool isIndex() const { return type.isIndex(); }
  bool isBool() const { return type.isInteger(1); }
  unsigned getWidth() const;
  bool operator==(const DType &other) const {
    return type == other.type && isUnsigned == other.isUnsigned;
  }
  bool operator!=(const DType &other) const { return !(*this == other); }
};

/// The dtype named `name` (`float16`, `half`, `int32`, `bool`, ...), or
/// std::nullopt if there is none.
std::optional<DType> lookupDType(llvm::StringRef name,
                                 mlir::MLIRContext *context);
/// The dtype block indices and loop variables have.
DType getIndexDType(mlir::MLIRContext *context);
/// Every dtype name .tile accepts, for suggestions.
llvm::ArrayRef<llvm::StringRef> getDTypeNames();

//===----------------------------------------------------------------------===//
// Objects
//===----------------------------------------------------------------------===//

class Object;
using Ref = std::shared_ptr<const Object>;

class Object {
public:
  enum class Kind {
    None,
    Bool,
    Int,
    Float,
    Str,
    Tuple,
    Dict,
    Set,
    DType,
    Function,
    Builtin,
    Module,
    Enum,
    Scalar,
    Buffer,
    Access,
    DynamicDim,
    TensorSpec,
    Layout,
    Iterable,
    KernelLaunch,
    ThreadRange,
    PendingTensor,
    Host,
    DataHandle,
    Poison,
  };

  explicit Object(Kind kind) : kind(kind) {}
  virtual ~Object() = default;
  Kind getKind() const { return kind; }

private:
  Kind kind;
};

template <Object::Kind K> class ObjectBase : public Object {
public:
  ObjectBase() : Object(K) {}
  static bool classof(const Object *o) { return o->getKind() == K; }
};

struct NoneObject : ObjectBase<Object::Kind::None> {};

struct BoolObject : ObjectBase<Object::Kind::Bool> {
  explicit BoolObject(bool value) : value(value) {}
  bool value;
};

struct IntObject : ObjectBase<Object::Kind::Int> {
  explicit IntObject(int64_t value) : value(value) {}
  int64_t value;
};

struct FloatObject : ObjectBase<Object::Kind::Float> {
  explicit FloatObject(double value) : value(value) {}
  double value;
};

struct StrObject : ObjectBase<Object::Kind::Str> {
  explicit StrObject(std::string value) : value(std::move(value)) {}
  std::string value;
};

/// What a tuple, list or dict records of its nesting. Lists and dicts change
/// in place, so both fields may change after the value is made.
struct Nesting {
  /// How deep tuples, lists and dicts nest in the value: 1 for a tuple of
  /// numbers.
  unsigned depth = 1;
  /// Whether another value holds it, whose depth then no longer follows
  /// this one's when it changes.
  bool contained = false;
};

/// The nesting that `object` records if it is a tuple, a list or a dict;
/// null otherwise.
Nesting *getNesting(const Object &object);
/// How deep tuples, lists and dicts nest in `object`: 0 for any other
/// value, 1 for a tuple of numbers. Comparing, printing and freeing a value
/// recurses that deep.
unsigned getNestingDepth(const Object &object);
/// Notes that `object`, if a tuple, a list or a dict, is now held by
/// another value.
void markContained(const Object &object);

/// A tuple or a list. Lists change in place, as Python's do (append, item
/// assignment), hence the mutable members: every holder sees the change.
struct TupleObject : ObjectBase<Object::Kind::Tuple> {
  TupleObject(std::vector<Ref> elements, bool isList)
      : elements(std::move(elements)), isList(isList) {
    for (const Ref &element : this->elements) {
      nesting.depth = std::max(nesting.depth, getNestingDepth(*element) + 1);
      markContained(*element);
    }
  }
  mutable std::vector<Ref> elements;
  bool isList;
  mutable Nesting nesting;
};

/// A dict, which changes in place as a list does.
struct DictObject : ObjectBase<Object::Kind::Dict> {
  explicit DictObject(std::vector<std::pair<Ref, Ref>> entries)
      : entries(std::move(entries)) {
    for (const auto &[key, value] : this->entries) {
      nesting.depth = std::max({nesting.depth, getNestingDepth(*key) + 1,
                                getNestingDepth(*value) + 1});
      markContained(*value);
    }
  }
  mutable std::vector<std::pair<Ref, Ref>> entries;
  mutable Nesting nesting;
};

/// A set: its elements each once, in the order first seen. Sets do not
/// change once made.
struct SetObject : ObjectBase<Object::Kind::Set> {
  SetObject(std::vector<Ref> elements, llvm::StringSet<> keys)
      : elements(std::move(elements)), keys(std::move(keys)) {
    for (const Ref &element : this->elements)
      nesting.depth = std::max(nesting.depth, getNestingDepth(*element) + 1);
  }
  /// Whether an element equals `value`.
  bool contains(const Object &value) const;
  std::vector<Ref> elements;
  /// The elements' hash keys (getHashKey).
  llvm::StringSet<> keys;
  mutable Nesting nesting;
};

/// A key equal for values that compare equal (1, 1.0 and True; a dtype and
/// its name) and distinct otherwise, for the hashable values: numbers,
/// strings, dtypes, None, enums and tuples of them; none for the others.
std::optional<std::string> getHashKey(const Object &value);

/// The set of `items`, or null if one cannot be hashed, which `unhashable`
/// then is.
Ref makeSet(llvm::ArrayRef<Ref> items, Ref &unhashable);

/// The entries of a dict being made (a display, a comprehension, dict()), as
/// Python makes them: a key given again keeps its first place and takes the
/// later value. Hashable keys are found by hash key, the others by
/// comparison.
class DictBuilder {
public:
  void put(Ref key, Ref value);
  std::vector<std::pair<Ref, Ref>> take() { return std::move(entries); }

private:
  std::vector<std::pair<Ref, Ref>> entries;
  llvm::StringMap<size_t> positions;
};

/// Whether `value` is a list or a dict: a value that changes in place.
bool isChangeable(const Object &value);

struct DTypeObject : ObjectBase<Object::Kind::DType> {
  explicit DTypeObject(DType dtype) : dtype(std::move(dtype)) {}
  DType dtype;
};

class Scope;

/// A `def`: a kernel (`@T.prim_func`), a kernel factory, an eager
/// `@tilelang.jit` kernel, a `@T.macro`, or a plain helper.
struct FunctionObject : ObjectBase<Object::Kind::Function> {
  const FunctionDefStmt *def = nullptr;
  std::shared_ptr<Scope> closure;
  /// Default values, one per parameter (null where there is none).
  std::vector<Ref> defaults;
  bool isPrimFunc = false;
  bool isJit = false;
  bool isMacro = false;
};

/// A value of the host program, which tilec does not run: a module it does
/// not model (`import argparse`), a class, or what their attributes, calls
/// and subscripts give. Code that only defines or passes such values
/// compiles; using one where the kernel needs a value is an error.
struct HostObject : ObjectBase<Object::Kind::Host> {
  explicit HostObject(std::string text) : description(std::move(text)) {
    // A chain of attributes in a loop must not grow it without bound.
    if (description.size() > kMaxDescription)
      description = description.substr(0, kMaxDescription) + "...";
  }
  static constexpr size_t kMaxDescription = 120;
  /// What it is, as written: "argparse", "torch.cuda.is_available()".
  std::string description;
};

struct ModuleObject;

/// Whether `name`, which module `mod` lacks, belongs to the host program:
/// every name of the modules tilec models only in part (torch, tvm, the
/// carver, the autotuner), and tilelang's host-side submodules (profiler,
/// testing...). Any other name missing from a module is an error.
bool isHostName(const ModuleObject &mod, llvm::StringRef name);

/// Whether a host value so described is a part of TileLang's kernel
/// language that tilec does not provide, rather than the host program's.
bool isUnmodeledTilelangName(llvm::StringRef description);

class Evaluator;

/// A call site as builtins see it.
struct CallArgs {
  llvm::SMLoc loc;
  std::vector<Ref> args;
  std::vector<llvm::SMLoc> argLocs;
  std::vector<std::pair<std::string, Ref>> keywords;
  std::vector<llvm::SMLoc> keywordLocs;
};

/// A function implemented by the compiler: T.copy, range, len...
struct BuiltinObject : ObjectBase<Object::Kind::Builtin> {
  using Handler = std::function<Ref(Evaluator &, const CallArgs &)>;
  BuiltinObject(std::string name, Handler handler)
      : name(std::move(name)), handler(std::move(handler)) {}
  std::string name;
  Handler handler;
  /// A type constructor that subscripting calls, as TileLang's
  /// T.Tensor[shape, dtype] is T.Tensor(shape, dtype).
  bool calledBySubscript = false;
  /// Arguments that name T.alloc_var variables arrive as the variables
  /// rather than their values, as T.fill and T.clear write them.
  bool takesVariables = false;
};

/// A namespace: `T`, `tilelang`, `T.GemmWarpPolicy`.
struct ModuleObject : ObjectBase<Object::Kind::Module> {
  explicit ModuleObject(std::string name) : name(std::move(name)) {}
  std::string name;
  std::map<std::string, Ref> members;
};

/// A member of an enum namespace, e.g. T.GemmWarpPolicy.FullRow.
struct EnumObject : ObjectBase<Object::Kind::Enum> {
  EnumObject(std::string enumName, std::string name, int64_t value)
      : enumName(std::move(enumName)), name(std::move(name)), value(value) {}
  std::string enumName;
  std::string name;
  int64_t value;
};

/// `a + b * c` over index values: the constant and one coefficient per
/// opaque value. Lets slices like `bx*64:(bx+1)*64` have a known extent.
struct LinearForm {
  int64_t constant = 0;
  llvm::SmallVector<std::pair<mlir::Value, int64_t>> terms;
};

/// A value known only when the kernel runs: an SSA value and its dtype.
struct ScalarObject : ObjectBase<Object::Kind::Scalar> {
  ScalarObject(mlir::Value value, DType dtype,
               std::optional<LinearForm> linear = std::nullopt)
      : value(value), dtype(std::move(dtype)), linear(std::move(linear)) {}
  mlir::Value value;
  DType dtype;
  std::optional<LinearForm> linear;
};

/// A buffer: a kernel tensor parameter or an allocation in a kernel.
struct BufferObject : ObjectBase<Object::Kind::Buffer> {
  mlir::Value memref;
  DType dtype;
  /// Extents: IntObject or, for dynamic tensor dimensions, ScalarObject.
  std::vector<Ref> shape;
  tile::MemoryScope scope = tile::MemoryScope::Global;
  /// The name it was first assigned to, for messages.
  mutable std::string name;
  /// T.alloc_var: reading the name loads the value, assigning stores it.
  bool isVar = false;
};

/// `X.data`: the storage of buffer X, which `T.Tensor(shape, dtype,
/// X.data)` views with another shape.
struct DataHandleObject : ObjectBase<Object::Kind::DataHandle> {
  explicit DataHandleObject(std::shared_ptr<const BufferObject> buffer)
      : buffer(std::move(buffer)) {}
  std::shared_ptr<const BufferObject> buffer;
};

/// `A[i, j]` or `A[i, a:b]` before it is used: an element to load or store,
/// or the origin and extents of a region for T.copy.
struct AccessObject : ObjectBase<Object::Kind::Access> {
  std::shared_ptr<const BufferObject> buffer;
  /// One per dimension: IntObject or index ScalarObject.
  std::vector<Ref> offsets;
  /// One per dimension: the extent of a slice, or std::nullopt for a
  /// single index.
  std::vector<std::optional<int64_t>> extents;
  bool isElement() const {
    return llvm::all_of(extents, [](auto e) { return !e.has_value(); });
  }
};

/// T.dynamic("m"): a tensor dimension known at run time, passed to the
/// kernel as a scalar argument.
struct DynamicDimObject : ObjectBase<Object::Kind::DynamicDim> {
  DynamicDimObject(std::string name, DType dtype)
      : name(std::move(name)), dtype(std::move(dtype)) {}
  std::string name;
  DType dtype;
};

/// T.Tensor(shape, dtype) / T.Buffer(...): the type of a tensor parameter.
struct TensorSpecObject : ObjectBase<Object::Kind::TensorSpec> {
  /// IntObject or DynamicDimObject per dimension.
  std::vector<Ref> shape;
  DType dtype;
};

/// A layout for T.annotate_layout.
struct LayoutObject : ObjectBase<Object::Kind::Layout> {
  explicit LayoutObject(mlir::Attribute layout) : layout(layout) {}
  mlir::Attribute layout;
};

/// What a for loop iterates over in a kernel: T.Parallel, T.Pipelined,
/// T.serial, T.unroll or range.
struct IterableObject : ObjectBase<Object::Kind::Iterable> {
  enum class LoopKind { Parallel, Pipelined, Serial, Unroll, Persistent };
  LoopKind loopKind;
  /// Parallel: the extents. Others: start, stop and (serial) step, each an
  /// IntObject or ScalarObject.
  std::vector<int64_t> extents;
  Ref start, stop, step;
  /// Persistent: the tile grid, the blocks of a wave, this block's index in
  /// it and the group size of the rasterization (int or run-time values).
  std::vector<Ref> domain;
  Ref waveSize, waveIndex, groupSize;
  int64_t numStages = 0;
  std::optional<std::vector<int64_t>> order, stage;
  /// For `range` outside a kernel, which runs at compile time.
  bool compileTimeRange = false;
};

/// T.Kernel(...): the grid and block shape of a launch.
struct KernelLaunchObject : ObjectBase<Object::Kind::KernelLaunch> {
  std::vector<Ref> grid;
  std::vector<int64_t> threads;
  llvm::SMLoc loc;
};

/// T.ws(...): the threads of consecutive warp groups, which a with block
/// over it runs.
struct ThreadRangeObject : ObjectBase<Object::Kind::ThreadRange> {
  int64_t first = 0, count = 0;
};

/// A parameter of an eager `@tilelang.jit` kernel not yet given a tensor
/// type by an annotation in the body.
struct PendingTensorObject : ObjectBase<Object::Kind::PendingTensor> {
  explicit PendingTensorObject(std::string name) : name(std::move(name)) {}
  std::string name;
};

/// The result of an expression that failed: using it reports nothing more.
struct PoisonObject : ObjectBase<Object::Kind::Poison> {};

//===----------------------------------------------------------------------===//
// Making and inspecting values
//===----------------------------------------------------------------------===//

// Compile-time values. None, the booleans and poison are one object each.
Ref none();
Ref boolean(bool value);
Ref integer(int64_t value);
Ref floating(double value);
Ref string(std::string value);
Ref tuple(std::vector<Ref> elements, bool isList = false);
Ref poison();
inline bool isPoison(const Ref &value) {
  return llvm::isa<PoisonObject>(*value);
}

/// The value of a compile-time int (bools count), if `value` is one.
std::optional<int64_t> getConstInt(const Ref &value);
/// A Python index into a sequence of `size` elements: `index`, counted
/// from the end if negative; std::nullopt when out of range.
inline std::optional<int64_t> normalizeIndex(int64_t index, int64_t size) {
  if (index < 0)
    index += size;
  if (index < 0 || index >= size)
    return std::nullopt;
  return index;
}
/// The value of a compile-time number, if `value` is one.
std::optional<double> getConstNumber(const Ref &value);
/// Whether `value` is a compile-time int, float or bool.
bool isConstNumber(const Ref &value);
/// Whether `value` is a number, known at compile time or at run time.
bool isNumber(const Ref &value);
/// The elements of a tuple or list, or of a single value as a 1-tuple.
std::vector<Ref> asSequence(const Ref &value);
/// Python equality of compile-time values; std::nullopt when a run-time
/// value decides it.
std::optional<bool> constEquals(const Ref &a, const Ref &b);

/// The linear form of an integer value (std::nullopt for other values): a
/// constant, the form a run-time value carries, or the value as its only
/// term.
std::optional<LinearForm> linearOf(const Ref &value);
/// a + scale * b, or std::nullopt on overflow.
std::optional<LinearForm> addScaledLinear(const LinearForm &a,
                                          const LinearForm &b, int64_t scale);
/// scale * form, or std::nullopt on overflow.
std::optional<LinearForm> scaleLinear(const LinearForm &form, int64_t scale);

//===----------------------------------------------------------------------===//
// Messages
//===----------------------------------------------------------------------===//

/// How a message names the type of a value: `int`, `tuple`, `buffer`.
llvm::StringRef getTypeName(const Object &object);

/// Python's repr of a compile-time value, for messages.
std::string repr(const Object &object);
/// Python's str of a compile-time value: a string's text, a dtype's name,
/// the repr of anything else.
std::string str(const Object &object);

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_VALUES_H
