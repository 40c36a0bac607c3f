//===- LLVMIRFixes.cpp - Work around NVPTX back-end problems --------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/NVIDIA/LLVMIRFixes.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

void tilec::nvidia::compareBf16InF32(llvm::Module &module) {
  llvm::SmallVector<llvm::FCmpInst *> compares;
  for (llvm::Function &function : module)
    for (llvm::Instruction &instruction : llvm::instructions(function))
      if (auto *compare = llvm::dyn_cast<llvm::FCmpInst>(&instruction))
        if (compare->getOperand(0)->getType()->getScalarType()->isBFloatTy())
          compares.push_back(compare);
  for (llvm::FCmpInst *compare : compares) {
    llvm::IRBuilder<> builder(compare);
    llvm::Type *wide = builder.getFloatTy();
    if (auto *vector =
            llvm::dyn_cast<llvm::VectorType>(compare->getOperand(0)->getType()))
      wide = llvm::VectorType::get(wide, vector->getElementCount());
    for (unsigned i = 0; i < 2; ++i)
      compare->setOperand(i, builder.CreateFPExt(compare->getOperand(i), wide));
  }
}
