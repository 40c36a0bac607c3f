//===- Builtins.h - The builtins of .tile files -----------------*- C++ -*-===//
//
// Part of tilec. The names .tile code finds without defining them: the `T`
// namespace of tile primitives (tilelang.language), the Python builtins
// .tile keeps, and the tilelang package. Each builtin checks its arguments
// the way TileLang does, through the Evaluator, and emits its op through
// the TileEmitter.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_FRONTEND_BUILTINS_H
#define TILEC_FRONTEND_BUILTINS_H

#include "tilec/Frontend/Evaluator.h"

namespace tilec::frontend {

/// The namespaces of the builtins, for an Evaluator.
Namespaces createBuiltinNamespaces(mlir::MLIRContext *context);

} // namespace tilec::frontend

#endif // TILEC_FRONTEND_BUILTINS_H
