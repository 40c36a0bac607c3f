//===- tilec-fuzz.cpp - libFuzzer harness over the whole compiler ---------===//
//
// Part of tilec. Compiles each input as a .tile file, through the front end
// and every pass, to the LLVM dialect and a header. Whatever the bytes, tilec
// must end in IR or in error diagnostics with a location: a crash, a
// sanitizer report, an internal error, a failure without a diagnostic or an
// error without a location stops the fuzzer. The first line of an input may
// set options the way the command line does,
// `# -D M=256 -D dtype=bfloat16 --arch gfx942` (or `--target host`, to the
// host target's LLVM dialect), so that kernel factories get their
// parameters and mutations reach them.
//
//===----------------------------------------------------------------------===//

#include "tilec/Driver/Compilation.h"
#include "tilec/Driver/InternalErrors.h"
#include "tilec/Frontend/Source.h"
#include "tilec/InitTilec.h"
#include "tilec/Target/HeaderGen.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ProgramStack.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;
using namespace tilec;

namespace {

/// The options of an input's first line.
struct InputOptions {
  frontend::ImportOptions import;
  const TargetInfo *target = lookupTarget("sm_90a");
};

InputOptions parseOptionsLine(llvm::StringRef text) {
  InputOptions options;
  llvm::StringRef line = text.split('\n').first;
  if (!line.consume_front("#"))
    return options;
  llvm::SmallVector<llvm::StringRef> words;
  line.split(words, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "--arch") {
      if (const TargetInfo *target = lookupTarget(words[i + 1]))
        options.target = target;
    } else if (words[i] == "--target" && words[i + 1] == "host") {
      options.target = &getHostTarget();
    } else if (words[i] == "-D") {
      auto [name, value] = words[i + 1].split('=');
      if (!name.empty() && !value.empty())
        options.import.defines.push_back({name.str(), value.str()});
    }
  }
  return options;
}

[[noreturn]] void fail(llvm::StringRef why) {
  llvm::errs() << "tilec-fuzz: " << why << "\n";
  abort();
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
  registerPasses();
  return 0;
}

/// Compiles one input, on whatever stack it is called.
static void compileInput(llvm::StringRef text) {
  InputOptions options = parseOptionsLine(text);

  std::unique_ptr<MLIRContext> context = createCompilerContext();
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      frontend::normalizeSourceText(
          llvm::MemoryBuffer::getMemBufferCopy(text, "input.tile")),
      llvm::SMLoc());

  unsigned errors = 0;
  ScopedDiagnosticHandler handler(context.get(), [&](Diagnostic &diagnostic) {
    if (diagnostic.getSeverity() != DiagnosticSeverity::Error)
      return success();
    ++errors;
    if (isa<UnknownLoc>(diagnostic.getLocation()))
      fail("an error without a location: " + diagnostic.str());
    if (StringRef(diagnostic.str()).starts_with("internal error"))
      llvm::errs() << "tilec-fuzz: " << diagnostic.str() << "\n";
    return success();
  });
  // Set TILEC_FUZZ_VERBOSE to see the diagnostics of the inputs run.
  static const bool verbose = std::getenv("TILEC_FUZZ_VERBOSE");
  std::optional<SourceMgrDiagnosticHandler> printer;
  if (verbose)
    printer.emplace(sourceMgr, context.get());

  // To the LLVM dialect: the back ends and ptxas are not tilec's.
  Compilation compilation;
  compilation.emit = Emit::LLVM;
  compilation.targets.emplace_back().target = options.target;
  compilation.import = options.import;
  compilation.prefix = "fuzz";
  compilation.sourceName = "input.tile";
  auto configure = [](PassManager &pm) {
    addInternalErrorChecks(pm, [] { fail("internal error"); });
    return success();
  };
  std::string output;
  llvm::raw_string_ostream os(output);
  CompileResult result;
  LogicalResult status =
      compileSource(sourceMgr, *context, compilation, configure, os, result);
  // The header of what was described, with a stand-in for a GPU's binary.
  if (result.kernels) {
    if (!options.target->isHost())
      result.kernels->images.push_back({options.target->name.str(), {0}});
    std::string header;
    llvm::raw_string_ostream headerStream(header);
    writeHeader(*result.kernels, headerStream);
  }
  if (failed(status) && errors == 0)
    fail("compilation failed without an error");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // On the stack tilec gives the compiler, not libFuzzer's.
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::runOnNewStack(kCompilerStackSize, [&] { compileInput(text); });
  return 0;
}
