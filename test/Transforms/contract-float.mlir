// RUN: tilec-opt %s --pass-pipeline='builtin.module(gpu.module(tilec-contract-float))' | FileCheck %s

// Floating-point arith ops may contract; flags already there are kept;
// integer ops have no flags to set.
// CHECK-LABEL: gpu.func @kernel
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.subf %{{.*}}, %{{.*}} fastmath<nnan,contract> : f32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NOT: fastmath
module attributes {gpu.container_module} {
  gpu.module @tilec_kernels {
    gpu.func @kernel(%p: memref<4xf32>, %x: f32, %y: f32, %i: i32, %q: memref<4xi32>) kernel {
      %c0 = arith.constant 0 : index
      %m = arith.mulf %x, %y : f32
      %a = arith.addf %m, %x : f32
      %s = arith.subf %a, %y fastmath<nnan> : f32
      %j = arith.addi %i, %i : i32
      memref.store %s, %p[%c0] : memref<4xf32>
      memref.store %j, %q[%c0] : memref<4xi32>
      gpu.return
    }
  }
}
