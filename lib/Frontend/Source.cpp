//===- Source.cpp - A .tile file and its diagnostics ----------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/Source.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/STLExtras.h"

using namespace tilec::frontend;

std::unique_ptr<llvm::MemoryBuffer> tilec::frontend::normalizeSourceText(
    std::unique_ptr<llvm::MemoryBuffer> buffer) {
  llvm::StringRef text = buffer->getBuffer();
  bool byteOrderMark = text.starts_with("\xEF\xBB\xBF");
  if (!byteOrderMark && !text.contains('\r'))
    return buffer;
  if (byteOrderMark)
    text = text.drop_front(3);
  std::string normalized;
  normalized.reserve(text.size());
  for (size_t i = 0, e = text.size(); i != e; ++i) {
    if (text[i] != '\r') {
      normalized += text[i];
      continue;
    }
    normalized += '\n';
    if (i + 1 != e && text[i + 1] == '\n')
      ++i;
  }
  return llvm::MemoryBuffer::getMemBufferCopy(normalized,
                                              buffer->getBufferIdentifier());
}

TileSource::TileSource(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                       mlir::MLIRContext *context,
                       std::optional<llvm::StringRef> text)
    : sourceMgr(sourceMgr), bufferId(bufferId), context(context),
      text(text.value_or(sourceMgr.getMemoryBuffer(bufferId)->getBuffer())) {
  fileName = mlir::StringAttr::get(
      context, sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier());
}

llvm::StringRef TileSource::getBuffer() const {
  return sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
}

mlir::Location TileSource::getLoc(llvm::SMLoc loc) const {
  if (!loc.isValid())
    return mlir::FileLineColLoc::get(fileName, 0, 0);
  // SourceMgr finds a column by scanning back to the line's start, which
  // for every token of a long line takes time quadratic in its length.
  llvm::StringRef buffer = getBuffer();
  const char *pointer = loc.getPointer();
  // A location in another buffer, such as a -D value evaluated with this
  // file, is found by the source manager.
  if (pointer < buffer.begin() || pointer > buffer.end()) {
    unsigned owner = sourceMgr.FindBufferContainingLoc(loc);
    if (!owner)
      return mlir::FileLineColLoc::get(fileName, 0, 0);
    auto [line, column] = sourceMgr.getLineAndColumn(loc, owner);
    return mlir::FileLineColLoc::get(
        mlir::StringAttr::get(
            context, sourceMgr.getMemoryBuffer(owner)->getBufferIdentifier()),
        line, column);
  }
  if (lineStarts.empty()) {
    lineStarts.push_back(buffer.begin());
    for (const char &c : buffer)
      if (c == '\n')
        lineStarts.push_back(&c + 1);
  }
  auto next = llvm::upper_bound(lineStarts, pointer);
  unsigned line = next - lineStarts.begin();
  unsigned column = pointer - *std::prev(next) + 1;
  return mlir::FileLineColLoc::get(fileName, line, column);
}

mlir::InFlightDiagnostic TileSource::emitError(llvm::SMLoc loc) {
  ++numErrors;
  return mlir::emitError(getLoc(loc));
}

mlir::InFlightDiagnostic TileSource::emitWarning(llvm::SMLoc loc) {
  return mlir::emitWarning(getLoc(loc));
}
