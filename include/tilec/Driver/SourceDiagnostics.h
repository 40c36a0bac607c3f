//===- SourceDiagnostics.h - Diagnostics with their source ------*- C++ -*-===//
//
// Part of tilec. Prints diagnostics as `file:line:col: error: message`, then
// the source line with a caret under the column, as MLIR's
// SourceMgrDiagnosticHandler does, but for every line: a line with
// non-ASCII text keeps its caret, aligned by display width, and bytes that
// are not valid UTF-8 or not printable are shown escaped (`<FF>`,
// `<U+0007>`) instead of being written to the terminal.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DRIVER_SOURCEDIAGNOSTICS_H
#define TILEC_DRIVER_SOURCEDIAGNOSTICS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

namespace tilec {

class SourceDiagnosticPrinter : public mlir::ScopedDiagnosticHandler {
public:
  /// Prints every diagnostic of `context` to `os`, with the lines of the
  /// buffers of `sources` that their locations name.
  SourceDiagnosticPrinter(llvm::SourceMgr &sources, mlir::MLIRContext *context,
                          llvm::raw_ostream &os = llvm::errs());

  /// Prints warnings as errors (-Werror).
  void setWarningsAsErrors(bool value) { warningsAsErrors = value; }

private:
  void print(mlir::Location loc, llvm::StringRef message,
             mlir::DiagnosticSeverity severity);
  /// The buffer named `file`, or 0.
  unsigned findBuffer(llvm::StringRef file);

  llvm::SourceMgr &sources;
  llvm::raw_ostream &os;
  llvm::DenseMap<mlir::StringAttr, unsigned> buffers;
  bool warningsAsErrors = false;
};

/// `line` as a terminal shows it, with tabs expanded to multiples of 8 and
/// unprintable or invalid bytes escaped; `column` (1-based, in bytes) becomes
/// the display column of the caret (0-based), past the end where it is.
std::string formatSourceLine(llvm::StringRef line, unsigned column,
                             unsigned &caretColumn);

} // namespace tilec

#endif // TILEC_DRIVER_SOURCEDIAGNOSTICS_H
