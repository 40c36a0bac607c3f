// RUN: tilec-opt %s --split-input-file --tile-lower-loops | FileCheck %s

// Serial and pipelined loops become scf.for (a pipelined loop steps by
// one); an unrolled loop is repeated with its index as a constant.
// CHECK-LABEL: func.func @loops
// CHECK: scf.for %[[I:.*]] = %c0 to %arg1 step %c1 {
// CHECK:   memref.store %{{.*}}, %arg0[%[[I]]]
// CHECK: scf.for %[[K:.*]] = %c0 to %arg1 step %{{.*}} {
// CHECK:   memref.store %{{.*}}, %arg0[%[[K]]]
// CHECK: %[[U0:.*]] = arith.constant 1 : index
// CHECK: memref.store %{{.*}}, %arg0[%[[U0]]]
// CHECK: %[[U1:.*]] = arith.constant 4 : index
// CHECK: memref.store %{{.*}}, %arg0[%[[U1]]]
// CHECK-NOT: memref.store
// CHECK-NOT: tile.serial
// CHECK-NOT: tile.pipelined
// CHECK-NOT: tile.unroll
func.func @loops(%a: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    tile.serial %i = %c0 to %n step %c1 {
      memref.store %x, %a[%i] : memref<64xf32>
    }
    tile.pipelined %k = %c0 to %n stages(3) {
      memref.store %x, %a[%k] : memref<64xf32>
    }
    tile.unroll %u = %c1 to %c7 step %c3 {
      memref.store %x, %a[%u] : memref<64xf32>
    }
  }
  return
}

// -----

// An empty range unrolls to nothing.
// CHECK-LABEL: func.func @empty
// CHECK-NOT: memref.store
func.func @empty(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    tile.unroll %u = %c5 to %c1 step %c1 {
      memref.store %x, %a[%u] : memref<64xf32>
    }
  }
  return
}
