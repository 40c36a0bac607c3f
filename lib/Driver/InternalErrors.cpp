//===- InternalErrors.cpp - Broken passes reported as tilec's bugs --------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Driver/InternalErrors.h"
#include "tilec/Driver/Temporaries.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"

using namespace mlir;
using namespace tilec;

/// The passes running now, innermost last: nested pass managers run their
/// passes inside the adaptor pass of their parent.
static std::vector<std::string> runningPasses;

std::string tilec::getRunningPassName() {
  return runningPasses.empty() ? std::string() : runningPasses.back();
}

static std::string getPassName(Pass *pass) {
  StringRef argument = pass->getArgument();
  return (argument.empty() ? pass->getName() : argument).str();
}

/// Whether the pass named `name` checks the user's program and so may fail
/// with an error about it. Every other pass works on code tilec generated.
static bool checksUserProgram(StringRef name) {
  return name.starts_with("tile-") || name.starts_with("convert-tile-to-");
}

static constexpr const char *kReportRequest =
    "this is a bug in tilec: please report it with the input file and the "
    "command line";

/// The pass manager's own passes that run a nested pipeline on each child
/// op; their nested passes have verified what they changed.
static bool isNestingAdaptor(Pass *pass) {
  return pass->getArgument().empty() &&
         pass->getName() == "mlir::detail::OpToOpPassAdaptor";
}

namespace {

class InternalErrorChecks : public PassInstrumentation {
public:
  InternalErrorChecks(MLIRContext *context, InternalErrorAction action)
      : context(context), action(std::move(action)) {
    // Counts the errors passes report, and lets every handler see them.
    errorCounter = context->getDiagEngine().registerHandler(
        [this](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
            return failure();
          // The tools a signal's handler ended fail: not tilec's failure.
          if (isBeingInterrupted())
            waitForInterrupt();
          // A pass that finds a bug in tilec (a layout it chose that loses
          // elements, say) says so in the error's first words.
          std::string message = diagnostic.str();
          if (StringRef(message).starts_with("internal error:")) {
            ++errors;
            ++internalErrors;
            return failure();
          }
          if (runningPasses.empty() ||
              checksUserProgram(runningPasses.back())) {
            ++errors;
            return failure();
          }
          // Reported again, as tilec's; this handler counts the new one.
          InFlightDiagnostic internal =
              emitError(diagnostic.getLocation())
              << "internal error: pass '" << runningPasses.back()
              << "' failed on the code tilec generated (" << message << "); "
              << kReportRequest;
          for (Diagnostic &note : diagnostic.getNotes())
            internal.attachNote(note.getLocation()) << note.str();
          return success();
        });
  }

  ~InternalErrorChecks() override {
    context->getDiagEngine().eraseHandler(errorCounter);
  }

  void runBeforePass(Pass *pass, Operation *op) override {
    runningPasses.push_back(getPassName(pass));
    errorsBefore.push_back(errors);
    internalErrorsBefore.push_back(internalErrors);
  }

  void runAfterPass(Pass *pass, Operation *op) override {
    std::string name = runningPasses.back();
    popPass();
    verifyAfter(pass, name, op);
  }

  void runAfterPassFailed(Pass *pass, Operation *op) override {
    std::string name = runningPasses.back();
    uint64_t before = errorsBefore.back();
    uint64_t internalBefore = internalErrorsBefore.back();
    popPass();
    if (internalErrors != internalBefore)
      return action();
    if (errors != before)
      return;
    emitError(op->getLoc())
        << "internal error: pass '" << name << "' failed without a diagnostic; "
        << kReportRequest;
    action();
  }

private:
  void popPass() {
    runningPasses.pop_back();
    errorsBefore.pop_back();
    internalErrorsBefore.pop_back();
  }

  /// What MLIR's verifier would check after `pass`, but blaming the pass.
  void verifyAfter(Pass *pass, StringRef name, Operation *op) {
    std::optional<Location> location;
    std::string message;
    LogicalResult verified = success();
    {
      ScopedDiagnosticHandler capture(context, [&](Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() == DiagnosticSeverity::Error &&
            !location) {
          location = diagnostic.getLocation();
          message = diagnostic.str();
        }
        return success();
      });
      verified = verify(op, /*verifyRecursively=*/!isNestingAdaptor(pass));
    }
    if (succeeded(verified))
      return;
    emitError(location.value_or(op->getLoc()))
        << "internal error: pass '" << name << "' left invalid IR (" << message
        << "); " << kReportRequest;
    action();
  }

  MLIRContext *context;
  InternalErrorAction action;
  DiagnosticEngine::HandlerID errorCounter;
  uint64_t errors = 0, internalErrors = 0;
  /// The error counts when each running pass started.
  std::vector<uint64_t> errorsBefore, internalErrorsBefore;
};

} // namespace

void tilec::addInternalErrorChecks(PassManager &pm,
                                   InternalErrorAction action) {
  assert(!pm.getContext()->isMultithreadingEnabled() &&
         "the checks capture diagnostics of one thread");
  pm.enableVerifier(false);
  pm.addInstrumentation(std::make_unique<InternalErrorChecks>(
      pm.getContext(), std::move(action)));
}
