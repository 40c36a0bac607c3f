// RUN: tilec-opt %s --split-input-file --tile-lower-copies | FileCheck %s

// A copy from a global tensor into shared memory runs over the tile. Rows can
// run past the 100-row tensor, so reads are checked and give zero outside;
// the 64 columns always fit and are not checked.
// CHECK-LABEL: func.func @tail_rows
// CHECK: tile.kernel blocks(%[[BX:.*]]) in
// CHECK: %[[ROW0:.*]] = arith.muli %[[BX]]
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 64) {
// CHECK:   %[[ROW:.*]] = arith.addi %[[ROW0]], %[[I]] : index
// CHECK:   %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %c100
// CHECK-NOT: arith.cmpi
// CHECK:   %[[V:.*]] = scf.if %[[IN]] -> (f16) {
// CHECK:     memref.load %arg0[%[[ROW]], %[[J]]] : memref<100x64xf16>
// CHECK:   } else {
// CHECK:     %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK:     scf.yield %[[ZERO]]
// CHECK:   memref.store %[[V]], %{{.*}}[%[[I]], %[[J]]] : memref<32x64xf16, #tile.shared>
// The copy back writes only inside the tensor.
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 64) {
// CHECK:   %[[ROW:.*]] = arith.addi %[[ROW0]], %[[I]] : index
// CHECK:   %[[V:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<32x64xf16, #tile.shared>
// CHECK:   %[[IN:.*]] = arith.cmpi ult, %[[ROW]], %c100
// CHECK:   scf.if %[[IN]] {
// CHECK:     memref.store %[[V]], %arg1[%[[ROW]], %[[J]]] : memref<100x64xf16>
func.func @tail_rows(%arg0: memref<100x64xf16>, %arg1: memref<100x64xf16>) {
  %c32 = arith.constant 32 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c4) threads(128) {
    %s = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %row = arith.muli %bx, %c32 : index
    tile.copy %arg0[%row, 0] [32, 64] to %s : memref<100x64xf16>, memref<32x64xf16, #tile.shared>
    tile.copy %s to %arg1[%row, 0] [32, 64] : memref<32x64xf16, #tile.shared>, memref<100x64xf16>
  }
  return
}

// -----

// Between tiles no check is needed; the element type converts on the way.
// A fill and a clear are stores of one value.
// CHECK-LABEL: func.func @tile_to_tile
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 64) {
// CHECK-NOT: scf.if
// CHECK:   %[[V:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<32x64xf16, #tile.shared>
// CHECK:   %[[W:.*]] = arith.extf %[[V]] : f16 to f32
// CHECK:   memref.store %[[W]], %{{.*}}[%[[I]], %[[J]]] : memref<32x64xf32, #tile.fragment>
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 64) {
// CHECK:   memref.store %arg0, %{{.*}}[%[[I]], %[[J]]] : memref<32x64xf32, #tile.fragment>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 64) {
// CHECK:   memref.store %[[ZERO]], %{{.*}}[%[[I]], %[[J]]] : memref<32x64xf32, #tile.fragment>
// CHECK-NOT: tile.copy
// CHECK-NOT: tile.fill
// CHECK-NOT: tile.clear
func.func @tile_to_tile(%arg0: f32) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %f = tile.alloc_fragment : memref<32x64xf32, #tile.fragment>
    tile.copy %s to %f : memref<32x64xf16, #tile.shared>, memref<32x64xf32, #tile.fragment>
    tile.fill %f, %arg0 : memref<32x64xf32, #tile.fragment>, f32
    tile.clear %f : memref<32x64xf32, #tile.fragment>
  }
  return
}

// -----

// Unit dimensions of a region drop out of the loop: Q[b, s0:s0+64, h, :]
// copies into a 64x64 tile. A dynamic extent is checked against memref.dim.
// CHECK-LABEL: func.func @unit_dims
// CHECK: tile.kernel blocks(%[[BX:.*]], %[[H:.*]]) in
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (64, 64) {
// CHECK:   %[[S:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK:   %[[B:.*]] = memref.dim %arg0, %c0
// CHECK:   arith.cmpi ult, %[[S]], %[[B]] : index
// CHECK:   memref.load %arg0[%[[S]], %{{.*}}, %[[H]], %[[J]]] : memref<?x4x5x64xf16>
// CHECK:   memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<64x64xf16, #tile.shared>
func.func @unit_dims(%arg0: memref<?x4x5x64xf16>, %arg1: index) {
  %c64 = arith.constant 64 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  tile.kernel blocks(%bx, %h) in (%c2, %c5) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    %s0 = arith.muli %bx, %c64 : index
    tile.copy %arg0[%s0, %c2, %h, 0] [64, 1, 1, 64] to %s : memref<?x4x5x64xf16>, memref<64x64xf16, #tile.shared>
  }
  return
}

// -----

// A region with a unit dimension in the middle, as dQ[b, i:i + 16, h, :]
// gives: the tile's rows and columns land on its dimensions 1 and 3.
// CHECK-LABEL: func.func @atomic_region
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (16, 8) {
// CHECK:   %[[V:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<16x8xf32, #tile.shared>
// CHECK:   %[[ROW:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK:   scf.if
// CHECK:     memref.atomic_rmw addf %[[V]], %arg0[%{{.*}}, %[[ROW]], %{{.*}}, %[[J]]]
func.func @atomic_region(%arg0: memref<2x40x4x8xf32>) {
  %c16 = arith.constant 16 : index
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  tile.kernel blocks(%bx, %by) in (%c3, %c3) threads(64) {
    %s = tile.alloc_shared : memref<16x8xf32, #tile.shared>
    %r = arith.muli %by, %c16 : index
    tile.atomic addf %s to %arg0[%bx, %r, %bx, %c0] {extents = array<i64: 1, 16, 1, 8>} : memref<16x8xf32, #tile.shared> to memref<2x40x4x8xf32>
  }
  return
}

// -----

// An atomic add of a tile is an atomic per element, skipped outside the
// destination; a scalar atomic add is one atomic.
// CHECK-LABEL: func.func @atomics
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (16, 16) {
// CHECK:   %[[V:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<16x16xf32, #tile.fragment>
// CHECK:   %[[ROW:.*]] = arith.addi %{{.*}}, %[[I]] : index
// CHECK:   %[[COL:.*]] = arith.addi %{{.*}}, %[[J]] : index
// CHECK:   scf.if
// CHECK:     memref.atomic_rmw addf %[[V]], %arg0[%[[ROW]], %[[COL]]]
// CHECK: memref.atomic_rmw addi %arg2, %arg1[%{{.*}}]
// The value before the add comes out of the guard; zero outside.
// CHECK: %[[PREV:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK-NEXT: %[[OLD:.*]] = memref.atomic_rmw maxs %arg2, %arg1[%{{.*}}]
// CHECK-NEXT: scf.yield %[[OLD]] : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: scf.yield %[[ZERO]] : i32
// CHECK: memref.atomic_rmw addi %[[PREV]], %arg1
func.func @atomics(%arg0: memref<40x40xf32>, %arg1: memref<8xi32>, %arg2: i32) {
  %c16 = arith.constant 16 : index
  %c3 = arith.constant 3 : index
  tile.kernel blocks(%bx, %by) in (%c3, %c3) threads(64) {
    %f = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    %r = arith.muli %by, %c16 : index
    %c = arith.muli %bx, %c16 : index
    tile.atomic addf %f to %arg0[%r, %c] : memref<16x16xf32, #tile.fragment> to memref<40x40xf32>
    tile.atomic addi %arg2 to %arg1[%bx] : i32 to memref<8xi32>
    %i = arith.addi %bx, %c16 : index
    %prev = tile.atomic maxs %arg2 to %arg1[%i] : i32 to memref<8xi32> -> i32
    tile.atomic addi %prev to %arg1[%bx] : i32 to memref<8xi32>
  }
  return
}
