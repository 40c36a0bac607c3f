//===- PackageBuiltins.cpp - Python and tilelang modules at compile time --===//
//
// Part of tilec. What TileLang files import besides tilelang.language:
// Python's math module and tilelang's helpers (tilelang.cdiv,
// tilelang.math, PassConfigKey), evaluated at compile time, and the names
// of the host program (torch) that kernel files carry in annotations.
//
//===----------------------------------------------------------------------===//

#include "BuiltinsInternal.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <numeric>

using namespace tilec::frontend;
using llvm::SMLoc;

/// The compile-time numbers a call of `name` takes, or an error naming the
/// kernel function to use on run-time values.
static std::optional<std::vector<double>>
constNumbers(Evaluator &eval, const CallArgs &call, const std::string &name,
             llvm::ArrayRef<llvm::StringRef> params, size_t required,
             llvm::StringRef runtimeHint) {
  std::optional<Args> args = bindArgs(eval, call, name, params, required);
  if (!args)
    return std::nullopt;
  std::vector<double> numbers;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!args->has(i))
      break;
    std::optional<double> number = getConstNumber((*args)[i]);
    if (!number) {
      eval.error(
          args->loc(i),
          name + " takes numbers known at compile time" +
              (runtimeHint.empty()
                   ? llvm::Twine()
                   : llvm::Twine("; on run-time values, use ") + runtimeHint));
      return std::nullopt;
    }
    numbers.push_back(*number);
  }
  return numbers;
}

/// `math.NAME(x)`: a float from a float function of Python's math module.
static Ref floatFunction(std::string name, double (*fn)(double),
                         std::string runtimeHint) {
  return builtin(name, [=](Evaluator &eval, const CallArgs &call) -> Ref {
    std::optional<std::vector<double>> x =
        constNumbers(eval, call, name, {"x"}, 1, runtimeHint);
    if (!x)
      return poison();
    double result = fn((*x)[0]);
    if (std::isnan(result) && !std::isnan((*x)[0]))
      return eval.error(call.loc, name + ": math domain error");
    return floating(result);
  });
}

/// `math.floor(x)`, `math.ceil(x)`, `math.trunc(x)`: an int.
static Ref intFunction(std::string name, double (*fn)(double),
                       std::string runtimeHint) {
  return builtin(name, [=](Evaluator &eval, const CallArgs &call) -> Ref {
    std::optional<std::vector<double>> x =
        constNumbers(eval, call, name, {"x"}, 1, runtimeHint);
    if (!x)
      return poison();
    double result = fn((*x)[0]);
    if (!std::isfinite(result) || std::fabs(result) >= 0x1p63)
      return eval.error(call.loc,
                        name + " of a value that is no 64-bit integer");
    return integer(static_cast<int64_t>(result));
  });
}

/// The integer arguments of `name`, which must be known at compile time.
static std::optional<std::vector<int64_t>>
constInts(Evaluator &eval, const CallArgs &call, const std::string &name,
          llvm::ArrayRef<llvm::StringRef> params) {
  std::optional<Args> args = bindArgs(eval, call, name, params, params.size());
  if (!args)
    return std::nullopt;
  std::vector<int64_t> ints;
  for (size_t i = 0; i < params.size(); ++i) {
    std::optional<int64_t> value = getConstInt((*args)[i]);
    if (!value) {
      eval.error(args->loc(i), name + " takes integers known at compile time");
      return std::nullopt;
    }
    ints.push_back(*value);
  }
  return ints;
}

void tilec::frontend::addPythonMathModule(ModuleObject &math) {
  auto &m = math.members;
  m["pi"] = floating(M_PI);
  m["e"] = floating(M_E);
  m["tau"] = floating(2 * M_PI);
  m["inf"] = floating(INFINITY);
  m["nan"] = floating(NAN);
  m["sqrt"] = floatFunction(
      "math.sqrt", [](double x) { return std::sqrt(x); }, "T.sqrt");
  m["exp"] =
      floatFunction("math.exp", [](double x) { return std::exp(x); }, "T.exp");
  m["exp2"] = floatFunction(
      "math.exp2", [](double x) { return std::exp2(x); }, "T.exp2");
  m["log2"] = floatFunction(
      "math.log2", [](double x) { return std::log2(x); }, "T.log2");
  m["log10"] = floatFunction(
      "math.log10", [](double x) { return std::log10(x); }, "T.log10");
  m["fabs"] = floatFunction(
      "math.fabs", [](double x) { return std::fabs(x); }, "T.abs");
  m["tanh"] = floatFunction(
      "math.tanh", [](double x) { return std::tanh(x); }, "T.tanh");
  m["floor"] = intFunction(
      "math.floor", [](double x) { return std::floor(x); }, "T.floor");
  m["ceil"] =
      intFunction("math.ceil", [](double x) { return std::ceil(x); }, "T.ceil");
  m["trunc"] =
      intFunction("math.trunc", [](double x) { return std::trunc(x); }, "");
  m["log"] = builtin("math.log", [](Evaluator &eval, const CallArgs &call) {
    std::optional<std::vector<double>> x =
        constNumbers(eval, call, "math.log", {"x", "base"}, 1, "T.log");
    if (!x)
      return poison();
    double result = std::log((*x)[0]);
    if (x->size() == 2)
      result /= std::log((*x)[1]);
    if (std::isnan(result) || (*x)[0] <= 0)
      return eval.error(call.loc, "math.log: math domain error");
    return floating(result);
  });
  m["pow"] = builtin("math.pow", [](Evaluator &eval, const CallArgs &call) {
    std::optional<std::vector<double>> x =
        constNumbers(eval, call, "math.pow", {"x", "y"}, 2, "T.pow");
    if (!x)
      return poison();
    return floating(std::pow((*x)[0], (*x)[1]));
  });
  m["gcd"] = builtin("math.gcd", [](Evaluator &eval, const CallArgs &call) {
    std::optional<std::vector<int64_t>> x =
        constInts(eval, call, "math.gcd", {"a", "b"});
    if (!x)
      return poison();
    return integer(std::gcd((*x)[0], (*x)[1]));
  });
  m["lcm"] = builtin("math.lcm", [](Evaluator &eval, const CallArgs &call) {
    std::optional<std::vector<int64_t>> x =
        constInts(eval, call, "math.lcm", {"a", "b"});
    if (!x)
      return poison();
    int64_t gcd = std::gcd((*x)[0], (*x)[1]);
    int64_t lcm;
    if (gcd == 0)
      return integer(0);
    if (llvm::MulOverflow((*x)[0] / gcd, (*x)[1], lcm))
      return eval.error(call.loc, "math.lcm overflows 64 bits");
    return integer(lcm < 0 ? -lcm : lcm);
  });
  m["isqrt"] = builtin("math.isqrt", [](Evaluator &eval, const CallArgs &call) {
    std::optional<std::vector<int64_t>> x =
        constInts(eval, call, "math.isqrt", {"n"});
    if (!x)
      return poison();
    if ((*x)[0] < 0)
      return eval.error(call.loc, "math.isqrt of a negative number");
    auto root = static_cast<int64_t>(std::sqrt(static_cast<double>((*x)[0])));
    while (root > 0 && root > (*x)[0] / root)
      --root;
    while ((root + 1) <= (*x)[0] / (root + 1))
      ++root;
    return integer(root);
  });
}

void tilec::frontend::addItertoolsModule(ModuleObject &itertools) {
  itertools.members["product"] = builtin(
      "itertools.product", [](Evaluator &eval, const CallArgs &call) -> Ref {
        int64_t repeat = 1;
        for (auto [keyword, loc] : llvm::zip(call.keywords, call.keywordLocs)) {
          std::optional<int64_t> value = getConstInt(keyword.second);
          if (keyword.first != "repeat" || !value || *value < 0)
            return eval.error(loc, "itertools.product takes iterables and "
                                   "repeat=N, N a non-negative integer");
          repeat = *value;
        }
        std::vector<std::vector<Ref>> pools;
        for (auto [arg, loc] : llvm::zip(call.args, call.argLocs)) {
          std::optional<std::vector<Ref>> items = iterate(eval, arg, loc);
          if (!items)
            return poison();
          pools.push_back(std::move(*items));
        }
        std::vector<std::vector<Ref>> repeated;
        for (int64_t r = 0; r < repeat; ++r)
          repeated.insert(repeated.end(), pools.begin(), pools.end());
        std::vector<std::vector<Ref>> combinations = {{}};
        for (const std::vector<Ref> &pool : repeated) {
          std::vector<std::vector<Ref>> next;
          for (const std::vector<Ref> &prefix : combinations)
            for (const Ref &item : pool) {
              if (next.size() >= kMaxCompileTimeSteps)
                return eval.error(call.loc, "itertools.product has too many "
                                            "combinations");
              next.push_back(prefix);
              next.back().push_back(item);
            }
          combinations = std::move(next);
        }
        std::vector<Ref> tuples;
        for (std::vector<Ref> &combination : combinations)
          tuples.push_back(tuple(std::move(combination)));
        return eval.checkNesting(tuple(std::move(tuples), /*isList=*/true),
                                 call.loc);
      });
}

void tilec::frontend::addFunctoolsModule(ModuleObject &functools) {
  // wraps(wrapped): a decorator that copies the name and docstring of
  // `wrapped` onto a wrapper; tilec keeps neither, so the wrapper stays.
  functools.members["wraps"] = builtin(
      "functools.wraps", [](Evaluator &eval, const CallArgs &call) -> Ref {
        if (call.args.size() != 1)
          return eval.error(call.loc, "functools.wraps takes the wrapped "
                                      "function");
        return builtin("wraps", [](Evaluator &eval, const CallArgs &inner) {
          if (inner.args.size() != 1)
            return eval.error(inner.loc, "functools.wraps(...) decorates one "
                                         "function");
          return inner.args.front();
        });
      });
  // partial(f, *args, **keywords): f with its first arguments given.
  functools.members["partial"] = builtin(
      "functools.partial", [](Evaluator &eval, const CallArgs &call) -> Ref {
        if (call.args.empty())
          return eval.error(call.loc, "functools.partial takes the function "
                                      "first");
        CallArgs bound = call;
        Ref function = bound.args.front();
        bound.args.erase(bound.args.begin());
        bound.argLocs.erase(bound.argLocs.begin());
        return builtin("partial", [function, bound](Evaluator &eval,
                                                    const CallArgs &more) {
          CallArgs args = bound;
          args.loc = more.loc;
          args.args.insert(args.args.end(), more.args.begin(), more.args.end());
          args.argLocs.insert(args.argLocs.end(), more.argLocs.begin(),
                              more.argLocs.end());
          // Keywords of the call replace the partial's own.
          for (auto [keyword, loc] :
               llvm::zip(more.keywords, more.keywordLocs)) {
            auto it = llvm::find_if(args.keywords, [&](const auto &given) {
              return given.first == keyword.first;
            });
            if (it != args.keywords.end()) {
              it->second = keyword.second;
              continue;
            }
            args.keywords.push_back(keyword);
            args.keywordLocs.push_back(loc);
          }
          return eval.call(function, args, more.loc);
        });
      });
}

void tilec::frontend::addTvmModule(ModuleObject &tvm, ModuleObject &language) {
  auto tir = std::make_shared<ModuleObject>("tvm.tir");
  // tir.const(value, dtype): a constant of that dtype, as T.cast makes it.
  Ref cast = language.members["cast"];
  tir->members["const"] = builtin(
      "tir.const", [cast](Evaluator &eval, const CallArgs &call) -> Ref {
        std::optional<Args> args =
            bindArgs(eval, call, "tir.const", {"value", "dtype"}, 1);
        if (!args)
          return poison();
        if (!args->has(1))
          return (*args)[0];
        CallArgs castCall = call;
        castCall.args = {(*args)[0], (*args)[1]};
        castCall.argLocs = {args->loc(0), args->loc(1)};
        castCall.keywords.clear();
        castCall.keywordLocs.clear();
        return eval.call(cast, castCall, call.loc);
      });
  // The TIR builtins kernels call by these names: T's.
  tir->members["reinterpret"] = language.members["reinterpret"];
  tir->members["Select"] = language.members["if_then_else"];
  tvm.members["tir"] = tir;
  // tvm.tirx is the same module under the name newer TVMs give it.
  tvm.members["tirx"] = tir;
  tvm.members["DataType"] = language.members["dtype"];
}

void tilec::frontend::addTorchModule(ModuleObject &torch,
                                     mlir::MLIRContext *context) {
  // Annotations of factories and host code name torch's types; kernels
  // take TileLang's.
  torch.members["Tensor"] =
      builtin("torch.Tensor", [](Evaluator &eval, const CallArgs &call) {
        return eval.error(call.loc,
                          "torch.Tensor is the host program's type; .tile "
                          "files take it in annotations only");
      });
  for (auto [name, dtype] : {std::pair{"float16", "float16"},
                             {"half", "float16"},
                             {"bfloat16", "bfloat16"},
                             {"float32", "float32"},
                             {"float", "float32"},
                             {"float64", "float64"},
                             {"double", "float64"},
                             {"int8", "int8"},
                             {"uint8", "uint8"},
                             {"int16", "int16"},
                             {"int32", "int32"},
                             {"int", "int32"},
                             {"int64", "int64"},
                             {"long", "int64"},
                             {"bool", "bool"},
                             {"float8_e4m3fn", "float8_e4m3fn"},
                             {"float8_e5m2", "float8_e5m2"},
                             {"float8_e4m3fnuz", "float8_e4m3fnuz"},
                             {"float8_e5m2fnuz", "float8_e5m2fnuz"}})
    if (std::optional<DType> type = lookupDType(dtype, context))
      torch.members[name] = std::make_shared<DTypeObject>(*type);
}

void tilec::frontend::addTilelangHelpers(ModuleObject &tilelang,
                                         ModuleObject &language) {
  auto &m = tilelang.members;
  m["cdiv"] = language.members["ceildiv"];
  // tilelang.DataType is TVM's, re-exported.
  m["DataType"] = language.members["dtype"];
  auto math = std::make_shared<ModuleObject>("tilelang.math");
  math->members["cdiv"] = language.members["ceildiv"];
  math->members["next_power_of_2"] = builtin(
      "tilelang.math.next_power_of_2",
      [](Evaluator &eval, const CallArgs &call) -> Ref {
        std::optional<std::vector<int64_t>> x =
            constInts(eval, call, "tilelang.math.next_power_of_2", {"x"});
        if (!x)
          return poison();
        if ((*x)[0] > (int64_t(1) << 62))
          return eval.error(call.loc, "tilelang.math.next_power_of_2 "
                                      "overflows 64 bits");
        return integer((*x)[0] <= 1 ? 1 : int64_t(llvm::PowerOf2Ceil((*x)[0])));
      });
  m["math"] = math;
  m["next_power_of_2"] = math->members["next_power_of_2"];
  // The keys of @tilelang.jit(pass_configs=...), as TileLang spells them.
  auto keys = std::make_shared<ModuleObject>("tilelang.PassConfigKey");
  for (auto [name, key] : {
           std::pair{"TL_SIMPLIFY", "tl.Simplify"},
           {"TL_DISABLE_WARP_SPECIALIZED", "tl.disable_warp_specialized"},
           {"TL_DISABLE_TMA_LOWER", "tl.disable_tma_lower"},
           {"TL_ENABLE_FAST_MATH", "tl.enable_fast_math"},
           {"TL_DISABLE_FAST_MATH", "tl.disable_fast_math"},
           {"TL_PTXAS_REGISTER_USAGE_LEVEL", "tl.ptxas_register_usage_level"},
           {"TL_ENABLE_PTXAS_VERBOSE_OUTPUT", "tl.enable_ptxas_verbose_output"},
           {"TL_DEVICE_COMPILE_FLAGS", "tl.device_compile_flags"},
           {"TL_ENABLE_AGGRESSIVE_SHARED_MEMORY_MERGE",
            "tl.enable_aggressive_shared_memory_merge"},
           {"TL_AST_PRINT_ENABLE", "tl.ast_print_enable"},
           {"TL_LAYOUT_VISUALIZATION_ENABLE", "tl.layout_visualization_enable"},
           {"TL_LAYOUT_VISUALIZATION_FORMATS",
            "tl.layout_visualization_formats"},
           {"TL_DISABLE_DATA_RACE_CHECK", "tl.disable_data_race_check"},
           {"TL_DISABLE_SAFE_MEMORY_ACCESS", "tl.disable_safe_memory_legalize"},
           {"TL_DISABLE_THREAD_STORAGE_SYNC", "tl.disable_thread_storage_sync"},
           {"TL_CONFIG_INDEX_BITWIDTH", "tl.config_index_bitwidth"},
           {"TL_DISABLE_DYNAMIC_TAIL_SPLIT", "tl.disable_dynamic_tail_split"},
           {"TL_DYNAMIC_ALIGNMENT", "tl.dynamic_alignment"},
           {"TIR_DISABLE_VECTORIZE", "tir.disable_vectorize"},
           {"TIR_MERGE_STATIC_SMEM", "tir.merge_static_smem"},
       })
    keys->members[name] = string(key);
  m["PassConfigKey"] = keys;
  // TileLang's device queries, answered for the GPU the target means.
  auto driver = std::make_shared<ModuleObject>("tilelang.carver.arch.driver");
  driver->members["get_num_sms"] = builtin(
      "driver.get_num_sms", [](Evaluator &eval, const CallArgs &call) -> Ref {
        if (!bindArgs(eval, call, "driver.get_num_sms", {}, 0))
          return poison();
        const ImportOptions &options = eval.getOptions();
        if (options.multiprocessors <= 0)
          return eval.error(call.loc,
                            "driver.get_num_sms() has no answer for this "
                            "target; give the count as a parameter (-D)");
        eval.emitRemark(call.loc, "driver.get_num_sms() is " +
                                      llvm::Twine(options.multiprocessors) +
                                      ", " + options.multiprocessorsNote);
        return integer(options.multiprocessors);
      });
  auto arch = std::make_shared<ModuleObject>("tilelang.carver.arch");
  arch->members["driver"] = driver;
  auto carver = std::make_shared<ModuleObject>("tilelang.carver");
  carver->members["arch"] = arch;
  m["carver"] = carver;
  // tilelang.language.fp8: the 8-bit float kinds of the target.
  auto fp8 = std::make_shared<ModuleObject>("T.fp8");
  fp8->members["determine_fp8_type"] = builtin(
      "determine_fp8_type", [](Evaluator &eval, const CallArgs &call) -> Ref {
        std::optional<Args> args =
            bindArgs(eval, call, "determine_fp8_type", {"fp8_type"}, 0);
        if (!args)
          return poison();
        std::string kind = "e4m3";
        if (args->has(0)) {
          auto *str = llvm::dyn_cast<StrObject>((*args)[0].get());
          if (!str || (str->value != "e4m3" && str->value != "e5m2"))
            return eval.error(args->loc(0),
                              "determine_fp8_type takes \"e4m3\" or "
                              "\"e5m2\"");
          kind = str->value;
        }
        bool fnuz = eval.getOptions().fnuzFloat8;
        std::string name = kind == "e4m3"
                               ? (fnuz ? "float8_e4m3fnuz" : "float8_e4m3fn")
                               : (fnuz ? "float8_e5m2fnuz" : "float8_e5m2");
        eval.emitRemark(call.loc, "determine_fp8_type() is " + name +
                                      ", the 8-bit float of the target");
        return std::make_shared<DTypeObject>(
            *lookupDType(name, eval.getContext()));
      });
  language.members["fp8"] = fp8;
  // Settings of TileLang's Python runtime, with nothing to set in tilec.
  auto runtimeSetting = [](std::string name) {
    return builtin(name, [](Evaluator &, const CallArgs &) { return none(); });
  };
  m["set_log_level"] = runtimeSetting("tilelang.set_log_level");
  m["disable_cache"] = runtimeSetting("tilelang.disable_cache");
}
