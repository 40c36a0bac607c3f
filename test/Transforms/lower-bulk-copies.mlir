// RUN: tilec-opt %s --split-input-file --verify-diagnostics --tile-lower-bulk-copies | FileCheck %s

// The first thread stores each 64-column panel of the tile as a box of
// [128, 64] of a tensor map of C made at the kernel's start: coordinates
// innermost first, the second panel 64 columns and 16384 bytes further.
// It commits the stores and waits until they have read the tile.
// CHECK-LABEL: func.func @panels
// CHECK: tile.kernel
// CHECK-NEXT: %[[MAP:.*]] = tile.tensor_map %arg0 box [128, 64] swizzle(128) : memref<1024x1000xf16> -> !llvm.ptr
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK:   %[[X:.*]] = arith.index_cast %[[COL:.*]] : index to i32
// CHECK:   %[[Y:.*]] = arith.index_cast %[[ROW:.*]] : index to i32
// CHECK:   %[[P0:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK:   tile.tma_store %[[MAP]][%[[X]], %[[Y]]], %[[P0]] : !llvm.ptr, !llvm.ptr<3>
// CHECK:   %[[X1:.*]] = arith.addi %[[X]], %c64_i32
// CHECK:   %[[A1:.*]] = arith.addi %{{.*}}, %c16384
// CHECK:   %[[I1:.*]] = arith.index_castui %[[A1]]
// CHECK:   %[[P1:.*]] = llvm.inttoptr %[[I1]]
// CHECK:   tile.tma_store %[[MAP]][%[[X1]], %[[Y]]], %[[P1]]
// CHECK:   tile.bulk_commit_group
// CHECK:   tile.bulk_wait_group 0 read
// CHECK: }
// CHECK-NOT: tile.copy
#panels = #tile.shared_layout<[128, 128], (d0, d1) -> ((d1 floordiv 64) * 8192 + d0 * 64 + d1 mod 64), swizzle = <bits = 3, base = 3, shift = 3>>
func.func @panels(%c: memref<1024x1000xf16>) {
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    %cs = tile.alloc_shared {layout = #panels} : memref<128x128xf16, #tile.shared>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy bulk %cs to %c[%row, %col] [128, 128] : memref<128x128xf16, #tile.shared>, memref<1024x1000xf16>
  }
  return
}

// -----

// An unswizzled tile is one box; unit dimensions are boxes of 1.
// CHECK-LABEL: func.func @plain
// CHECK: tile.tensor_map %arg0 box [1, 64, 1, 8] swizzle(0) : memref<2x256x4x8xf16> -> !llvm.ptr
// CHECK-COUNT-1: tile.tma_store %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}
// CHECK-NOT: tile.tma_store
func.func @plain(%o: memref<2x256x4x8xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<64x8xf16, #tile.shared>
    %row = arith.muli %bx, %c64 : index
    tile.copy bulk %s to %o[1, %row, 2, 0] [1, 64, 1, 8] : memref<64x8xf16, #tile.shared>, memref<2x256x4x8xf16>
  }
  return
}

// -----

#rows = #tile.shared_layout<[64, 64], (d0, d1) -> (d0 * 64 + d1), swizzle = <bits = 3, base = 3, shift = 3>>
func.func @not_panels(%c: memref<1024x64xf16>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared {layout = #rows} : memref<64x64xf16, #tile.shared>
    // expected-error@+1 {{'tile.copy' op is bulk but does not read a 2-D shared tile in a layout TMA reads}}
    tile.copy bulk %s to %c[0, 0] [64, 64] : memref<64x64xf16, #tile.shared>, memref<1024x64xf16>
  }
  return
}
