//===- HeaderNames.h - The C names of the generated header -----*- C++ -*-===//
//
// Part of tilec. The names the generated header defines, and the C names of
// its launch functions' parameters and locals: a parameter keeps its .tile
// name unless C, C++, the headers the header includes or the header itself
// take it (docs/abi.md, "Names").
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_TARGET_HEADERNAMES_H
#define TILEC_LIB_TARGET_HEADERNAMES_H

#include "tilec/Target/HeaderGen.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"

#include <string>

namespace tilec {

/// The C names of one kernel's launch function: its parameters (renamed when
/// a .tile name is taken in C) and its locals (chosen not to collide).
struct KernelNames {
  llvm::SmallVector<std::string> params;
  std::string function, grid, dims, args, err;
  /// The tensor maps, and the locals that describe one to the encoder.
  std::string maps, mapDims, mapStrides, mapBox, mapSteps;
  /// The loaded image, in a header with several.
  std::string image;
  /// The workspace pointer parameter, and whether the launch allocated it,
  /// in a kernel with a workspace.
  std::string workspace, ownsWorkspace;
};

/// The names of one module's header.
class HeaderNames {
public:
  explicit HeaderNames(const ModuleInfo &module);

  /// The C name of image `index`'s array.
  std::string imageName(size_t index) const;
  /// The name of the host function `kernel` compiles to.
  std::string hostSymbol(const KernelInfo &kernel) const {
    return module.prefix + "_host_" + kernel.name + "_";
  }
  /// The C names of `kernel`'s launch function.
  KernelNames nameKernel(const KernelInfo &kernel) const;

private:
  /// Whether a parameter of `kernel` cannot be called `name` in C.
  bool isTaken(llvm::StringRef name, const KernelInfo &kernel) const;

  const ModuleInfo &module;
  /// The names the header defines outside its functions, and `stream`.
  llvm::StringSet<> ownNames;
};

} // namespace tilec

#endif // TILEC_LIB_TARGET_HEADERNAMES_H
