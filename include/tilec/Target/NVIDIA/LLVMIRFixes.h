//===- LLVMIRFixes.h - Work around NVPTX back-end problems ------*- C++ -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_NVIDIA_LLVMIRFIXES_H
#define TILEC_TARGET_NVIDIA_LLVMIRFIXES_H

namespace llvm {
class Module;
} // namespace llvm

namespace tilec::nvidia {

/// Makes every bf16 comparison of `module` in f32, to which bf16 values
/// extend exactly. In functions that flush f32 denormals, LLVM 22's NVPTX
/// back end gives bf16 comparisons the flushing modifier, which PTX does
/// not have for bf16 (`setp.gt.ftz.bf16` fails in ptxas). This runs on the
/// optimized module: the optimizer folds a comparison of extended values
/// back into a bf16 one.
void compareBf16InF32(llvm::Module &module);

} // namespace tilec::nvidia

#endif // TILEC_TARGET_NVIDIA_LLVMIRFIXES_H
