//===- Source.h - A .tile file and its diagnostics --------------*- C++ -*-===//
//
// Part of tilec. Maps positions in a .tile buffer to MLIR locations and
// reports front-end diagnostics through MLIR's diagnostic engine, so that
// they print as `file:line:col: error: ...` with the source line and a caret.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_SOURCE_H
#define TILEC_FRONTEND_SOURCE_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SMLoc.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <optional>
#include <vector>

namespace tilec::frontend {

/// The text of a .tile file as the front end reads it, with Python's
/// universal newlines: `\r\n` and a lone `\r` end a line as `\n` does, and
/// a UTF-8 byte order mark is dropped. Lines and columns of diagnostics are
/// counted in this text. Returns `buffer` itself when it needs no change.
std::unique_ptr<llvm::MemoryBuffer>
normalizeSourceText(std::unique_ptr<llvm::MemoryBuffer> buffer);

class TileSource {
public:
  /// Front ends give up after this many errors.
  static constexpr unsigned kMaxErrors = 20;

  /// Reads `text`, a part of buffer `bufferId`, or the whole buffer: a `-D`
  /// value is one line of the `<command line>` buffer, after its name.
  TileSource(llvm::SourceMgr &sourceMgr, unsigned bufferId,
             mlir::MLIRContext *context,
             std::optional<llvm::StringRef> text = std::nullopt);

  llvm::SourceMgr &getSourceMgr() const { return sourceMgr; }

  /// The whole buffer.
  llvm::StringRef getBuffer() const;
  /// The part of the buffer to read.
  llvm::StringRef getText() const { return text; }
  mlir::MLIRContext *getContext() const { return context; }

  /// The `file:line:col` location of a position in the buffer.
  mlir::Location getLoc(llvm::SMLoc loc) const;

  mlir::InFlightDiagnostic emitError(llvm::SMLoc loc);
  mlir::InFlightDiagnostic emitWarning(llvm::SMLoc loc);

  unsigned getNumErrors() const { return numErrors; }
  bool hasErrors() const { return numErrors != 0; }
  /// True once kMaxErrors errors have been reported; callers stop then.
  bool tooManyErrors() const { return numErrors >= kMaxErrors; }
  /// Counts errors reported through another source (a -D value).
  void addErrors(unsigned count) { numErrors += count; }

private:
  llvm::SourceMgr &sourceMgr;
  unsigned bufferId;
  mlir::MLIRContext *context;
  mlir::StringAttr fileName;
  llvm::StringRef text;
  /// Where each line of the buffer starts, for locations; filled on first
  /// use.
  mutable std::vector<const char *> lineStarts;
  unsigned numErrors = 0;
};

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_SOURCE_H
