//===- HeaderNames.cpp - The C names of the generated header --------------===//
//
// Part of tilec. Tells which names a launch function's parameter cannot
// keep, by rule (reserved identifiers, the prefixes and suffixes of the
// headers the header includes) and by list (HeaderReservedNames.def, the
// header's own names), and chooses free names for those and for the
// launch functions' locals.
//
//===----------------------------------------------------------------------===//

#include "HeaderNames.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace tilec;

namespace {

/// Names a parameter cannot keep that no rule below recognizes.
const char *const reservedNames[] = {
#define HEADER_RESERVED_NAME(SPELLING) SPELLING,
#include "HeaderReservedNames.def"
};

/// Whether the C and C++ implementations reserve `name` in every scope: `_`
/// and a capital or a second `_` first, or (C++) `__` anywhere. `_Pragma`,
/// `__func__`, `__LINE__` and the compilers' macros are such names.
bool isReservedIdentifier(StringRef name) {
  return (name.size() > 1 && name[0] == '_' &&
          (isUpper(name[1]) || name[1] == '_')) ||
         name.contains("__");
}

/// Whether `name` ends like names of the headers the header includes or of
/// other tilec headers beside it: POSIX reserves `_t` for types, <stdint.h>
/// and <limits.h> define `_MAX`, `_MIN` and `_WIDTH` macros, and tilec
/// headers define the rest.
bool hasReservedSuffix(StringRef name) {
  static const char *const suffixes[] = {
      "_t",         "_MAX",          "_MIN",       "_WIDTH",
      "_THREADS_X", "_THREADS_Y",    "_THREADS_Z", "_SHARED_MEMORY_BYTES",
      "_ARCH",      "_MAX_CONTEXTS", "_ALIGNED_"};
  return any_of(suffixes,
                [&](const char *suffix) { return name.ends_with(suffix); });
}

/// Whether `name` starts like names of the runtimes' headers (CUDA's `CU`,
/// `cu` and `cuda`, HIP's `hip`, `HIP` and `hsa_`), of <pthread.h> and the
/// POSIX headers it includes, of <stdint.h>'s constant macros (`INT64_C`) or
/// of tilec headers (`TILEC_`). No such header defines a name that ends in
/// `_`, so names that do are exempt, and appending `_` frees any name from
/// these rules.
bool hasReservedPrefix(StringRef name) {
  if (name.ends_with("_"))
    return false;
  static const char *const prefixes[] = {
      "cuda",   "cuuint", "hsa_",   "HSA_", "pthread_", "PTHREAD_", "sched_",
      "SCHED_", "CLOCK_", "TIMER_", "CPU_", "CLONE_",   "TILEC_"};
  if (any_of(prefixes,
             [&](const char *prefix) { return name.starts_with(prefix); }))
    return true;
  // CUresult, CU_LAUNCH_PARAM_END, CUDA_VERSION; cuLaunchKernel.
  if (name.size() > 2 && name.starts_with("CU") &&
      (isAlpha(name[2]) || name[2] == '_'))
    return true;
  if (name.size() > 2 && name.starts_with("cu") && isUpper(name[2]))
    return true;
  if (name.size() > 3 && (name.starts_with("hip") || name.starts_with("HIP")))
    return true;
  return (name.starts_with("INT") || name.starts_with("UINT")) &&
         name.ends_with("_C");
}

/// The names of the header's own functions, variables, types and macros:
/// `<prefix>` and each of these (NoParameterTakesANameOfTheHeader in
/// unittests/Target/HeaderGenTest.cpp finds any that is missing).
const char *const ownSuffixes[] = {
    // The lock, the cache and the loader.
    "_mutex_", "_lock_", "_unlock_", "_entry_", "_cache_", "_cache_size_",
    "_current_", "_load_locked_", "_function_", "_load", "_unload",
    // The binaries and the tensor-map encoder.
    "_binary", "_image_", "_encode_tiled_fn_", "_encode_tiled_"};
const char *const ownMacroSuffixes[] = {"_ARCH", "_MAX_CONTEXTS", "_ALIGNED_"};

/// The C name of a parameter whose .tile name `name` is taken: `name_`, or
/// `name_2_`, `name_3_`, ... when that is taken too. Runs of `_` become one
/// and a `_` before a capital goes first, so that the result is not a
/// reserved identifier (`__LINE__` gives `LINE_`); ending in `_`, it is free
/// of every prefix rule.
std::string renameParam(StringRef name, function_ref<bool(StringRef)> taken) {
  std::string stem;
  for (char c : name)
    if (c != '_' || stem.empty() || stem.back() != '_')
      stem += c;
  StringRef base = StringRef(stem).rtrim('_');
  if (base.size() > 1 && base[0] == '_' && isUpper(base[1]))
    base = base.drop_front();
  std::string candidate = base.str() + "_";
  for (unsigned n = 2; taken(candidate); ++n)
    candidate = base.str() + "_" + std::to_string(n) + "_";
  return candidate;
}

} // namespace

HeaderNames::HeaderNames(const ModuleInfo &module) : module(module) {
  // Every runtime's names, so that a kernel's parameters have the same C
  // names in its CUDA, HIP and host headers.
  std::string macroPrefix = StringRef(module.prefix).upper();
  ownNames.insert("stream");
  for (const char *suffix : ownSuffixes)
    ownNames.insert(module.prefix + suffix);
  for (const char *suffix : ownMacroSuffixes)
    ownNames.insert(macroPrefix + suffix);
  for (size_t i = 0; i < module.images.size(); ++i)
    ownNames.insert(imageName(i));
  for (const KernelInfo &kernel : module.kernels) {
    ownNames.insert(kernel.name + "_launch");
    ownNames.insert(kernel.name + "_run");
    ownNames.insert(kernel.name + "_workspace_bytes");
    ownNames.insert(hostSymbol(kernel));
  }
}

std::string HeaderNames::imageName(size_t index) const {
  if (module.images.size() == 1)
    return module.prefix + "_binary";
  std::string arch = module.images[index].arch;
  for (char &c : arch)
    if (!isAlnum(c))
      c = '_';
  return module.prefix + "_binary_" + std::to_string(index) + "_" + arch;
}

bool HeaderNames::isTaken(StringRef name, const KernelInfo &kernel) const {
  if (isReservedIdentifier(name) || hasReservedSuffix(name) ||
      hasReservedPrefix(name) || is_contained(reservedNames, name) ||
      ownNames.contains(name))
    return true;
  // The scalar types of the signature.
  for (const KernelParamInfo &param : kernel.params) {
    SmallVector<StringRef> words;
    SplitString(param.cType, words, " *");
    if (is_contained(words, name))
      return true;
  }
  return false;
}

KernelNames HeaderNames::nameKernel(const KernelInfo &kernel) const {
  KernelNames names;
  StringSet<> used;
  // Names that are free stay as they are; the others are renamed to names
  // that are free and that no other parameter has.
  for (const KernelParamInfo &param : kernel.params)
    if (!isTaken(param.name, kernel))
      used.insert(param.name);
  for (const KernelParamInfo &param : kernel.params) {
    std::string name = param.name;
    if (isTaken(name, kernel)) {
      name = renameParam(name, [&](StringRef candidate) {
        return used.contains(candidate) || isTaken(candidate, kernel);
      });
      used.insert(name);
    }
    names.params.push_back(std::move(name));
  }
  auto isUsed = [&](StringRef name) { return used.contains(name); };
  auto local = [&](StringRef base) {
    std::string name = isUsed(base) ? renameParam(base, isUsed) : base.str();
    used.insert(name);
    return name;
  };
  names.function = local("function");
  names.grid = local("grid");
  names.dims = local("dims");
  names.args = local("args");
  names.err = local("err");
  // Tensor maps in any image; the loaded image, with several.
  auto takesMaps = [](const KernelInfo &kernel) {
    return any_of(kernel.launches, [](const LaunchInfo &launch) {
      return !launch.tensorMaps.empty();
    });
  };
  bool maps = takesMaps(kernel);
  for (const ImageInfo &image : module.images)
    for (const KernelInfo &own : image.kernels)
      maps = maps || (own.name == kernel.name && takesMaps(own));
  if (maps) {
    names.maps = local("maps");
    names.mapDims = local("map_dims");
    names.mapStrides = local("map_strides");
    names.mapBox = local("map_box");
    names.mapSteps = local("map_steps");
  }
  if (module.images.size() > 1)
    names.image = local("image");
  if (any_of(kernel.params, [](const KernelParamInfo &param) {
        return param.kind == KernelParamInfo::Kind::Workspace;
      })) {
    names.workspace = local("workspace");
    names.ownsWorkspace = local("owned");
  }
  return names;
}
