//===- InitTilec.h - Register tilec's dialects and passes -------*- C++ -*-===//
//
// Part of tilec. One place that lists the dialects and passes the compiler
// uses, shared by tilec and tilec-opt so the two always agree.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_INITTILEC_H
#define TILEC_INITTILEC_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tilec {

/// Adds the tile dialect and the upstream dialects tilec lowers through.
void registerDialects(mlir::DialectRegistry &registry);

/// Registers tilec's passes and the upstream passes its pipelines use, so
/// that tilec-opt can run each of them alone.
void registerPasses();

} // namespace tilec

#endif // TILEC_INITTILEC_H
