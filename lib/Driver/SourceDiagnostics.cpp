//===- SourceDiagnostics.cpp - Diagnostics shown with their source --------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Driver/SourceDiagnostics.h"

#include "mlir/IR/Location.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Unicode.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace tilec;

std::string tilec::formatSourceLine(llvm::StringRef line, unsigned column,
                                    unsigned &caretColumn) {
  std::string shown;
  unsigned width = 0;
  std::optional<unsigned> caret;
  for (size_t i = 0, e = line.size(); i < e;) {
    if (!caret && i + 1 >= column)
      caret = width;
    unsigned char byte = line[i];
    if (byte == '\t') {
      unsigned next = (width / 8 + 1) * 8;
      shown.append(next - width, ' ');
      width = next;
      ++i;
      continue;
    }
    unsigned length = llvm::getNumBytesForUTF8(byte);
    const auto *start = reinterpret_cast<const llvm::UTF8 *>(line.data() + i);
    if (i + length > e || !llvm::isLegalUTF8Sequence(start, start + length)) {
      std::string escaped = "<" + llvm::utohexstr(byte, false, 2) + ">";
      shown += escaped;
      width += escaped.size();
      ++i;
      continue;
    }
    llvm::StringRef character = line.substr(i, length);
    int characterWidth = llvm::sys::unicode::columnWidthUTF8(character);
    if (characterWidth >= 0) {
      shown += character;
      width += characterWidth;
    } else {
      llvm::UTF32 codePoint;
      const llvm::UTF8 *cursor = start;
      (void)llvm::convertUTF8Sequence(&cursor, start + length, &codePoint,
                                      llvm::strictConversion);
      std::string hex = llvm::utohexstr(codePoint, false, 4);
      std::string escaped = "<U+" + hex + ">";
      shown += escaped;
      width += escaped.size();
    }
    i += length;
  }
  caretColumn = caret.value_or(width);
  return shown;
}

unsigned SourceDiagnosticPrinter::findBuffer(llvm::StringRef file) {
  for (unsigned id = 1, e = sources.getNumBuffers(); id <= e; ++id)
    if (sources.getMemoryBuffer(id)->getBufferIdentifier() == file)
      return id;
  return 0;
}

void SourceDiagnosticPrinter::print(Location loc, llvm::StringRef message,
                                    DiagnosticSeverity severity) {
  auto fileLoc = loc->findInstanceOf<FileLineColLoc>();
  if (fileLoc) {
    llvm::WithColor(os, llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true)
        << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
        << fileLoc.getColumn() << ": ";
  } else if (!isa<UnknownLoc>(loc)) {
    os << loc << ": ";
  } else {
    os << "tilec: ";
  }
  switch (severity) {
  case DiagnosticSeverity::Error:
    llvm::WithColor::error(os);
    break;
  case DiagnosticSeverity::Warning:
    llvm::WithColor::warning(os);
    break;
  case DiagnosticSeverity::Note:
    llvm::WithColor::note(os);
    break;
  case DiagnosticSeverity::Remark:
    llvm::WithColor::remark(os);
    break;
  }
  llvm::WithColor(os, llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true)
      << message << "\n";

  if (!fileLoc || fileLoc.getLine() == 0 || fileLoc.getColumn() == 0)
    return;
  auto [it, inserted] = buffers.try_emplace(fileLoc.getFilename(), 0);
  if (inserted)
    it->second = findBuffer(fileLoc.getFilename().getValue());
  if (!it->second)
    return;
  llvm::SMLoc lineStart =
      sources.FindLocForLineAndColumn(it->second, fileLoc.getLine(), 1);
  if (!lineStart.isValid())
    return;
  llvm::StringRef rest(lineStart.getPointer(),
                       sources.getMemoryBuffer(it->second)->getBufferEnd() -
                           lineStart.getPointer());
  llvm::StringRef line = rest.take_until([](char c) { return c == '\n'; });
  unsigned caret;
  std::string shown = formatSourceLine(line, fileLoc.getColumn(), caret);
  os << shown << "\n";
  llvm::WithColor(os, llvm::raw_ostream::GREEN, /*Bold=*/true)
      << std::string(caret, ' ') << "^";
  os << "\n";
}

SourceDiagnosticPrinter::SourceDiagnosticPrinter(llvm::SourceMgr &sources,
                                                 MLIRContext *context,
                                                 llvm::raw_ostream &os)
    : ScopedDiagnosticHandler(context), sources(sources), os(os) {
  setHandler([this](Diagnostic &diagnostic) {
    DiagnosticSeverity severity = diagnostic.getSeverity();
    if (warningsAsErrors && severity == DiagnosticSeverity::Warning)
      severity = DiagnosticSeverity::Error;
    print(diagnostic.getLocation(), diagnostic.str(), severity);
    for (Diagnostic &note : diagnostic.getNotes())
      print(note.getLocation(), note.str(), note.getSeverity());
    this->os.flush();
  });
}
