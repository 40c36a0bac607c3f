// RUN: tilec-opt %s --tilec-merge-reads | FileCheck %s

// Repeated reads of one place merge until something may write.
// CHECK-LABEL: func.func @reads
// CHECK-SAME: (%[[A:.*]]: memref<8xf32>, %[[I:.*]]: index, %[[J:.*]]: index)
func.func @reads(%a: memref<8xf32>, %i: index, %j: index) -> f32 {
  // CHECK: %[[X:.*]] = memref.load %[[A]][%[[I]]]
  // CHECK-NEXT: %[[Y:.*]] = memref.load %[[A]][%[[J]]]
  // CHECK-NEXT: %[[S0:.*]] = arith.addf %[[X]], %[[X]]
  // CHECK-NEXT: %[[S1:.*]] = arith.addf %[[S0]], %[[Y]]
  // CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %[[X]]
  %x0 = memref.load %a[%i] : memref<8xf32>
  %y = memref.load %a[%j] : memref<8xf32>
  %x1 = memref.load %a[%i] : memref<8xf32>
  %s0 = arith.addf %x0, %x1 : f32
  %s1 = arith.addf %s0, %y : f32
  %x2 = memref.load %a[%i] : memref<8xf32>
  %s2 = arith.addf %s1, %x2 : f32
  // A store ends the run: the next read reads again.
  // CHECK-NEXT: memref.store %[[S2]], %[[A]][%[[J]]]
  // CHECK-NEXT: %[[X3:.*]] = memref.load %[[A]][%[[I]]]
  // CHECK-NEXT: %[[S3:.*]] = arith.addf %[[S2]], %[[X3]]
  memref.store %s2, %a[%j] : memref<8xf32>
  %x3 = memref.load %a[%i] : memref<8xf32>
  %s3 = arith.addf %s2, %x3 : f32
  // So does an operation whose region writes.
  // CHECK: scf.for
  // CHECK: memref.store
  // CHECK: memref.load %[[A]][%[[I]]]
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %k = %c0 to %c1 step %c1 {
    memref.store %s3, %a[%k] : memref<8xf32>
  }
  %x4 = memref.load %a[%i] : memref<8xf32>
  %s4 = arith.addf %s3, %x4 : f32
  return %s4 : f32
}

// Reads in a nested block merge among themselves, not with reads outside.
// CHECK-LABEL: func.func @nested
func.func @nested(%a: memref<8xf32>, %i: index, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant 0.0 : f32
  // CHECK: memref.load
  // CHECK: scf.for
  // CHECK-NEXT: memref.load
  // CHECK-NEXT: arith.addf
  // CHECK-NEXT: arith.addf
  %x = memref.load %a[%i] : memref<8xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %x) -> f32 {
    %v0 = memref.load %a[%i] : memref<8xf32>
    %v1 = memref.load %a[%i] : memref<8xf32>
    %s = arith.addf %acc, %v0 : f32
    %t = arith.addf %s, %v1 : f32
    scf.yield %t : f32
  }
  return %r : f32
}
