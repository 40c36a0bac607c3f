// RUN: tilec-opt %s --split-input-file --tile-swizzle-shared | FileCheck %s

// A tile that ldmatrix reads, with 64-byte rows, gets the 2-bit swizzle:
// the chunk index XORed with bits 6-7 of the offset. Every access is
// rewritten, through the pipeline stage and the address-space cast: the
// asynchronous copy that fills it and the ldmatrix that reads it. A tile nobody
// reads with ldmatrix keeps its layout.
// CHECK-DAG: #[[SWIZZLED:.*]] = #tile.shared_layout<[2, 64, 32], (d0, d1, d2) -> (d2 + d1 * 32 + d0 * 2048), swizzle = <bits = 2, base = 3, shift = 3>>
// CHECK-LABEL: func.func @stages
// CHECK: %[[S:.*]] = tile.alloc_shared {layout = #[[SWIZZLED]]} : memref<2x64x32xf16, #tile.shared>
// CHECK: %[[PLAIN:.*]] = tile.alloc_shared : memref<64x32xf16, #tile.shared>
// CHECK: %[[STAGE:.*]] = memref.subview %[[S]]
// CHECK: %[[VIEW:.*]] = memref.memory_space_cast %[[STAGE]]
// CHECK: %[[O1:.*]] = arith.addi %{{.*}}, %{{.*}} overflow<nsw, nuw>
// CHECK: %[[H1:.*]] = arith.shrui %[[O1]], %c3
// CHECK: %[[M1:.*]] = arith.andi %[[H1]], %c24
// CHECK: %[[X1:.*]] = arith.xori %[[O1]], %[[M1]]
// CHECK: %[[R1:.*]] = arith.shrui %[[X1]], %c5
// CHECK: %[[C1:.*]] = arith.andi %[[X1]], %c31
// CHECK: tile.async_copy %{{.*}}, %[[STAGE]][%[[R1]], %[[C1]]], 8
// CHECK: arith.xori
// CHECK: nvgpu.ldmatrix %[[VIEW]]
// CHECK: memref.store %{{.*}}, %[[PLAIN]][%{{.*}}, %{{.*}}] : memref<64x32xf16, #tile.shared>
// CHECK-NOT: arith.xori
func.func @stages(%a: memref<64x32xf16>, %i: index, %j: index, %stage: index, %x: f16) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %s = tile.alloc_shared : memref<2x64x32xf16, #tile.shared>
    %plain = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %view = memref.subview %s[%stage, 0, 0] [1, 64, 32] [1, 1, 1] : memref<2x64x32xf16, #tile.shared> to memref<64x32xf16, strided<[32, 1], offset: ?>, #tile.shared>
    %cast = memref.memory_space_cast %view : memref<64x32xf16, strided<[32, 1], offset: ?>, #tile.shared> to memref<64x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>>
    tile.async_copy %a[%i, %j], %view[%i, %j], 8 : memref<64x32xf16> to memref<64x32xf16, strided<[32, 1], offset: ?>, #tile.shared>
    %m = nvgpu.ldmatrix %cast[%i, %j] {numTiles = 4 : i32, transpose = false} : memref<64x32xf16, strided<[32, 1], offset: ?>, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %e = vector.extract %m[0, 0] : f16 from vector<4x2xf16>
    memref.store %e, %a[%i, %j] : memref<64x32xf16>
    memref.store %x, %plain[%i, %j] : memref<64x32xf16, #tile.shared>
  }
  return
}

// -----

// Rows of 128 bytes or more XOR their chunk index with the row index: a
// 64x128 half tile shifts by log2(128) - 3 = 4.
// CHECK-DAG: #[[WIDE:.*]] = #tile.shared_layout<[32, 128], {{.*}}, swizzle = <bits = 3, base = 3, shift = 4>>
// CHECK-LABEL: func.func @wide_rows
// CHECK: tile.alloc_shared {layout = #[[WIDE]]}
func.func @wide_rows(%i: index, %j: index, %out: memref<8xf16>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %s = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %cast = memref.memory_space_cast %s : memref<32x128xf16, #tile.shared> to memref<32x128xf16, #gpu.address_space<workgroup>>
    %m = nvgpu.ldmatrix %cast[%i, %j] {numTiles = 4 : i32, transpose = true} : memref<32x128xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %e = vector.extract %m[0, 0] : f16 from vector<4x2xf16>
    memref.store %e, %out[%c0] : memref<8xf16>
  }
  return
}

// -----

// A view that cuts the tile is not understood: the buffer is left alone.
// CHECK-LABEL: func.func @cut
// CHECK: tile.alloc_shared : memref<64x64xf16, #tile.shared>
// CHECK-NOT: arith.xori
func.func @cut(%i: index, %j: index, %out: memref<8xf16>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    %half = memref.subview %s[0, 32] [64, 32] [1, 1] : memref<64x64xf16, #tile.shared> to memref<64x32xf16, strided<[64, 1], offset: 32>, #tile.shared>
    %cast = memref.memory_space_cast %half : memref<64x32xf16, strided<[64, 1], offset: 32>, #tile.shared> to memref<64x32xf16, strided<[64, 1], offset: 32>, #gpu.address_space<workgroup>>
    %m = nvgpu.ldmatrix %cast[%i, %j] {numTiles = 4 : i32, transpose = false} : memref<64x32xf16, strided<[64, 1], offset: 32>, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    %e = vector.extract %m[0, 0] : f16 from vector<4x2xf16>
    memref.store %e, %out[%c0] : memref<8xf16>
  }
  return
}

// -----

// A tile in TMA's panels: 128 columns in two panels of 64, each 32 rows of
// 128 bytes. An access at (row, col) goes to offset
// (col / 64) * 2048 + row * 64 + col % 64, swizzled, read back as a
// (row, column) of the 128-wide buffer. The bulk copy's address users
// follow the layout themselves and are left alone.
// CHECK-LABEL: func.func @panels
// CHECK: %[[PANEL:.*]] = arith.divui %arg2, %c64
// CHECK: %[[IN:.*]] = arith.remui %arg2, %c64
// CHECK: %[[R:.*]] = arith.muli %arg1, %c64
// CHECK: %[[RI:.*]] = arith.addi %[[R]], %[[IN]]
// CHECK: %[[P:.*]] = arith.muli %[[PANEL]], %c2048
// CHECK: %[[OFF:.*]] = arith.addi %[[P]], %[[RI]]
// CHECK: %[[SRC:.*]] = arith.shrui %[[OFF]], %c3
// CHECK: %[[BITS:.*]] = arith.andi %[[SRC]], %c56
// CHECK: %[[SW:.*]] = arith.xori %[[OFF]], %[[BITS]]
// CHECK: %[[NROW:.*]] = arith.shrui %[[SW]], %c7
// CHECK: %[[NCOL:.*]] = arith.andi %[[SW]], %c127
// CHECK: memref.load %{{.*}}[%[[NROW]], %[[NCOL]]]
// CHECK: memref.extract_strided_metadata %{{.*}} : memref<32x128xf16, #tile.shared>
#panels = #tile.shared_layout<[32, 128], (d0, d1) -> ((d1 floordiv 64) * 2048 + d0 * 64 + d1 mod 64), swizzle = <bits = 3, base = 3, shift = 3>>
func.func @panels(%out: memref<32x128xf16>, %row: index, %col: index) -> index {
  %c1 = arith.constant 1 : index
  %addr = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared {layout = #panels} : memref<32x128xf16, #tile.shared>
    %v = memref.load %s[%row, %col] : memref<32x128xf16, #tile.shared>
    memref.store %v, %out[%row, %col] : memref<32x128xf16>
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %s : memref<32x128xf16, #tile.shared> -> memref<f16, #tile.shared>, index, index, index, index, index
  }
  return %addr : index
}
