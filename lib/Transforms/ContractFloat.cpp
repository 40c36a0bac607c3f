//===- ContractFloat.cpp - Allow fused multiply-adds ----------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Passes.h"

namespace tilec {
#define GEN_PASS_DEF_TILECCONTRACTFLOAT
#include "tilec/Transforms/Passes.h.inc"
} // namespace tilec

using namespace mlir;

namespace {

struct ContractFloatPass
    : public tilec::impl::TilecContractFloatBase<ContractFloatPass> {
  void runOnOperation() override {
    getOperation()->walk([&](arith::ArithFastMathInterface op) {
      arith::FastMathFlagsAttr current = op.getFastMathFlagsAttr();
      arith::FastMathFlags flags =
          current ? current.getValue() : arith::FastMathFlags::none;
      op->setAttr(op.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(
                      &getContext(), flags | arith::FastMathFlags::contract));
    });
  }
};

} // namespace
