// RUN: tilec-opt %s --split-input-file --convert-tile-to-host=symbol-prefix=lib_ | FileCheck %s

// A kernel function becomes lib_<name>_: tensors are bare pointers given
// their shape inside from the extent arguments, narrow float scalars are
// their bits; buffers are allocated once, 128-byte aligned, and freed
// before returning; the grid is a loop nest with y outside x, whose block
// indices the swizzle remaps in panels of 2 rows; a variable takes its
// initial value again in every block; memory scopes go.
// CHECK-LABEL: func.func @lib_kernel_(
// CHECK-SAME: %[[A:.*]]: memref<f32> {llvm.noalias}, %[[H:.*]]: i16, %[[M:.*]]: index, %[[E:.*]]: i8)
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[A]] to offset: [0], sizes: [%[[M]], 64], strides: [64, 1] : memref<f32> to memref<?x64xf32, strided<[64, 1]>>
// CHECK: %[[TENSOR:.*]] = memref.cast %[[VIEW]] : memref<?x64xf32, strided<[64, 1]>> to memref<?x64xf32>
// CHECK: arith.bitcast %[[H]] : i16 to f16
// CHECK: arith.bitcast %[[E]] : i8 to f8E4M3FN
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[S:.*]] = memref.alloc() {alignment = 128 : i64} : memref<64xf32>
// CHECK: %[[V:.*]] = memref.alloc() {alignment = 128 : i64} : memref<f32>
// CHECK: scf.for %[[BY:.*]] = %{{.*}} to %[[M]]
// CHECK:   scf.for %[[BX:.*]] = %{{.*}} to %c4
// CHECK:     %[[PANEL:.*]] = arith.muli %c2{{.*}}, %c4
// CHECK:     arith.divui %{{.*}}, %[[PANEL]]
// CHECK:     %[[ROW:.*]] = arith.addi
// CHECK:     %[[COL:.*]] = arith.select
// CHECK:     memref.store %[[ZERO]], %[[V]][] : memref<f32>
// CHECK:     %[[X:.*]] = memref.load %[[TENSOR]][%[[ROW]], %[[COL]]] : memref<?x64xf32>
// CHECK:     memref.store %[[X]], %[[S]][%[[COL]]] : memref<64xf32>
// CHECK:     memref.store %[[X]], %[[V]][] : memref<f32>
// CHECK: memref.dealloc %[[S]]
// CHECK: memref.dealloc %[[V]]
// CHECK-NEXT: return
// CHECK-NOT: tile.
// CHECK-NOT: #tile
func.func @kernel(%a: memref<?x64xf32> {tile.dims = array<i64: 2, -1>}, %h: f16, %m: index, %e: f8E4M3FN) {
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx, %by) in (%c4, %m) threads(128) {
    tile.use_swizzle panel(2)
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    %v = tile.alloc_var init(%zero : f32) : memref<f32, #tile.local>
    %x = memref.load %a[%by, %bx] : memref<?x64xf32>
    memref.store %x, %s[%bx] : memref<64xf32, #tile.shared>
    memref.store %x, %v[] : memref<f32, #tile.local>
  }
  return
}

// -----

// Three dimensions: z outermost, x innermost; a tensor of two run-time
// extents has a stride computed from them.
// CHECK-LABEL: func.func @lib_grid3_(
// CHECK-SAME: %[[T:.*]]: memref<f16> {llvm.noalias}, %[[P:.*]]: index, %[[Q:.*]]: index)
// CHECK: %[[STRIDE:.*]] = arith.muli %c8{{.*}}, %[[Q]] : index
// CHECK: memref.reinterpret_cast %[[T]] to offset: [0], sizes: [%[[P]], %[[Q]], 8], strides: [%[[STRIDE]], 8, 1]
// CHECK: scf.for %[[Z:.*]] = %{{.*}} to %c3
// CHECK:   scf.for %[[Y:.*]] = %{{.*}} to %c2
// CHECK:     scf.for %[[X:.*]] = %{{.*}} to %[[P]]
// CHECK:       memref.load %{{.*}}[%[[X]], %[[Y]], %[[Z]]]
func.func @grid3(%t: memref<?x?x8xf16> {tile.dims = array<i64: 1, 2, -1>}, %p: index, %q: index) {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  tile.kernel blocks(%bx, %by, %bz) in (%p, %c2, %c3) threads(32) {
    %x = memref.load %t[%bx, %by, %bz] : memref<?x?x8xf16>
    memref.store %x, %t[%bx, %by, %bz] : memref<?x?x8xf16>
  }
  return
}
