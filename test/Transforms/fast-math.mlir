// RUN: tilec-opt %s --pass-pipeline='builtin.module(gpu.module(tilec-fast-math))' | FileCheck %s

// Floating-point arith and math ops get the fast flags; integer ops have no
// flags to set; kernels flush f32 denormals.
// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME: denormal_fp_math_f32 = "preserve-sign,preserve-sign"
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<fast> : f32
// CHECK: math.exp %{{.*}} fastmath<fast> : f32
// CHECK: math.sqrt %{{.*}} fastmath<fast> : f32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NOT: fastmath
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
