// RUN: tilec-opt %s --pass-pipeline='builtin.module(gpu.module(tilec-fast-math))' | FileCheck %s
// RUN: tilec-opt %s --pass-pipeline='builtin.module(gpu.module(tilec-fast-math{nvvm-ftz=1}))' | FileCheck %s --check-prefix=FTZ

// Floating-point arith and math ops get nvcc's fast-math flags (not nnan or
// ninf: kernels mask with -inf); integer ops have no flags to set; kernels
// flush f32 denormals. For NVIDIA, libdevice is told to flush too.
// CHECK-LABEL: gpu.module @tilec_kernels
// CHECK-NOT: llvm.module_flags
// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME: denormal_fp_math_f32 = "preserve-sign,preserve-sign"
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<arcp,contract,afn> : f32
// CHECK: math.exp %{{.*}} fastmath<arcp,contract,afn> : f32
// CHECK: math.sqrt %{{.*}} fastmath<arcp,contract,afn> : f32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NOT: fastmath
// FTZ: gpu.module @tilec_kernels {
// FTZ-NEXT: llvm.module_flags [#llvm.mlir.module_flag<override, "nvvm-reflect-ftz", 1 : i32>]
module attributes {gpu.container_module} {
  gpu.module @tilec_kernels {
    gpu.func @kernel(%p: memref<4xf32>, %x: f32, %y: f32, %i: i32, %q: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %d = arith.divf %x, %y : f32
      %e = math.exp %d : f32
      %s = math.sqrt %e : f32
      %j = arith.addi %i, %i : i32
      memref.store %s, %p[%c0] : memref<4xf32>
      memref.store %j, %q[%c0] : memref<4xi32>
      gpu.return
    }
  }
}
