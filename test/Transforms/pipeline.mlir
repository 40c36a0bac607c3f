// RUN: tilec-opt %s --split-input-file --tile-set-target=features=async_copy --tile-pipeline | FileCheck %s
// RUN: tilec-opt %s --split-input-file --tile-pipeline | FileCheck %s --check-prefix=SYNC
// RUN: tilec-opt %s --split-input-file --tile-set-target=features=async_copy,wgmma --tile-pipeline | FileCheck %s --check-prefix=FENCE

// Three stages: the shared tiles get three copies; the copies of the first
// two iterations are issued before the loop (each only if the loop runs
// that far), and every iteration waits for its own stage, synchronizes,
// issues the copy two iterations ahead, and computes on stage k % 3.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[AS:.*]] = tile.alloc_shared : memref<3x128x32xf16, #tile.shared>
// CHECK: %[[BS:.*]] = tile.alloc_shared : memref<3x32x128xf16, #tile.shared>
// CHECK: scf.if
// CHECK:   %[[A0:.*]] = memref.subview %[[AS]][%c0{{.*}}, 0, 0] [1, 128, 32] [1, 1, 1]
// CHECK:   tile.copy async %arg0[{{.*}}] [128, 32] to %[[A0]]
// CHECK:   tile.copy async %arg1[{{.*}}] [32, 128] to %{{.*}}
// CHECK: tile.async_commit_group
// CHECK: scf.if
// CHECK:   tile.copy async
// CHECK:   tile.copy async
// CHECK: tile.async_commit_group
// CHECK: tile.pipelined %[[K:.*]] = %c0 to %[[N:.*]] stages(3) {
// CHECK-NEXT: tile.async_wait_group 1
// CHECK-NEXT: gpu.barrier
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %c2
// CHECK: %[[INRANGE:.*]] = arith.cmpi slt, %[[AHEAD]], %[[N]]
// CHECK: scf.if %[[INRANGE]] {
// CHECK:   tile.copy async
// CHECK:   tile.copy async
// CHECK: tile.async_commit_group
// CHECK: %[[CUR:.*]] = arith.remui %{{.*}}, %c3
// CHECK: %[[A:.*]] = memref.subview %[[AS]][%[[CUR]], 0, 0] [1, 128, 32] [1, 1, 1] : memref<3x128x32xf16, #tile.shared> to memref<128x32xf16, strided<[32, 1], offset: ?>, #tile.shared>
// CHECK: %[[B:.*]] = memref.subview %[[BS]][%[[CUR]], 0, 0]
// CHECK: tile.gemm %[[A]], %[[B]], %{{.*}} :
// CHECK: }
// CHECK-NEXT: tile.async_wait_group 0
// For gemms on wgmma, which read shared memory through the async proxy,
// each thread fences its cp.async writes before the barrier.
// FENCE-LABEL: func.func @gemm
// FENCE: tile.pipelined
// FENCE-NEXT: tile.async_wait_group 1
// FENCE-NEXT: tile.fence_async_shared
// FENCE-NEXT: gpu.barrier
// Without asynchronous copies, the loop is left alone.
// SYNC-LABEL: func.func @gemm
// SYNC-NOT: async
// SYNC: tile.alloc_shared : memref<128x32xf16, #tile.shared>
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

// A copy whose buffer is also read after the loop stays where it is, and a
// loop with one stage is not pipelined.
// CHECK-LABEL: func.func @not_pipelined
// CHECK-NOT: {{ async[^_]}}
// CHECK-NOT: tile.async_
func.func @not_pipelined(%a: memref<1024xf32>, %out: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    %t = tile.alloc_shared : memref<64xf32, #tile.shared>
    tile.pipelined %k = %c0 to %n stages(2) {
      %o = arith.muli %k, %c64 : index
      tile.copy %a[%o] [64] to %s : memref<1024xf32>, memref<64xf32, #tile.shared>
    }
    tile.copy %s to %out : memref<64xf32, #tile.shared>, memref<64xf32>
    tile.pipelined %k = %c0 to %n stages(1) {
      %o = arith.muli %k, %c64 : index
      tile.copy %a[%o] [64] to %t : memref<1024xf32>, memref<64xf32, #tile.shared>
      tile.copy %t to %out : memref<64xf32, #tile.shared>, memref<64xf32>
    }
  }
  return
}

// -----

// The start/stop form: stages count iterations from the start, and the
// prologue issues the first iterations from there.
// CHECK-LABEL: func.func @start_stop
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %arg1, %arg2
// CHECK: scf.if %[[FIRST]]
// CHECK: tile.pipelined %[[K:.*]] = %arg1 to %arg2 stages(2) {
// CHECK-NEXT: tile.async_wait_group 0
// CHECK-NEXT: gpu.barrier
// CHECK: %[[ITER:.*]] = arith.subi %[[K]], %arg1
// CHECK: arith.remui %[[ITER]], %c2
func.func @start_stop(%a: memref<1024xf32>, %start: index, %stop: index) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %start to %stop stages(2) {
      %o = arith.muli %k, %c64 : index
      tile.copy %a[%o] [64] to %s : memref<1024xf32>, memref<64xf32, #tile.shared>
      tile.copy %s to %f : memref<64xf32, #tile.shared>, memref<64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A copy that is the body's first op (the loop computes nothing for its
// indices) gives way to its stage like any other.
// CHECK-LABEL: func.func @copy_first
// CHECK: %[[AS:.*]] = tile.alloc_shared : memref<3x1x1xf16, #tile.shared>
// CHECK: %[[BS:.*]] = tile.alloc_shared : memref<3x1x64xf16, #tile.shared>
// CHECK: tile.pipelined
// CHECK: tile.async_commit_group
// CHECK-NEXT: %[[CUR:.*]] = arith.remui %{{.*}}, %c3
// CHECK-NEXT: %[[A:.*]] = memref.subview %[[AS]][%[[CUR]], 0, 0] [1, 1, 1] [1, 1, 1]
// CHECK-NEXT: %[[B:.*]] = memref.subview %[[BS]][%[[CUR]], 0, 0] [1, 1, 64] [1, 1, 1]
// CHECK-NEXT: tile.gemm %[[A]], %[[B]], %{{.*}} :
// CHECK-NEXT: }
func.func @copy_first(%a: memref<64x64xf16>, %b: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c64) threads(128) {
    %as = tile.alloc_shared : memref<1x1xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<1x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<1x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c64 stages(3) {
      tile.copy %a[%by, %k] [1, 1] to %as : memref<64x64xf16>, memref<1x1xf16, #tile.shared>
      tile.copy %b[%k, 0] [1, 64] to %bs : memref<64x64xf16>, memref<1x64xf16, #tile.shared>
      tile.gemm %as, %bs, %acc : memref<1x1xf16, #tile.shared>, memref<1x64xf16, #tile.shared>, memref<1x64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A hand-written order and stage name the statements as written: the pass
// pipelines the loop on its own schedule and drops them, on every target,
// since the body no longer has those statements.
// CHECK-LABEL: func.func @hand_schedule
// CHECK: tile.pipelined %{{.*}} = %c0 to %c4 stages(2) {
// CHECK: tile.copy async
// SYNC-LABEL: func.func @hand_schedule
// SYNC: tile.pipelined %{{.*}} = %c0 to %c4 stages(2) {
// SYNC-NOT: async
func.func @hand_schedule(%a: memref<128x64xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<64x16xi8, #tile.shared>
    %acc = tile.alloc_fragment : memref<64x16xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c4 stages(2) order [1, 0] stage [0, 1] {
      %o = arith.muli %k, %c16 : index
      tile.copy %a[0, %o] [64, 16] to %s : memref<128x64xi8>, memref<64x16xi8, #tile.shared>
      tile.parallel (%i, %j) in (64, 16) {
        %x = memref.load %acc[%i, %j] : memref<64x16xf32, #tile.fragment>
        %y = memref.load %s[%i, %j] : memref<64x16xi8, #tile.shared>
        %z = arith.sitofp %y : i8 to f32
        %w = arith.addf %x, %z : f32
        memref.store %w, %acc[%i, %j] : memref<64x16xf32, #tile.fragment>
      }
    }
  }
  return
}
