//===- Passes.td - Conversions out of the tile dialect -----*- tablegen -*-===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_CONVERSION_PASSES_TD
#define TILEC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "mlir::ModuleOp"> {
  let summary = "Outline distributed kernels into a gpu.module";
  let description = [{
    Moves the body of every `tile.kernel` (after distribution: per-thread
    code) into a `gpu.func` of the module's `gpu.module @tilec_kernels`, and
    replaces it with a `gpu.launch_func`. The kernel function keeps the host
    side: the grid computed from its arguments. A function with several
    `tile.kernel`s launches them in order; their device functions are
    `<function>_0`, `<function>_1`, ... unless another symbol has the name.

    The kernel's ABI is the one docs/abi.md describes: a tensor is passed as
    a bare pointer (a rank-0 memref in the global address space, assumed
    16-byte aligned and not aliasing the others) and re-shaped inside the
    kernel with `memref.reinterpret_cast`, using the index arguments that
    hold dynamic extents; scalars and extents are passed as themselves.
    Block indices become `gpu.block_id`, remapped in panels when the kernel
    has a `tile.use_swizzle`. Shared buffers are carved out of the dynamic
    shared memory at 128-byte aligned offsets (the total is the gpu.func's
    `tile.shared_memory_bytes`); buffers whose uses do not overlap in the
    kernel's top-level statements share bytes where a block barrier lies
    between the last use of one and the first use of the other, and, where
    the kernel would not fit the target's shared memory otherwise, also
    where none does, inserting one. Buffers on each thread's stack (local
    buffers, variables, the registers of fragments) are allocated once, at
    the kernel's start, in the private address space: an alloca elsewhere
    is a dynamic one to LLVM, and AMDGPU selects allocas only in its private
    address space, which the optimizing levels hide by promoting them to
    registers and `-O0` does not.
    Each `tile.tensor_map` becomes a kernel argument after the others,
    marked `tile.tensor_map` with what the host encodes.

    A `tile.warp_specialize` launches the block with one more warpgroup,
    whose first thread runs the producer region while the kernel's threads
    run the consumer region; block barriers there become `bar.sync 1` over
    the consumers only. With two consumer warpgroups or more, the producer
    lowers its register budget to 40 (`setmaxnreg`) and the consumers raise
    theirs, unless the kernel has `keep_register_budget`; the kernel is then
    marked for one block per multiprocessor.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect"];
}

def ConvertTileToNVVM : Pass<"convert-tile-to-nvvm"> {
  let summary = "Lower asynchronous copies and their synchronization to NVVM";
  let description = [{
    Gives the tile dialect's target-neutral asynchronous copies, and the
    synchronization ops the pipelining passes order them with, NVIDIA's
    instructions: `tile.async_copy`
    becomes cp.async (`nvgpu.device_async_copy`, bypassing L1 for 16-byte
    runs), `tile.tma_load` and `tile.tma_store` the bulk tensor copies,
    `tile.bulk_commit_group` and `tile.bulk_wait_group` their groups,
    `tile.mbarrier_init`,
    `tile.mbarrier_arrive` (with `expect_bytes`: `arrive.expect_tx`) and
    `tile.mbarrier_wait` become `nvvm.mbarrier.*` on the barrier's shared
    address (8 bytes a barrier; the wait observes the phase's parity),
    `tile.async_commit_group` and `tile.async_wait_group` become cp.async's
    groups, and `tile.fence_async_shared` the async-proxy fence. It runs
    before `convert-tile-to-gpu`, on kernels whose shared buffers are still
    `tile.alloc_shared`.

    ```mlir
    tile.mbarrier_wait %bars[%s] phase %k : memref<2xi64, #tile.shared>
    // becomes
    %parity = ... %k mod 2, as i32
    nvvm.mbarrier.try_wait.parity.shared %ptr, %parity, %c0_i32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::nvgpu::NVGPUDialect"];
}

def ConvertTileToHost : Pass<"convert-tile-to-host", "mlir::ModuleOp"> {
  let summary = "Make each kernel function a host function over its grid";
  let description = [{
    After `tile-sequentialize`, the body of a `tile.kernel` is what one
    block runs. This pass makes each kernel function a C-callable function
    that runs the body for every block of the grid, one after the other (z
    slowest, x fastest, remapped in panels when the kernel has a
    `tile.use_swizzle`), with the kernel's shared, fragment and local
    buffers allocated once (128-byte aligned) before the grid's
    loops and freed when the function returns; a `T.alloc_var` takes its
    initial value again in every block. `tile.assume` goes.

    The function's ABI is the GPU kernels': a tensor is a bare pointer (a
    rank-0 memref, not aliasing the others) re-shaped inside with the index
    arguments that hold its dynamic extents; extents and scalars are passed
    as themselves, but float scalars narrower than f32 as their bits
    (`uint16_t` or `uint8_t` in C). The function is renamed `<symbol-prefix><name>_`, for the header's
    `<name>_run` to call, and returns nothing. A print (`gpu.printf`, from
    T.print) becomes a call of C's `printf` with its format in a private
    global; an assertion (`cf.assert`, from T.device_assert) a check that
    flushes stdout, writes its message and source line to stderr and
    aborts.
  }];
  let options = [
    Option<"symbolPrefix", "symbol-prefix", "std::string", "\"\"",
           "Prepended to each function's name (the header's prefix and an "
           "underscore)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def ConvertGPUToNVVM : Pass<"tilec-convert-gpu-to-nvvm", "mlir::gpu::GPUModuleOp"> {
  let summary = "Lower a gpu.module's kernels to the LLVM and NVVM dialects";
  let description = [{
    Upstream's `convert-gpu-to-nvvm` with the `nvgpu` and `vector` lowerings
    in the same conversion, so that one type converter (32-bit indices,
    bare-pointer kernel arguments) serves ldmatrix, mma.sync, cp.async and
    vector accesses as well as the rest: converted separately, their index
    types would not agree.

    Kernel arguments marked `tile.tensor_map` become by-value,
    `nvvm.grid_constant` parameters of 128 bytes aligned to 64 (a
    `CUtensorMap`), and dynamic shared memory is aligned to 1024 bytes, the
    period of the widest TMA swizzle.
  }];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", "32",
           "Bit width of the index type on the device">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def ConvertFp8ToNVVM
    : Pass<"tilec-convert-fp8-to-nvvm", "mlir::gpu::GPUModuleOp"> {
  let summary = "Convert 8-bit floats with NVIDIA's paired cvt instructions";
  let description = [{
    From sm_89 on, `cvt` converts two 8-bit floats (`e4m3x2`, `e5m2x2`) to
    two halves in one instruction, and two f32 values to two 8-bit floats
    with round to nearest even and saturation to the largest finite value
    (`.rn.satfinite`), which is what `tilec-expand-fp8` computes in integer
    arithmetic. This pass turns each `arith.extf` from `f8E4M3FN` or
    `f8E5M2`, and each `arith.truncf` to them from f16, bf16 or f32, scalar
    or vector, into those instructions, two elements at a time. Conversions
    it does not take (f64 sources, the FNUZ formats) are left to
    `tilec-expand-fp8`, which runs after it.

    ```mlir
    %h = arith.extf %x : vector<4xf8E4M3FN> to vector<4xf32>
    // becomes two nvvm.convert.f8x2.to.f16x2 on halves of %x, then an
    // arith.extf of the vector<4xf16> they make.
    ```
  }];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def ConvertMathToOCML
    : Pass<"tilec-convert-math-to-ocml", "mlir::gpu::GPUModuleOp"> {
  let summary = "Call the ROCm device library for math the AMDGPU back end "
                "cannot select";
  let description = [{
    `convert-gpu-to-rocdl` lowers `math.tanh` to the `llvm.tanh` intrinsic,
    which the AMDGPU back end cannot select ("no libcall available for
    ftanh"). This pass runs first on AMD targets and turns each `math.tanh`
    (element by element on vectors) into a call of OCML's `__ocml_tanh_f16`,
    `__ocml_tanh_f32` or `__ocml_tanh_f64`, which the serializer links from
    the device libraries. Other math ops are left to `convert-gpu-to-rocdl`.
    Narrower floats (bfloat16, 8-bit floats) must have been extended to f32
    before.
  }];
  let options = [
    Option<"chipset", "chipset", "std::string", "\"gfx942\"",
           "The AMD chip the kernels run on">
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // TILEC_CONVERSION_PASSES_TD
