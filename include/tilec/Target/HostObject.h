//===- HostObject.h - An object file for the host CPU -----------*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_HOSTOBJECT_H
#define TILEC_TARGET_HOSTOBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace tilec {

/// What compileForHost makes.
enum class HostOutput { Object, Assembly, LLVMIR, Bitcode };

/// Compiles `module`, in the LLVM dialect, for the generic x86-64 CPU of
/// x86_64-unknown-linux-gnu: an ELF object file, its assembly, or the LLVM
/// IR (text or bitcode) code generation starts from. LLVM optimizes it at
/// `optLevel` (0 to 3) first.
mlir::FailureOr<std::string>
compileForHost(mlir::ModuleOp module, unsigned optLevel, HostOutput output);

} // namespace tilec

#endif // TILEC_TARGET_HOSTOBJECT_H
