//===- InternalErrors.h - Failures reported as tilec's bugs -----*- C++ -*-===//
//
// Part of tilec. A pass that leaves invalid IR, fails without a diagnostic
// or crashes is a bug in tilec, not in the user's kernel: the driver says
// so (`internal error:`, the pass, a request to report the input) and exits
// with status 2 instead of printing the verifier's complaint as if it were
// about the .tile source, or a stack trace.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DRIVER_INTERNALERRORS_H
#define TILEC_DRIVER_INTERNALERRORS_H

#include "mlir/Pass/PassManager.h"

#include <functional>
#include <string>

namespace tilec {

/// Called after an internal error has been emitted as a diagnostic; it must
/// not return (tilec exits with status 2, the fuzzer aborts).
using InternalErrorAction = std::function<void()>;

/// Makes `pm` verify the IR after every pass itself, in place of MLIR's
/// verifier, and report a pass that leaves invalid IR or fails without an
/// error diagnostic as an internal error, then call `action`; `action` is
/// also called when a pass fails after an error of its own that starts with
/// "internal error:" (a bug in tilec the pass found). Only the passes that
/// check the user's program (`tile-*` and `convert-tile-to-*`) report user
/// errors: an error from any other pass (the upstream conversions, the back
/// ends) is about code tilec generated, and is reported as an internal error
/// that quotes it. The context must not be multithreaded: the checks capture
/// the verifier's diagnostics.
void addInternalErrorChecks(mlir::PassManager &pm, InternalErrorAction action);

/// The command-line name of the pass running now in a pass manager with
/// internal error checks, or "" between passes; for crash reports.
std::string getRunningPassName();

} // namespace tilec

#endif // TILEC_DRIVER_INTERNALERRORS_H
