// RUN: tilec-opt %s --pass-pipeline='builtin.module(gpu.module(tilec-convert-gpu-to-nvvm,reconcile-unrealized-casts))' | FileCheck %s

// gpu, memref, vector and nvgpu ops lower together with 32-bit indices:
// nothing is left between the LLVM dialect and the rest.
// CHECK-LABEL: llvm.func @kernel
// CHECK-SAME: (%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel}
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xf16>
// CHECK: nvvm.ldmatrix %{{.*}} {{.*}}layout = #nvvm.mma_layout<row>, num = 4 : i32{{.*}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: nvvm.ldmatrix %{{.*}} {{.*}}layout = #nvvm.mma_layout<col>, num = 2 : i32{{.*}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
// CHECK: nvvm.mma.sync {{.*}}shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK: llvm.sdiv %{{.*}} : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NOT: unrealized_conversion_cast
// CHECK-NOT: nvgpu.
// CHECK-NOT: i64
module attributes {gpu.container_module} {
  gpu.module @tilec_kernels {
    gpu.func @kernel(%a: memref<f16, #gpu.address_space<global>>, %c: memref<f32, #gpu.address_space<global>>) kernel {
      %c0 = arith.constant 0 : index
      %c8 = arith.constant 8 : index
      %A = memref.reinterpret_cast %a to offset: [0], sizes: [64], strides: [1] : memref<f16, #gpu.address_space<global>> to memref<64xf16, strided<[1]>, #gpu.address_space<global>>
      %C = memref.reinterpret_cast %c to offset: [0], sizes: [8], strides: [1] : memref<f32, #gpu.address_space<global>> to memref<8xf32, strided<[1]>, #gpu.address_space<global>>
      %pool = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %s = memref.view %pool[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x16xf16, #gpu.address_space<workgroup>>
      %v = vector.load %A[%c8] {alignment = 16} : memref<64xf16, strided<[1]>, #gpu.address_space<global>>, vector<8xf16>
      vector.store %v, %s[%c0, %c0] : memref<16x16xf16, #gpu.address_space<workgroup>>, vector<8xf16>
      %fa = nvgpu.ldmatrix %s[%c0, %c0] {numTiles = 4 : i32, transpose = false} : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
      %fb = nvgpu.ldmatrix %s[%c0, %c0] {numTiles = 2 : i32, transpose = true} : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<2x2xf16>
      %zero = arith.constant dense<0.0> : vector<2x2xf32>
      %d = nvgpu.mma.sync (%fa, %fb, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
      %e = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
      %tid = gpu.thread_id x
      %row = arith.floordivsi %tid, %c8 : index
      memref.store %e, %C[%row] : memref<8xf32, strided<[1]>, #gpu.address_space<global>>
      %t = nvgpu.device_async_copy %A[%c8], %s[%c0, %c8], 8, %c8 {bypassL1} : memref<64xf16, strided<[1]>, #gpu.address_space<global>> to memref<16x16xf16, #gpu.address_space<workgroup>>
      %g = nvgpu.device_async_create_group %t
      nvgpu.device_async_wait %g {numGroups = 0 : i32}
      gpu.return
    }
  }
}
