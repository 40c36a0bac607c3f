//===- TestInjectFault.cpp - Faults for testing internal errors -----------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Passes.h"

namespace tilec {
#define GEN_PASS_DEF_TILECTESTINJECTFAULT
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct TestInjectFaultPass
    : public tilec::impl::TilecTestInjectFaultBase<TestInjectFaultPass> {
  using TilecTestInjectFaultBase::TilecTestInjectFaultBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (kind == "invalid-ir") {
      // func.return may only end a function.
      OpBuilder builder = OpBuilder::atBlockBegin(module.getBody());
      func::ReturnOp::create(builder, module.getLoc());
    } else if (kind == "silent-failure") {
      signalPassFailure();
    } else if (kind == "reported") {
      module.emitError() << "internal error: an injected fault; this is a "
                            "bug in tilec: please report it with the input "
                            "file and the command line";
      signalPassFailure();
    } else if (kind == "generated-code-error") {
      // What an upstream conversion says of code it cannot lower.
      module.emitError() << "an injected error about generated code";
      signalPassFailure();
    } else if (kind == "crash") {
      __builtin_trap();
    } else {
      module.emitError() << "unknown fault kind '" << kind
                         << "'; expected invalid-ir, silent-failure, reported, "
                            "generated-code-error or crash";
      signalPassFailure();
    }
  }
};

} // namespace
