//===- Files.h - The files a run reads and writes ---------------*- C++ -*-===//
//
// Part of tilec. The input is read with a size limit. The outputs (the
// result, the header beside a binary, the depfile) are checked before
// anything is compiled, then written together or not at all: each to a
// temporary file beside its destination, renamed over it under a lock, so
// that a failed, interrupted or concurrent run never leaves a half-written
// output or a binary paired with another run's header. Destinations that are
// not regular files (/dev/null, FIFOs) are written in place, never replaced.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DRIVER_FILES_H
#define TILEC_DRIVER_FILES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace tilec {

/// The largest input tilec reads: larger ones are errors, not an
/// out-of-memory abort (docs/robustness.md).
constexpr uint64_t kMaxInputBytes = 64ull << 20;

/// Reads `path` ("-" is standard input), at most kMaxInputBytes. On failure,
/// prints `tilec: error: ...` to `errs` and returns null.
std::unique_ptr<llvm::MemoryBuffer> readInputFile(llvm::StringRef path,
                                                  llvm::raw_ostream &errs);

/// A fault to stop a run at, for the tests of what a run leaves behind.
enum class CommitFault {
  None,
  /// SIGTERM to itself with every temporary output written, before any is
  /// renamed: what a kill at the worst moment leaves.
  InterruptBeforeRename,
};

/// The files a run writes.
class OutputFiles {
public:
  OutputFiles();
  ~OutputFiles();

  /// Adds a destination; `role` names it in messages ("output", "header",
  /// "depfile"). "-" is standard output.
  void add(llvm::StringRef path, llvm::StringRef role);

  /// Checks, before anything is compiled, that every destination can be
  /// written: none is a directory, a read-only file or in a missing or
  /// unwritable folder, and none names the input or another destination.
  /// Prints each problem as `tilec: error: ...` and returns false if any.
  bool check(llvm::StringRef inputPath, llvm::raw_ostream &errs);

  /// Writes `contents[i]` to the i-th destination added, all or none. Call
  /// after check(). Prints `tilec: error: ...` and returns false on failure.
  bool commit(llvm::ArrayRef<std::string> contents, llvm::raw_ostream &errs,
              CommitFault fault = CommitFault::None);

  struct Destination;

private:
  std::vector<Destination> destinations;
};

} // namespace tilec

#endif // TILEC_DRIVER_FILES_H
