// RUN: tilec-opt %s --pass-pipeline='builtin.module(gpu.module(tilec-convert-gpu-to-nvvm,reconcile-unrealized-casts))' | FileCheck %s

// A tensor-map argument becomes a by-value, 64-byte aligned grid constant
// of 128 bytes (a CUtensorMap); the other arguments keep their attributes.
// Dynamic shared memory is aligned for the 128-byte swizzle's period.
// NVVM ops without an intrinsic (the mbarrier wait loop, wgmma) become
// their inline PTX.
// CHECK: llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64}
// CHECK-LABEL: llvm.func @kernel
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1> {llvm.align = 16 : i64, llvm.noalias}, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.inline_asm has_side_effects {{.*}}"{\0A\09.reg .pred P1; \0A\09LAB_WAIT: \0A\09mbarrier.try_wait.parity.shared.b64
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16
// CHECK-NOT: nvvm.wgmma.mma_async
module attributes {gpu.container_module} {
  gpu.module @tilec_kernels {
    gpu.func @kernel(%a: memref<f16, #gpu.address_space<global>> {llvm.align = 16 : i64, llvm.noalias},
                     %map: !llvm.ptr {tile.tensor_map = {box = array<i64: 64, 64>, swizzle = 128 : i64, tensor = 0 : i64}}) kernel {
      %c0 = arith.constant 0 : index
      %c0_i32 = arith.constant 0 : i32
      %pool = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %s = memref.view %pool[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64x64xf16, #gpu.address_space<workgroup>>
      %bar = memref.view %pool[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<1xi64, #gpu.address_space<workgroup>>
      %sp = memref.extract_aligned_pointer_as_index %s : memref<64x64xf16, #gpu.address_space<workgroup>> -> index
      %bp = memref.extract_aligned_pointer_as_index %bar : memref<1xi64, #gpu.address_space<workgroup>> -> index
      %si = arith.index_castui %sp : index to i64
      %bi = arith.index_castui %bp : index to i64
      %sptr = llvm.inttoptr %si : i64 to !llvm.ptr<3>
      %bptr = llvm.inttoptr %bi : i64 to !llvm.ptr<3>
      %dst = llvm.addrspacecast %sptr : !llvm.ptr<3> to !llvm.ptr<7>
      nvvm.cp.async.bulk.tensor.shared.cluster.global %dst, %map, %bptr, box[%c0_i32, %c0_i32] : !llvm.ptr<7>, !llvm.ptr
      nvvm.mbarrier.try_wait.parity %bptr, %c0_i32, %c0_i32 : !llvm.ptr<3>, i32, i32
      %desc = arith.constant 0 : i64
      %acc = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.fence.aligned
      %d = nvvm.wgmma.mma_async %desc, %desc, %acc, <m = 64, n = 8, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>] : !llvm.struct<(f32, f32, f32, f32)> -> !llvm.struct<(f32, f32, f32, f32)>
      nvvm.wgmma.commit.group.sync.aligned
      nvvm.wgmma.wait.group.sync.aligned 0
      gpu.return
    }
  }
}
