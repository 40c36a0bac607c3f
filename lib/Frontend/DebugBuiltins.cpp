//===- DebugBuiltins.cpp - T.print and T.device_assert in .tile -----------===//
//
// Part of tilec. Debugging from inside a kernel, as TileLang's T.print and
// T.device_assert do: formatted prints (gpu.printf) that name the block and
// thread, and assertions (cf.assert) that stop the kernel with a message.
// With -D NDEBUG=1 both are compiled out.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace tilec::frontend;
using llvm::SMLoc;
using llvm::StringRef;
namespace arith = mlir::arith;

/// Whether debugging code is compiled out: `-D NDEBUG` (any value but 0 or
/// False), as a C build's NDEBUG removes assertions.
static bool compiledOut(Evaluator &eval, SMLoc loc) {
  Ref value = eval.takeDefine("NDEBUG");
  if (!value)
    return false;
  std::optional<bool> set = eval.truth(value, loc);
  return !set || *set;
}

/// `value` as printf takes it: integers widened to 64 bits, floats to
/// double; the conversion it needs in the format.
static std::pair<mlir::Value, StringRef> printfArgument(mlir::OpBuilder &b,
                                                        mlir::Location loc,
                                                        mlir::Value value,
                                                        const DType &dtype) {
  mlir::Type type = value.getType();
  if (mlir::isa<mlir::FloatType>(type)) {
    if (!type.isF64())
      value = arith::ExtFOp::create(b, loc, b.getF64Type(), value);
    return {value, "%f"};
  }
  if (type.isIndex())
    return {arith::IndexCastOp::create(b, loc, b.getI64Type(), value), "%lld"};
  if (type.isInteger(1))
    return {arith::ExtUIOp::create(b, loc, b.getI32Type(), value), "%d"};
  if (type.getIntOrFloatBitWidth() < 64)
    value =
        dtype.isUnsigned
            ? arith::ExtUIOp::create(b, loc, b.getI64Type(), value).getResult()
            : arith::ExtSIOp::create(b, loc, b.getI64Type(), value).getResult();
  return {value, dtype.isUnsigned ? "%llu" : "%lld"};
}

/// printf's `%` in text of the user's.
static std::string escapePercent(StringRef text) {
  std::string escaped;
  for (char c : text) {
    escaped += c;
    if (c == '%')
      escaped += '%';
  }
  return escaped;
}

/// Argument `i`, the message of T.print or T.device_assert: a string,
/// empty when not given; std::nullopt after an error.
static std::optional<std::string> msgArg(Evaluator &eval, const Args &args,
                                         size_t i) {
  if (!args.has(i))
    return std::string();
  auto *text = llvm::dyn_cast<StrObject>(args[i].get());
  if (!text) {
    eval.error(args.loc(i),
               "msg must be a string, got a " + getTypeName(*args[i]));
    return std::nullopt;
  }
  return text->value;
}

/// Emits one print of `suffix` (a format with `args`) after the block and
/// thread indices, as TileLang's debug prints name them.
static void emitPrint(Evaluator &eval, SMLoc loc, StringRef msg,
                      StringRef suffix, llvm::ArrayRef<mlir::Value> args) {
  mlir::OpBuilder &b = eval.getBuilder();
  mlir::Location at = eval.getLoc(loc);
  llvm::SmallVector<mlir::Value> operands;
  auto index = [&](const Ref &ref) {
    return arith::IndexCastOp::create(b, at, b.getI64Type(),
                                      eval.materializeIndex(ref, loc));
  };
  std::string format = "msg='" + escapePercent(msg) + "'";
  // Three indices, 0 past the kernel's dimensions.
  auto appendIndices = [&](StringRef what, unsigned rank,
                           llvm::function_ref<Ref(unsigned)> indexOf) {
    format += (" " + what + "=(%lld, %lld, %lld)").str();
    for (unsigned dim = 0; dim < 3; ++dim)
      operands.push_back(
          dim < rank ? index(indexOf(dim)).getResult()
                     : arith::ConstantIntOp::create(b, at, 0, 64).getResult());
  };
  appendIndices("BlockIdx", eval.kernelGridRank(),
                [&](unsigned dim) { return eval.blockIndex(dim, loc); });
  format += ",";
  appendIndices("ThreadIdx", eval.kernelThreads().size(),
                [&](unsigned dim) { return eval.threadIndex(dim, loc); });
  format += ": " + suffix.str() + "\n";
  llvm::append_range(operands, args);
  mlir::gpu::PrintfOp::create(b, at, b.getStringAttr(format), operands);
}

/// Prints every element of `buffer`, in row-major order, from the thread
/// that runs this code.
static void printElements(Evaluator &eval, SMLoc loc, StringRef msg,
                          const BufferObject &buffer, mlir::Value memref) {
  mlir::OpBuilder &b = eval.getBuilder();
  mlir::Location at = eval.getLoc(loc);
  auto type = mlir::cast<mlir::MemRefType>(memref.getType());
  mlir::OpBuilder::InsertionGuard guard(b);
  // The extents, run-time ones included (a tensor of T.dynamic shape).
  llvm::SmallVector<mlir::Value> extents;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    extents.push_back(b.createOrFold<mlir::memref::DimOp>(at, memref, dim));
  llvm::SmallVector<mlir::Value> indices;
  for (mlir::Value extent : extents) {
    auto loop = mlir::scf::ForOp::create(
        b, at, arith::ConstantIndexOp::create(b, at, 0), extent,
        arith::ConstantIndexOp::create(b, at, 1));
    b.setInsertionPoint(loop.getBody()->getTerminator());
    indices.push_back(loop.getInductionVar());
  }
  // The flat index, as TileLang prints it.
  mlir::Value flat = arith::ConstantIndexOp::create(b, at, 0);
  for (auto [extent, iv] : llvm::zip(extents, indices))
    flat = arith::AddIOp::create(
        b, at, arith::MulIOp::create(b, at, flat, extent), iv);
  mlir::Value element = mlir::memref::LoadOp::create(b, at, memref, indices);
  auto [value, conversion] = printfArgument(b, at, element, buffer.dtype);
  std::string suffix = "buffer=" + escapePercent(buffer.name) +
                       ", index=%lld, dtype=" + buffer.dtype.name +
                       " value=" + conversion.str();
  emitPrint(eval, loc, msg, suffix,
            {arith::IndexCastOp::create(b, at, b.getI64Type(), flat), value});
}

/// T.print(obj=None, msg="", warp_group_id=0, warp_id=0): a scalar is
/// printed by every thread that runs the print; a buffer element by
/// element by one thread (warp `warp_id` of warpgroup `warp_group_id`'s
/// first), a fragment through a shared copy; a thread's own buffer by
/// each thread.
static Ref print(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(
      eval, call, "T.print", {"obj", "msg", "warp_group_id", "warp_id"}, 0);
  if (!args || !eval.requireKernel(call.loc, "T.print"))
    return poison();
  std::optional<std::string> given = msgArg(eval, *args, 1);
  if (!given)
    return poison();
  std::string msg = *given;
  int64_t printer = 0;
  for (unsigned i : {2u, 3u}) {
    if (!args->has(i))
      continue;
    std::optional<int64_t> id = constIntArg(
        eval, (*args)[i], args->loc(i), i == 2 ? "warp_group_id" : "warp_id");
    if (!id)
      return poison();
    printer += *id * (i == 2 ? 128 : 32);
  }
  if (!eval.getOptions().devicePrint)
    return eval.error(call.loc, "T.print needs an NVIDIA target or the host; "
                                "AMD targets have no device printf here");
  if (compiledOut(eval, call.loc))
    return none();
  mlir::OpBuilder &b = eval.getBuilder();
  mlir::Location at = eval.getLoc(call.loc);
  Ref obj = args->has(0) ? (*args)[0] : none();
  if (llvm::isa<NoneObject>(*obj)) {
    if (msg.empty())
      return eval.error(call.loc, "T.print() needs a value or a msg");
    mlir::gpu::PrintfOp::create(
        b, at, b.getStringAttr(escapePercent(msg) + "\n"), mlir::ValueRange{});
    return none();
  }
  auto buffer = std::dynamic_pointer_cast<const BufferObject>(obj);
  if (buffer && !buffer->isVar) {
    std::string name =
        msg.empty() ? "buffer<" + buffer->name + ", " + buffer->dtype.name + ">"
                    : msg;
    if (buffer->scope == tilec::tile::MemoryScope::Local) {
      printElements(eval, call.loc, name, *buffer, buffer->memref);
      return none();
    }
    // A fragment's elements are spread over the threads: they meet in a
    // shared copy first.
    mlir::Value source = buffer->memref;
    auto type = mlir::cast<mlir::MemRefType>(source.getType());
    if (buffer->scope == tilec::tile::MemoryScope::Fragment) {
      mlir::Value shared = eval.getEmitter().emitAlloc(
          tilec::tile::MemoryScope::Shared, type.getShape(),
          type.getElementType(), call.loc);
      if (!shared)
        return poison();
      eval.getEmitter().emitWholeCopy(source, shared, call.loc);
      source = shared;
    }
    Ref thread = eval.linearThreadIndex(call.loc);
    mlir::Value first =
        arith::CmpIOp::create(b, at, arith::CmpIPredicate::eq,
                              eval.materializeIndex(thread, call.loc),
                              arith::ConstantIndexOp::create(b, at, printer));
    mlir::scf::IfOp ifOp =
        eval.getEmitter().emitIf(first, /*withElse=*/false, call.loc);
    mlir::OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    printElements(eval, call.loc, name, *buffer, source);
    return none();
  }
  Ref scalar = eval.toScalar(eval.load(obj, args->loc(0)), args->loc(0));
  if (isPoison(scalar))
    return scalar;
  auto *runtime = llvm::dyn_cast<ScalarObject>(scalar.get());
  if (!runtime) {
    // A value known at compile time is printed as its text.
    std::string text = escapePercent(str(*scalar));
    std::string suffix = "value=" + text;
    emitPrint(eval, call.loc, msg.empty() ? text : msg, suffix, {});
    return none();
  }
  auto [value, conversion] =
      printfArgument(b, at, runtime->value, runtime->dtype);
  emitPrint(eval, call.loc, msg.empty() ? "expr" : msg,
            "dtype=" + runtime->dtype.name + " value=" + conversion.str(),
            {value});
  return none();
}

/// T.device_assert(condition, msg="", no_stack_info=False): stops the
/// kernel with `msg` where `condition` is false.
static Ref deviceAssert(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "T.device_assert",
                                      {"condition", "msg", "no_stack_info"}, 1);
  if (!args || !eval.requireKernel(call.loc, "T.device_assert"))
    return poison();
  std::optional<std::string> given = msgArg(eval, *args, 1);
  if (!given)
    return poison();
  std::string msg = given->empty() ? "T.device_assert failed" : *given;
  Ref condition = eval.load((*args)[0], args->loc(0));
  if (isPoison(condition))
    return condition;
  if (std::optional<bool> known = eval.truth(condition, args->loc(0))) {
    if (!*known)
      return eval.error(args->loc(0), "this T.device_assert always fails: " +
                                          llvm::Twine(msg));
    return none();
  }
  if (!eval.getOptions().devicePrint)
    return eval.error(call.loc, "T.device_assert needs an NVIDIA target or "
                                "the host; AMD targets have no device "
                                "assert here");
  if (compiledOut(eval, call.loc))
    return none();
  mlir::Value cond = eval.materializeCondition(condition, args->loc(0));
  mlir::cf::AssertOp::create(eval.getBuilder(), eval.getLoc(call.loc), cond,
                             msg);
  return none();
}

void tilec::frontend::addDebugBuiltins(ModuleObject &language) {
  auto &m = language.members;
  m["print"] = builtin("T.print", print);
  m["device_assert"] = builtin("T.device_assert", deviceAssert);
}
