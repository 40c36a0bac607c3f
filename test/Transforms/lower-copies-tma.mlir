// RUN: tilec-opt %s --split-input-file --tile-lower-copies | FileCheck %s

// A copy on a barrier becomes bulk tensor copies issued by the first
// thread: one per 64-column panel of the tile's layout, each a box of
// [32, 64] of a tensor map made at the kernel's start, at coordinates
// innermost first, the second panel 64 columns and 4096 bytes further.
// CHECK-LABEL: func.func @panels
// CHECK: tile.kernel
// CHECK-NEXT: %[[MAP:.*]] = tile.tensor_map %arg0 box [32, 64] swizzle(128) : memref<1024x1024xf16> -> !llvm.ptr
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK:   %[[BAR:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK:   %[[X:.*]] = arith.index_cast %[[COL:.*]] : index to i32
// CHECK:   %[[Y:.*]] = arith.index_cast %[[ROW:.*]] : index to i32
// CHECK:   %[[P0:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr<3>
// CHECK:   tile.tma_load %[[MAP]][%[[X]], %[[Y]]], %[[P0]], barrier %[[BAR]] : !llvm.ptr, !llvm.ptr<3>, !llvm.ptr<3>
// CHECK:   %[[X1:.*]] = arith.addi %[[X]], %c64_i32
// CHECK:   %[[A1:.*]] = arith.addi %{{.*}}, %c4096
// CHECK:   %[[I1:.*]] = arith.index_castui %[[A1]]
// CHECK:   %[[P1:.*]] = llvm.inttoptr %[[I1]]
// CHECK:   tile.tma_load %[[MAP]][%[[X1]], %[[Y]]], %[[P1]], barrier %[[BAR]]
// CHECK: }
// CHECK-NOT: tile.copy
#panels = #tile.shared_layout<[32, 128], (d0, d1) -> ((d1 floordiv 64) * 2048 + d0 * 64 + d1 mod 64), swizzle = <bits = 3, base = 3, shift = 3>>
func.func @panels(%b: memref<1024x1024xf16>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%k, %bx) in (%c32, %c32) threads(128) {
    %bars = tile.alloc_shared : memref<1xi64, #tile.shared>
    %s = tile.alloc_shared {layout = #panels} : memref<32x128xf16, #tile.shared>
    %row = arith.muli %k, %c32 : index
    %col = arith.muli %bx, %c128 : index
    %c0 = arith.constant 0 : index
    tile.copy async %b[%row, %col] [32, 128] to %s barrier(%bars[%c0] : memref<1xi64, #tile.shared>) : memref<1024x1024xf16>, memref<32x128xf16, #tile.shared>
  }
  return
}

// -----

// A tile without a swizzled layout (16-byte rows) is one unswizzled box;
// unit dimensions of the source region are boxes of 1.
// CHECK-LABEL: func.func @plain
// CHECK: tile.tensor_map %arg0 box [1, 64, 1, 8] swizzle(0) : memref<2x256x4x8xf16> -> !llvm.ptr
// CHECK-COUNT-1: tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %{{.*}}, barrier
// CHECK-NOT: tile.tma_load
func.func @plain(%q: memref<2x256x4x8xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %c0 = arith.constant 0 : index
    %bars = tile.alloc_shared : memref<1xi64, #tile.shared>
    %s = tile.alloc_shared : memref<64x8xf16, #tile.shared>
    %row = arith.muli %bx, %c64 : index
    tile.copy async %q[%c1, %row, %c0, 0] [1, 64, 1, 8] to %s barrier(%bars[%c0] : memref<1xi64, #tile.shared>) : memref<2x256x4x8xf16>, memref<64x8xf16, #tile.shared>
  }
  return
}
