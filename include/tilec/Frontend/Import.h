//===- Import.h - .tile files to the tile dialect ---------------*- C++ -*-===//
//
// Part of tilec. The front end's entry points: parse a .tile buffer, run it
// at compile time, and return a verified module with one func.func per
// kernel.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_IMPORT_H
#define TILEC_FRONTEND_IMPORT_H

#include "tilec/Frontend/AST.h"
#include "tilec/Frontend/Evaluator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

namespace tilec::frontend {

/// Parses the main buffer of `sourceMgr`. Returns null after reporting
/// syntax errors through `context`'s diagnostic engine.
std::unique_ptr<Module> parseTileFile(llvm::SourceMgr &sourceMgr,
                                      mlir::MLIRContext *context);

/// Parses and evaluates the main buffer of `sourceMgr` into the tile
/// dialect. Returns null after reporting errors; never a partial module.
mlir::OwningOpRef<mlir::ModuleOp> importTileFile(llvm::SourceMgr &sourceMgr,
                                                 mlir::MLIRContext *context,
                                                 const ImportOptions &options);

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_IMPORT_H
