//===- HeaderTemplate.h - C text with placeholders --------------*- C++ -*-===//
//
// Part of tilec. The generated header's fixed part is C text kept in
// lib/Target/*.h.in and filled in per module. The templates stay valid C, so
// that they compile on their own: their placeholders are C identifiers and
// their choices preprocessing conditionals, which the renderer evaluates.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_TARGET_HEADERTEMPLATE_H
#define TILEC_TARGET_HEADERTEMPLATE_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace tilec {

/// The values a template is rendered with. Rendering reads the template line
/// by line:
///
/// - A line whose first non-blank characters are `//` is the template's own
///   comment and is dropped.
/// - `#if FLAG`, `#if !FLAG`, `#else` and `#endif`, where FLAG is an
///   identifier that starts with `TILEC_`, keep or drop the lines between
///   them; the directives themselves are dropped. Every other preprocessing
///   directive is text, and nests inside them as in C.
/// - A line that holds a placeholder and nothing else but blanks becomes the
///   placeholder's value, as is: a block of whole lines, or nothing.
/// - Elsewhere, comments and string literals included, an identifier that is
///   a placeholder becomes its value, and one that starts with a prefix
///   placeholder followed by `_` has that part replaced.
///
/// Values are not read again, so they may hold anything.
class HeaderTemplate {
public:
  /// Sets placeholder `name`.
  HeaderTemplate &set(llvm::StringRef name, llvm::StringRef value);
  /// Sets prefix placeholder `name`: `name` and `name_...` identifiers.
  HeaderTemplate &setPrefix(llvm::StringRef name, llvm::StringRef value);
  /// Sets the flag `#if name` tests.
  HeaderTemplate &setFlag(llvm::StringRef name, bool value);

  /// Writes `text` rendered to `os`. A conditional on a flag that was not
  /// set, or one left open, is a fatal error: templates are part of tilec.
  void render(llvm::StringRef text, llvm::raw_ostream &os) const;

private:
  /// Writes `line` with its placeholders replaced.
  void substitute(llvm::StringRef line, llvm::raw_ostream &os) const;

  llvm::StringMap<std::string> values, prefixes;
  llvm::StringMap<bool> flags;
};

} // namespace tilec

#endif // TILEC_TARGET_HEADERTEMPLATE_H
