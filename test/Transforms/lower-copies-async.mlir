// RUN: tilec-opt %s --split-input-file --tile-lower-copies | FileCheck %s

// An async copy becomes tile.async_copy (cp.async) of 16-byte chunks (8 halves) in a loop
// over the tile's chunks whose layout puts consecutive chunks on
// consecutive threads. Rows past the 100-row tensor read nothing and are
// zero-filled: their source is clamped to the origin and no element is
// read.
// CHECK-DAG: #[[CHUNKS:.*]] = #tile.fragment_layout<[64, 4], threads = 128, slots = 2, (d0, d1) -> ((d0 mod 32) * 4 + d1 mod 4,
// CHECK-LABEL: func.func @chunks
// CHECK: %[[DST:.*]] = tile.alloc_shared
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (64, 4) layout #[[CHUNKS]]
// CHECK:   %[[COL:.*]] = arith.muli %[[J]], %c8
// CHECK:   %[[ROW:.*]] = arith.addi %{{.*}}, %[[I]]
// CHECK:   %[[SCOL:.*]] = arith.addi %{{.*}}, %[[COL]]
// CHECK:   %[[ROWIN:.*]] = arith.cmpi ult, %[[ROW]], %c100
// CHECK:   %[[COLIN:.*]] = arith.cmpi ult, %[[SCOL]], %c64
// CHECK:   %[[IN:.*]] = arith.andi %[[ROWIN]], %[[COLIN]]
// CHECK:   %[[SROW:.*]] = arith.select %[[IN]], %[[ROW]], %c0
// CHECK:   %[[COUNT:.*]] = arith.select %[[IN]], %c8{{.*}}, %c0
// CHECK:   tile.async_copy %arg0[%[[SROW]], %{{.*}}], %[[DST]][%[[I]], %[[COL]]], 8 source_elements %[[COUNT]] : memref<100x64xf16> to memref<64x32xf16, #tile.shared>
// CHECK-NOT: tile.copy
func.func @chunks(%a: memref<100x64xf16>) {
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx, %k) in (%c2, %c2) threads(128) {
    %s = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %row = arith.muli %bx, %c64 : index
    %col = arith.muli %k, %c32 : index
    tile.copy async %a[%row, %col] [64, 32] to %s : memref<100x64xf16>, memref<64x32xf16, #tile.shared>
  }
  return
}

// -----

// Rows of 100 halves are 8-byte aligned only: chunks of 4.
// CHECK-LABEL: func.func @narrow
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (32, 8)
// CHECK: tile.async_copy {{.*}}, 4 source_elements %{{.*}} : memref<32x100xf16> to
func.func @narrow(%a: memref<32x100xf16>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%k) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<32x32xf16, #tile.shared>
    %col = arith.muli %k, %c32 : index
    tile.copy async %a[0, %col] [32, 32] to %s : memref<32x100xf16>, memref<32x32xf16, #tile.shared>
  }
  return
}

// -----

// Converting elements, or an offset not known to be a multiple of a chunk,
// copies synchronously.
// CHECK-LABEL: func.func @synchronous
// CHECK-NOT: tile.async_copy
// CHECK: arith.extf
// CHECK-NOT: tile.async_copy
func.func @synchronous(%a: memref<64x64xf16>, %o: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%k) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<32x32xf32, #tile.shared>
    %t = tile.alloc_shared : memref<32x32xf16, #tile.shared>
    tile.copy async %a[0, 0] [32, 32] to %s : memref<64x64xf16>, memref<32x32xf32, #tile.shared>
    tile.copy async %a[0, %o] [32, 32] to %t : memref<64x64xf16>, memref<32x32xf16, #tile.shared>
  }
  return
}
