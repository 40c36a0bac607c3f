//===- HeaderGenTest.cpp - The generated C header -------------------------===//
//
// Part of tilec. Checks the text of the header writeHeader generates, that it
// is deterministic, that it compiles as C99 and C++17 with warnings as errors
// against cuda.h and hip/hip_runtime_api.h, and, with the CUDA driver's stub
// library, that it links and rejects invalid launches before calling the
// driver.
//
//===----------------------------------------------------------------------===//

#include "tilec/Target/HeaderGen.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <optional>

using namespace llvm;
using namespace tilec;

namespace {

using Kind = KernelParamInfo::Kind;
using Runtime = ModuleInfo::Runtime;

KernelParamInfo tensor(StringRef name, StringRef cType, unsigned elementBytes,
                       unsigned alignment, std::vector<int64_t> shape) {
  KernelParamInfo param;
  param.kind = Kind::Tensor;
  param.name = name.str();
  param.cType = cType.str();
  param.elementBytes = elementBytes;
  param.alignment = alignment;
  param.shape = std::move(shape);
  return param;
}

KernelParamInfo scalar(StringRef name, StringRef cType) {
  KernelParamInfo param;
  param.kind = Kind::Scalar;
  param.name = name.str();
  param.cType = cType.str();
  return param;
}

KernelParamInfo dim(StringRef name) {
  KernelParamInfo param;
  param.kind = Kind::Dim;
  param.name = name.str();
  param.cType = "int64_t";
  return param;
}

/// The dynamic extent of params[index].
int64_t dimRef(int64_t index) { return -index - 1; }

/// A representative module: a GEMM with dynamic M and N and more than
/// 48 KiB of shared memory, and a kernel with scalars of several types and a
/// 3-D grid.
ModuleInfo makeGemmModule(Runtime runtime) {
  ModuleInfo module;
  module.runtime = runtime;
  module.prefix = "gemm";
  module.sourceName = "examples/gemm.tile";
  // An ELF magic, then every byte value once.
  ImageInfo image{runtime == Runtime::CUDA ? "sm_90a" : "gfx942",
                  {0x7f, 'E', 'L', 'F'}};
  for (int i = 0; i < 256; ++i)
    image.bytes.push_back(uint8_t(i));
  module.images.push_back(image);

  KernelInfo gemm;
  gemm.name = "gemm_main";
  gemm.launches.emplace_back().symbol = "gemm_main";
  // A: [m, 256], B: [256, n], C: [m, n]; m and n are params 4 and 5.
  gemm.params = {tensor("A", "uint16_t", 2, 16, {dimRef(4), 256}),
                 tensor("B", "uint16_t", 2, 16, {256, dimRef(5)}),
                 tensor("C", "float", 4, 4, {dimRef(4), dimRef(5)}),
                 scalar("alpha", "float"),
                 dim("m"),
                 dim("n")};
  gemm.launches[0].grid[0] = "($5 + 127) / 128";
  gemm.launches[0].grid[1] = "($4 + 127) / 128";
  gemm.launches[0].threads[0] = 128;
  gemm.launches[0].sharedMemoryBytes = 98304;
  if (runtime == Runtime::CUDA) {
    // TMA tensor maps of A (static strides) and B (a stride of n).
    gemm.launches[0].tensorMaps = {
        {0, {128, 64}, 128, "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"},
        {1, {32, 64}, 64, "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"}};
  }

  KernelInfo scale;
  scale.name = "scale";
  scale.launches.emplace_back().symbol = "scale";
  scale.params = {tensor("X", "float", 4, 4, {dimRef(1), 64}),
                  dim("n"),
                  scalar("a", "double"),
                  scalar("b", "int8_t"),
                  scalar("c", "uint64_t"),
                  scalar("h", "uint16_t"),
                  scalar("flag", "bool"),
                  tensor("Y", "int32_t", 4, 8, {dimRef(1)})};
  scale.launches[0].grid[0] = "($1 + 255) / 256";
  scale.launches[0].grid[1] = "2";
  scale.launches[0].grid[2] = "3";
  scale.launches[0].threads[0] = 8;
  scale.launches[0].threads[1] = 8;
  scale.launches[0].threads[2] = 4;
  scale.launches[0].sharedMemoryBytes = 4096;

  // Split-KV decode: partial results per split, then their combination,
  // through a workspace of two buffers. The first block's grid grows with
  // n; the second's is fixed.
  KernelInfo decode;
  decode.name = "decode";
  KernelParamInfo lse = tensor("lse", "float", 4, 16, {dimRef(1), 4}),
                  part = tensor("part", "float", 4, 16, {64, 4, 128});
  lse.kind = part.kind = Kind::Workspace;
  decode.params = {tensor("K", "uint16_t", 2, 16, {dimRef(1), 128}), dim("n"),
                   tensor("O", "float", 4, 16, {64, 128}), lse, part};
  LaunchInfo &split = decode.launches.emplace_back();
  split.symbol = "decode_0";
  split.grid[0] = "($1 + 8191) / 8192";
  split.grid[1] = "64";
  split.threads[0] = 128;
  split.sharedMemoryBytes = 65536;
  if (runtime == Runtime::CUDA)
    split.tensorMaps = {{0, {64, 128}, 128, "CU_TENSOR_MAP_DATA_TYPE_FLOAT16"}};
  LaunchInfo &combine = decode.launches.emplace_back();
  combine.symbol = "decode_1";
  combine.grid[0] = "64";
  combine.threads[0] = 256;

  module.kernels = {gemm, scale, decode};
  return module;
}

/// Corner cases: parameters named like C and C++ keywords or like names the
/// header uses, kernels whose names differ in case only, a kernel without
/// parameters, a tensor that can never fit 32-bit indexing, an empty binary.
ModuleInfo makeEdgeModule(Runtime runtime) {
  ModuleInfo module;
  module.runtime = runtime;
  module.prefix = "edge";
  module.images.push_back({"sm_80 \"*/ ?\?/", {}});
  module.sourceName = "odd/*name*/?\?/.tile";

  KernelInfo keywords;
  keywords.name = "keywords";
  keywords.launches.emplace_back().symbol = "keywords";
  keywords.params = {tensor("int", "float", 4, 8, {dimRef(1), dimRef(4)}),
                     dim("float"),
                     scalar("char", "int8_t"),
                     scalar("stream", "int32_t"),
                     dim("class"),
                     tensor("int_", "float", 4, 4, {dimRef(4)}),
                     scalar("args", "float"),
                     scalar("int64_t", "int64_t"),
                     scalar("KEYWORDS_THREADS_X", "int32_t"),
                     scalar("edge_function_", "int32_t")};
  keywords.launches[0].grid[0] = "($1 + 63) / 64";
  keywords.launches[0].grid[1] = "$4";
  keywords.launches[0].threads[0] = 64;

  KernelInfo noop;
  noop.name = "noop";
  noop.launches.emplace_back().symbol = "noop";

  // Noop's grid holds names that the header's expressions use; its
  // parameters are narrower than the grid's arithmetic, or reserved.
  KernelInfo upperNoop;
  upperNoop.name = "Noop";
  upperNoop.launches.emplace_back().symbol = "Noop";
  upperNoop.params = {
      scalar("int64_t", "int32_t"), scalar("INT64_C", "int16_t"),
      scalar("__LINE__", "int64_t"), scalar("CU_LAUNCH_PARAM_END", "int32_t"),
      scalar("noop_THREADS_X", "int32_t")};
  upperNoop.launches[0].grid[0] = "$0 + $1";
  upperNoop.launches[0].grid[1] = "$2";
  upperNoop.launches[0].threads[0] = 32;

  KernelInfo huge;
  huge.name = "huge";
  huge.launches.emplace_back().symbol = "huge";
  huge.params = {tensor("T", "uint8_t", 1, 1, {65536, 65536})};

  module.kernels = {keywords, noop, upperNoop, huge};
  return module;
}

std::string render(const ModuleInfo &module) {
  std::string text;
  raw_string_ostream os(text);
  writeHeader(module, os);
  return text;
}

/// `text` with wrapped parameter lists joined, to check signatures.
std::string joinWrapped(std::string text) {
  size_t pos;
  while ((pos = text.find(",\n    ")) != std::string::npos)
    text.replace(pos, 6, ", ");
  return text;
}

::testing::AssertionResult contains(const std::string &text, StringRef piece) {
  if (StringRef(text).contains(piece))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "missing: " << piece.str();
}

/// Where `piece` is in `text`; fails the test when it is absent.
size_t position(const std::string &text, StringRef piece) {
  size_t pos = text.find(piece.str());
  EXPECT_NE(pos, std::string::npos) << "missing: " << piece.str();
  return pos;
}

/// Checks that `pieces` are all in `text`, in that order, after its start.
void expectInOrder(const std::string &text, ArrayRef<const char *> pieces) {
  size_t last = 0;
  for (const char *piece : pieces) {
    size_t pos = position(text, piece);
    if (pos != std::string::npos) {
      EXPECT_GT(pos, last) << "out of order: " << piece;
      last = pos;
    }
  }
}

//===----------------------------------------------------------------------===//
// The text
//===----------------------------------------------------------------------===//

TEST(HeaderGenTest, BannerGuardAndIncludes) {
  std::string text = render(makeGemmModule(Runtime::CUDA));
  EXPECT_TRUE(StringRef(text).starts_with("/*\n * Generated by tilec from "
                                          "examples/gemm.tile for sm_90a; "
                                          "do not edit.\n"));
  EXPECT_TRUE(contains(text, "#ifndef TILEC_GEMM_H\n#define TILEC_GEMM_H\n"));
  EXPECT_TRUE(StringRef(text).ends_with("#endif /* TILEC_GEMM_H */\n"));
  EXPECT_TRUE(contains(text, "#include <cuda.h>\n"));
  EXPECT_TRUE(contains(text, "#include <stdint.h>\n"));
  // The scale kernel has a bool scalar.
  EXPECT_TRUE(contains(text, "#include <stdbool.h>\n"));
  EXPECT_TRUE(contains(text, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"));
  EXPECT_TRUE(contains(text, "#define GEMM_ARCH \"sm_90a\"\n"));
  EXPECT_TRUE(contains(text, "#define GEMM_MAX_CONTEXTS 16\n"));
  // Thread safety on both platform families.
  EXPECT_TRUE(contains(text, "static pthread_mutex_t gemm_mutex_ = "
                             "PTHREAD_MUTEX_INITIALIZER;"));
  EXPECT_TRUE(contains(text, "static SRWLOCK gemm_mutex_ = SRWLOCK_INIT;"));
  // Every function is static.
  for (StringRef line : split(text, '\n')) {
    if (line.starts_with(" *"))
      continue;
    if (line.contains("(void) {") || line.contains("_launch(")) {
      EXPECT_TRUE(line.starts_with("static inline ")) << line.str();
    }
  }
}

TEST(HeaderGenTest, EmbedsTheBinaryAligned) {
  ModuleInfo module = makeGemmModule(Runtime::CUDA);
  std::string text = render(module);
  EXPECT_TRUE(contains(text, "#define GEMM_ALIGNED_ "
                             "__attribute__((aligned(16)))"));
  EXPECT_TRUE(contains(text, "static GEMM_ALIGNED_ const unsigned char "
                             "gemm_binary[] = {\n"
                             "    0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02, "
                             "0x03, 0x04, 0x05, 0x06, 0x07,\n"
                             "    0x08, 0x09, 0x0a, 0x0b,"));
  // 260 bytes: 21 lines of 12 and one of 8, the last without a comma.
  EXPECT_TRUE(contains(text, "0xfc, 0xfd, 0xfe, 0xff\n};\n"));
  size_t begin = position(text, "gemm_binary[] = {\n");
  size_t end = text.find("};", begin);
  StringRef bytes = StringRef(text).slice(begin, end);
  EXPECT_EQ(bytes.count("0x"), module.images[0].bytes.size());
  EXPECT_EQ(bytes.count('\n'), 1u + 22u);
}

TEST(HeaderGenTest, LoadCachesPerContextAndOptsIntoSharedMemory) {
  std::string text = render(makeGemmModule(Runtime::CUDA));
  EXPECT_TRUE(contains(text, "static inline CUresult gemm_load(void) {"));
  EXPECT_TRUE(contains(text, "static inline CUresult gemm_unload(void) {"));
  EXPECT_TRUE(contains(text, "static struct gemm_entry_ "
                             "gemm_cache_[GEMM_MAX_CONTEXTS];"));
  EXPECT_TRUE(contains(text, "cuCtxGetCurrent(context)"));
  EXPECT_TRUE(contains(text, "return CUDA_ERROR_INVALID_CONTEXT;"));
  EXPECT_TRUE(contains(text, "cuCtxGetId(*context, context_id)"));
  EXPECT_TRUE(contains(text, "cuModuleLoadData(&module, gemm_binary)"));
  EXPECT_TRUE(contains(text, "cuModuleGetFunction(&entry->functions[0], "
                             "module, \"gemm_main\")"));
  EXPECT_TRUE(contains(text, "cuModuleGetFunction(&entry->functions[1], "
                             "module, \"scale\")"));
  EXPECT_TRUE(contains(text, "(void)cuModuleUnload(module);"));
  // Only the GEMM and the split-KV decode's first block need more than
  // 48 KiB.
  EXPECT_TRUE(contains(text, "cuFuncSetAttribute(entry->functions[0],\n"
                             "                             "
                             "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,"
                             "\n                             98304);"));
  EXPECT_EQ(StringRef(text).count("cuFuncSetAttribute("), 2u);
}

TEST(HeaderGenTest, LaunchSignaturesFollowDeclarationOrder) {
  std::string text = joinWrapped(render(makeGemmModule(Runtime::CUDA)));
  EXPECT_TRUE(contains(text, "static inline CUresult gemm_main_launch("
                             "CUstream stream, CUdeviceptr A, CUdeviceptr B, "
                             "CUdeviceptr C, float alpha, int64_t m, "
                             "int64_t n) {"));
  EXPECT_TRUE(contains(text, "static inline CUresult scale_launch("
                             "CUstream stream, CUdeviceptr X, int64_t n, "
                             "double a, int8_t b, uint64_t c, uint16_t h, "
                             "bool flag, CUdeviceptr Y) {"));
  // The documentation names the dynamic extents.
  EXPECT_TRUE(contains(text, " *   A: uint16_t[m, 256], 16-byte aligned\n"));
  EXPECT_TRUE(contains(text, " *   C: float[m, n], 4-byte aligned\n"));
  EXPECT_TRUE(contains(text, " *   m: dynamic extent in [1, INT32_MAX]\n"));
  EXPECT_TRUE(contains(text, " * grid  ((n + 127) / 128, (m + 127) / 128, 1)\n"
                             " * block (128, 1, 1), 98304 bytes of dynamic "
                             "shared memory, 2 tensor maps\n"));
  EXPECT_TRUE(contains(text, "#define gemm_main_THREADS_X 128\n"
                             "#define gemm_main_THREADS_Y 1\n"
                             "#define gemm_main_THREADS_Z 1\n"
                             "#define gemm_main_SHARED_MEMORY_BYTES 98304\n"));
}

TEST(HeaderGenTest, LaunchValidatesBeforeLaunching) {
  std::string text = render(makeGemmModule(Runtime::CUDA));
  size_t begin = position(text, "static inline CUresult gemm_main_launch(");
  size_t end = position(text, "static inline CUresult scale_launch(");
  ASSERT_LT(begin, end);
  std::string body = text.substr(begin, end - begin);
  const char *const checks[] = {
      // Null and alignment.
      "  if (A == 0 || A % 16 != 0)\n    return CUDA_ERROR_INVALID_VALUE;\n",
      "  if (B == 0 || B % 16 != 0)\n    return CUDA_ERROR_INVALID_VALUE;\n",
      "  if (C == 0 || C % 4 != 0)\n    return CUDA_ERROR_INVALID_VALUE;\n",
      // Dynamic extents.
      "  if (m < 1 || m > INT32_MAX)\n    return CUDA_ERROR_INVALID_VALUE;\n",
      "  if (n < 1 || n > INT32_MAX)\n    return CUDA_ERROR_INVALID_VALUE;\n",
      // Element counts.
      "  if (m > INT32_MAX / 256) /* A elements */\n",
      "  if (n > INT32_MAX / 256) /* B elements */\n",
      "  if (n > INT32_MAX / m) /* C elements */\n",
      // The grid.
      "  grid[0] = (n + 127) / 128;\n  grid[1] = (m + 127) / 128;\n"
      "  grid[2] = 1;\n"
      "  if (grid[0] < 1 || grid[0] > 2147483647 ||\n"
      "      grid[1] < 1 || grid[1] > 65535)\n"
      "    return CUDA_ERROR_INVALID_VALUE;\n",
      // Loading, then the launch.
      "  err = gemm_function_(0, &function);\n"
      "  if (err != CUDA_SUCCESS)\n    return err;\n",
  };
  expectInOrder(body, checks);
  // Arguments in declaration order, dims narrowed to int32_t.
  EXPECT_TRUE(contains(body, "  dims[0] = (int32_t)m;\n"
                             "  dims[1] = (int32_t)n;\n"
                             "  args[0] = &A;\n"
                             "  args[1] = &B;\n"
                             "  args[2] = &C;\n"
                             "  args[3] = &alpha;\n"
                             "  args[4] = &dims[0];\n"
                             "  args[5] = &dims[1];\n"));
  EXPECT_TRUE(contains(body, "  return cuLaunchKernel(\n"
                             "      function, (unsigned)grid[0], "
                             "(unsigned)grid[1], (unsigned)grid[2],\n"
                             "      128, 1, 1, 98304, stream, args, NULL);\n"));
  // No printing, no exiting.
  EXPECT_FALSE(StringRef(text).contains("printf"));
  EXPECT_FALSE(StringRef(text).contains("exit("));
  EXPECT_FALSE(StringRef(text).contains("abort("));
}

TEST(HeaderGenTest, SeveralBlocksLaunchInOrderAfterEveryCheck) {
  std::string text = render(makeGemmModule(Runtime::CUDA));
  size_t begin = position(text, " * decode\n");
  ASSERT_NE(begin, std::string::npos);
  std::string body = text.substr(begin);
  EXPECT_TRUE(contains(body, " * 2 T.Kernel blocks, launched in order on the "
                             "stream:\n"
                             " *   1. grid ((n + 8191) / 8192, 64, 1)\n"
                             " *   2. grid (64, 1, 1)\n"
                             " * thread blocks:\n"
                             " *   1. block (128, 1, 1), 65536 bytes of "
                             "dynamic shared memory, 1 tensor map\n"
                             " *   2. block (256, 1, 1), 0 bytes of dynamic "
                             "shared memory\n"));
  EXPECT_TRUE(contains(body, " *   lse: float[n, 4], in the workspace\n"
                             " *   part: float[64, 4, 128], in the "
                             "workspace\n"
                             " *   workspace: 256-byte aligned memory of "
                             "decode_workspace_bytes() bytes,\n"));
  EXPECT_TRUE(contains(text, "static inline size_t decode_workspace_bytes("
                             "int64_t n) {\n"
                             "  if (n < 1 || n > INT32_MAX)\n    return 0;\n"
                             "  return (size_t)(((uint64_t)16 * (uint64_t)n "
                             "+ 255) / 256 * 256 +\n"
                             "                   (uint64_t)131072);\n}\n"));
  EXPECT_TRUE(contains(joinWrapped(text),
                       "static inline CUresult decode_launch(CUstream "
                       "stream, CUdeviceptr K, int64_t n, CUdeviceptr O, "
                       "CUdeviceptr workspace) {"));
  // No launch macros: they would describe one block of two.
  EXPECT_FALSE(contains(text, "decode_THREADS_X"));
  // Every check, the loading of both functions and the tensor maps come
  // before the first launch; the functions follow the other kernels' in
  // the module's table.
  const char *const steps[] = {
      "  CUfunction function[2];\n  int64_t grid[6];\n  int32_t dims[1];\n"
      "  void *args[6];\n  CUtensorMap maps[1];\n  CUdeviceptr lse;\n"
      "  CUdeviceptr part;\n  int owned = 0;\n",
      "  if (K == 0 || K % 16 != 0)\n",
      "  if (n > INT32_MAX / 128) /* K elements */\n",
      "  if (workspace % 256 != 0)\n",
      "  grid[3] = 64;\n  grid[4] = 1;\n  grid[5] = 1;\n",
      "  if (grid[0] < 1 || grid[0] > 2147483647)\n"
      "    return CUDA_ERROR_INVALID_VALUE;\n",
      "  err = gemm_function_(2, &function[0]);\n",
      "  err = gemm_function_(3, &function[1]);\n",
      // The workspace: allocated on the stream when none is given, freed
      // after the blocks, or where something fails.
      "  if (workspace == 0) {\n"
      "    err = cuMemAllocAsync(&workspace, decode_workspace_bytes(n), "
      "stream);\n",
      "  lse = workspace;\n"
      "  part = workspace + ((uint64_t)16 * (uint64_t)n + 255) / 256 * 256;\n",
      "  /* Tensor map 0: K in boxes of [64, 128], 128-byte swizzle. */\n",
      "    if (err != CUDA_SUCCESS) {\n      if (owned)\n"
      "        (void)cuMemFreeAsync(workspace, stream);\n"
      "      return err;\n    }\n",
      "  args[3] = &lse;\n  args[4] = &part;\n  args[5] = &maps[0];\n"
      "  err = cuLaunchKernel(\n"
      "      function[0], (unsigned)grid[0], (unsigned)grid[1], "
      "(unsigned)grid[2],\n"
      "      128, 1, 1, 65536, stream, args, NULL);\n"
      "  if (err != CUDA_SUCCESS) {\n",
      "  err = cuLaunchKernel(\n"
      "      function[1], (unsigned)grid[3], (unsigned)grid[4], "
      "(unsigned)grid[5],\n"
      "      256, 1, 1, 0, stream, args, NULL);\n",
      "  if (owned)\n    err = cuMemFreeAsync(workspace, stream);\n"
      "  return err;\n}\n",
  };
  expectInOrder(body, steps);
  // The module's table has a function per block, each looked up by its
  // symbol; the split's shared memory needs the opt-in.
  EXPECT_TRUE(contains(text, "CUfunction functions[4];"));
  EXPECT_TRUE(contains(text, "(&entry->functions[2], module, \"decode_0\");\n"
                             "  /* 65536 bytes of dynamic shared memory"));
  EXPECT_TRUE(contains(text, "(&entry->functions[3], module, \"decode_1\");"));
  EXPECT_FALSE(contains(text, "cuFuncSetAttribute(entry->functions[3]"));
}

TEST(HeaderGenTest, TensorMapsAreEncodedAtLaunch) {
  std::string text = render(makeGemmModule(Runtime::CUDA));
  EXPECT_TRUE(contains(text, "#if CUDA_VERSION < 12000\n#error"));
  EXPECT_TRUE(
      contains(text, "static gemm_encode_tiled_fn_ gemm_encode_tiled_;"));
  // Found once, before the module loads, through the driver itself.
  size_t lookup =
      position(text, "err = cuGetProcAddress(\"cuTensorMapEncodeTiled\"");
  EXPECT_LT(lookup, position(text, "err = cuModuleLoadData("));
  size_t begin = position(text, "static inline CUresult gemm_main_launch(");
  size_t end = position(text, "static inline CUresult scale_launch(");
  std::string body = text.substr(begin, end - begin);
  EXPECT_TRUE(contains(body, "  void *args[8];\n  CUtensorMap maps[2];\n"));
  // After loading, which sets the encoder.
  EXPECT_LT(position(body, "err = gemm_function_(0, &function);"),
            position(body, "/* Tensor map 0"));
  EXPECT_TRUE(contains(
      body, "  /* Tensor map 0: A in boxes of [128, 64], 128-byte swizzle. */\n"
            "  {\n"
            "    cuuint64_t map_dims[2] = {(cuuint64_t)256, (cuuint64_t)m};\n"
            "    cuuint64_t map_strides[1] = {2 * (cuuint64_t)256};\n"
            "    cuuint32_t map_box[2] = {64, 128};\n"
            "    cuuint32_t map_steps[2] = {1, 1};\n"
            "    err = gemm_encode_tiled_(\n"
            "        &maps[0], CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, "
            "(void *)(uintptr_t)A,\n"));
  EXPECT_TRUE(contains(body, "CU_TENSOR_MAP_INTERLEAVE_NONE, "
                             "CU_TENSOR_MAP_SWIZZLE_128B,\n"));
  // A's strides are known to suit TMA; B's depends on n and is checked.
  EXPECT_TRUE(contains(
      body, "    cuuint64_t map_strides[1] = {2 * (cuuint64_t)n};\n"
            "    cuuint32_t map_box[2] = {64, 32};\n"
            "    cuuint32_t map_steps[2] = {1, 1};\n"
            "    /* TMA needs strides that are multiples of 16 bytes. */\n"
            "    if (map_strides[0] % 16 != 0 || map_strides[0] >= "
            "((cuuint64_t)1 << 40))\n"
            "      return CUDA_ERROR_INVALID_VALUE;\n"));
  EXPECT_EQ(StringRef(body).count("if (map_strides"), 1u);
  EXPECT_TRUE(contains(body, "    if (err != CUDA_SUCCESS)\n      return err;\n"
                             "  }\n"));
  EXPECT_TRUE(contains(body, "  args[5] = &dims[1];\n"
                             "  args[6] = &maps[0];\n"
                             "  args[7] = &maps[1];\n"));
  // HIP headers have none of it.
  std::string hip = render(makeGemmModule(Runtime::HIP));
  EXPECT_FALSE(StringRef(hip).contains("CUtensorMap"));
}

TEST(HeaderGenTest, TensorsOfOneShapeShareACountCheck) {
  ModuleInfo module = makeGemmModule(Runtime::CUDA);
  KernelInfo &kernel = module.kernels[0];
  // B becomes [m, 256] like A.
  kernel.params[1].shape = {dimRef(4), 256};
  std::string text = render(module);
  EXPECT_TRUE(contains(text, "  if (m > INT32_MAX / 256) /* A, B elements */\n"
                             "    return CUDA_ERROR_INVALID_VALUE;\n"
                             "  if (n > INT32_MAX / m) /* C elements */\n"));
  EXPECT_EQ(StringRef(text).count("INT32_MAX / 256"), 1u);
}

TEST(HeaderGenTest, ThreeDimensionalGridChecksOnlyWhatCanFail) {
  std::string text = render(makeGemmModule(Runtime::CUDA));
  size_t begin = position(text, "static inline CUresult scale_launch(");
  std::string body = text.substr(begin);
  EXPECT_TRUE(contains(body, "  grid[0] = (n + 255) / 256;\n"
                             "  grid[1] = 2;\n"
                             "  grid[2] = 3;\n"
                             "  if (grid[0] < 1 || grid[0] > 2147483647)\n"));
  EXPECT_TRUE(contains(body, "  if (Y == 0 || Y % 8 != 0)\n"));
  EXPECT_TRUE(contains(body, "  if (n > INT32_MAX / 64) /* X elements */\n"));
  EXPECT_TRUE(contains(body, "      8, 8, 4, 4096, stream, args, NULL);\n"));
  EXPECT_TRUE(contains(body, "  args[1] = &dims[0];\n"
                             "  args[2] = &a;\n"));
}

TEST(HeaderGenTest, HipFlavour) {
  std::string text = joinWrapped(render(makeGemmModule(Runtime::HIP)));
  EXPECT_TRUE(contains(text, "Generated by tilec from examples/gemm.tile for "
                             "gfx942; do not edit."));
  EXPECT_TRUE(contains(text, "#include <hip/hip_runtime_api.h>\n"));
  EXPECT_TRUE(contains(text, "static inline hipError_t gemm_load(void) {"));
  EXPECT_TRUE(contains(text, "static inline hipError_t gemm_unload(void) {"));
  EXPECT_TRUE(contains(text, "hipGetDevice(device)"));
  EXPECT_TRUE(contains(text, "hipModuleLoadData(&module, gemm_binary)"));
  EXPECT_TRUE(contains(text, "hipModuleGetFunction(&entry->functions[0], "
                             "module, \"gemm_main\")"));
  EXPECT_TRUE(contains(text, "static inline hipError_t gemm_main_launch("
                             "hipStream_t stream, void *A, void *B, void *C, "
                             "float alpha, int64_t m, int64_t n) {"));
  EXPECT_TRUE(contains(text, "  if (A == NULL || (uintptr_t)A % 16 != 0)\n"
                             "    return hipErrorInvalidValue;\n"));
  EXPECT_TRUE(contains(text, "  return hipModuleLaunchKernel(\n"));
  for (StringRef cudaName : {"CUresult", "CUdeviceptr", "cuLaunchKernel",
                             "CUDA_", "cuFuncSetAttribute", "<cuda.h>"})
    EXPECT_FALSE(StringRef(text).contains(cudaName)) << cudaName.str();
}

TEST(HeaderGenTest, RenamesReservedParameterNames) {
  std::string text = joinWrapped(render(makeEdgeModule(Runtime::CUDA)));
  // `int_` keeps its name, so `int` becomes `int_2_`; the local `args`
  // makes way for the parameter.
  EXPECT_TRUE(contains(text, "static inline CUresult keywords_launch("
                             "CUstream stream, CUdeviceptr int_2_, "
                             "int64_t float_, int8_t char_, int32_t stream_, "
                             "int64_t class_, CUdeviceptr int_, float args, "
                             "int64_t int64_t_, int32_t KEYWORDS_THREADS_X_, "
                             "int32_t edge_function_2_) {"));
  EXPECT_TRUE(contains(text, "  void *args_[10];\n"));
  EXPECT_TRUE(contains(text, "  args_[6] = &args;\n"));
  // Grid expressions and shapes follow the renaming; the comment keeps the
  // .tile names.
  EXPECT_TRUE(contains(text, "  grid[0] = (float_ + 63) / 64;\n"
                             "  grid[1] = class_;\n"));
  EXPECT_TRUE(contains(text, " *   int_2_ (int in the .tile file): "
                             "float[float_, class_], 8-byte aligned\n"));
  EXPECT_TRUE(contains(text, " *   int_: float[class_], 4-byte aligned\n"));
  EXPECT_TRUE(contains(text, "  if (class_ > INT32_MAX / float_) "
                             "/* int_2_ elements */\n"));
  // Reserved identifiers lose the underscores that reserve them; names the
  // grid's expressions use are renamed there and nowhere else, and narrow
  // scalars are widened.
  EXPECT_TRUE(contains(text, "static inline CUresult Noop_launch("
                             "CUstream stream, int32_t int64_t_, "
                             "int16_t INT64_C_, int64_t LINE_, "
                             "int32_t CU_LAUNCH_PARAM_END_, "
                             "int32_t noop_THREADS_X_) {"));
  EXPECT_TRUE(contains(text, " *   LINE_ (__LINE__ in the .tile file): "
                             "int64_t\n"));
  EXPECT_TRUE(contains(text, " * grid  (int64_t_ + INT64_C_, LINE_, 1)\n"));
  EXPECT_TRUE(contains(text, "  grid[0] = ((int64_t)int64_t_) + "
                             "((int64_t)INT64_C_);\n  grid[1] = LINE_;\n"));
}

TEST(HeaderGenTest, KernelsThatDifferInCaseHaveTheirOwnMacros) {
  std::string text = render(makeEdgeModule(Runtime::CUDA));
  EXPECT_TRUE(contains(text, "#define noop_THREADS_X 1\n"
                             "#define noop_THREADS_Y 1\n"
                             "#define noop_THREADS_Z 1\n"
                             "#define noop_SHARED_MEMORY_BYTES 0\n"));
  EXPECT_TRUE(contains(text, "#define Noop_THREADS_X 32\n"
                             "#define Noop_THREADS_Y 1\n"
                             "#define Noop_THREADS_Z 1\n"
                             "#define Noop_SHARED_MEMORY_BYTES 0\n"));
}

/// The GEMM module with a binary per target: sm_80 and sm_90a cubins and
/// sm_80 PTX (NVIDIA), or gfx90a and gfx942 code objects (AMD).
ModuleInfo makeMultiTargetModule(Runtime runtime) {
  ModuleInfo module = makeGemmModule(runtime);
  module.prefix = "multi";
  module.images.clear();
  if (runtime == Runtime::CUDA) {
    // The sm_80 images launch the GEMM without tensor maps, in less shared
    // memory, than the sm_90a one.
    std::vector<KernelInfo> sm80 = module.kernels;
    sm80[0].launches[0].tensorMaps.clear();
    sm80[0].launches[0].sharedMemoryBytes = 65536;
    // And the split-KV decode's first block likewise.
    sm80[2].launches[0].tensorMaps.clear();
    sm80[2].launches[0].sharedMemoryBytes = 32768;
    module.images.push_back({"sm_80", {0x7f, 'E', 'L', 'F', 80}, false, sm80});
    module.images.push_back(
        {"sm_90a", {0x7f, 'E', 'L', 'F', 90}, false, module.kernels});
    module.images.push_back({"sm_80", {'.', 'v', 0}, /*isPTX=*/true, sm80});
  } else {
    module.images.push_back({"gfx90a", {0x7f, 'E', 'L', 'F', 1}});
    module.images.push_back({"gfx942", {0x7f, 'E', 'L', 'F', 2}});
  }
  return module;
}

TEST(HeaderGenTest, SeveralTargetsPickTheDevicesBinary) {
  std::string text = joinWrapped(render(makeMultiTargetModule(Runtime::CUDA)));
  EXPECT_TRUE(contains(text, "#define MULTI_ARCH \"sm_80,sm_90a,sm_80\"\n"));
  EXPECT_TRUE(contains(text, "multi_binary_0_sm_80[] = {"));
  EXPECT_TRUE(contains(text, "multi_binary_1_sm_90a[] = {"));
  EXPECT_TRUE(contains(text, "/* The PTX for sm_80, 3 bytes with its NUL"));
  // The arch-specific cubin only on its own GPU, then a cubin of the same
  // generation, then PTX for anything newer.
  size_t exact = position(text, "if (major == 9 && minor == 0) {\n"
                                "    *image = multi_binary_1_sm_90a;");
  size_t generation = position(text, "if (major == 8 && minor >= 0) {\n"
                                     "    *image = multi_binary_0_sm_80;");
  size_t ptx = position(text, "if (major * 10 + minor >= 80) {\n"
                              "    *image = multi_binary_2_sm_80;");
  EXPECT_LT(exact, generation);
  EXPECT_LT(generation, ptx);
  EXPECT_TRUE(contains(text, "return CUDA_ERROR_NO_BINARY_FOR_GPU;"));
  EXPECT_TRUE(contains(text, "err = multi_image_(&image, &index);"));
  EXPECT_TRUE(contains(text, "cuModuleLoadData(&module, image)"));
  EXPECT_TRUE(contains(text, "  entry->image = index;\n"));

  // The GEMM launches as the loaded image says: its tensor maps only with
  // the sm_90a binary, the shared memory per image, and no launch macros,
  // which would hold for one image only.
  EXPECT_TRUE(contains(render(makeMultiTargetModule(Runtime::CUDA)),
                       "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,\n"
                       "                             (index == 0 ? 65536 : "
                       "(index == 1 ? 98304 : 65536)));"));
  EXPECT_FALSE(StringRef(text).contains("gemm_main_THREADS_X"));
  EXPECT_TRUE(contains(text, "#define scale_THREADS_X 8\n"));
  size_t begin = position(text, "static inline CUresult gemm_main_launch(");
  size_t end = position(text, "static inline CUresult scale_launch(");
  std::string body = text.substr(begin, end - begin);
  EXPECT_TRUE(contains(body, "err = multi_function_(0, &function, &image);"));
  EXPECT_TRUE(contains(body, "  if (image == 1) {\n"
                             "    /* Tensor map 0: A in boxes of [128, 64]"));
  EXPECT_TRUE(contains(body, "    args[6] = &maps[0];\n"
                             "    args[7] = &maps[1];\n  }\n"));
  EXPECT_TRUE(contains(body, "128, 1, 1, (image == 0 ? 65536 : (image == 1 ? "
                             "98304 : 65536)), stream, args, NULL);"));
  EXPECT_TRUE(contains(text, " * on sm_90a: block (128, 1, 1), 98304 bytes of "
                             "dynamic shared memory, 2 tensor maps\n"));
  // Several blocks: each image's own maps, encoded before the first launch
  // and passed to the block that takes them.
  std::string decode = text.substr(position(text, " * decode\n"));
  EXPECT_TRUE(contains(decode, " * on sm_80:\n"
                               " *   1. block (128, 1, 1), 32768 bytes of "
                               "dynamic shared memory\n"
                               " *   2. block (256, 1, 1), 0 bytes of dynamic "
                               "shared memory\n"
                               " * on sm_90a:\n"
                               " *   1. block (128, 1, 1), 65536 bytes of "
                               "dynamic shared memory, 1 tensor map\n"));
  size_t encode = position(decode, "  if (image == 1) {\n"
                                   "    /* Tensor map 0: K in boxes of");
  size_t pass = position(decode, "  if (image == 1) {\n"
                                 "    args[5] = &maps[0];\n  }\n"
                                 "  err = cuLaunchKernel(\n"
                                 "      function[0],");
  EXPECT_NE(encode, std::string::npos);
  EXPECT_NE(pass, std::string::npos);
  EXPECT_LT(encode, pass);
  EXPECT_TRUE(contains(decode, "128, 1, 1, (image == 0 ? 32768 : (image == 1 ? "
                               "65536 : 32768)), stream, args, NULL);"));

  std::string hip = joinWrapped(render(makeMultiTargetModule(Runtime::HIP)));
  EXPECT_TRUE(contains(hip, "#include <string.h>"));
  EXPECT_TRUE(contains(hip, "strncmp(properties.gcnArchName, \"gfx942\", 6) "
                            "== 0 &&\n      (properties.gcnArchName[6] == "
                            "'\\0' || properties.gcnArchName[6] == ':')"));
  EXPECT_TRUE(contains(hip, "return hipErrorNoBinaryForGpu;"));
}

/// The identifiers of C text `text`, outside comments, literals, the names
/// of preprocessing directives and the files they include, and `defined`.
StringSet<> identifiersOf(StringRef text) {
  StringSet<> names;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '#') {
      size_t end = i + 1;
      while (end < text.size() && isAlpha(text[end]))
        ++end;
      i = text.slice(i, end) == "#include" ? text.find('\n', end) : end;
    } else if (text.substr(i).starts_with("/*")) {
      i = text.find("*/", i + 2) + 2;
    } else if (text[i] == '"' || text[i] == '\'') {
      size_t end = i + 1;
      while (text[end] != text[i])
        end += text[end] == '\\' ? 2 : 1;
      i = end + 1;
    } else if (isAlpha(text[i]) || text[i] == '_') {
      size_t end = i + 1;
      while (end < text.size() && (isAlnum(text[end]) || text[end] == '_'))
        ++end;
      if (text.slice(i, end) != "defined")
        names.insert(text.slice(i, end));
      i = end;
    } else if (isDigit(text[i])) {
      while (i < text.size() && (isAlnum(text[i]) || text[i] == '.'))
        ++i;
    } else {
      ++i;
    }
  }
  return names;
}

/// The parameters' C names of launch or run function `function` in `text`.
SmallVector<std::string> paramsOf(const std::string &text, StringRef function) {
  std::string joined = joinWrapped(text);
  // The definition, not the banner's `function()`.
  size_t begin = joined.find(" " + function.str() + "(");
  while (begin != std::string::npos &&
         joined[begin + function.size() + 2] == ')')
    begin = joined.find(" " + function.str() + "(", begin + 1);
  size_t end = joined.find(") {", begin);
  SmallVector<std::string> names;
  if (begin == std::string::npos || end == std::string::npos)
    return names;
  SmallVector<StringRef> declarations;
  StringRef(joined)
      .slice(begin + function.size() + 2, end)
      .split(declarations, ", ");
  for (StringRef declaration : declarations)
    names.push_back(declaration.rsplit(' ').second.ltrim('*').str());
  return names;
}

TEST(HeaderGenTest, NoParameterTakesANameOfTheHeader) {
  // The locals and parameters of the header's functions, and the members of
  // its structures: a launch function's own locals make way for its
  // parameters, and the rest are out of a launch function's scope. The
  // names of attributes, which no parameter can hide.
  const char *const scoped[] = {
      "args",        "context", "context_id", "device",    "dims",
      "entry",       "err",     "found",      "function",  "functions",
      "gcnArchName", "grid",    "i",          "image",     "index",
      "major",       "map_box", "map_dims",   "map_steps", "map_strides",
      "maps",        "minor",   "module",     "out",       "properties",
      "stream",      "align",   "aligned",    "owned",     "workspace"};
  for (Runtime runtime : {Runtime::CUDA, Runtime::HIP, Runtime::Host}) {
    ModuleInfo module = makeMultiTargetModule(runtime);
    StringSet<> names = identifiersOf(render(module));
    for (const char *name : scoped)
      names.erase(name);
    for (const KernelInfo &kernel : module.kernels)
      for (const KernelParamInfo &param : kernel.params)
        names.erase(param.name);
    // A kernel whose parameters have all those names.
    KernelInfo probe;
    probe.name = "probe";
    probe.launches.emplace_back().symbol = "probe";
    for (const auto &name : names)
      probe.params.push_back(scalar(name.getKey(), "int32_t"));
    module.kernels.push_back(probe);
    if (runtime != Runtime::Host)
      for (ImageInfo &image : module.images)
        if (!image.kernels.empty())
          image.kernels.push_back(probe);
    std::string text = render(module);
    SmallVector<std::string> params =
        paramsOf(text, runtime == Runtime::Host ? "probe_run" : "probe_launch");
    ASSERT_EQ(params.size(), probe.params.size() + (runtime != Runtime::Host));
    for (const std::string &param : params)
      EXPECT_FALSE(names.contains(param)) << param << " keeps its name";
  }
}

//===----------------------------------------------------------------------===//
// The host target's header
//===----------------------------------------------------------------------===//

TEST(HeaderGenTest, HostFlavour) {
  std::string text = joinWrapped(render(makeGemmModule(Runtime::Host)));
  EXPECT_TRUE(StringRef(text).starts_with(
      "/*\n * Generated by tilec from examples/gemm.tile for the host CPU; "
      "do not edit.\n"));
  EXPECT_TRUE(
      contains(text, "#ifndef TILEC_GEMM_HOST_H\n#define TILEC_GEMM_HOST_H\n"));
  EXPECT_TRUE(StringRef(text).ends_with("#endif /* TILEC_GEMM_HOST_H */\n"));
  // No runtime, no binary, no loading: the object file is linked.
  EXPECT_FALSE(contains(text, "cuda"));
  EXPECT_FALSE(contains(text, "_binary"));
  EXPECT_FALSE(contains(text, "_load("));
  EXPECT_TRUE(contains(text, "#define TILEC_HOST_SUCCESS 0\n"
                             "#define TILEC_HOST_INVALID_VALUE 1\n"));
  // The compiled function, and the checked entry point that calls it.
  EXPECT_TRUE(contains(text, "void gemm_host_gemm_main_(void *, void *, "
                             "void *, float, int64_t, int64_t);\n"));
  EXPECT_TRUE(contains(text, "static inline int gemm_main_run(void *A, "
                             "void *B, void *C, float alpha, int64_t m, "
                             "int64_t n) {\n"));
  EXPECT_TRUE(contains(text, "  gemm_host_gemm_main_(A, B, C, alpha, m, n);\n"
                             "  return TILEC_HOST_SUCCESS;\n}\n"));
  EXPECT_TRUE(contains(text, "void gemm_host_scale_(void *, int64_t, double, "
                             "int8_t, uint64_t, uint16_t, bool, void *);\n"));
  // The GPU launch functions' checks, before the call.
  size_t call = position(text, "  gemm_host_gemm_main_(A");
  size_t nullCheck = position(text, "A == NULL");
  size_t gridCheck = position(text, "grid[1] > 65535");
  EXPECT_LT(nullCheck, call);
  EXPECT_LT(gridCheck, call);
  EXPECT_TRUE(contains(text, "return TILEC_HOST_INVALID_VALUE;"));
  EXPECT_TRUE(contains(text, "#include <stdbool.h>\n"));
}

TEST(HeaderGenTest, EdgeCases) {
  std::string text = render(makeEdgeModule(Runtime::CUDA));
  // Comments and strings cannot be closed or escaped by odd names.
  EXPECT_TRUE(contains(text, "Generated by tilec from odd/ *name* /? ?/.tile "
                             "for sm_80 \"* / ? ?/; do not edit."));
  EXPECT_TRUE(contains(text, "#define EDGE_ARCH \"sm_80 \\\"*/ \\?\\?/\"\n"));
  // An empty binary still is a valid array.
  EXPECT_TRUE(contains(text, "edge_binary[] = {\n    0x00 /* empty */\n};"));
  // A kernel without parameters passes no argument array.
  EXPECT_TRUE(contains(text, "static inline CUresult noop_launch("
                             "CUstream stream) {"));
  EXPECT_TRUE(contains(text, "      1, 1, 1, 0, stream, NULL, NULL);\n"));
  // 2^32 elements can never be indexed with 32 bits.
  EXPECT_TRUE(contains(text, "  if (1) /* T elements: always too many */\n"
                             "    return CUDA_ERROR_INVALID_VALUE;\n"));
  // T needs no alignment beyond its element's.
  EXPECT_TRUE(contains(text, "  if (T == 0)\n"));
}

TEST(HeaderGenTest, NothingOfTheTemplatesIsLeft) {
  for (Runtime runtime : {Runtime::CUDA, Runtime::HIP, Runtime::Host}) {
    ModuleInfo empty = makeMultiTargetModule(runtime);
    empty.kernels.clear();
    for (ImageInfo &image : empty.images)
      image.kernels.clear();
    for (const ModuleInfo &module :
         {makeGemmModule(runtime), makeEdgeModule(runtime),
          makeMultiTargetModule(runtime), empty}) {
      std::string text = render(module);
      // No placeholder, in code or comments: the only names of tilec's
      // headers are the guard and the host's results.
      std::string guard = "TILEC_" + StringRef(module.prefix).upper() +
                          (runtime == Runtime::Host ? "_HOST_H" : "_H");
      StringRef rest = text;
      size_t pos;
      while ((pos = rest.find_insensitive("tilec_")) != StringRef::npos) {
        rest = rest.drop_front(pos);
        StringRef id =
            rest.take_while([](char c) { return isAlnum(c) || c == '_'; });
        EXPECT_TRUE(id == guard || id == "TILEC_HOST_SUCCESS" ||
                    id == "TILEC_HOST_INVALID_VALUE" ||
                    id == "TILEC_HOST_OUT_OF_MEMORY")
            << id.str() << " in " << module.prefix;
        rest = rest.drop_front(id.size());
      }
      // Neither the templates' comments nor their conditionals.
      for (StringRef line : split(text, '\n')) {
        EXPECT_FALSE(line.ltrim().starts_with("//")) << line.str();
        EXPECT_FALSE(line.starts_with("#if TILEC_")) << line.str();
      }
    }
  }
}

TEST(HeaderGenTest, Deterministic) {
  for (Runtime runtime : {Runtime::CUDA, Runtime::HIP}) {
    ModuleInfo module = makeGemmModule(runtime);
    std::string first = render(module);
    ModuleInfo copy = module;
    EXPECT_EQ(first, render(module));
    EXPECT_EQ(first, render(copy));
    ModuleInfo edge = makeEdgeModule(runtime);
    EXPECT_EQ(render(edge), render(makeEdgeModule(runtime)));
  }
}

//===----------------------------------------------------------------------===//
// Compiling
//===----------------------------------------------------------------------===//

/// A scratch directory, removed when the test ends.
class HeaderCompileTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("tilec-headergen", dir));
  }
  void TearDown() override { sys::fs::remove_directories(dir); }

  std::string path(StringRef name) const {
    SmallString<128> result(dir);
    sys::path::append(result, name);
    return std::string(result);
  }

  void writeFile(StringRef name, StringRef text) {
    std::error_code ec;
    raw_fd_ostream os(path(name), ec);
    ASSERT_FALSE(ec) << ec.message();
    os << text;
  }

  /// Runs `command` in the scratch directory; on failure, adds its output
  /// to the test's failure message.
  ::testing::AssertionResult run(const std::string &command) {
    std::string log = path("log.txt");
    std::string line =
        "cd '" + dir.str().str() + "' && " + command + " > '" + log + "' 2>&1";
    int status = std::system(line.c_str());
    if (status == 0)
      return ::testing::AssertionSuccess();
    auto output = MemoryBuffer::getFile(log);
    return ::testing::AssertionFailure()
           << command << "\nexited with " << status << ":\n"
           << (output ? (*output)->getBuffer().str() : std::string());
  }

  SmallString<128> dir;
};

/// A compiler that may be installed, with its language flags.
struct Compiler {
  const char *program;
  bool cxx;
};

/// gcc, g++, the default clang and LLVM 22's clang. -pedantic for C99 only:
/// in C++ it would reject the anonymous structs of the runtime headers.
const Compiler compilers[] = {
    {"gcc", false},
    {"g++", true},
    {"clang", false},
    {"clang++", true},
    {"/usr/lib/llvm-22/bin/clang", false},
    {"/usr/lib/llvm-22/bin/clang++", true},
};

std::optional<std::string> findCompiler(StringRef program) {
  if (sys::path::is_absolute(program))
    return sys::fs::can_execute(program) ? std::optional(program.str())
                                         : std::nullopt;
  if (ErrorOr<std::string> found = sys::findProgramByName(program))
    return *found;
  return std::nullopt;
}

/// The include flags of a runtime, or nothing when its SDK is absent. The
/// SDK directory is a system directory (-isystem): cuda.h itself is not
/// -pedantic C99 clean, and its warnings are not the header's.
std::optional<std::string> sdkFlags(Runtime runtime) {
  if (runtime == Runtime::CUDA) {
    if (!sys::fs::exists("/usr/local/cuda/include/cuda.h"))
      return std::nullopt;
    return std::string("-isystem /usr/local/cuda/include");
  }
  if (!sys::fs::exists("/usr/include/hip/hip_runtime_api.h"))
    return std::nullopt;
  return std::string("-D__HIP_PLATFORM_AMD__ -I/usr/include");
}

/// A translation unit that includes `header` twice (the guard) and calls
/// every function with null arguments, so that the call sites check the
/// parameter types too.
std::string callEverything(const ModuleInfo &module, StringRef header) {
  std::string text;
  raw_string_ostream os(text);
  bool hip = module.runtime == Runtime::HIP;
  os << "#include \"" << header << "\"\n#include \"" << header << "\"\n\n";
  os << "int main(void) {\n";
  os << "  int failures = 0;\n";
  os << "  failures += " << module.prefix
     << "_load() != " << (hip ? "hipSuccess" : "CUDA_SUCCESS") << ";\n";
  for (const KernelInfo &kernel : module.kernels) {
    os << "  failures += " << kernel.name << "_launch(0";
    // One argument per parameter, workspace buffers taking one in all.
    bool workspace = false;
    for (const KernelParamInfo &param : kernel.params) {
      if (param.kind == Kind::Workspace && std::exchange(workspace, true))
        continue;
      os << ", 0";
    }
    os << ") != " << (hip ? "hipSuccess" : "CUDA_SUCCESS") << ";\n";
  }
  os << "  failures += " << module.prefix
     << "_unload() != " << (hip ? "hipSuccess" : "CUDA_SUCCESS") << ";\n";
  os << "  return failures;\n}\n";
  return text;
}

TEST_F(HeaderCompileTest, CompilesAsC99AndCxx17) {
  unsigned compiled = 0;
  for (Runtime runtime : {Runtime::CUDA, Runtime::HIP}) {
    std::optional<std::string> sdk = sdkFlags(runtime);
    if (!sdk)
      continue;
    for (const ModuleInfo &module :
         {makeGemmModule(runtime), makeEdgeModule(runtime),
          makeMultiTargetModule(runtime)}) {
      std::string header = module.prefix + ".h";
      writeFile(header, render(module));
      // Only the include: unused static functions must not warn.
      writeFile("include.c", "#include \"" + header + "\"\n");
      writeFile("include.cpp", "#include \"" + header + "\"\n");
      writeFile("calls.c", callEverything(module, header));
      writeFile("calls.cpp", callEverything(module, header));
      for (const Compiler &compiler : compilers) {
        std::optional<std::string> program = findCompiler(compiler.program);
        if (!program)
          continue;
        std::string flags = compiler.cxx
                                ? "-std=c++17 -Wall -Wextra -Werror"
                                : "-std=c99 -Wall -Wextra -Werror -pedantic";
        std::string ext = compiler.cxx ? ".cpp" : ".c";
        EXPECT_TRUE(run(*program + " " + flags + " -fsyntax-only " + *sdk +
                        " include" + ext))
            << header;
        // Compiled for real: some warnings (-Wmaybe-uninitialized) need the
        // optimizer.
        EXPECT_TRUE(run(*program + " " + flags + " -O2 -c " + *sdk + " calls" +
                        ext + " -o calls.o"))
            << header;
        compiled += 2;
      }
    }
  }
  if (!compiled)
    GTEST_SKIP() << "no C compiler or runtime SDK installed";
}

/// The driver's stub library: links like libcuda, and every call fails with
/// CUDA_ERROR_STUB_LIBRARY, which tells "reached the driver" apart from
/// "rejected before".
constexpr const char *cudaStubs = "/usr/local/cuda/lib64/stubs";

TEST_F(HeaderCompileTest, LinksAgainstTheDriverAndRejectsBadLaunches) {
  std::optional<std::string> gcc = findCompiler("gcc");
  std::optional<std::string> sdk = sdkFlags(Runtime::CUDA);
  SmallString<128> stub(cudaStubs);
  sys::path::append(stub, "libcuda.so");
  if (!gcc || !sdk || !sys::fs::exists(stub))
    GTEST_SKIP() << "needs gcc, cuda.h and the driver stub library";

  writeFile("gemm.h", render(makeGemmModule(Runtime::CUDA)));
  writeFile("edge.h", render(makeEdgeModule(Runtime::CUDA)));
  writeFile("main.c", R"(#include "edge.h"
#include "gemm.h"

#include <stdio.h>

static int failures;

static void expect(CUresult got, CUresult want, const char *what) {
  if (got != want) {
    printf("%s: got %d, want %d\n", what, (int)got, (int)want);
    ++failures;
  }
}

int main(void) {
  const CUdeviceptr p = 256;
  const CUresult invalid = CUDA_ERROR_INVALID_VALUE;
  const CUresult driver = CUDA_ERROR_STUB_LIBRARY;
  expect(gemm_main_launch(0, 0, p, p, 1.0f, 128, 128), invalid, "null");
  expect(gemm_main_launch(0, p, p + 8, p, 1.0f, 128, 128), invalid,
         "misaligned");
  expect(gemm_main_launch(0, p, p, p + 4, 1.0f, 128, 128), driver,
         "aligned to the element");
  expect(gemm_main_launch(0, p, p, p, 1.0f, 0, 128), invalid, "m = 0");
  expect(gemm_main_launch(0, p, p, p, 1.0f, 128, -1), invalid, "n < 0");
  expect(gemm_main_launch(0, p, p, p, 1.0f, 2147483648LL, 1), invalid,
         "m > INT32_MAX");
  /* 256 * 8388608 = 2^31 elements in B; grid x is still in range. */
  expect(gemm_main_launch(0, p, p, p, 1.0f, 1, 8388608), invalid,
         "B too large");
  expect(gemm_main_launch(0, p, p, p, 1.0f, 1, 8388607), driver,
         "B just fits");
  /* grid y = (m + 127) / 128. */
  expect(gemm_main_launch(0, p, p, p, 1.0f, 8388480, 1), driver,
         "grid y = 65535");
  expect(gemm_main_launch(0, p, p, p, 1.0f, 8388481, 1), invalid,
         "grid y = 65536");
  /* 65536 * 65536 = 2^32 elements in C. */
  expect(gemm_main_launch(0, p, p, p, 1.0f, 65536, 65536), invalid,
         "C too large");
  expect(scale_launch(0, p, 100, 1.0, 1, 2, 3, 1, p + 4), invalid,
         "Y misaligned");
  expect(scale_launch(0, p, 100, 1.0, 1, 2, 3, 1, p), driver, "scale");
  expect(decode_launch(0, p, 8192, p, 0), driver, "decode");
  expect(decode_launch(0, p, 8192, p, p), driver, "decode, workspace given");
  expect(decode_launch(0, p + 8, 8192, p, 0), invalid, "decode: K misaligned");
  expect(decode_launch(0, p, 8192, p + 4, 0), invalid, "decode: O misaligned");
  expect(decode_launch(0, p, 8192, p, p + 16), invalid,
         "decode: workspace misaligned");
  /* grid[1] is `class`. */
  expect(keywords_launch(0, p, 64, 0, 0, 65536, p, 0.0f, 0, 0, 0), invalid,
         "grid y > 65535");
  expect(keywords_launch(0, p, 64, 0, 0, 65535, p, 0.0f, 0, 0, 0), driver,
         "grid y = 65535");
  expect(huge_launch(0, p), invalid, "2^32 elements");
  expect(noop_launch(0), driver, "noop");
  expect(gemm_load(), driver, "load");
  expect(gemm_unload(), driver, "unload");
  return failures;
}
)");
  ASSERT_TRUE(run(*gcc + " -std=c99 -Wall -Wextra -Werror -pedantic " + *sdk +
                  " main.c -L" + cudaStubs + " -lcuda -lpthread -o main"));
  // The stub's soname is libcuda.so.1; run against it, not a real driver.
  ASSERT_FALSE(sys::fs::create_link(stub, path("libcuda.so.1")));
  EXPECT_TRUE(run("LD_LIBRARY_PATH=. ./main"));
}

TEST_F(HeaderCompileTest, HostHeaderCompilesAndRejectsBadRuns) {
  std::optional<std::string> gcc = findCompiler("gcc");
  if (!gcc)
    GTEST_SKIP() << "needs gcc";
  writeFile("gemm.h", render(makeGemmModule(Runtime::Host)));
  writeFile("edge.h", render(makeEdgeModule(Runtime::Host)));
  // The object file's functions, here counting their calls.
  writeFile("main.c", R"(#include "edge.h"
#include "edge.h"
#include "gemm.h"

#include <stdio.h>

static int calls, failures;

void gemm_host_gemm_main_(void *a, void *b, void *c, float alpha, int64_t m,
                          int64_t n) {
  (void)a, (void)b, (void)c, (void)alpha, (void)m, (void)n;
  ++calls;
}
void gemm_host_scale_(void *x, int64_t n, double a, int8_t b, uint64_t c,
                      uint16_t h, bool flag, void *y) {
  (void)x, (void)n, (void)a, (void)b, (void)c, (void)h, (void)flag, (void)y;
  ++calls;
}
void edge_host_keywords_(void *a, int64_t b, int8_t c, int32_t d, int64_t e,
                         void *f, float g, int64_t h, int32_t i, int32_t j) {
  (void)a, (void)b, (void)c, (void)d, (void)e, (void)f, (void)g, (void)h,
      (void)i, (void)j;
  ++calls;
}
static void *lastLse, *lastPart;
void gemm_host_decode_(void *k, int64_t n, void *o, void *lse, void *part) {
  (void)k, (void)n, (void)o;
  lastLse = lse;
  lastPart = part;
  ++calls;
}
void edge_host_noop_(void) { ++calls; }
void edge_host_huge_(void *t) { (void)t; ++calls; }

/* Whether `got` is `want` and the function was called exactly when it
   succeeded. */
static void expect(int got, int want, const char *what) {
  int called = calls;
  calls = 0;
  if (got != want || called != (want == TILEC_HOST_SUCCESS)) {
    printf("%s: got %d, want %d (called %d times)\n", what, got, want, called);
    ++failures;
  }
}

int main(void) {
  static float buffer[64] __attribute__((aligned(16)));
  /* decode's workspace at n = 8192. */
  static char space[8192 * 4 * 4 + 131072] __attribute__((aligned(256)));
  char *p = (char *)buffer;
  const int invalid = TILEC_HOST_INVALID_VALUE, ok = TILEC_HOST_SUCCESS;
  expect(gemm_main_run(0, p, p, 1.0f, 128, 128), invalid, "null");
  expect(gemm_main_run(p, p + 8, p, 1.0f, 128, 128), invalid, "misaligned");
  expect(gemm_main_run(p, p, p + 4, 1.0f, 128, 128), ok,
         "aligned to the element");
  expect(gemm_main_run(p, p, p, 1.0f, 0, 128), invalid, "m = 0");
  expect(gemm_main_run(p, p, p, 1.0f, 128, -1), invalid, "n < 0");
  expect(gemm_main_run(p, p, p, 1.0f, 2147483648LL, 1), invalid,
         "m > INT32_MAX");
  expect(gemm_main_run(p, p, p, 1.0f, 1, 8388608), invalid, "B too large");
  expect(gemm_main_run(p, p, p, 1.0f, 8388481, 1), invalid,
         "grid y = 65536");
  expect(gemm_main_run(p, p, p, 1.0f, 8388480, 1), ok, "grid y = 65535");
  expect(scale_run(p, 100, 1.0, 1, 2, 3, 1, p + 4), invalid, "Y misaligned");
  expect(scale_run(p, 100, 1.0, 1, 2, 3, 1, p), ok, "scale");
  /* The workspace's parts: lse's 8192 * 4 floats, then part. */
  expect(decode_run(p, 8192, p, NULL), ok, "decode, workspace allocated");
  if ((char *)lastPart - (char *)lastLse != 8192 * 4 * 4) {
    printf("decode: part is %ld bytes after lse\n",
           (long)((char *)lastPart - (char *)lastLse));
    ++failures;
  }
  expect(decode_run(p, 8192, p, space), ok, "decode, workspace given");
  if (lastLse != (void *)space) {
    printf("decode: lse is not the workspace given\n");
    ++failures;
  }
  expect(decode_run(p, 0, p, NULL), invalid, "decode: n = 0");
  expect(decode_run(p, 8192, p, space + 16), invalid,
         "decode: workspace misaligned");
  expect(keywords_run(p, 64, 0, 0, 65536, p, 0.0f, 0, 0, 0), invalid,
         "grid y > 65535");
  expect(huge_run(p), invalid, "2^32 elements");
  expect(noop_run(), ok, "noop");
  return failures;
}
)");
  for (const Compiler &compiler : compilers) {
    std::optional<std::string> program = findCompiler(compiler.program);
    if (!program)
      continue;
    std::string flags = compiler.cxx
                            ? "-std=c++17 -Wall -Wextra -Werror"
                            : "-std=c99 -Wall -Wextra -Werror -pedantic";
    std::string source = compiler.cxx ? "main.cpp" : "main.c";
    if (compiler.cxx) {
      ASSERT_FALSE(sys::fs::copy_file(path("main.c"), path("main.cpp")));
    }
    EXPECT_TRUE(run(*program + " " + flags + " -O2 " + source + " -o main"))
        << compiler.program;
    EXPECT_TRUE(run("./main")) << compiler.program;
  }
}

} // namespace
