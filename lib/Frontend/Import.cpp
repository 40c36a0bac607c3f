//===- Import.cpp - .tile files to the tile dialect -----------------------===//
//
// Part of tilec. Puts the front end together: the parser, the evaluator
// with the builtins' namespaces, and the verifier of the result.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Import.h"
#include "tilec/Dialect/Tile/IR/TileDialect.h"
#include "tilec/Frontend/Builtins.h"
#include "tilec/Frontend/Parser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"

using namespace tilec::frontend;

std::unique_ptr<Module>
tilec::frontend::parseTileFile(llvm::SourceMgr &sourceMgr,
                               mlir::MLIRContext *context) {
  TileSource source(sourceMgr, sourceMgr.getMainFileID(), context);
  Parser parser(source);
  std::unique_ptr<Module> module = parser.parseModule();
  if (source.hasErrors())
    return nullptr;
  return module;
}

mlir::OwningOpRef<mlir::ModuleOp>
tilec::frontend::importTileFile(llvm::SourceMgr &sourceMgr,
                                mlir::MLIRContext *context,
                                const ImportOptions &options) {
  context->loadDialect<tile::TileDialect, mlir::arith::ArithDialect,
                       mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                       mlir::gpu::GPUDialect, mlir::math::MathDialect,
                       mlir::memref::MemRefDialect, mlir::scf::SCFDialect>();
  TileSource source(sourceMgr, sourceMgr.getMainFileID(), context);
  Parser parser(source);
  std::unique_ptr<Module> ast = parser.parseModule();
  if (source.hasErrors())
    return nullptr;

  mlir::OwningOpRef<mlir::ModuleOp> module = mlir::ModuleOp::create(
      source.getLoc(llvm::SMLoc::getFromPointer(source.getBuffer().begin())));
  Evaluator evaluator(source, *module, options,
                      createBuiltinNamespaces(context));
  if (mlir::failed(evaluator.run(*ast)))
    return nullptr;
  if (mlir::failed(mlir::verify(*module)))
    return nullptr;
  return module;
}
