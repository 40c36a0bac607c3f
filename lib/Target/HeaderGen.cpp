//===- HeaderGen.cpp - The C header that loads and launches kernels -------===//
//
// Part of tilec. Writes the plain-C header that docs/abi.md specifies. Its
// fixed part (the lock, the per-context module cache, loading and unloading)
// is a template per runtime, HeaderCUDA.h.in, HeaderHIP.h.in and
// HeaderHost.h.in, embedded at build time; this file fills in what differs
// from module to module: the embedded binaries, the choice among them, the
// kernels' lookup and one launch function per kernel that validates its
// arguments, loads the module on first use and launches through the CUDA
// driver API or HIP.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/HeaderGen.h"
#include "tilec/Target/HeaderTemplate.h"

#include "HeaderNames.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace llvm;
using namespace tilec;

// The templates, as char arrays: headerCUDA, headerHIP and headerHost.
#include "HeaderCUDA.h.in.inc"
#include "HeaderHIP.h.in.inc"
#include "HeaderHost.h.in.inc"

namespace {

/// The spellings of the launch functions that differ between the CUDA
/// driver API, HIP and the host.
struct RuntimeApi {
  StringRef result;
  StringRef success;
  StringRef invalidValue;
  StringRef function;
  StringRef stream;
  /// The launch function's type for a tensor; pointer types end in '*'.
  StringRef tensor;
  StringRef getFunction;
  StringRef launchKernel;
};

const RuntimeApi cudaApi = {
    "CUresult", "CUDA_SUCCESS", "CUDA_ERROR_INVALID_VALUE", "CUfunction",
    "CUstream", "CUdeviceptr",  "cuModuleGetFunction",      "cuLaunchKernel"};

const RuntimeApi hipApi = {"hipError_t",           "hipSuccess",
                           "hipErrorInvalidValue", "hipFunction_t",
                           "hipStream_t",          "void *",
                           "hipModuleGetFunction", "hipModuleLaunchKernel"};

/// The host target's functions run on the calling thread and return these.
const RuntimeApi hostApi = {"int",
                            "TILEC_HOST_SUCCESS",
                            "TILEC_HOST_INVALID_VALUE",
                            "",
                            "",
                            "void *",
                            "",
                            ""};

/// Makes `text` safe inside a /* */ comment: no comment delimiters, no
/// control characters, no trigraphs (C99 translates them even there).
std::string commentText(StringRef text) {
  std::string result;
  for (char c : text) {
    if ((c == '/' && !result.empty() && result.back() == '*') ||
        (c == '*' && !result.empty() && result.back() == '/') ||
        (c == '?' && !result.empty() && result.back() == '?'))
      result += ' ';
    result += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  }
  return result;
}

/// A C string literal holding `text`.
std::string stringLiteral(StringRef text) {
  std::string result = "\"";
  for (char c : text) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || c == '?') {
      // '?' too: "??=" would be a trigraph.
      result += '\\';
      result += c;
    } else if (u < 0x20 || u >= 0x7f) {
      // Three octal digits, so a following digit cannot extend the escape.
      result += '\\';
      result += static_cast<char>('0' + ((u >> 6) & 7));
      result += static_cast<char>('0' + ((u >> 3) & 7));
      result += static_cast<char>('0' + (u & 7));
    } else {
      result += c;
    }
  }
  return result + "\"";
}

/// `expr`, a grid extent of KernelInfo, with each parameter reference `$i`
/// replaced by `param(i)`.
std::string substituteParams(StringRef expr,
                             function_ref<std::string(size_t)> param) {
  std::string result;
  size_t i = 0;
  while (i < expr.size()) {
    size_t end = i + 1;
    if (expr[i] != '$') {
      result += expr[i];
      ++i;
      continue;
    }
    while (end < expr.size() && isDigit(expr[end]))
      ++end;
    size_t index = 0;
    bool invalid = expr.slice(i + 1, end).getAsInteger(10, index);
    assert(!invalid && "a parameter reference is `$` and an index");
    (void)invalid;
    result += param(index);
    i = end;
  }
  return result;
}

/// Whether `kernel` has workspace buffers (T.alloc_global).
static bool hasWorkspace(const KernelInfo &kernel) {
  return any_of(kernel.params, [](const KernelParamInfo &param) {
    return param.kind == KernelParamInfo::Kind::Workspace;
  });
}

class HeaderWriter {
public:
  explicit HeaderWriter(const ModuleInfo &module)
      : module(module),
        api(module.runtime == ModuleInfo::Runtime::HIP    ? hipApi
            : module.runtime == ModuleInfo::Runtime::Host ? hostApi
                                                          : cudaApi),
        hip(module.runtime == ModuleInfo::Runtime::HIP),
        host(module.runtime == ModuleInfo::Runtime::Host),
        prefix(module.prefix), macroPrefix(StringRef(module.prefix).upper()),
        guard("TILEC_" + StringRef(module.prefix).upper() +
              (module.runtime == ModuleInfo::Runtime::Host ? "_HOST_H" : "_H")),
        naming(module) {}

  /// Fills in the runtime's template and writes the header to `out`.
  void write(raw_ostream &out);

private:
  /// The parts of the template that differ per module.
  void writeBinaries(raw_ostream &os) const;
  void writeImageCandidates(raw_ostream &os) const;
  void writeGetFunctions(raw_ostream &os) const;
  /// The test of the loaded image's index that tells whether it needs the
  /// tensor-map encoder; empty where every image does.
  std::string imagesWithMaps() const;

  void writeKernel(const KernelInfo &kernel, unsigned index);
  /// The index of kernel `kernel`'s first device function in the module's
  /// table, which lists each kernel's launches in order.
  unsigned firstFunction(size_t kernel) const {
    unsigned first = 0;
    for (size_t k = 0; k < kernel; ++k)
      first += module.kernels[k].launches.size();
    return first;
  }
  /// The checks of a launch's arguments: pointers, extents and element
  /// counts.
  void writeArgumentChecks(const KernelInfo &kernel, const KernelNames &names);
  /// Each launch's grid extents into `names.grid`, and their check.
  void writeGridChecks(const KernelInfo &kernel, const KernelNames &names);
  /// The start of a kernel's comment: its name, each parameter and the
  /// grid (of each launch, on lines of their own, with several), up to the
  /// last grid's closing parenthesis.
  void writeParamsComment(const KernelInfo &kernel, const KernelNames &names);
  /// A kernel of the host target: a C function that checks and calls the
  /// object file's.
  void writeHostKernel(const KernelInfo &kernel);
  /// Writes the encoding of the tensor maps of `kernel`'s launches to `os`
  /// (the header, or a block of it), one after the other in `names.maps`.
  void writeTensorMaps(const KernelInfo &kernel, const KernelNames &names,
                       raw_ostream &os);
  bool usesTensorMaps() const;
  /// Kernel `kernel` as image `image` launches it.
  const KernelInfo &kernelIn(size_t kernel, size_t image) const {
    const std::vector<KernelInfo> &own = module.images[image].kernels;
    return own.empty() ? module.kernels[kernel] : own[kernel];
  }
  /// Whether some image launches kernel `kernel` differently from another.
  bool varies(size_t kernel) const {
    for (size_t i = 1; i < module.images.size(); ++i)
      if (!(kernelIn(kernel, i) == kernelIn(kernel, 0)))
        return true;
    return false;
  }
  /// A C expression of `value(image)` for the loaded image `index`: the
  /// value itself when all images agree.
  std::string perImage(StringRef index,
                       function_ref<int64_t(size_t)> value) const;
  void writeKernelComment(const KernelInfo &kernel, unsigned index,
                          const KernelNames &names);

  /// `cond` checked, returning invalidValue when it holds.
  void writeReject(const Twine &cond, StringRef comment = {});

  /// `<kernel>_workspace_bytes`, for a kernel with a workspace.
  void writeWorkspaceBytes(const KernelInfo &kernel, const KernelNames &names);
  /// Points each workspace buffer at its part of `names.workspace`, after
  /// allocating it on the stream (or the heap) where the caller passed
  /// none; sets `cleanupCall` and `cleanupFlag`.
  void writeWorkspaceParts(const KernelInfo &kernel, const KernelNames &names);
  /// `if (cond) return value;`, freeing an allocated workspace first,
  /// indented by `indent`.
  std::string failIf(StringRef cond, StringRef value, StringRef indent) const {
    std::string in = indent.str();
    if (cleanupCall.empty())
      return in + "if (" + cond.str() + ")\n" + in + "  return " + value.str() +
             ";\n";
    return in + "if (" + cond.str() + ") {\n" + in + "  if (" + cleanupFlag +
           ")\n" + in + "    (void)" + cleanupCall + ";\n" + in + "  return " +
           value.str() + ";\n" + in + "}\n";
  }
  /// What frees the workspace the launch function allocated, and the flag
  /// that says it did; empty otherwise.
  std::string cleanupCall, cleanupFlag;

  const ModuleInfo &module;
  /// The kernels' part of the header, which the writers above append to.
  std::string kernels;
  raw_string_ostream os{kernels};
  const RuntimeApi &api;
  bool hip, host;
  std::string prefix, macroPrefix, guard;
  /// The C names of the header's arrays and functions.
  HeaderNames naming;
};

/// Kernels whose dynamic shared memory exceeds this must opt in (CUDA).
constexpr int64_t defaultSharedMemoryLimit = 48 * 1024;

void HeaderWriter::write(raw_ostream &out) {
  bool needsBool = any_of(module.kernels, [](const KernelInfo &kernel) {
    return any_of(kernel.params, [](const KernelParamInfo &param) {
      return param.kind == KernelParamInfo::Kind::Scalar &&
             param.cType == "bool";
    });
  });
  // The banner's list of the functions that launch (or run) the kernels.
  std::string list;
  for (auto [index, kernel] : enumerate(module.kernels)) {
    list += " *   " + kernel.name + (host ? "_run()\n" : "_launch()\n");
    if (host)
      writeHostKernel(kernel);
    else
      writeKernel(kernel, index);
  }
  HeaderTemplate header;
  header.set("TILEC_GUARD", guard)
      .set("TILEC_SOURCE", commentText(module.sourceName))
      .set("TILEC_KERNELS", kernels)
      .setFlag("TILEC_HAS_BOOL", needsBool);
  if (host) {
    header.set("TILEC_RUN_LIST", list)
        .setFlag("TILEC_HAS_WORKSPACE", any_of(module.kernels, hasWorkspace))
        .render(headerHost, out);
    return;
  }

  std::string binaries, candidates, getFunctions;
  raw_string_ostream binariesOs(binaries), candidatesOs(candidates),
      getFunctionsOs(getFunctions);
  writeBinaries(binariesOs);
  bool multi = module.images.size() > 1;
  if (multi)
    writeImageCandidates(candidatesOs);
  writeGetFunctions(getFunctionsOs);
  header.setPrefix("tilec_prefix", prefix)
      .setPrefix("TILEC_PREFIX", macroPrefix)
      .set("TILEC_ARCHS", commentText(module.getArchList()))
      .set("TILEC_ARCH_LITERAL", stringLiteral(module.getArchList()))
      .set("TILEC_LAUNCH_LIST", list)
      .set("TILEC_BINARIES", binaries)
      .set("TILEC_IMAGE_CANDIDATES", candidates)
      .set("TILEC_KERNEL_COUNT",
           std::to_string(firstFunction(module.kernels.size())))
      .set("TILEC_GET_FUNCTIONS", getFunctions)
      .setFlag("TILEC_MULTI_IMAGE", multi)
      .setFlag("TILEC_HAS_KERNELS", !module.kernels.empty());
  if (hip) {
    header.render(headerHIP, out);
    return;
  }
  std::string withMaps = imagesWithMaps();
  header.set("TILEC_IMAGES_WITH_MAPS", withMaps)
      .setFlag("TILEC_TENSOR_MAPS", usesTensorMaps())
      .setFlag("TILEC_MAPS_PER_IMAGE", !withMaps.empty())
      .render(headerCUDA, out);
}

void HeaderWriter::writeBinaries(raw_ostream &os) const {
  for (auto [index, image] : enumerate(module.images)) {
    if (image.isPTX)
      os << "/* The PTX for " << commentText(image.arch) << ", "
         << image.bytes.size()
         << " bytes with its NUL: the driver compiles it for the GPU it\n"
            " * loads on, which may be newer. */\n";
    else
      os << "/* The " << (hip ? "code object" : "cubin") << " for "
         << commentText(image.arch) << ", " << image.bytes.size()
         << " bytes. The loader reads it as ELF: keep it aligned. */\n";
    os << "static " << macroPrefix << "_ALIGNED_ const unsigned char "
       << naming.imageName(index) << "[] = {\n";
    if (image.bytes.empty()) {
      // C has no empty arrays.
      os << "    0x00 /* empty */\n";
    }
    static const char hexDigits[] = "0123456789abcdef";
    // 76 columns.
    const size_t bytesPerLine = 12;
    for (size_t i = 0, e = image.bytes.size(); i < e; ++i) {
      uint8_t byte = image.bytes[i];
      os << (i % bytesPerLine == 0 ? "    " : " ") << "0x"
         << hexDigits[byte >> 4] << hexDigits[byte & 15];
      if (i + 1 != e)
        os << ',';
      if (i % bytesPerLine == bytesPerLine - 1 || i + 1 == e)
        os << '\n';
    }
    os << "};\n\n";
  }
}

/// The compute capability an NVIDIA target names: sm_90a is (9, 0, true).
static bool parseComputeCapability(StringRef arch, int &major, int &minor,
                                   bool &archSpecific) {
  if (!arch.consume_front("sm_") || arch.size() < 2)
    return false;
  archSpecific = arch.consume_back("a");
  unsigned value;
  if (arch.getAsInteger(10, value))
    return false;
  major = value / 10;
  minor = value % 10;
  return true;
}

void HeaderWriter::writeImageCandidates(raw_ostream &os) const {
  if (hip) {
    // The architecture, then the end of gcnArchName or its features.
    for (auto [index, image] : enumerate(module.images)) {
      size_t length = image.arch.size();
      os << "  if (strncmp(properties.gcnArchName, "
         << stringLiteral(image.arch) << ", " << length
         << ") == 0 &&\n      (properties.gcnArchName[" << length
         << "] == '\\0' || properties.gcnArchName[" << length
         << "] == ':')) {\n";
      os << "    *image = " << naming.imageName(index) << ";\n";
      os << "    *index = " << index << ";\n";
      os << "    return hipSuccess;\n";
      os << "  }\n";
    }
    return;
  }
  // Candidates in order of preference.
  struct Candidate {
    size_t index;
    int rank, major, minor;
    bool archSpecific, ptx;
  };
  SmallVector<Candidate> candidates;
  for (auto [index, image] : enumerate(module.images)) {
    Candidate c{index, 0, 0, 0, false, image.isPTX};
    if (!parseComputeCapability(image.arch, c.major, c.minor, c.archSpecific))
      continue;
    c.rank = image.isPTX ? 2 : c.archSpecific ? 0 : 1;
    candidates.push_back(c);
  }
  llvm::stable_sort(candidates, [](const Candidate &a, const Candidate &b) {
    if (a.rank != b.rank)
      return a.rank < b.rank;
    return a.major * 10 + a.minor > b.major * 10 + b.minor;
  });
  for (const Candidate &c : candidates) {
    if (c.rank == 0)
      os << "  if (major == " << c.major << " && minor == " << c.minor
         << ") {\n";
    else if (c.rank == 1)
      os << "  if (major == " << c.major << " && minor >= " << c.minor
         << ") {\n";
    else
      os << "  if (major * 10 + minor >= " << c.major * 10 + c.minor << ") {\n";
    os << "    *image = " << naming.imageName(c.index) << ";\n";
    os << "    *index = " << c.index << ";\n";
    os << "    return CUDA_SUCCESS;\n";
    os << "  }\n";
  }
}

/// The number of tensor maps `kernel`'s launches take in all.
static size_t countTensorMaps(const KernelInfo &kernel) {
  size_t count = 0;
  for (const LaunchInfo &launch : kernel.launches)
    count += launch.tensorMaps.size();
  return count;
}

bool HeaderWriter::usesTensorMaps() const {
  if (hip)
    return false;
  for (size_t k = 0; k < module.kernels.size(); ++k)
    for (size_t i = 0; i < module.images.size(); ++i)
      if (countTensorMaps(kernelIn(k, i)))
        return true;
  return false;
}

std::string HeaderWriter::imagesWithMaps() const {
  if (!usesTensorMaps() || module.images.size() == 1)
    return "";
  SmallVector<std::string> users;
  for (size_t i = 0; i < module.images.size(); ++i)
    for (size_t k = 0; k < module.kernels.size(); ++k)
      if (countTensorMaps(kernelIn(k, i))) {
        users.push_back("index == " + std::to_string(i));
        break;
      }
  if (users.size() == module.images.size())
    return "";
  return users.size() == 1 ? users[0] : "(" + join(users, " || ") + ")";
}

std::string HeaderWriter::perImage(StringRef index,
                                   function_ref<int64_t(size_t)> value) const {
  size_t last = module.images.size() - 1;
  bool uniform = true;
  for (size_t i = 0; i < last; ++i)
    uniform = uniform && value(i) == value(last);
  if (uniform)
    return std::to_string(value(last));
  std::string text = std::to_string(value(last));
  for (size_t i = last; i-- > 0;)
    text = "(" + index.str() + " == " + std::to_string(i) + " ? " +
           std::to_string(value(i)) + " : " + text + ")";
  return text;
}

void HeaderWriter::writeGetFunctions(raw_ostream &os) const {
  unsigned function = 0;
  for (auto [index, kernel] : enumerate(module.kernels)) {
    for (auto [l, launch] : enumerate(kernel.launches)) {
      if (function)
        os << "  if (err == " << api.success << ")\n  ";
      os << "  err = " << api.getFunction << "(&entry->functions[" << function
         << "], module, \"" << launch.symbol << "\");\n";
      auto bytesIn = [&, index = index, l = l](size_t image) {
        return kernelIn(index, image).launches[l].sharedMemoryBytes;
      };
      // Static shared memory counts against the default too (ptxas gives
      // the dynamic-memory symbol a byte), so the opt-in starts a KiB
      // early.
      int64_t most = 0;
      for (size_t i = 0; i < module.images.size(); ++i)
        most = std::max(most, bytesIn(i));
      if (most + 1024 > defaultSharedMemoryLimit && !hip) {
        // (Module functions have no attribute setter in HIP, and AMD GPUs
        // need no opt-in for large LDS allocations.)
        os << "  /* " << (varies(index) ? "Up to " : "") << most
           << " bytes of dynamic shared memory: more than the 48 KiB "
              "default allows. */\n";
        os << "  if (err == CUDA_SUCCESS)\n";
        os << "    err = cuFuncSetAttribute(entry->functions[" << function
           << "],\n";
        os << "                             "
              "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,\n";
        os << "                             " << perImage("index", bytesIn)
           << ");\n";
      }
      ++function;
    }
  }
}

void HeaderWriter::writeReject(const Twine &cond, StringRef comment) {
  os << "  if (" << cond << ")";
  if (!comment.empty())
    os << " /* " << commentText(comment) << " */";
  os << "\n    return " << api.invalidValue << ";\n";
}

/// "[m, 256]" for a tensor parameter.
static std::string shapeText(const KernelParamInfo &param,
                             const KernelNames &names) {
  std::string text = "[";
  for (auto [i, extent] : enumerate(param.shape)) {
    if (i)
      text += ", ";
    text += extent < 0 ? names.params[-extent - 1] : std::to_string(extent);
  }
  return text + "]";
}

/// Grid extent `d` of `launch`, of `kernel`, in C. The launch function has
/// the dynamic extents as int64_t and casts narrower scalars, so that the
/// arithmetic is 64-bit as in the kernel; a comment (`forComment`) shows
/// the names alone.
static std::string gridExtent(const KernelInfo &kernel,
                              const LaunchInfo &launch,
                              const KernelNames &names, int d,
                              bool forComment) {
  return substituteParams(launch.grid[d], [&](size_t i) {
    assert(i < kernel.params.size() && "a grid names a parameter");
    const KernelParamInfo &param = kernel.params[i];
    if (forComment || param.kind == KernelParamInfo::Kind::Dim ||
        param.cType == "int64_t")
      return names.params[i];
    return "((int64_t)" + names.params[i] + ")";
  });
}

/// The workspace's alignment, and that of each buffer in it.
constexpr int64_t workspaceAlignment = 256;

/// The bytes workspace buffer `param` takes, rounded up to the workspace's
/// alignment, as a C expression of type uint64_t.
static std::string workspacePartBytes(const KernelParamInfo &param,
                                      const KernelNames &names) {
  uint64_t staticBytes = param.elementBytes;
  std::string dynamicExtents;
  for (int64_t extent : param.shape) {
    if (extent >= 0)
      staticBytes *= uint64_t(extent);
    else
      dynamicExtents += " * (uint64_t)" + names.params[-extent - 1];
  }
  if (dynamicExtents.empty())
    return "(uint64_t)" +
           std::to_string(alignTo(staticBytes, workspaceAlignment));
  return "((uint64_t)" + std::to_string(staticBytes) + dynamicExtents + " + " +
         std::to_string(workspaceAlignment - 1) + ") / " +
         std::to_string(workspaceAlignment) + " * " +
         std::to_string(workspaceAlignment);
}

void HeaderWriter::writeWorkspaceBytes(const KernelInfo &kernel,
                                       const KernelNames &names) {
  SmallVector<std::string> parts, dims, checks;
  for (auto [i, param] : enumerate(kernel.params)) {
    if (param.kind == KernelParamInfo::Kind::Workspace)
      parts.push_back(workspacePartBytes(param, names));
    if (param.kind == KernelParamInfo::Kind::Dim) {
      dims.push_back("int64_t " + names.params[i]);
      checks.push_back(names.params[i] + " < 1 || " + names.params[i] +
                       " > INT32_MAX");
    }
  }
  os << "/* The bytes of " << kernel.name
     << "'s workspace for these extents (0 for an extent\n"
        " * outside [1, INT32_MAX]). */\n";
  os << "static inline size_t " << kernel.name << "_workspace_bytes("
     << (dims.empty() ? std::string("void") : join(dims, ", ")) << ") {\n";
  if (!checks.empty())
    os << "  if (" << join(checks, " ||\n      ") << ")\n    return 0;\n";
  os << "  return (size_t)(" << join(parts, " +\n                   ")
     << ");\n}\n\n";
}

void HeaderWriter::writeWorkspaceParts(const KernelInfo &kernel,
                                       const KernelNames &names) {
  SmallVector<std::string> dims;
  for (auto [i, param] : enumerate(kernel.params))
    if (param.kind == KernelParamInfo::Kind::Dim)
      dims.push_back(names.params[i]);
  std::string bytes =
      kernel.name + "_workspace_bytes(" + join(dims, ", ") + ")";
  const std::string &workspace = names.workspace;
  cleanupFlag = names.ownsWorkspace;
  os << "  /* No workspace given: one for this " << (host ? "run" : "launch")
     << ". */\n";
  if (host) {
    os << "  if (" << workspace << " == NULL) {\n";
    os << "    " << workspace << " = malloc(" << bytes << ");\n";
    os << "    if (" << workspace << " == NULL)\n";
    os << "      return TILEC_HOST_OUT_OF_MEMORY;\n";
    os << "    " << names.ownsWorkspace << " = 1;\n  }\n";
    cleanupCall = "free(" + workspace + ")";
  } else {
    StringRef alloc = hip ? "hipMallocAsync" : "cuMemAllocAsync";
    StringRef free = hip ? "hipFreeAsync" : "cuMemFreeAsync";
    os << "  if (" << workspace << (hip ? " == NULL" : " == 0") << ") {\n";
    os << "    " << names.err << " = " << alloc << "(&" << workspace << ", "
       << bytes << ", stream);\n";
    os << "    if (" << names.err << " != " << api.success << ")\n";
    os << "      return " << names.err << ";\n";
    os << "    " << names.ownsWorkspace << " = 1;\n  }\n";
    cleanupCall = free.str() + "(" + workspace + ", stream)";
  }
  std::string offset;
  for (auto [i, param] : enumerate(kernel.params)) {
    if (param.kind != KernelParamInfo::Kind::Workspace)
      continue;
    os << "  " << names.params[i] << " = ";
    if (hip || host)
      os << "(void *)((char *)" << workspace
         << (offset.empty() ? "" : " + " + offset) << ");\n";
    else
      os << workspace << (offset.empty() ? "" : " + " + offset) << ";\n";
    std::string part = workspacePartBytes(param, names);
    offset = offset.empty() ? part : offset + " +\n      " + part;
  }
}

void HeaderWriter::writeParamsComment(const KernelInfo &kernel,
                                      const KernelNames &names) {
  os << "/*\n * " << kernel.name << "\n";
  for (auto [i, param] : enumerate(kernel.params)) {
    os << " *   " << names.params[i];
    // A renamed parameter keeps its .tile name here.
    if (names.params[i] != param.name)
      os << " (" << commentText(param.name) << " in the .tile file)";
    os << ": ";
    switch (param.kind) {
    case KernelParamInfo::Kind::Tensor:
      os << commentText(param.cType) << shapeText(param, names);
      if (param.alignment > 1)
        os << ", " << param.alignment << "-byte aligned";
      break;
    case KernelParamInfo::Kind::Scalar:
      os << commentText(param.cType);
      break;
    case KernelParamInfo::Kind::Dim:
      os << "dynamic extent in [1, INT32_MAX]";
      break;
    case KernelParamInfo::Kind::Workspace:
      os << commentText(param.cType) << shapeText(param, names)
         << ", in the workspace";
      break;
    }
    os << "\n";
  }
  if (hasWorkspace(kernel))
    os << " *   " << names.workspace << ": " << workspaceAlignment
       << "-byte aligned memory of " << kernel.name
       << "_workspace_bytes() bytes,\n"
          " *     or "
       << (hip || host ? "NULL" : "0") << " to have one "
       << (host ? "allocated" : "allocated on the stream") << " for this "
       << (host ? "run" : "launch") << "\n";
  auto writeGrid = [&](const LaunchInfo &launch) {
    os << "(";
    for (int d = 0; d < 3; ++d)
      os << (d ? ", " : "")
         << commentText(
                gridExtent(kernel, launch, names, d, /*forComment=*/true));
    os << ")";
  };
  if (kernel.launches.size() == 1) {
    os << " * grid  ";
    writeGrid(kernel.launches.front());
    return;
  }
  os << " * " << kernel.launches.size() << " T.Kernel blocks, "
     << (host ? "run in order, each block after block:"
              : "launched in order on the stream:");
  for (auto [l, launch] : enumerate(kernel.launches)) {
    os << "\n *   " << l + 1 << ". grid ";
    writeGrid(launch);
  }
}

void HeaderWriter::writeKernelComment(const KernelInfo &kernel, unsigned index,
                                      const KernelNames &names) {
  writeParamsComment(kernel, names);
  os << "\n";
  auto block = [&](const LaunchInfo &launch) {
    os << "block (" << launch.threads[0] << ", " << launch.threads[1] << ", "
       << launch.threads[2] << "), " << launch.sharedMemoryBytes
       << " bytes of dynamic shared memory";
    if (!launch.tensorMaps.empty())
      os << ", " << launch.tensorMaps.size() << " tensor map"
         << (launch.tensorMaps.size() == 1 ? "" : "s");
  };
  // Each launch's block, on each image where they differ.
  auto blocks = [&](const KernelInfo &own) {
    if (own.launches.size() == 1) {
      block(own.launches.front());
      os << "\n";
      return;
    }
    os << "\n";
    for (auto [l, launch] : enumerate(own.launches)) {
      os << " *   " << l + 1 << ". ";
      block(launch);
      os << "\n";
    }
  };
  if (!varies(index)) {
    os << (kernel.launches.size() == 1 ? " * " : " * thread blocks:");
    blocks(kernel);
    os << " */\n";
    return;
  }
  for (auto [i, image] : enumerate(module.images)) {
    const KernelInfo &own = kernelIn(index, i);
    os << " * on " << commentText(image.arch) << ":"
       << (own.launches.size() == 1 ? " " : "");
    blocks(own);
  }
  os << " */\n";
}

void HeaderWriter::writeKernel(const KernelInfo &kernel, unsigned index) {
  KernelNames names = naming.nameKernel(kernel);
  const auto &params = kernel.params;
  size_t numLaunches = kernel.launches.size();
  auto isDim = [&](size_t i) {
    return params[i].kind == KernelParamInfo::Kind::Dim;
  };
  size_t numDims = count_if(params, [](const KernelParamInfo &param) {
    return param.kind == KernelParamInfo::Kind::Dim;
  });
  // Launch l's device function and grid extent d, as C lvalues.
  auto function = [&](size_t l) {
    return numLaunches == 1 ? names.function
                            : names.function + "[" + std::to_string(l) + "]";
  };
  auto grid = [&](size_t l, int d) {
    return names.grid + "[" + std::to_string(3 * l + d) + "]";
  };

  bool workspace = hasWorkspace(kernel);
  if (workspace)
    writeWorkspaceBytes(kernel, names);
  writeKernelComment(kernel, index, names);
  // The launch's macros, where the function has one block and every image
  // launches it alike.
  bool variant = varies(index);
  // The kernel's name as it is, so that kernels whose names differ only in
  // case have their own macros; no other name of the header, or of the
  // runtimes' headers, ends in these suffixes.
  const std::string &macro = kernel.name;
  if (!variant && numLaunches == 1) {
    const LaunchInfo &launch = kernel.launches.front();
    os << "#define " << macro << "_THREADS_X " << launch.threads[0] << "\n";
    os << "#define " << macro << "_THREADS_Y " << launch.threads[1] << "\n";
    os << "#define " << macro << "_THREADS_Z " << launch.threads[2] << "\n";
    os << "#define " << macro << "_SHARED_MEMORY_BYTES "
       << launch.sharedMemoryBytes << "\n";
  }

  // The signature, wrapped at 80 columns.
  SmallVector<std::string> declarations = {api.stream.str() + " stream"};
  for (auto [i, param] : enumerate(params)) {
    std::string type;
    switch (param.kind) {
    case KernelParamInfo::Kind::Tensor:
      type = api.tensor.str() + (api.tensor.ends_with("*") ? "" : " ");
      break;
    case KernelParamInfo::Kind::Scalar:
      type = param.cType + " ";
      break;
    case KernelParamInfo::Kind::Dim:
      type = "int64_t ";
      break;
    case KernelParamInfo::Kind::Workspace:
      continue;
    }
    declarations.push_back(type + names.params[i]);
  }
  std::string tensorType =
      api.tensor.str() + (api.tensor.ends_with("*") ? "" : " ");
  if (workspace)
    declarations.push_back(tensorType + names.workspace);
  std::string line =
      "static inline " + api.result.str() + " " + kernel.name + "_launch(";
  for (auto [i, declaration] : enumerate(declarations)) {
    std::string piece =
        declaration + (i + 1 == declarations.size() ? ") {" : ",");
    if (i && line.size() + 1 + piece.size() > 80) {
      os << line << "\n";
      line = "    " + piece;
    } else {
      line += (i ? " " : "") + piece;
    }
  }
  os << line << "\n";

  // Locals. The tensor maps of all launches are encoded before the first
  // launch, one after the other; each launch passes its own.
  os << "  " << api.function << " " << names.function;
  if (numLaunches > 1)
    os << "[" << numLaunches << "]";
  os << ";\n";
  os << "  int64_t " << names.grid << "[" << 3 * numLaunches << "];\n";
  if (numDims)
    os << "  int32_t " << names.dims << "[" << numDims << "];\n";
  size_t numMaps = 0, launchMaps = 0;
  for (size_t i = 0; i < module.images.size(); ++i) {
    const KernelInfo &own = kernelIn(index, i);
    numMaps = std::max(numMaps, countTensorMaps(own));
    for (const LaunchInfo &launch : own.launches)
      launchMaps = std::max(launchMaps, launch.tensorMaps.size());
  }
  size_t numArgs = params.size() + launchMaps;
  if (numArgs)
    os << "  void *" << names.args << "[" << numArgs << "];\n";
  if (numMaps)
    os << "  CUtensorMap " << names.maps << "[" << numMaps << "];\n";
  bool multi = module.images.size() > 1;
  if (multi)
    os << "  unsigned " << names.image << ";\n";
  for (auto [i, param] : enumerate(params))
    if (param.kind == KernelParamInfo::Kind::Workspace)
      os << "  " << tensorType << names.params[i] << ";\n";
  if (workspace)
    os << "  int " << names.ownsWorkspace << " = 0;\n";
  os << "  " << api.result << " " << names.err << ";\n";

  // Everything that can fail comes before the first launch, so that a
  // call either launches all of the blocks or none.
  writeArgumentChecks(kernel, names);

  writeGridChecks(kernel, names);

  // Load on first use, encode the tensor maps, pack the arguments.
  unsigned first = firstFunction(index);
  for (size_t l = 0; l < numLaunches; ++l) {
    os << "  " << names.err << " = " << prefix << "_function_(" << first + l
       << ", &" << function(l) << (multi ? ", &" + names.image : std::string())
       << ");\n";
    os << "  if (" << names.err << " != " << api.success << ")\n";
    os << "    return " << names.err << ";\n";
  }
  cleanupCall.clear();
  if (workspace)
    writeWorkspaceParts(kernel, names);
  if (!variant) {
    writeTensorMaps(kernel, names, os);
  } else {
    // Each image's own tensor maps, for images that take some.
    for (size_t i = 0; i < module.images.size(); ++i) {
      const KernelInfo &own = kernelIn(index, i);
      if (!countTensorMaps(own))
        continue;
      os << "  if (" << names.image << " == " << i << ") {\n";
      std::string text;
      raw_string_ostream block(text);
      writeTensorMaps(own, names, block);
      // With one launch, its maps are passed here; with several, before
      // each launch.
      if (numLaunches == 1)
        for (size_t j = 0; j < own.launches.front().tensorMaps.size(); ++j)
          block << "  " << names.args << "[" << params.size() + j << "] = &"
                << names.maps << "[" << j << "];\n";
      SmallVector<StringRef> lines;
      StringRef(text).rtrim('\n').split(lines, '\n');
      for (StringRef line : lines)
        os << "  " << line << "\n";
      os << "  }\n";
    }
  }
  size_t dim = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    if (!isDim(i))
      continue;
    os << "  " << names.dims << "[" << dim++ << "] = (int32_t)"
       << names.params[i] << ";\n";
  }
  dim = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    os << "  " << names.args << "[" << i << "] = &";
    if (isDim(i))
      os << names.dims << "[" << dim++ << "]";
    else
      os << names.params[i];
    os << ";\n";
  }

  // Launch, in order.
  size_t firstMap = 0;
  for (size_t l = 0; l < numLaunches; ++l) {
    const LaunchInfo &launch = kernel.launches[l];
    assert(launch.sharedMemoryBytes >= 0 &&
           launch.sharedMemoryBytes <= UINT32_MAX && "shared memory size");
    if (!variant) {
      for (size_t j = 0; j < launch.tensorMaps.size(); ++j)
        os << "  " << names.args << "[" << params.size() + j << "] = &"
           << names.maps << "[" << firstMap + j << "];\n";
      firstMap += launch.tensorMaps.size();
    } else if (numLaunches > 1) {
      // The image's own maps for this launch.
      for (size_t i = 0; i < module.images.size(); ++i) {
        const KernelInfo &own = kernelIn(index, i);
        size_t before = 0;
        for (size_t k = 0; k < l; ++k)
          before += own.launches[k].tensorMaps.size();
        const LaunchInfo &ownLaunch = own.launches[l];
        if (ownLaunch.tensorMaps.empty())
          continue;
        os << "  if (" << names.image << " == " << i << ") {\n";
        for (size_t j = 0; j < ownLaunch.tensorMaps.size(); ++j)
          os << "    " << names.args << "[" << params.size() + j << "] = &"
             << names.maps << "[" << before + j << "];\n";
        os << "  }\n";
      }
    }
    auto launchValue = [&](function_ref<int64_t(const LaunchInfo &)> get) {
      return perImage(names.image, [&](size_t i) {
        return get(kernelIn(index, i).launches[l]);
      });
    };
    // The last launch's result is the call's, unless a workspace is freed
    // after it; the others' failures return at once.
    bool returnsLaunch = l + 1 == numLaunches && !workspace;
    os << "  " << (returnsLaunch ? "return " : names.err + " = ")
       << api.launchKernel << "(\n";
    os << "      " << function(l) << ", (unsigned)" << grid(l, 0)
       << ", (unsigned)" << grid(l, 1) << ", (unsigned)" << grid(l, 2) << ",\n";
    os << "      "
       << launchValue([](const LaunchInfo &k) { return k.threads[0]; }) << ", "
       << launchValue([](const LaunchInfo &k) { return k.threads[1]; }) << ", "
       << launchValue([](const LaunchInfo &k) { return k.threads[2]; }) << ", "
       << launchValue([](const LaunchInfo &k) { return k.sharedMemoryBytes; })
       << ", stream, " << (numArgs ? names.args : std::string("NULL"))
       << ", NULL);\n";
    if (!returnsLaunch)
      os << failIf(names.err + " != " + api.success.str(), names.err, "  ");
  }
  if (workspace) {
    // Freed in stream order, after the blocks that use it.
    os << "  if (" << names.ownsWorkspace << ")\n";
    os << "    " << names.err << " = " << cleanupCall << ";\n";
    os << "  return " << names.err << ";\n";
  }
  cleanupCall.clear();
  os << "}\n\n";
}

void HeaderWriter::writeHostKernel(const KernelInfo &kernel) {
  KernelNames names = naming.nameKernel(kernel);
  const auto &params = kernel.params;
  writeParamsComment(kernel, names);
  if (kernel.launches.size() == 1)
    os << ", its blocks one after the other";
  os << "\n */\n";

  // The compiled function: tensors as pointers, extents as int64_t.
  auto cType = [&](const KernelParamInfo &param) -> std::string {
    switch (param.kind) {
    case KernelParamInfo::Kind::Tensor:
    case KernelParamInfo::Kind::Workspace:
      return "void *";
    case KernelParamInfo::Kind::Scalar:
      return param.cType;
    case KernelParamInfo::Kind::Dim:
      return "int64_t";
    }
    llvm_unreachable("unknown parameter kind");
  };
  auto wrap = [&](std::string line, ArrayRef<std::string> pieces,
                  StringRef close, StringRef none = "void") {
    for (auto [i, piece] : enumerate(pieces)) {
      std::string text = piece + (i + 1 == pieces.size() ? close.str() : ",");
      if (i && line.size() + 1 + text.size() > 80) {
        os << line << "\n";
        line = "    " + text;
      } else {
        line += (i ? " " : "") + text;
      }
    }
    if (pieces.empty())
      line += none.str() + close.str();
    os << line << "\n";
  };
  bool workspace = hasWorkspace(kernel);
  SmallVector<std::string> types, declarations, arguments;
  for (auto [i, param] : enumerate(params)) {
    std::string type = cType(param);
    types.push_back(type);
    if (param.kind != KernelParamInfo::Kind::Workspace)
      declarations.push_back(
          type + (StringRef(type).ends_with("*") ? "" : " ") + names.params[i]);
    arguments.push_back(names.params[i]);
  }
  if (workspace)
    declarations.push_back("void *" + names.workspace);
  wrap("void " + naming.hostSymbol(kernel) + "(", types, ");");
  if (workspace)
    writeWorkspaceBytes(kernel, names);
  wrap("static inline int " + kernel.name + "_run(", declarations, ") {");
  os << "  int64_t " << names.grid << "[" << 3 * kernel.launches.size()
     << "];\n";
  for (auto [i, param] : enumerate(params))
    if (param.kind == KernelParamInfo::Kind::Workspace)
      os << "  void *" << names.params[i] << ";\n";
  if (workspace)
    os << "  int " << names.ownsWorkspace << " = 0;\n";
  writeArgumentChecks(kernel, names);
  // The grids a GPU refuses are refused here too: a program that runs on
  // the host runs on the GPU.
  writeGridChecks(kernel, names);
  os << "  (void)" << names.grid << ";\n";
  cleanupCall.clear();
  if (workspace)
    writeWorkspaceParts(kernel, names);
  wrap("  " + naming.hostSymbol(kernel) + "(", arguments, ");", "");
  if (workspace)
    os << "  if (" << names.ownsWorkspace << ")\n    " << cleanupCall << ";\n";
  cleanupCall.clear();
  os << "  return TILEC_HOST_SUCCESS;\n}\n\n";
}

void HeaderWriter::writeGridChecks(const KernelInfo &kernel,
                                   const KernelNames &names) {
  // The grid, within the limits of NVIDIA and AMD GPUs alike.
  static const int64_t gridLimits[3] = {INT32_MAX, 65535, 65535};
  std::string gridCond;
  for (auto [l, launch] : enumerate(kernel.launches)) {
    for (int d = 0; d < 3; ++d) {
      std::string expr =
          gridExtent(kernel, launch, names, d, /*forComment=*/false);
      std::string element = names.grid + "[" + std::to_string(3 * l + d) + "]";
      os << "  " << element << " = " << expr << ";\n";
      // A literal in range needs no run-time check.
      int64_t value;
      if (!StringRef(expr).trim().getAsInteger(10, value) && value >= 1 &&
          value <= gridLimits[d])
        continue;
      if (!gridCond.empty())
        gridCond += " ||\n      ";
      gridCond += element + " < 1 || " + element + " > " +
                  std::to_string(gridLimits[d]);
    }
  }
  if (!gridCond.empty())
    writeReject(gridCond);
}

void HeaderWriter::writeArgumentChecks(const KernelInfo &kernel,
                                       const KernelNames &names) {
  const auto &params = kernel.params;
  auto isDim = [&](size_t i) {
    return params[i].kind == KernelParamInfo::Kind::Dim;
  };
  // Pointers.
  for (auto [i, param] : enumerate(params)) {
    if (param.kind != KernelParamInfo::Kind::Tensor)
      continue;
    const std::string &name = names.params[i];
    bool pointer = hip || host;
    std::string cond = pointer ? name + " == NULL" : name + " == 0";
    if (param.alignment > 1)
      cond += " || " + (pointer ? "(uintptr_t)" + name : name) + " % " +
              std::to_string(param.alignment) + " != 0";
    writeReject(cond);
  }

  // Dynamic extents: the kernel receives them as int32_t.
  for (size_t i = 0; i < params.size(); ++i)
    if (isDim(i))
      writeReject(names.params[i] + " < 1 || " + names.params[i] +
                  " > INT32_MAX");

  // Element counts: the kernel indexes with 32 bits. The extents are in
  // [1, INT32_MAX] by now, so `d > INT32_MAX / s` is `d * s > INT32_MAX`
  // without overflow. Tensors of the same shape share a check.
  SmallVector<std::pair<std::string, std::string>> countChecks;
  for (auto [i, param] : enumerate(params)) {
    if (param.kind != KernelParamInfo::Kind::Tensor &&
        param.kind != KernelParamInfo::Kind::Workspace)
      continue;
    uint64_t staticCount = 1;
    SmallVector<StringRef> dynamicExtents;
    for (int64_t extent : param.shape) {
      if (extent >= 0) {
        staticCount = SaturatingMultiply(staticCount, uint64_t(extent));
        continue;
      }
      size_t dim = size_t(-extent - 1);
      assert(dim < params.size() && isDim(dim) &&
             "a dynamic extent must name a Dim parameter");
      dynamicExtents.push_back(names.params[dim]);
    }
    if (staticCount > uint64_t(INT32_MAX)) {
      writeReject("1", names.params[i] + " elements: always too many");
      continue;
    }
    if (staticCount == 0 || dynamicExtents.empty())
      continue;
    std::string cond, divisor = staticCount == 1
                                    ? std::string()
                                    : " / " + std::to_string(staticCount);
    for (StringRef extent : dynamicExtents) {
      // The first extent alone is in range already.
      if (!divisor.empty()) {
        if (!cond.empty())
          cond += " ||\n      ";
        cond += extent.str() + " > INT32_MAX" + divisor;
      }
      divisor += " / " + extent.str();
    }
    if (cond.empty())
      continue;
    auto *same = find_if(
        countChecks, [&](const auto &check) { return check.first == cond; });
    if (same == countChecks.end())
      countChecks.push_back({cond, names.params[i]});
    else
      same->second += ", " + names.params[i];
  }
  for (const auto &[cond, tensors] : countChecks)
    writeReject(cond, tensors + " elements");

  // A workspace given: its alignment (none given: one is allocated).
  if (hasWorkspace(kernel))
    writeReject((hip || host ? "(uintptr_t)" : "") + names.workspace + " % " +
                std::to_string(workspaceAlignment) + " != 0");
}

/// Encodes the kernel's tensor maps from the tensors' addresses and shapes.
/// The compiler only maps tensors whose strides TMA takes; the strides that
/// depend on run-time extents are checked here.
void HeaderWriter::writeTensorMaps(const KernelInfo &kernel,
                                   const KernelNames &names, raw_ostream &os) {
  static const char *const swizzles[] = {
      "CU_TENSOR_MAP_SWIZZLE_NONE", "CU_TENSOR_MAP_SWIZZLE_32B",
      "CU_TENSOR_MAP_SWIZZLE_64B", "CU_TENSOR_MAP_SWIZZLE_128B"};
  SmallVector<const TensorMapInfo *> all;
  for (const LaunchInfo &launch : kernel.launches)
    for (const TensorMapInfo &map : launch.tensorMaps)
      all.push_back(&map);
  for (auto [j, mapPointer] : enumerate(all)) {
    const TensorMapInfo &map = *mapPointer;
    const KernelParamInfo &tensor = kernel.params[map.tensor];
    const std::string &pointer = names.params[map.tensor];
    size_t rank = tensor.shape.size();
    os << "  /* Tensor map " << j << ": " << pointer << " in boxes of [";
    for (auto [d, extent] : enumerate(map.box))
      os << (d ? ", " : "") << extent;
    os << "]";
    if (map.swizzle)
      os << ", " << map.swizzle << "-byte swizzle";
    os << ". */\n  {\n";
    // Extents and strides go innermost first; strides leave out the
    // innermost dimension, whose elements are contiguous.
    auto extent = [&](size_t d) {
      int64_t e = tensor.shape[d];
      return e < 0 ? "(cuuint64_t)" + names.params[-e - 1]
                   : "(cuuint64_t)" + std::to_string(e);
    };
    os << "    cuuint64_t " << names.mapDims << "[" << rank << "] = {";
    for (size_t k = 0; k < rank; ++k)
      os << (k ? ", " : "") << extent(rank - 1 - k);
    os << "};\n";
    SmallVector<std::string> strides;
    std::string stride = std::to_string(tensor.elementBytes);
    bool dynamic = false;
    for (size_t d = rank - 1; d > 0; --d) {
      dynamic = dynamic || tensor.shape[d] < 0;
      stride = stride + " * " + extent(d);
      strides.push_back(stride);
    }
    if (rank > 1) {
      os << "    cuuint64_t " << names.mapStrides << "[" << rank - 1 << "] = {";
      for (auto [k, s] : enumerate(strides))
        os << (k ? ", " : "") << s;
      os << "};\n";
    } else {
      os << "    cuuint64_t " << names.mapStrides << "[1] = {0};\n";
    }
    os << "    cuuint32_t " << names.mapBox << "[" << rank << "] = {";
    for (size_t k = 0; k < rank; ++k)
      os << (k ? ", " : "") << map.box[rank - 1 - k];
    os << "};\n";
    os << "    cuuint32_t " << names.mapSteps << "[" << rank << "] = {";
    for (size_t k = 0; k < rank; ++k)
      os << (k ? ", 1" : "1");
    os << "};\n";
    if (dynamic) {
      os << "    /* TMA needs strides that are multiples of 16 bytes. */\n";
      for (size_t k = 0; k + 1 < rank; ++k)
        os << failIf(names.mapStrides + "[" + std::to_string(k) +
                         "] % 16 != 0 || " + names.mapStrides + "[" +
                         std::to_string(k) + "] >= ((cuuint64_t)1 << 40)",
                     api.invalidValue, "    ");
    }
    int swizzle = map.swizzle == 128  ? 3
                  : map.swizzle == 64 ? 2
                  : map.swizzle == 32 ? 1
                                      : 0;
    os << "    " << names.err << " = " << prefix << "_encode_tiled_(\n";
    os << "        &" << names.maps << "[" << j << "], " << map.dataType << ", "
       << rank << ", (void *)(uintptr_t)" << pointer << ",\n";
    os << "        " << names.mapDims << ", " << names.mapStrides << ", "
       << names.mapBox << ", " << names.mapSteps << ",\n";
    os << "        CU_TENSOR_MAP_INTERLEAVE_NONE, " << swizzles[swizzle]
       << ",\n";
    os << "        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, "
          "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n";
    os << failIf(names.err + " != CUDA_SUCCESS", names.err, "    ");
    os << "  }\n";
  }
}

} // namespace

void tilec::writeHeader(const ModuleInfo &module, raw_ostream &os) {
  HeaderWriter(module).write(os);
}

std::string ModuleInfo::getArchList() const {
  std::string list;
  for (const ImageInfo &image : images) {
    if (!list.empty())
      list += ",";
    list += image.arch;
  }
  return list;
}
