//===- Warnings.h - tilec's warnings, by name -------------------*- C++ -*-===//
//
// Part of tilec. Every warning has a name: its message ends in `[-W<name>]`,
// as clang's do, and `-Wno-<name>` turns it off (docs/usage.md lists them).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_WARNINGS_H
#define TILEC_WARNINGS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tilec {

enum class Warning {
  /// T.gemm does not run on the matrix instruction tilec prefers.
  GemmFallback,
  /// A kernel's fragments need more registers than a thread has.
  RegisterSpill,
  /// A T.Pipelined loop runs unpipelined: its stages would not fit.
  Unpipelined,
  /// An annotated swizzle is not applied.
  SwizzleIgnored,
  /// A -D value names nothing in the file.
  UnusedDefine,
};

/// The names, in the order of the enumerators.
inline llvm::ArrayRef<llvm::StringLiteral> getWarningNames() {
  static const llvm::StringLiteral names[] = {"gemm-fallback", "register-spill",
                                              "unpipelined", "swizzle-ignored",
                                              "unused-define"};
  return names;
}

inline llvm::StringRef getWarningName(Warning warning) {
  return getWarningNames()[static_cast<unsigned>(warning)];
}

/// What ends the message of `warning`: " [-W<name>]".
inline std::string getWarningTag(Warning warning) {
  return (" [-W" + getWarningName(warning) + "]").str();
}

/// The name a warning's message ends with, or "" for none.
inline llvm::StringRef getWarningNameOf(llvm::StringRef message) {
  if (!message.consume_back("]"))
    return "";
  size_t open = message.rfind(" [-W");
  return open == llvm::StringRef::npos ? "" : message.drop_front(open + 4);
}

} // namespace tilec

#endif // TILEC_WARNINGS_H
