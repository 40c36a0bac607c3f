//===- tilec-opt.cpp - Run tilec's passes on MLIR files -------------------===//
//
// Part of tilec. The mlir-opt of tilec: parses .mlir with the tile dialect
// and the upstream dialects tilec uses, runs passes, prints the result. The
// lit suite drives every pass through it.
//
//===----------------------------------------------------------------------===//

#include "tilec/InitTilec.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  tilec::registerDialects(registry);
  tilec::registerPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tilec optimizer driver\n", registry));
}
