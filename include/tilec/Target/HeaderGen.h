//===- HeaderGen.h - C header that loads and launches kernels ---*- C++ -*-===//
//
// Part of tilec. Describes the kernels of one compiled module (their
// parameters, launch geometry and binary) and writes the plain-C header that
// embeds the binary and launches the kernels through the CUDA driver API or
// HIP. docs/abi.md is the contract the header implements.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_HEADERGEN_H
#define TILEC_TARGET_HEADERGEN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilec {

/// One parameter of a kernel's launch function, in declaration order.
struct KernelParamInfo {
  enum class Kind {
    /// A device tensor, passed as a pointer.
    Tensor,
    /// A scalar declared in the .tile signature (`n: T.int32`).
    Scalar,
    /// The run-time extent of a T.dynamic dimension. The launch function
    /// takes it as int64_t; the kernel receives it as int32_t.
    Dim,
    /// A buffer of the kernel function's workspace (T.alloc_global), after
    /// every other parameter. The launch function takes one `workspace`
    /// pointer instead and passes each buffer its part of it.
    Workspace,
  };
  Kind kind = Kind::Tensor;
  /// The .tile name; a valid C identifier. The header renames it where C
  /// or the headers it includes take it (docs/abi.md says how).
  std::string name;
  /// Scalars: the C type ("float", "int32_t", "uint16_t" for 16-bit floats,
  /// ...). Tensors: the C element type, for documentation.
  std::string cType;
  /// Tensors and workspace buffers: the element size in bytes.
  unsigned elementBytes = 0;
  /// Tensors: the byte alignment the kernel assumes for the pointer.
  unsigned alignment = 1;
  /// Tensors: the extents; a negative entry -k-1 stands for the Dim
  /// parameter at index k of the params list.
  std::vector<int64_t> shape;

  bool operator==(const KernelParamInfo &other) const {
    return kind == other.kind && name == other.name && cType == other.cType &&
           elementBytes == other.elementBytes && alignment == other.alignment &&
           shape == other.shape;
  }
};

/// A TMA tensor map the launch function encodes and passes after the
/// declared parameters (CUDA only).
struct TensorMapInfo {
  /// The index of the mapped tensor in the params list.
  unsigned tensor = 0;
  /// The box, one extent per tensor dimension, outermost first.
  std::vector<int64_t> box;
  /// The swizzle in bytes: 0 (none), 32, 64 or 128.
  int64_t swizzle = 0;
  /// The CUtensorMapDataType enumerator of the elements.
  std::string dataType;

  bool operator==(const TensorMapInfo &other) const {
    return tensor == other.tensor && box == other.box &&
           swizzle == other.swizzle && dataType == other.dataType;
  }
};

/// One T.Kernel block of a kernel function: the device function and how it
/// is launched.
struct LaunchInfo {
  /// The device function's name in the binary: the kernel's name, unless
  /// the function has several blocks or the device's assembler or libraries
  /// take that name.
  std::string symbol;
  /// The tensor maps the device function takes after the parameters, in
  /// order.
  std::vector<TensorMapInfo> tensorMaps;
  /// The grid extents as C expressions over the launch function's
  /// parameters, parameter i written `$i`: "($4 + 127) / 128". The header
  /// substitutes the parameters' C names, as int64_t values, so that
  /// renaming them touches nothing else of the expression.
  std::string grid[3] = {"1", "1", "1"};
  int64_t threads[3] = {1, 1, 1};
  /// Dynamic shared memory the block needs, in bytes.
  int64_t sharedMemoryBytes = 0;

  /// Whether the grid is `other`'s.
  bool sameGrid(const LaunchInfo &other) const {
    return grid[0] == other.grid[0] && grid[1] == other.grid[1] &&
           grid[2] == other.grid[2];
  }
  bool operator==(const LaunchInfo &other) const {
    return sameGrid(other) && threads[0] == other.threads[0] &&
           threads[1] == other.threads[1] && threads[2] == other.threads[2] &&
           symbol == other.symbol && tensorMaps == other.tensorMaps &&
           sharedMemoryBytes == other.sharedMemoryBytes;
  }
};

/// A kernel function: one launch function in the header, which launches
/// the function's T.Kernel blocks one after the other on its stream.
struct KernelInfo {
  std::string name;
  std::vector<KernelParamInfo> params;
  /// The T.Kernel blocks, in the order they run; at least one.
  std::vector<LaunchInfo> launches;

  bool operator==(const KernelInfo &other) const {
    return name == other.name && params == other.params &&
           launches == other.launches;
  }
};

/// One compiled form of a module's kernels.
struct ImageInfo {
  /// The target ("sm_90a", "gfx942").
  std::string arch;
  /// The cubin or hsaco, or NUL-terminated PTX (see `isPTX`).
  std::vector<uint8_t> bytes;
  /// `bytes` is PTX text, which the CUDA driver compiles for the GPU it
  /// runs on when the module is loaded.
  bool isPTX = false;
  /// How this image launches the module's kernels, in their order, where
  /// targets differ in block size, shared memory or tensor maps (a Hopper
  /// image beside an sm_80 one); empty: as ModuleInfo::kernels says. The
  /// names, parameters and grids are the module's.
  std::vector<KernelInfo> kernels;
};

struct ModuleInfo {
  /// The GPU runtimes, or the host CPU: the module's kernels as functions
  /// of an object file, which the header calls (no image is embedded).
  enum class Runtime { CUDA, HIP, Host };
  Runtime runtime = Runtime::CUDA;
  /// Prefix of the module-wide functions and the include guard, a valid C
  /// identifier (e.g. "gemm" gives gemm_load / gemm_unload).
  std::string prefix;
  /// The .tile file the module came from, for a comment.
  std::string sourceName;
  /// The module compiled for each target, all of one runtime. With more
  /// than one, the header loads the one that suits the current device.
  std::vector<ImageInfo> images;
  std::vector<KernelInfo> kernels;

  /// The targets, comma-separated.
  std::string getArchList() const;
};

/// Writes the header for `module` to `os`. Deterministic: the same module
/// gives the same bytes.
void writeHeader(const ModuleInfo &module, llvm::raw_ostream &os);

} // namespace tilec

#endif // TILEC_TARGET_HEADERGEN_H
