//===- tilec.cpp - The tilec compiler driver ------------------------------===//
//
// Part of tilec. Reads a .tile file and writes what --emit asks for.
// Errors print as `file:line:col: error: ...` with the source line; any
// error exits with 1 and writes no output file.
//
//===----------------------------------------------------------------------===//

#include "tilec/Frontend/MLIRGen.h"
#include "tilec/InitTilec.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>

using namespace tilec;

namespace {
struct Options {
  std::string input;
  std::string output = "-";
  std::string emit = "tile";
  std::vector<std::string> defines;
  std::string kernel;
  bool splitInputFile = false;
  bool verifyDiagnostics = false;
};
} // namespace

/// Checks `NAME=VALUE` and splits it.
static bool parseDefine(llvm::StringRef text,
                        std::pair<std::string, std::string> &define) {
  auto [name, value] = text.split('=');
  if (name.empty() || value.empty() || !text.contains('='))
    return false;
  if (!llvm::isAlpha(name.front()) && name.front() != '_')
    return false;
  for (char c : name)
    if (!llvm::isAlnum(c) && c != '_')
      return false;
  define = {name.str(), value.str()};
  return true;
}

/// Compiles one buffer (a file, or one part of a split file) and prints
/// the result to `os`.
static mlir::LogicalResult processBuffer(
    std::unique_ptr<llvm::MemoryBuffer> buffer, const Options &options,
    const frontend::ImportOptions &importOptions, llvm::raw_ostream &os) {
  mlir::DialectRegistry registry;
  registerDialects(registry);
  mlir::MLIRContext context(registry);
  // Diagnostics point at .tile lines; an IR dump would only get in the way.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());

  auto run = [&]() -> mlir::LogicalResult {
    if (options.emit == "ast") {
      std::unique_ptr<frontend::Module> ast =
          frontend::parseTileFile(sourceMgr, &context);
      if (!ast)
        return mlir::failure();
      frontend::printAST(*ast, os);
      return mlir::success();
    }
    mlir::OwningOpRef<mlir::ModuleOp> module =
        frontend::importTileFile(sourceMgr, &context, importOptions);
    if (!module)
      return mlir::failure();
    // The front end emits constants where they are used; fold and share
    // them.
    mlir::PassManager pm(&context);
    if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
      return mlir::failure();
    mlir::applyDefaultTimingPassManagerCLOptions(pm);
    pm.addPass(mlir::createCanonicalizerPass());
    pm.addPass(mlir::createCSEPass());
    if (mlir::failed(pm.run(*module)))
      return mlir::failure();
    module->print(os);
    return mlir::success();
  };

  if (!options.verifyDiagnostics) {
    mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    return run();
  }
  mlir::SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
  (void)run();
  return handler.verify();
}

static int compile(const Options &options) {
  frontend::ImportOptions importOptions;
  importOptions.kernel = options.kernel;
  for (const std::string &text : options.defines) {
    std::pair<std::string, std::string> define;
    if (!parseDefine(text, define)) {
      llvm::errs() << "tilec: error: -D takes NAME=VALUE with NAME an "
                      "identifier, got '"
                   << text << "'\n";
      return 1;
    }
    importOptions.defines.push_back(define);
  }

  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(options.input,
                                                   /*IsText=*/true);
  if (std::error_code error = buffer.getError()) {
    llvm::errs() << "tilec: error: cannot read '" << options.input
                 << "': " << error.message() << "\n";
    return 1;
  }

  // Nothing is written unless everything succeeded.
  std::string result;
  llvm::raw_string_ostream os(result);
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     llvm::raw_ostream &chunkOs) {
    return processBuffer(std::move(chunk), options, importOptions, chunkOs);
  };
  if (mlir::failed(mlir::splitAndProcessBuffer(
          std::move(*buffer), process, os,
          options.splitInputFile ? "# -----" : "", "# -----")))
    return 1;
  llvm::Error error = llvm::writeToOutput(
      options.output, [&](llvm::raw_ostream &out) -> llvm::Error {
        out << result;
        return llvm::Error::success();
      });
  if (error) {
    llvm::errs() << "tilec: error: cannot write '" << options.output
                 << "': " << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();

  CLI::App app{"tilec: ahead-of-time compiler for TileLang-style .tile "
               "kernels",
               "tilec"};
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.set_version_flag("--version", "tilec 0.1.0 (LLVM/MLIR 22)");
  Options options;
  app.add_option("input", options.input,
                 "The .tile file to compile ('-' reads standard input)")
      ->required();
  app.add_option("-o,--output", options.output,
                 "Where to write the result ('-', the default, is standard "
                 "output); written only when compilation succeeds");
  app.add_option("--emit", options.emit,
                 "What to produce: 'tile' (the tile dialect, the default) or "
                 "'ast' (the parsed syntax tree)")
      ->check(CLI::IsMember({"ast", "tile"}));
  app.add_option("-D", options.defines,
                 "Set a compile-time parameter: a module constant, a kernel "
                 "factory parameter or a T.const name (-D M=1024, "
                 "-D dtype=bfloat16, -D shape=(2,3))")
      ->type_name("NAME=VALUE")
      ->take_first();
  app.add_option("--kernel", options.kernel,
                 "Compile only the kernel with this name");
  app.add_flag("--split-input-file", options.splitInputFile,
               "For tests: compile each part of the file between '# -----' "
               "lines on its own");
  app.add_flag("--verify-diagnostics", options.verifyDiagnostics,
               "For tests: check the diagnostics against the file's "
               "'expected-error {{...}}' comments");
  app.footer("MLIR's --mlir-* options (such as --mlir-print-debuginfo) are "
             "also accepted.");
  app.allow_extras();

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e) == 0 ? 0 : 1;
  }

  // Whatever CLI11 did not know goes to MLIR's option parser, which only
  // accepts its own --mlir-* options.
  std::vector<std::string> extras = app.remaining();
  for (const std::string &extra : extras) {
    if (!llvm::StringRef(extra).starts_with("--mlir-") &&
        !llvm::StringRef(extra).starts_with("-mlir-")) {
      llvm::errs() << "tilec: error: unknown option '" << extra
                   << "'; see tilec --help\n";
      return 1;
    }
  }
  std::vector<const char *> mlirArgs = {argv[0]};
  for (const std::string &extra : extras)
    mlirArgs.push_back(extra.c_str());
  if (!llvm::cl::ParseCommandLineOptions(mlirArgs.size(), mlirArgs.data(),
                                         "tilec", &llvm::errs()))
    return 1;
  return compile(options);
}
