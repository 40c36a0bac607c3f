//===- AnnotationBuiltins.cpp - Hints to the compiler in .tile ------------===//
//
// Part of tilec. T.assume states facts the verifiers may use, T.use_swizzle
// orders the blocks of the grid, and T.annotate_layout fixes the layout of a
// buffer, such as tilelang.layout's make_swizzled_layout.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"
#include "tilec/Analysis/FragmentLayouts.h"

using namespace tilec;
using namespace tilec::frontend;

static Ref assume(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "T.assume", {"cond"}, 1);
  if (!args || !eval.requireKernel(call.loc, "T.assume"))
    return poison();
  Ref cond = (*args)[0];
  if (isPoison(cond))
    return poison();
  if (!llvm::isa<BoolObject, IntObject, ScalarObject>(*cond))
    return eval.error(args->loc(0), "T.assume takes a condition, not a " +
                                        getTypeName(*cond));
  std::optional<bool> known = eval.truth(cond, args->loc(0));
  if (known) {
    if (!*known)
      return eval.error(args->loc(0),
                        "T.assume of a condition that is false at compile "
                        "time");
    return none();
  }
  mlir::Value condition = eval.materializeCondition(cond, args->loc(0));
  eval.getEmitter().emitAssume(condition, call.loc);
  return none();
}

static Ref useSwizzle(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "T.use_swizzle",
                                      {"panel_size", "order", "enable"}, 1);
  if (!args || !eval.requireKernel(call.loc, "T.use_swizzle"))
    return poison();
  std::optional<int64_t> panel =
      constIntArg(eval, (*args)[0], args->loc(0), "panel_size");
  if (!panel)
    return poison();
  if (*panel <= 0)
    return eval.error(args->loc(0), "panel_size must be positive");
  tile::RasterOrder order = tile::RasterOrder::Row;
  if (args->has(1)) {
    auto *str = llvm::dyn_cast<StrObject>((*args)[1].get());
    if (!str ||
        (str->value != "row" && str->value != "col" && str->value != "column"))
      return eval.error(args->loc(1), "order must be \"row\" or \"col\"");
    order =
        str->value == "row" ? tile::RasterOrder::Row : tile::RasterOrder::Col;
  }
  if (!constBoolArg(eval, (*args)[2], args->loc(2), "enable").value_or(true))
    return none();
  eval.getEmitter().emitUseSwizzle(*panel, order, call.loc);
  return none();
}

/// T.disable_warp_group_reg_alloc() (and its older spelling
/// T.no_set_max_nreg()): a warp-specialized kernel keeps the register budget
/// of every thread as launched.
static BuiltinObject::Handler keepRegisterBudget(llvm::StringRef name) {
  return [name = name.str()](Evaluator &eval, const CallArgs &call) {
    if (!bindArgs(eval, call, name, {}, 0) ||
        !eval.requireKernel(call.loc, name))
      return poison();
    eval.getEmitter().emitKeepRegisterBudget();
    return none();
  };
}

static Ref annotateLayout(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "T.annotate_layout", {"layout_map"}, 1);
  if (!args || !eval.requireKernel(call.loc, "T.annotate_layout"))
    return poison();
  auto *dict = llvm::dyn_cast<DictObject>((*args)[0].get());
  if (!dict)
    return eval.error(args->loc(0), "T.annotate_layout takes a dict from "
                                    "buffers to layouts");
  for (const auto &[key, value] : dict->entries) {
    auto buffer = bufferArg(eval, key, args->loc(0), "a layout key");
    if (!buffer)
      continue;
    auto *layout = llvm::dyn_cast<LayoutObject>(value.get());
    if (!layout) {
      if (auto *host = llvm::dyn_cast<HostObject>(value.get()))
        eval.hostValueError(*host, args->loc(0));
      else if (!isPoison(value))
        eval.error(args->loc(0), "the layout of '" + buffer->name +
                                     "' must be a layout, got a " +
                                     getTypeName(*value));
      continue;
    }
    eval.getEmitter().emitAnnotateLayout(buffer->memref, layout->layout,
                                         call.loc);
  }
  return none();
}

/// The row-major layout of shared `buffer`, swizzled when `swizzled`: 16-
/// byte chunks of a row XORed with the row's position in a 128-byte
/// pattern, the widest swizzle the row size allows.
static Ref sharedLayout(Evaluator &eval, const Ref &arg, llvm::SMLoc loc,
                        llvm::StringRef name, bool swizzled) {
  auto buffer = bufferArg(eval, arg, loc, "the buffer");
  if (!buffer)
    return poison();
  if (buffer->scope != tile::MemoryScope::Shared)
    return eval.error(loc, name + " is for shared memory buffers");
  llvm::SmallVector<int64_t> shape;
  for (const Ref &extent : buffer->shape)
    shape.push_back(*getConstInt(extent));
  mlir::MLIRContext *context = eval.getContext();
  // Row-major map.
  mlir::AffineExpr offset = mlir::getAffineConstantExpr(0, context);
  int64_t stride = 1;
  for (int64_t dim = shape.size() - 1; dim >= 0; --dim) {
    offset = offset + mlir::getAffineDimExpr(dim, context) * stride;
    stride *= shape[dim];
  }
  auto map = mlir::AffineMap::get(shape.size(), 0, offset);
  unsigned elemBytes = std::max(1u, buffer->dtype.getWidth() / 8);
  tile::SwizzleAttr swizzle =
      swizzled ? chooseSharedSwizzle(context, shape.back(), elemBytes)
               : tile::SwizzleAttr();
  return std::make_shared<LayoutObject>(
      tile::SharedLayoutAttr::get(context, shape, map, swizzle));
}

/// tilelang.layout's make_swizzled_layout(buffer).
static Ref makeSwizzledLayout(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args =
      bindArgs(eval, call, "make_swizzled_layout", {"buffer"}, 1);
  if (!args)
    return poison();
  return sharedLayout(eval, (*args)[0], args->loc(0), "make_swizzled_layout",
                      /*swizzled=*/true);
}

/// tilelang.cuda.intrinsics' make_mma_swizzle_layout(shared_buf,
/// is_smooth=False): the same swizzle for rows of a multiple of 64 bytes,
/// which TileLang swizzles for ldmatrix; the plain row-major layout for
/// others and with is_smooth.
static Ref makeMmaSwizzleLayout(Evaluator &eval, const CallArgs &call) {
  std::optional<Args> args = bindArgs(eval, call, "make_mma_swizzle_layout",
                                      {"shared_buf", "is_smooth"}, 1);
  if (!args)
    return poison();
  std::optional<bool> smooth =
      constBoolArg(eval, (*args)[1], args->loc(1), "is_smooth");
  if (args->has(1) && !smooth)
    return poison();
  auto *buffer =
      llvm::dyn_cast<BufferObject>(eval.load((*args)[0], args->loc(0)).get());
  bool swizzled =
      !smooth.value_or(false) && buffer && !buffer->shape.empty() &&
      *getConstInt(buffer->shape.back()) * buffer->dtype.getWidth() % 512 == 0;
  return sharedLayout(eval, (*args)[0], args->loc(0), "make_mma_swizzle_layout",
                      swizzled);
}

void tilec::frontend::addAnnotationBuiltins(ModuleObject &language) {
  auto &m = language.members;
  m["assume"] = builtin("T.assume", assume);
  m["use_swizzle"] = builtin("T.use_swizzle", useSwizzle);
  m["annotate_layout"] = builtin("T.annotate_layout", annotateLayout);
  m["disable_warp_group_reg_alloc"] =
      builtin("T.disable_warp_group_reg_alloc",
              keepRegisterBudget("T.disable_warp_group_reg_alloc"));
  m["no_set_max_nreg"] =
      builtin("T.no_set_max_nreg", keepRegisterBudget("T.no_set_max_nreg"));
}

void tilec::frontend::addLayoutBuiltins(ModuleObject &layout) {
  layout.members["make_swizzled_layout"] =
      builtin("make_swizzled_layout", makeSwizzledLayout);
}

void tilec::frontend::addMmaLayoutBuiltins(ModuleObject &intrinsics) {
  intrinsics.members["make_mma_swizzle_layout"] =
      builtin("make_mma_swizzle_layout", makeMmaSwizzleLayout);
}
