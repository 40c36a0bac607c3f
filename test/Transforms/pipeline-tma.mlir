// RUN: tilec-opt %s --split-input-file --tile-set-target=features=async_copy,tma --tile-pipeline | FileCheck %s

// With the bulk copy engine: the stages get TMA's panelled layouts (A's
// 64-byte rows one panel with the 64-byte swizzle, B's 256-byte rows two
// 128-byte panels), one mbarrier per stage that the first thread
// initializes between two block barriers, and each stage's copies are armed
// with their 16 KiB and issued on its barrier. Every iteration waits for
// its stage's phase, computes, synchronizes the block and issues the copies
// two iterations ahead into the stage the previous iteration read.
// CHECK-DAG: #[[ALAYOUT:.*]] = #tile.shared_layout<[3, 128, 32], (d0, d1, d2) -> (d2 + d1 * 32 + d0 * 4096), swizzle = <bits = 2, base = 3, shift = 3>>
// CHECK-DAG: #[[BLAYOUT:.*]] = #tile.shared_layout<[3, 32, 128], (d0, d1, d2) -> (d0 * 4096 + (d2 floordiv 64) * 2048 + d1 * 64 + d2 mod 64), swizzle = <bits = 3, base = 3, shift = 3>>
// CHECK-LABEL: func.func @gemm
// CHECK: %[[AS:.*]] = tile.alloc_shared {layout = #[[ALAYOUT]]} : memref<3x128x32xf16, #tile.shared>
// CHECK: %[[BS:.*]] = tile.alloc_shared {layout = #[[BLAYOUT]]} : memref<3x32x128xf16, #tile.shared>
// CHECK: %[[BARS:.*]] = tile.alloc_shared : memref<3xi64, #tile.shared>
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 128
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0
// CHECK: gpu.barrier
// CHECK: scf.if %[[FIRST]] {
// CHECK-COUNT-3: tile.mbarrier_init %[[BARS]][%{{.*}}], 1 : memref<3xi64, #tile.shared>
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK:   scf.if %[[FIRST]] {
// CHECK:     tile.mbarrier_arrive %[[BARS]][%{{.*}}] expect_bytes 16384 : memref<3xi64, #tile.shared>
// CHECK:   tile.copy async %arg0[{{.*}}] [128, 32] to %{{.*}} barrier(%[[BARS]][%{{.*}}] : memref<3xi64, #tile.shared>)
// CHECK:   tile.copy async %arg1[{{.*}}] [32, 128] to %{{.*}} barrier(%[[BARS]][%{{.*}}] : memref<3xi64, #tile.shared>)
// CHECK: scf.if
// CHECK:   tile.mbarrier_arrive {{.*}} expect_bytes
// CHECK-NOT: tile.async_
// CHECK: tile.pipelined %[[K:.*]] = %c0 to %[[N:.*]] stages(3) {
// CHECK:   %[[IT:.*]] = arith.subi %[[K]], %c0
// CHECK:   %[[AHEAD:.*]] = arith.addi %[[K]], %c2
// CHECK:   %[[CUR:.*]] = arith.remui %[[IT]], %c3
// CHECK:   %[[ROUND:.*]] = arith.divui %[[IT]], %c3
// CHECK:   tile.mbarrier_wait %[[BARS]][%[[CUR]]] phase %[[ROUND]] : memref<3xi64, #tile.shared>
// CHECK:   %[[A:.*]] = memref.subview %[[AS]][%[[CUR]], 0, 0]
// CHECK:   tile.gemm %[[A]],
// CHECK:   gpu.barrier
// CHECK:   %[[INRANGE:.*]] = arith.cmpi slt, %[[AHEAD]], %[[N]]
// CHECK:   scf.if %[[INRANGE]] {
// CHECK:     tile.mbarrier_arrive {{.*}} expect_bytes
// CHECK:     tile.copy async
// CHECK:     tile.copy async
// CHECK:   }
// CHECK-NEXT: }
// CHECK-NOT: tile.async_
func.func @gemm(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    %as = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %n stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %a[%bx, %kk] [128, 32] to %as : memref<1024x1024xf16>, memref<128x32xf16, #tile.shared>
      tile.copy %b[%kk, %by] [32, 128] to %bs : memref<1024x1024xf16>, memref<32x128xf16, #tile.shared>
      tile.gemm %as, %bs, %acc : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
    }
  }
  return
}

// -----

// Rows of 100 halves are 200 bytes, not a multiple of 16: TMA cannot
// describe the tensor, and the loop keeps cp.async.
// CHECK-LABEL: func.func @unaligned_rows
// CHECK-NOT: mbarrier
// CHECK: tile.copy async %arg0{{.*}} to %{{[^ ]*}} :
// CHECK: tile.async_commit_group
// CHECK-NOT: mbarrier
func.func @unaligned_rows(%a: memref<1000x100xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c8) threads(128) {
    %as = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x32xf16, #tile.fragment>
    tile.pipelined %k = %c0 to %n stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %a[%bx, %kk] [128, 32] to %as : memref<1000x100xf16>, memref<128x32xf16, #tile.shared>
      tile.copy %as to %acc : memref<128x32xf16, #tile.shared>, memref<128x32xf16, #tile.fragment>
    }
  }
  return
}

// -----

// A dynamic inner extent: the row stride, 2 bytes times it, is not known to
// be a multiple of 16; and a layout annotated for the tile is TMA's to keep
// either: cp.async for both.
// CHECK-LABEL: func.func @dynamic_and_annotated
// CHECK-NOT: mbarrier
// CHECK: tile.async_commit_group
// CHECK-LABEL: func.func @annotated
// CHECK-NOT: mbarrier
// CHECK: tile.async_commit_group
func.func @dynamic_and_annotated(%a: memref<1024x?xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c8) threads(128) {
    %as = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x32xf16, #tile.fragment>
    tile.pipelined %k = %c0 to %n stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %a[%bx, %kk] [128, 32] to %as : memref<1024x?xf16>, memref<128x32xf16, #tile.shared>
      tile.copy %as to %acc : memref<128x32xf16, #tile.shared>, memref<128x32xf16, #tile.fragment>
    }
  }
  return
}
func.func @annotated(%a: memref<1024x1024xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c8) threads(128) {
    %as = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    tile.annotate_layout #tile.shared_layout<[128, 32], (d0, d1) -> (d0 * 32 + d1)> on %as : memref<128x32xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x32xf16, #tile.fragment>
    tile.pipelined %k = %c0 to %n stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %a[%bx, %kk] [128, 32] to %as : memref<1024x1024xf16>, memref<128x32xf16, #tile.shared>
      tile.copy %as to %acc : memref<128x32xf16, #tile.shared>, memref<128x32xf16, #tile.fragment>
    }
  }
  return
}

// -----

// Run-time extents outside the innermost dimension (FlashAttention's
// sequence length in [batch, seq, heads, dim]) leave every stride a
// multiple of 16 bytes whatever their values: TMA.
// CHECK-LABEL: func.func @dynamic_outer
// CHECK: tile.mbarrier_arrive %{{.*}} expect_bytes 8192
// CHECK: tile.copy async %arg0[0, %{{.*}}, %{{.*}}, 0] [1, 64, 1, 64] to %{{.*}} barrier(
// CHECK-NOT: tile.async_commit_group
func.func @dynamic_outer(%a: memref<4x?x32x64xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c8) threads(128) {
    %as = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    tile.pipelined %k = %c0 to %n stages(2) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %a[0, %kk, %bx, 0] [1, 64, 1, 64] to %as : memref<4x?x32x64xf16>, memref<64x64xf16, #tile.shared>
      tile.copy %as to %acc : memref<64x64xf16, #tile.shared>, memref<64x64xf16, #tile.fragment>
    }
  }
  return
}

// -----

// A copy that is the body's first op (the loop computes nothing for its
// indices) gives way to its stage like any other.
// CHECK-LABEL: func.func @copy_first
// CHECK: tile.pipelined
// CHECK: tile.mbarrier_wait
// CHECK-NEXT: %[[A:.*]] = memref.subview %{{.*}}[%[[CUR:.*]], 0, 0] [1, 64, 64] [1, 1, 1]
// CHECK-NEXT: %[[B:.*]] = memref.subview %{{.*}}[%[[CUR]], 0, 0] [1, 64, 64] [1, 1, 1]
// CHECK-NEXT: tile.gemm %[[A]], %[[B]], %{{.*}} :
// CHECK-NEXT: gpu.barrier
// CHECK: tile.copy async %arg0[%{{.*}}, %{{.*}}] [64, 64] to %{{.*}} barrier(
// CHECK: tile.copy async %arg1[%{{.*}}, %{{.*}}] [64, 64] to %{{.*}} barrier(
func.func @copy_first(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    %as = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c16 stages(3) {
      tile.copy %a[%bx, %k] [64, 64] to %as : memref<1024x1024xf16>, memref<64x64xf16, #tile.shared>
      tile.copy %b[%k, %by] [64, 64] to %bs : memref<1024x1024xf16>, memref<64x64xf16, #tile.shared>
      tile.gemm %as, %bs, %acc : memref<64x64xf16, #tile.shared>, memref<64x64xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
    }
  }
  return
}
