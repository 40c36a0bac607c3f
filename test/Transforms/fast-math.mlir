// RUN: tilec-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tilec-fast-math))' | FileCheck %s
// RUN: tilec-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(tilec-fast-math{nvvm-ftz=1}))' | FileCheck %s --check-prefix=FTZ

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

// -----

// With flushing, bf16 comparisons are made in f32, whose values are the
// bf16 bits shifted left by 16: NVPTX would give a bf16 comparison the f32
// flushing modifier, which PTX rejects. Without, they stay as they are.
// CHECK-LABEL: gpu.func @compare_bf16
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : bf16
// CHECK: arith.cmpf oeq, %{{.*}}, %{{.*}} : vector<2xbf16>
// FTZ-LABEL: gpu.func @compare_bf16
// FTZ: %[[C16:.*]] = arith.constant 16 : i32
// FTZ: %[[BITS:.*]] = arith.bitcast %arg0 : bf16 to i16
// FTZ: %[[WIDE:.*]] = arith.extui %[[BITS]] : i16 to i32
// FTZ: %[[HIGH:.*]] = arith.shli %[[WIDE]], %[[C16]] : i32
// FTZ: %[[X:.*]] = arith.bitcast %[[HIGH]] : i32 to f32
// FTZ: arith.cmpf ogt, %[[X]], %{{.*}} fastmath<arcp,contract,afn> : f32
// FTZ: arith.constant dense<16> : vector<2xi32>
// FTZ: arith.bitcast %arg2 : vector<2xbf16> to vector<2xi16>
// FTZ: arith.cmpf oeq, %{{.*}}, %{{.*}} fastmath<arcp,contract,afn> : vector<2xf32>
// FTZ-NOT: : bf16
module attributes {gpu.container_module} {
  gpu.module @tilec_kernels {
    gpu.func @compare_bf16(%x: bf16, %y: bf16, %u: vector<2xbf16>, %v: vector<2xbf16>, %p: memref<2xi1>, %q: memref<2xi1>) kernel {
      %c0 = arith.constant 0 : index
      %gt = arith.cmpf ogt, %x, %y : bf16
      %eq = arith.cmpf oeq, %u, %v : vector<2xbf16>
      memref.store %gt, %p[%c0] : memref<2xi1>
      vector.store %eq, %q[%c0] : memref<2xi1>, vector<2xi1>
      gpu.return
    }
  }
}
