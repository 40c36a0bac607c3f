//===- Compiler.cpp - From the tile dialect to GPU binaries ---------------===//
//
// Part of tilec. Assembles the pass pipeline per stage and target, and reads
// the lowered module back for the header generator.
//
//===----------------------------------------------------------------------===//

#include "tilec/Driver/Compiler.h"
#include "tilec/Conversion/Passes.h"
#include "tilec/Dialect/Tile/IR/TileOps.h"
#include "tilec/Dialect/Tile/Transforms/Passes.h"
#include "tilec/Transforms/Passes.h"
#include "tilec/Verification/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace mlir;
using namespace tilec;

//===----------------------------------------------------------------------===//
// Pipeline
//===----------------------------------------------------------------------===//

static LogicalResult addPipeline(OpPassManager &pm, StringRef pipeline) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  if (succeeded(parsePassPipeline(pipeline, pm, os)))
    return success();
  llvm::errs() << "tilec: internal error: bad pass pipeline '" << pipeline
               << "': " << errors << "\n";
  return failure();
}

tile::TargetAttr tilec::getTargetAttr(ModuleOp module,
                                      const CompileOptions &options) {
  using tile::TargetFeature;
  const TargetInfo &target = *options.target;
  TargetFeature features = TargetFeature::None;
  auto add = [&](bool on, TargetFeature feature) {
    if (on)
      features = features | feature;
  };
  add(target.isNVIDIA(), TargetFeature::MmaSync);
  add(options.useAsyncCopies(), TargetFeature::AsyncCopy);
  add(options.useTma(), TargetFeature::Tma);
  add(options.useWgmma(), TargetFeature::Wgmma);
  add(options.useWarpSpecialization(), TargetFeature::WarpSpecialization);
  add(target.hasMfma, TargetFeature::Mfma);
  add(target.hasMfmaFp8, TargetFeature::MfmaFp8Fnuz);
  return tile::TargetAttr::get(module.getContext(), target.name,
                               target.warpSize, target.maxSharedMemoryBytes,
                               target.registersPerThread, features);
}

/// Up to Stage::Layouts: pipelining, copies as loops, layouts chosen.
static void addLayoutPipeline(PassManager &pm, const CompileOptions &options) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  tile::TilePipelineOptions pipeline;
  pipeline.registerStages = !options.useAsyncCopies();
  fpm.addPass(tile::createTileVerifyCollectives());
  fpm.addPass(tile::createTilePipeline(pipeline));
  fpm.addPass(tile::createTileLowerCopies());
  fpm.addPass(tile::createTileInferLayouts());
  if (options.verify)
    fpm.addPass(tile::createTileVerifyLayouts());
}

/// The Z3 verifiers of memory accesses: bounds, races and, for GPUs,
/// alignment.
static void addAccessVerifiers(OpPassManager &fpm,
                               const CompileOptions &options, bool alignment) {
  tile::TileVerifyBoundsOptions bounds;
  bounds.remarks = options.boundsRemarks;
  fpm.addPass(tile::createTileVerifyBounds(bounds));
  tile::TileVerifyRacesOptions races;
  races.remarks = options.raceRemarks;
  fpm.addPass(tile::createTileVerifyRaces(races));
  if (!alignment)
    return;
  tile::TileVerifyAlignmentOptions aligned;
  aligned.remarks = options.alignmentRemarks;
  fpm.addPass(tile::createTileVerifyAlignment(aligned));
}

/// From Stage::Layouts to Stage::GPU: per-thread code in a gpu.module.
static void addTilePipeline(PassManager &pm, const CompileOptions &options) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(tile::createTileInsertBarriers());
  fpm.addPass(tile::createTileLowerBulkCopies());
  fpm.addPass(tile::createTileDistribute());
  fpm.addPass(tile::createTileSwizzleShared());
  fpm.addPass(tile::createTileLowerLoops());
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(createCSEPass());
  if (options.verify)
    addAccessVerifiers(fpm, options, /*alignment=*/true);
  if (options.target->isNVIDIA())
    fpm.addPass(createConvertTileToNVVM());
  pm.addPass(createConvertTileToGPU());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// No backend computes on 8-bit floats: their arithmetic and math
/// functions are done in f32, and their conversions by the target's cvt
/// instructions where it has them (`fp8Conversions`), otherwise in integer
/// arithmetic. `mathTypes` are the float types besides f32 and f64 whose
/// math functions the target computes itself; the others are computed in
/// f32.
static std::string expandFp8(llvm::StringRef mathTypes, bool fp8Conversions) {
  std::string extraTypes =
      mathTypes.empty() ? "" : ("extra-types=" + mathTypes + " ").str();
  return "math-extend-to-supported-types{" + extraTypes +
         "target-type=f32},"
         "arith-emulate-unsupported-floats{source-types=f8E4M3FN,f8E5M2,"
         "f8E4M3FNUZ,f8E5M2FNUZ target-type=f32}," +
         (fp8Conversions ? "tilec-convert-fp8-to-nvvm," : "") +
         "tilec-expand-fp8";
}

static LogicalResult addDevicePipeline(PassManager &pm,
                                       const CompileOptions &options) {
  const TargetInfo &target = *options.target;
  // Bounds checks that ranges prove unnecessary go first, so that the
  // accesses they guarded can be vectorized.
  // NVIDIA's libdevice calls take f16 and bfloat16 as they are; OCML has no
  // bfloat16 functions.
  std::string common = expandFp8(target.isNVIDIA() ? "f16,bf16" : "f16",
                                 target.hasFp8Conversions) +
                       ",expand-strided-metadata,lower-affine,"
                       "int-range-optimizations,"
                       "canonicalize,cse,"
                       "convert-scf-to-cf,";
  std::string lower;
  std::string attach;
  std::string opt = std::to_string(options.optLevel);
  if (target.isNVIDIA()) {
    lower = "tilec-convert-gpu-to-nvvm{index-bitwidth=32}";
    // LLVM defaults sm_90 to PTX 7.8, which lacks the scoped mbarrier and
    // bulk tensor copy forms that TMA pipelines use; sm_90a starts at 8.0.
    // sm_89 takes 8-bit float cvt from PTX 8.1 on.
    attach = "nvvm-attach-target{chip=" + target.name.str() + " O=" + opt +
             (target.hasTma              ? " features=+ptx80"
              : target.hasFp8Conversions ? " features=+ptx81"
                                         : "") +
             (options.fastMath ? " fast=1 ftz=1" : "") + "}";
  } else {
    lower = "tilec-convert-math-to-ocml{chipset=" + target.name.str() +
            "},convert-gpu-to-rocdl{chipset=" + target.name.str() +
            " use-bare-ptr-memref-call-conv=1 index-bitwidth=32 runtime=HIP}";
    attach = "rocdl-attach-target{chip=" + target.name.str() + " O=" + opt +
             (options.fastMath ? " fast=1 unsafe-math=1" : "") +
             (target.warpSize == 64 ? " wave64=1" : "") + "}";
  }
  if (options.fastMath)
    common = std::string("tilec-fast-math{nvvm-ftz=") +
             (target.isNVIDIA() ? "1" : "0") + "}," + common;
  else if (options.contractFloat)
    common = "tilec-contract-float," + common;
  return addPipeline(pm, "gpu.module(" + common + lower +
                             ",canonicalize,cse,reconcile-unrealized-casts)," +
                             attach);
}

static LogicalResult
addSerialization(PassManager &pm, const CompileOptions &options, bool binary) {
  const std::string &toolkit =
      options.target->isNVIDIA() ? options.cudaPath : options.rocmPath;
  if (!options.target->isNVIDIA() &&
      (toolkit.empty() ||
       !llvm::sys::fs::exists(toolkit + "/amdgcn/bitcode/ocml.bc"))) {
    llvm::errs() << "tilec: error: AMD targets need the ROCm device libraries "
                    "(Debian: rocm-device-libs) in a directory with "
                    "amdgcn/bitcode and llvm/bin/ld.lld; none was found"
                 << (toolkit.empty() ? "" : " at '" + toolkit + "'")
                 << "; give one with --rocm-path\n";
    return failure();
  }
  // MLIR's serializer reports a missing libdevice but goes on, leaving
  // calls to its functions unresolved in the PTX.
  if (options.target->isNVIDIA() &&
      !llvm::sys::fs::is_regular_file(toolkit +
                                      "/nvvm/libdevice/libdevice.10.bc")) {
    llvm::errs() << "tilec: error: no CUDA toolkit at '" << toolkit
                 << "' (it has no nvvm/libdevice/libdevice.10.bc); give one "
                    "with --cuda-path or $CUDA_PATH\n";
    return failure();
  }
  if (options.target->isNVIDIA() && binary &&
      !llvm::sys::fs::exists(toolkit + "/bin/ptxas")) {
    llvm::errs() << "tilec: error: no ptxas in the CUDA toolkit at '" << toolkit
                 << "'; give the toolkit with --cuda-path\n";
    return failure();
  }
  bool nvidiaFlushes = options.target->isNVIDIA() && options.fastMath;
  StringRef format = options.llvmIR == LLVMIRFormat::Text      ? "ll"
                     : options.llvmIR == LLVMIRFormat::Bitcode ? "bc"
                     : binary                                  ? "bin"
                                                               : "isa";
  return addPipeline(pm, "tilec-gpu-module-to-binary{format=" + format.str() +
                             (options.lineInfo && options.target->isNVIDIA()
                                  ? " assembler-options=-lineinfo"
                                  : "") +
                             " toolkit=" + toolkit +
                             (nvidiaFlushes ? " bf16-compares-in-f32=1" : "") +
                             "}");
}

/// With -g, a subprogram for each LLVM function, so that the translation
/// keeps the operations' file:line:col locations as line tables. NVPTX
/// writes .file/.loc directives alone for directives-only info (nvcc's
/// -lineinfo); fuller info would make the PTX a debug target, which ptxas
/// refuses to optimize.
static void addLineTables(PassManager &pm, const CompileOptions &options) {
  if (!options.lineInfo)
    return;
  pm.addPass(LLVM::createDIScopeForLLVMFuncOpPass(
      {options.target->isNVIDIA() ? LLVM::DIEmissionKind::DebugDirectivesOnly
                                  : LLVM::DIEmissionKind::LineTablesOnly}));
}

/// From Stage::Tile to Stage::GPU for the host: the blocks' tile code as
/// sequential loops, verified, in functions that run the grid.
static void addHostLoopPipeline(PassManager &pm,
                                const CompileOptions &options) {
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  // No target attribute: the generic target, without bulk copies.
  fpm.addPass(tile::createTileVerifyCollectives());
  fpm.addPass(tile::createTileLowerCopies());
  fpm.addPass(tile::createTileSerializeThreads());
  fpm.addPass(tile::createTileSequentialize());
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(createCSEPass());
  // The accesses the GPU code guards are guarded here too; races between
  // the threads of a block do not exist here, between blocks they do; the
  // CPU needs no alignment.
  if (options.verify)
    addAccessVerifiers(fpm, options, /*alignment=*/false);
  ConvertTileToHostOptions host;
  host.symbolPrefix = options.hostSymbolPrefix;
  pm.addPass(createConvertTileToHost(host));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// From the host's loops to the LLVM dialect: bfloat16 arithmetic in f32
/// (the C libraries convert halves, not bfloat16), math functions as LLVM
/// intrinsics or libm calls, tensors as bare pointers.
static LogicalResult addHostLLVMPipeline(PassManager &pm,
                                         const CompileOptions &options) {
  std::string pipeline =
      "func.func(arith-emulate-unsupported-floats{source-types=bf16 "
      "target-type=f32}," +
      expandFp8("", /*fp8Conversions=*/false) +
      ",arith-expand{include-bf16=true}";
  if (options.fastMath)
    pipeline += ",tilec-fast-math{nvvm-ftz=0}";
  else if (options.contractFloat)
    pipeline += ",tilec-contract-float";
  pipeline += "),expand-strided-metadata,lower-affine,convert-scf-to-cf,"
              "convert-math-to-llvm,convert-math-to-libm,"
              "finalize-memref-to-llvm,convert-arith-to-llvm,"
              "convert-cf-to-llvm,"
              "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
              "reconcile-unrealized-casts";
  return addPipeline(pm, pipeline);
}

LogicalResult
tilec::lowerModule(ModuleOp module, const CompileOptions &options, Stage from,
                   Stage to,
                   function_ref<LogicalResult(PassManager &)> configure) {
  if (to <= from)
    return success();
  if (!options.target->isHost())
    module->setAttr(tile::TargetAttr::kAttrName,
                    getTargetAttr(module, options));
  if (options.target->isHost()) {
    PassManager pm(module.getContext());
    if (configure && failed(configure(pm)))
      return failure();
    if (from < Stage::Tile && to >= Stage::Tile) {
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createTilecMergeReads());
      pm.addPass(createCSEPass());
    }
    if (from < Stage::GPU && to >= Stage::GPU)
      addHostLoopPipeline(pm, options);
    if (from < Stage::LLVM && to >= Stage::LLVM) {
      if (failed(addHostLLVMPipeline(pm, options)))
        return failure();
      addLineTables(pm, options);
    }
    // Assembly and object files are emitted from the LLVM dialect by
    // compileForHost, not by passes.
    return pm.run(module);
  }
  PassManager pm(module.getContext());
  if (configure && failed(configure(pm)))
    return failure();
  if (from < Stage::Tile && to >= Stage::Tile) {
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createTilecMergeReads());
    pm.addPass(createCSEPass());
  }
  if (from < Stage::Layouts && to >= Stage::Layouts)
    addLayoutPipeline(pm, options);
  if (from < Stage::GPU && to >= Stage::GPU)
    addTilePipeline(pm, options);
  if (from < Stage::LLVM && to >= Stage::LLVM) {
    if (failed(addDevicePipeline(pm, options)))
      return failure();
    addLineTables(pm, options);
  }
  if (to >= Stage::Assembly &&
      failed(addSerialization(pm, options, to == Stage::Binary)))
    return failure();
  return pm.run(module);
}

FailureOr<std::string> tilec::getCompiledObject(ModuleOp module) {
  for (auto binary : module.getOps<gpu::BinaryOp>())
    for (Attribute object : binary.getObjects())
      return cast<gpu::ObjectAttr>(object).getObject().getValue().str();
  // Kernels that do nothing launch nothing, and nothing is compiled.
  bool reported = false;
  module.walk([&](func::FuncOp func) {
    if (func.isDeclaration() ||
        func.walk([](gpu::LaunchFuncOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return;
    func.emitError() << "kernel '" << func.getSymName()
                     << "' has no work for the GPU: its T.Kernel block is "
                        "missing or does nothing, so there is no code to "
                        "compile";
    reported = true;
  });
  if (reported)
    return failure();
  return module.emitError() << "the module holds no compiled kernels";
}

//===----------------------------------------------------------------------===//
// Kernel descriptions
//===----------------------------------------------------------------------===//

namespace {

/// Writes the host-side computation of a launch extent as a C expression
/// over the launch function's parameters, parameter i written `$i` (see
/// KernelInfo::grid).
class CExpressionWriter {
public:
  explicit CExpressionWriter(func::FuncOp func) : func(func) {}

  FailureOr<std::string> write(Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      if (arg.getOwner()->getParentOp() != func)
        return failure();
      return "$" + std::to_string(arg.getArgNumber());
    }
    Operation *op = value.getDefiningOp();
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      if (auto integer = dyn_cast<IntegerAttr>(constant.getValue()))
        return "INT64_C(" + std::to_string(integer.getInt()) + ")";
      return op->emitError() << "a launch extent is not an integer";
    }
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
            arith::ExtUIOp, arith::TruncIOp>(op))
      return write(op->getOperand(0));
    if (op->getNumOperands() != 2)
      return unsupported(op);
    FailureOr<std::string> a = write(op->getOperand(0));
    FailureOr<std::string> b = write(op->getOperand(1));
    if (failed(a) || failed(b))
      return failure();
    auto binary = [&](StringRef symbol) {
      return "(" + *a + " " + symbol.str() + " " + *b + ")";
    };
    return TypeSwitch<Operation *, FailureOr<std::string>>(op)
        .Case([&](arith::AddIOp) { return binary("+"); })
        .Case([&](arith::SubIOp) { return binary("-"); })
        .Case([&](arith::MulIOp) { return binary("*"); })
        .Case<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(
            [&](auto) { return binary("/"); })
        .Case<arith::RemSIOp, arith::RemUIOp>([&](auto) { return binary("%"); })
        .Case<arith::CeilDivSIOp, arith::CeilDivUIOp>([&](auto) {
          return "((" + *a + " + " + *b + " - 1) / " + *b + ")";
        })
        .Case<arith::MinSIOp, arith::MinUIOp>([&](auto) {
          return "(" + *a + " < " + *b + " ? " + *a + " : " + *b + ")";
        })
        .Case<arith::MaxSIOp, arith::MaxUIOp>([&](auto) {
          return "(" + *a + " > " + *b + " ? " + *a + " : " + *b + ")";
        })
        .Default([&](Operation *op) { return unsupported(op); });
  }

private:
  FailureOr<std::string> unsupported(Operation *op) {
    return op->emitError()
           << "the grid cannot be computed on the host: it uses '"
           << op->getName()
           << "'; compute it from the kernel's integer "
              "parameters with + - * // % and T.ceildiv";
  }

  func::FuncOp func;
};

/// The C type of a scalar parameter.
FailureOr<std::string> cTypeOf(Type type) {
  if (type.isF32())
    return std::string("float");
  if (type.isF64())
    return std::string("double");
  if (type.isF16() || type.isBF16())
    return std::string("uint16_t");
  if (tile::isOcpFp8Type(type) || tile::isFnuzFp8Type(type))
    return std::string("uint8_t");
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 8:
    case 16:
    case 32:
    case 64:
      return "int" + std::to_string(integer.getWidth()) + "_t";
    default:
      break;
    }
  }
  return failure();
}

/// The CUtensorMapDataType of elements of `type`: the exact type where TMA
/// has one, else raw bytes of the same size (TMA only moves them).
FailureOr<std::string> tensorMapDataType(Type type) {
  if (type.isF16())
    return std::string("CU_TENSOR_MAP_DATA_TYPE_FLOAT16");
  if (type.isBF16())
    return std::string("CU_TENSOR_MAP_DATA_TYPE_BFLOAT16");
  if (type.isF32())
    return std::string("CU_TENSOR_MAP_DATA_TYPE_FLOAT32");
  if (type.isF64())
    return std::string("CU_TENSOR_MAP_DATA_TYPE_FLOAT64");
  if (type.isInteger(32))
    return std::string("CU_TENSOR_MAP_DATA_TYPE_INT32");
  if (type.isInteger(64))
    return std::string("CU_TENSOR_MAP_DATA_TYPE_INT64");
  switch (type.getIntOrFloatBitWidth()) {
  case 8:
    return std::string("CU_TENSOR_MAP_DATA_TYPE_UINT8");
  case 16:
    return std::string("CU_TENSOR_MAP_DATA_TYPE_UINT16");
  default:
    return failure();
  }
}

/// The name and parameters of kernel function `func`; `alignmentOf(i)` is
/// the alignment the kernel assumes for tensor parameter i.
static FailureOr<KernelInfo>
describeSignature(func::FuncOp func,
                  function_ref<unsigned(unsigned)> alignmentOf) {
  KernelInfo kernel;
  kernel.name = func.getSymName().str();
  auto argNames = func->getAttrOfType<ArrayAttr>("tile.arg_names");
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    KernelParamInfo param;
    param.name = argNames ? cast<StringAttr>(argNames[i]).str()
                          : "arg" + std::to_string(i);
    Type type = arg.getType();
    if (auto memref = dyn_cast<MemRefType>(type)) {
      param.kind = func.getArgAttr(i, tile::kWorkspaceAttrName)
                       ? KernelParamInfo::Kind::Workspace
                       : KernelParamInfo::Kind::Tensor;
      Type element = memref.getElementType();
      param.elementBytes =
          std::max<unsigned>(1, element.getIntOrFloatBitWidth() / 8);
      FailureOr<std::string> cType = cTypeOf(element);
      param.cType = succeeded(cType) ? *cType : "void";
      param.alignment = alignmentOf(i);
      auto dims = func.getArgAttrOfType<DenseI64ArrayAttr>(i, "tile.dims");
      for (int64_t dim = 0; dim < memref.getRank(); ++dim)
        param.shape.push_back(
            memref.isDynamicDim(dim) ? -dims[dim] - 1 : memref.getDimSize(dim));
    } else if (type.isIndex()) {
      param.kind = KernelParamInfo::Kind::Dim;
      param.cType = "int64_t";
    } else {
      param.kind = KernelParamInfo::Kind::Scalar;
      FailureOr<std::string> cType = cTypeOf(type);
      if (failed(cType))
        return func.emitError() << "parameter '" << param.name << "' of type "
                                << type << " cannot be passed from C yet";
      param.cType = *cType;
    }
    kernel.params.push_back(std::move(param));
  }
  return kernel;
}

} // namespace

FailureOr<ModuleInfo> tilec::describeHostKernels(ModuleOp module,
                                                 StringRef prefix,
                                                 StringRef sourceName) {
  ModuleInfo info;
  info.runtime = ModuleInfo::Runtime::Host;
  info.prefix = prefix.str();
  info.sourceName = sourceName.str();
  for (auto func : module.getOps<func::FuncOp>()) {
    SmallVector<tile::KernelOp> kernels(
        func.getBody().getOps<tile::KernelOp>());
    if (kernels.empty())
      continue;
    FailureOr<KernelInfo> kernel = describeSignature(
        func, [](unsigned) { return unsigned(tile::kTensorAlignment); });
    if (failed(kernel))
      return failure();
    CExpressionWriter writer(func);
    for (tile::KernelOp block : kernels) {
      LaunchInfo &launch = kernel->launches.emplace_back();
      launch.symbol = kernel->name;
      for (auto [i, extent] : llvm::enumerate(block.getGrid())) {
        FailureOr<std::string> expr = writer.write(extent);
        if (failed(expr))
          return failure();
        launch.grid[i] = *expr;
      }
    }
    info.kernels.push_back(std::move(*kernel));
  }
  return info;
}

FailureOr<ModuleInfo> tilec::describeKernels(ModuleOp module,
                                             const CompileOptions &options,
                                             StringRef prefix,
                                             StringRef sourceName) {
  ModuleInfo info;
  info.runtime = options.target->isNVIDIA() ? ModuleInfo::Runtime::CUDA
                                            : ModuleInfo::Runtime::HIP;
  info.prefix = prefix.str();
  info.sourceName = sourceName.str();

  for (auto func : module.getOps<func::FuncOp>()) {
    SmallVector<gpu::LaunchFuncOp> launches(
        func.getBody().getOps<gpu::LaunchFuncOp>());
    if (launches.empty())
      continue;
    SmallVector<gpu::GPUFuncOp> gpuFuncs;
    for (gpu::LaunchFuncOp launch : launches) {
      auto gpuFunc = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (!gpuFunc)
        return launch.emitError() << "the launched kernel is not in the module";
      gpuFuncs.push_back(gpuFunc);
    }

    // Every block takes the function's tensors; the alignment a tensor
    // needs is the most any block assumes.
    FailureOr<KernelInfo> described =
        describeSignature(func, [&](unsigned i) -> unsigned {
          unsigned alignment = 1;
          for (gpu::GPUFuncOp gpuFunc : gpuFuncs)
            if (auto align =
                    gpuFunc.getArgAttrOfType<IntegerAttr>(i, "llvm.align"))
              alignment = std::max<unsigned>(alignment, align.getInt());
          return alignment;
        });
    if (failed(described))
      return failure();
    KernelInfo kernel = std::move(*described);

    CExpressionWriter writer(func);
    for (auto [launchOp, gpuFunc] : llvm::zip(launches, gpuFuncs)) {
      LaunchInfo &launch = kernel.launches.emplace_back();
      launch.symbol = gpuFunc.getName().str();
      for (unsigned i = func.getNumArguments(); i < gpuFunc.getNumArguments();
           ++i) {
        auto map = gpuFunc.getArgAttrOfType<DictionaryAttr>(i, kTensorMapAttr);
        if (!map)
          return gpuFunc.emitError()
                 << "kernel argument " << i
                 << " is neither a parameter nor a tensor map";
        TensorMapInfo info;
        info.tensor = map.getAs<IntegerAttr>("tensor").getInt();
        llvm::append_range(info.box,
                           map.getAs<DenseI64ArrayAttr>("box").asArrayRef());
        info.swizzle = map.getAs<IntegerAttr>("swizzle").getInt();
        auto tensor = cast<MemRefType>(func.getArgument(info.tensor).getType());
        FailureOr<std::string> dataType =
            tensorMapDataType(tensor.getElementType());
        if (failed(dataType))
          return func.emitError() << "no TMA data type for elements of type "
                                  << tensor.getElementType();
        info.dataType = *dataType;
        launch.tensorMaps.push_back(std::move(info));
      }

      gpu::KernelDim3 grid = launchOp.getGridSizeOperandValues();
      Value gridValues[] = {grid.x, grid.y, grid.z};
      for (int i = 0; i < 3; ++i) {
        FailureOr<std::string> expr = writer.write(gridValues[i]);
        if (failed(expr))
          return failure();
        launch.grid[i] = *expr;
      }
      if (auto block = gpuFunc.getKnownBlockSizeAttr())
        for (int i = 0; i < 3; ++i)
          launch.threads[i] = block[i];
      if (auto bytes =
              gpuFunc->getAttrOfType<IntegerAttr>(kSharedMemoryBytesAttr))
        launch.sharedMemoryBytes = bytes.getInt();
      if (launch.sharedMemoryBytes > options.target->maxSharedMemoryBytes)
        return launchOp.emitError()
               << "kernel '" << kernel.name << "' needs "
               << launch.sharedMemoryBytes << " bytes of shared memory; "
               << options.target->name << " gives a block at most "
               << options.target->maxSharedMemoryBytes;
    }
    info.kernels.push_back(std::move(kernel));
  }
  return info;
}

std::string tilec::getDefaultCudaPath() {
  if (std::optional<std::string> path = llvm::sys::Process::GetEnv("CUDA_PATH"))
    return *path;
  return "/usr/local/cuda";
}

std::string tilec::getDefaultRocmPath(const char *argv0) {
  if (std::optional<std::string> path =
          llvm::sys::Process::GetEnv("TILEC_ROCM_PATH"))
    return *path;
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable(argv0, &anchor);
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(dir, "..", "lib", "tilec", "rocm");
  return std::string(dir);
}
