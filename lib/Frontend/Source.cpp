//===- Source.cpp - A .tile file and its diagnostics ----------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Source.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace tilec::frontend;

TileSource::TileSource(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                       mlir::MLIRContext *context)
    : sourceMgr(sourceMgr), bufferId(bufferId), context(context) {
  fileName = mlir::StringAttr::get(
      context, sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier());
}

llvm::StringRef TileSource::getBuffer() const {
  return sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
}

mlir::Location TileSource::getLoc(llvm::SMLoc loc) const {
  if (!loc.isValid())
    return mlir::FileLineColLoc::get(fileName, 0, 0);
  auto [line, column] = sourceMgr.getLineAndColumn(loc, bufferId);
  return mlir::FileLineColLoc::get(fileName, line, column);
}

mlir::InFlightDiagnostic TileSource::emitError(llvm::SMLoc loc) {
  ++numErrors;
  return mlir::emitError(getLoc(loc));
}

mlir::InFlightDiagnostic TileSource::emitWarning(llvm::SMLoc loc) {
  return mlir::emitWarning(getLoc(loc));
}
