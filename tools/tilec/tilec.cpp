//===- tilec.cpp - The tilec compiler driver ------------------------------===//
//
// Part of tilec. Reads the command line into DriverOptions and runs the
// driver (lib/Driver), which reads a .tile file and writes what --emit asks
// for: the syntax tree, the tile dialect, the lowered IR, PTX or AMDGCN
// assembly, a cubin or hsaco with its C header, or the header alone. Errors
// print as `file:line:col: error: ...` with the source line; any error exits
// with 1 and writes no output file.
//
//===----------------------------------------------------------------------===//

#include "tilec/Driver/Driver.h"
#include "tilec/Driver/Temporaries.h"
#include "tilec/InitTilec.h"
#include "tilec/Warnings.h"

#include "TilecVersion.inc"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <CLI/CLI.hpp>
#include <algorithm>

using namespace tilec;

int main(int argc, char **argv) {
  recordIgnoredSignals();
  llvm::InitLLVM initLLVM(argc, argv);
  restoreIgnoredSignals();
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  // The device pipelines are assembled from registered passes.
  registerPasses();

  CLI::App app{"tilec: ahead-of-time compiler for TileLang-style .tile "
               "kernels",
               "tilec"};
  app.set_help_flag("-h,--help", "Print this help and exit");
  app.set_version_flag("--version", [argv0 = argv[0]] {
    return getVersionText(TILEC_VERSION_STRING, TILEC_COMMIT_STRING, argv0);
  });
  DriverOptions options;
  CompileOptions &compile = options.compile;
  app.add_option("input", options.input,
                 "The .tile file to compile ('-' reads standard input)")
      ->required();
  app.add_option("-o,--output", options.output,
                 "Where to write the result ('-', the default, is standard "
                 "output); written only when compilation succeeds");
  std::string archHelp =
      "The GPU to compile for (default " + kDefaultArch.str() +
      "); several, comma-separated, for a header that embeds a binary for "
      "each and loads the one that suits the device:";
  for (const TargetInfo &target : getTargets())
    archHelp += " " + target.name.str();
  app.add_option("--arch", options.arch, archHelp)
      ->each([&](const std::string &) { options.archGiven = true; });
  app.add_option("--target", options.target,
                 "gpu (the default: the --arch GPUs) or host: the host CPU "
                 "(x86-64), where each kernel is a C function that runs its "
                 "blocks one after the other (-o FILE.o writes an object "
                 "file and FILE.h; docs/host.md)")
      ->check(CLI::IsMember({"gpu", "host"}));
  app.add_option("--emit", options.emit,
                 "What to produce: ast (the syntax tree), tile (the tile "
                 "dialect), layouts (every buffer's layout, in words), gpu "
                 "(per-thread code in a gpu.module), llvm (the "
                 "LLVM dialect), ll or bc (the LLVM IR code generation "
                 "starts from, optimized and linked, as text or bitcode), "
                 "ptx or isa (assembly), cubin, hsaco or obj "
                 "(the binary, with its C header beside it; obj for --target "
                 "host), header (the header alone). Without --emit, the -o "
                 "suffix decides (.cubin, .hsaco, .o, .ptx, .s, .ll, .bc, .h; "
                 ".mlir or none for tile), and any other suffix is an error")
      ->check(
          CLI::IsMember({"ast", "tile", "layouts", "gpu", "llvm", "ll", "bc",
                         "ptx", "isa", "cubin", "hsaco", "obj", "header"}));
  app.add_option("--header", options.header,
                 "Where the C header goes when a binary is written (default: "
                 "the output with .h); with PTX output, writes a header "
                 "that embeds the PTX, which the driver compiles for the GPU "
                 "it loads on");
  app.add_option("-O", compile.optLevel,
                 "Optimization level of the device code (or of the host "
                 "object), 0 to 3 (default 3); -O alone is -O1, -Os and -Oz "
                 "are -O2, -Ofast is -O3 with --fast-math")
      ->check(CLI::Range(0, 3));
  app.add_flag("-g,--lineinfo", compile.lineInfo,
               "Line tables in the device code (-lineinfo, "
               "-gline-tables-only): .loc directives in the PTX and line "
               "information in the cubin (ptxas -lineinfo), which "
               "compute-sanitizer and Nsight Compute map back to the .tile "
               "file's lines; no variables are described");
  auto *fastMath = app.add_flag_callback(
      "--fast-math",
      [&] {
        compile.fastMath = true;
        compile.fastMathFromCommandLine = true;
      },
      "Approximate division, square root and math functions "
      "(rcp.approx, ex2.approx, the fast device-library variants) "
      "and flush f32 denormals to zero; a kernel's "
      "@tilelang.jit(pass_configs={TL_ENABLE_FAST_MATH: True}) asks for it "
      "too");
  app.add_flag_callback(
         "--no-fast-math",
         [&] {
           compile.fastMath = false;
           compile.fastMathFromCommandLine = true;
         },
         "Exact math even where the file's pass_configs ask for fast math")
      ->excludes(fastMath);
  app.add_flag_callback(
         "--no-fma", [&] { compile.contractFloat = false; },
         "Round every floating-point multiply and add on its own "
         "rather than fusing a * b + c into one fused multiply-add, "
         "as tilec does by default (like nvcc)")
      ->excludes("--fast-math");
  app.add_flag_callback(
      "--no-tma", [&] { compile.allowTma = false; },
      "On sm_90 and sm_90a, pipeline copies with cp.async rather "
      "than the bulk tensor copy engine (TMA) and mbarriers, and "
      "copy shared tiles to global memory with the threads rather "
      "than TMA stores (as pass_configs' TL_DISABLE_TMA_LOWER asks)");
  app.add_flag_callback(
      "--no-cp-async", [&] { compile.allowAsyncCopies = false; },
      "On NVIDIA, pipeline T.Pipelined loops through registers, as "
      "on AMD, rather than with cp.async or TMA copies");
  app.add_flag_callback(
      "--no-wgmma", [&] { compile.allowWgmma = false; },
      "On sm_90a, run T.gemm on mma.sync rather than warpgroup "
      "MMA (wgmma)");
  app.add_flag_callback(
      "--no-warp-specialize", [&] { compile.allowWarpSpecialize = false; },
      "On sm_90a, issue a T.Pipelined loop's bulk copies from the "
      "kernel's own first thread rather than from a producer "
      "warpgroup of their own (as pass_configs' "
      "TL_DISABLE_WARP_SPECIALIZED asks)");
  app.add_flag_callback(
      "--no-verify", [&] { compile.verify = false; },
      "Skip the Z3 verifiers: no proofs of annotated layouts, of "
      "memory accesses or of writes, no errors for accesses that "
      "can leave their buffer or writes that race, and no guards "
      "for accesses not proved in bounds");
  app.add_flag("--verify-only", options.verifyOnly,
               "Run the front end and the tile passes with the Z3 "
               "verifiers, print a remark for every memory access (proved "
               "or guarded) and every write (proved free of races or not), "
               "an error for each access that can leave its buffer and "
               "each write that races, and a summary per kernel, and write "
               "nothing")
      ->excludes("--no-verify")
      ->excludes("--emit")
      ->excludes("--output");
  app.add_option_function<std::vector<std::string>>(
         "-R",
         [&](const std::vector<std::string> &passes) {
           for (llvm::StringRef pass : passes) {
             compile.boundsRemarks |= pass == "bounds";
             compile.raceRemarks |= pass == "races";
             compile.alignmentRemarks |= pass == "alignment";
           }
         },
         "Print the remarks of a pass: -Rbounds, the bounds "
         "verifier's for every memory access; -Rraces, the race "
         "verifier's for every write; -Ralignment, the alignment "
         "verifier's for every vector access, cp.async and "
         "ldmatrix")
      ->check(CLI::IsMember({"bounds", "races", "alignment"}))
      ->type_name("bounds|races|alignment")
      ->allow_extra_args(false);
  std::string warningNames;
  for (llvm::StringRef name : getWarningNames())
    warningNames += (warningNames.empty() ? "" : ", ") + name.str();
  app.add_option_function<std::vector<std::string>>(
         "-W",
         [&](const std::vector<std::string> &flags) {
           for (llvm::StringRef flag : flags) {
             if (flag == "error") {
               options.warningsAsErrors = true;
             } else if (flag.consume_front("no-")) {
               options.disabledWarnings.push_back(flag.str());
             } else {
               llvm::erase(options.disabledWarnings, flag);
             }
           }
         },
         "-Werror: every warning is an error; -Wno-NAME turns warning NAME "
         "off and -WNAME back on, for the names warnings end with: " +
             warningNames)
      ->check(CLI::Validator(
          [](std::string &flag) -> std::string {
            llvm::StringRef name = flag;
            name.consume_front("no-");
            if (flag == "error" || llvm::is_contained(getWarningNames(), name))
              return "";
            std::string known;
            for (llvm::StringRef warning : getWarningNames())
              known += (known.empty() ? "" : ", ") + warning.str();
            return "unknown warning -W" + flag + "; tilec's warnings are " +
                   known + " (-Wno-NAME turns one off), and -Werror";
          },
          "error|[no-]NAME"))
      ->type_name("error|[no-]NAME")
      ->allow_extra_args(false);
  app.add_flag("-w", options.noWarnings, "Print no warnings");
  app.add_option_function<std::vector<std::string>>(
         "-f",
         [&](const std::vector<std::string> &flags) {
           for (llvm::StringRef flag : flags)
             options.colorDiagnostics = flag == "color-diagnostics";
         },
         "-fcolor-diagnostics or -fno-color-diagnostics: colour the "
         "diagnostics or not (default: on terminals, unless NO_COLOR is set)")
      ->check(CLI::IsMember({"color-diagnostics", "no-color-diagnostics"}))
      ->type_name("[no-]color-diagnostics")
      ->allow_extra_args(false);
  app.add_option("-D", options.defines,
                 "Set a compile-time parameter: a module constant, a kernel "
                 "factory parameter or a T.const name (-D M=1024, "
                 "-D dtype=bfloat16, -D shape=(2,3))")
      ->type_name("NAME=VALUE")
      ->take_first();
  app.add_option("-I", options.importPaths,
                 "Search DIR for the .tile and .py files that `import` "
                 "names, after the importing file's folder")
      ->type_name("DIR")
      ->take_first();
  app.add_option("--kernel", options.kernel,
                 "Compile only the kernels with these names (comma-separated)");
  app.add_option("--cuda-path", compile.cudaPath,
                 "The CUDA toolkit, for ptxas and libdevice (default: "
                 "$CUDA_PATH or /usr/local/cuda)");
  app.add_option("--rocm-path", compile.rocmPath,
                 "A directory with amdgcn/bitcode (the ROCm device "
                 "libraries) and llvm/bin/ld.lld (default: $TILEC_ROCM_PATH "
                 "or the one installed beside tilec)");
  app.add_option("--depfile", options.depfile,
                 "Also write a Make-style depfile naming the files read, "
                 "for build systems (-MF FILE is the same; -MD alone writes "
                 "OUTPUT.d)");
  app.add_flag("--split-input-file", options.splitInputFile,
               "For tests: compile each part of the file between '# -----' "
               "lines on its own");
  app.add_flag("--verify-diagnostics", options.verifyDiagnostics,
               "For tests: check the diagnostics against the file's "
               "'expected-error {{...}}' comments");
  app.add_option("--debug-inject-fault", options.injectFault,
                 "For tilec's tests: invalid-ir, silent-failure, reported, "
                 "crash or interrupt-at-commit")
      ->group("");
  app.footer("MLIR's --mlir-* options (--mlir-print-ir-after-all, "
             "--mlir-timing, --mlir-print-debuginfo, ...) are also accepted.");
  app.allow_extras();

  // GCC's depfile flags are not CLI11 options: take them out first.
  DependencyFlags dependencies;
  std::optional<std::vector<std::string>> parsed = takeDependencyFlags(
      llvm::ArrayRef<const char *>(argv + 1, argc - 1), dependencies);
  if (!parsed)
    return 1;
  std::vector<std::string> args = std::move(*parsed);
  spellCompilerFlags(args);
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError &e) {
    // --help and --version end the parse too; they succeed.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success))
      return app.exit(e);
    llvm::errs() << "tilec: error: " << e.what() << "; see tilec --help\n";
    return 1;
  }
  options.depfileTargets = std::move(dependencies.targets);
  if (dependencies.besideOutput && options.depfile.empty()) {
    if (options.output == "-") {
      llvm::errs() << "tilec: error: -MD writes OUTPUT_STEM.d: give -o, or "
                      "the depfile's path with -MF\n";
      return 1;
    }
    llvm::SmallString<256> depfile(options.output);
    llvm::sys::path::replace_extension(depfile, "d");
    options.depfile = std::string(depfile);
  }
  if (app.count("--kernel") &&
      llvm::StringRef(options.kernel).trim(" \t,").empty()) {
    llvm::errs() << "tilec: error: --kernel names no kernel; leave it out to "
                    "compile them all\n";
    return 1;
  }

  if (!options.injectFault.empty() && !isInjectableFault(options.injectFault)) {
    llvm::errs() << "tilec: error: --debug-inject-fault takes invalid-ir, "
                    "silent-failure, reported, generated-code-error, crash "
                    "or interrupt-at-commit, not '"
                 << options.injectFault << "'\n";
    return 1;
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
  return runDriver(options, argv[0]);
}
