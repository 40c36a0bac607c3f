//===- Temporaries.h - A private folder for temporary files -----*- C++ -*-===//
//
// Part of tilec. MLIR's serializers and the tools they start (ptxas,
// ld.lld) write temporary files to $TMPDIR and may leave them there when
// they fail or are interrupted. tilec gives each run a folder of its own,
// points $TMPDIR at it, and removes it on every exit; on SIGINT, SIGTERM,
// SIGHUP and SIGPIPE it also ends the tools it started before the signal
// takes its course.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DRIVER_TEMPORARIES_H
#define TILEC_DRIVER_TEMPORARIES_H

#include "llvm/Support/raw_ostream.h"

namespace tilec {

/// Creates the run's folder in the system's temporary folder, points
/// $TMPDIR at it and installs the signal handlers. Prints
/// `tilec: error: ...` and returns false if the folder cannot be created.
bool enterPrivateTemporaryFolder(llvm::raw_ostream &errs);

/// Removes the folder and what it holds, if it was created; safe to call
/// more than once.
void removePrivateTemporaryFolder();

/// Notes which of the signals above whoever started tilec ignores (nohup,
/// `cmd &` in a script); call first in main, before LLVM installs its own
/// handlers.
void recordIgnoredSignals();
/// Ignores again the signals recordIgnoredSignals found ignored, where LLVM
/// has since installed its handlers.
void restoreIgnoredSignals();

/// Whether a signal is ending tilec. A failure that its handler caused (the
/// tools it ended) is not reported: the thread that sees one waits for the
/// signal to end tilec instead.
bool isBeingInterrupted();
/// Waits for the signal under way to end tilec.
[[noreturn]] void waitForInterrupt();

} // namespace tilec

#endif // TILEC_DRIVER_TEMPORARIES_H
