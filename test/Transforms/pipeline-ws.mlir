// RUN: tilec-opt %s --split-input-file --tile-set-target=features=async_copy,tma,warp_specialization --tile-pipeline | FileCheck %s
// RUN: tilec-opt %s --split-input-file --tile-set-target=features=async_copy,tma,warp_specialization --tile-pipeline --tile-lower-copies | FileCheck %s --check-prefix=LOWERED

// Two consumer warpgroups: the loop splits over a producer warpgroup. All
// 384 threads initialize (thread 0) a full barrier per stage for one
// arrival and an empty one for the 256 consumers. The producer runs
// through the iterations: from the second round on it waits for the
// stage's release of the round before, then arms the full barrier with the
// stage's 48 KiB and issues its copies. The consumers clear the
// accumulator, then per iteration wait for the full stage, compute and
// release it; the store of the result follows the loop, on the consumers.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[FULL:.*]] = tile.alloc_shared : memref<3xi64, #tile.shared>
// CHECK: %[[EMPTY:.*]] = tile.alloc_shared : memref<3xi64, #tile.shared>
// CHECK: gpu.thread_id  x upper_bound 384
// CHECK: gpu.barrier
// CHECK-COUNT-3: tile.mbarrier_init %[[EMPTY]][%{{.*}}], 256
// CHECK: gpu.barrier
// CHECK-NEXT: tile.warp_specialize producer {
// CHECK:        scf.for %[[K:.*]] = %c0 to %arg3 step %c1 {
// CHECK:          %[[REUSE:.*]] = arith.cmpi uge, %[[IT:.*]], %c3
// CHECK:          scf.if %[[REUSE]] {
// CHECK:            %[[BEFORE:.*]] = arith.subi %{{.*}}, %c1
// CHECK:            tile.mbarrier_wait %[[EMPTY]][%{{.*}}] phase %[[BEFORE]]
// CHECK:          }
// CHECK:          tile.mbarrier_arrive %[[FULL]][%{{.*}}] expect_bytes 49152
// CHECK:          tile.copy async %arg0{{.*}} barrier(%[[FULL]][%{{.*}}] : memref<3xi64, #tile.shared>)
// CHECK:          tile.copy async %arg1{{.*}} barrier(%[[FULL]][%{{.*}}] : memref<3xi64, #tile.shared>)
// CHECK:        }
// CHECK-NEXT: } consumer {
// CHECK-NEXT:   tile.clear
// CHECK:        tile.pipelined
// CHECK:          tile.mbarrier_wait %[[FULL]]
// CHECK:          tile.gemm
// CHECK-NOT:      gpu.barrier
// CHECK:          tile.mbarrier_arrive %[[EMPTY]][%{{.*}}] : memref<3xi64, #tile.shared>
// CHECK-NEXT:   }
// CHECK:        tile.copy %{{.*}} to %arg2
// CHECK-NEXT: }
// CHECK-NOT: gpu.barrier
// The producer's copies are issued as they are: its code runs on one
// thread already.
// LOWERED-LABEL: func.func @gemm
// LOWERED: tile.warp_specialize producer {
// LOWERED: tile.mbarrier_arrive {{.*}} expect_bytes
// LOWERED-NEXT: memref.subview
// LOWERED-NOT: arith.cmpi eq
// LOWERED: tile.tma_load
// LOWERED: } consumer {
func.func @gemm(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %c: memref<1024x1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(256) {
    %as = tile.alloc_shared : memref<128x64xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<64x256xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    %row = arith.muli %by, %c64 : index
    tile.clear %acc : memref<128x256xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %n stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %a[%row, %kk] [128, 64] to %as : memref<1024x1024xf16>, memref<128x64xf16, #tile.shared>
      tile.copy %b[%kk, %bx] [64, 256] to %bs : memref<1024x1024xf16>, memref<64x256xf16, #tile.shared>
      tile.gemm %as, %bs, %acc : memref<128x64xf16, #tile.shared>, memref<64x256xf16, #tile.shared>, memref<128x256xf32, #tile.fragment>
    }
    tile.copy %acc to %c[%row, %bx] [128, 256] : memref<128x256xf32, #tile.fragment>, memref<1024x1024xf32>
  }
  return
}

// -----

// One warpgroup keeps its first thread issuing the copies.
// CHECK-LABEL: func.func @one_warpgroup
// CHECK-NOT: tile.warp_specialize
// LOWERED-LABEL: func.func @one_warpgroup
// LOWERED-NOT: tile.warp_specialize
func.func @one_warpgroup(%a: memref<1024x1024xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c8) threads(128) {
    %as = tile.alloc_shared : memref<128x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
    tile.pipelined %k = %c0 to %n stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %a[%bx, %kk] [128, 64] to %as : memref<1024x1024xf16>, memref<128x64xf16, #tile.shared>
      tile.copy %as to %acc : memref<128x64xf16, #tile.shared>, memref<128x64xf16, #tile.fragment>
    }
  }
  return
}

// -----

// The producer cannot compute its copies' offsets from a value the
// consumers load: no split.
// CHECK-LABEL: func.func @loaded_offset
// CHECK-NOT: tile.warp_specialize
func.func @loaded_offset(%a: memref<1024x1024xf16>, %offsets: memref<8xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c8) threads(256) {
    %as = tile.alloc_shared : memref<128x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
    %row = memref.load %offsets[%bx] : memref<8xindex>
    tile.pipelined %k = %c0 to %n stages(3) {
      %kk = arith.muli %k, %c64 : index
      tile.copy %a[%row, %kk] [128, 64] to %as : memref<1024x1024xf16>, memref<128x64xf16, #tile.shared>
      tile.copy %as to %acc : memref<128x64xf16, #tile.shared>, memref<128x64xf16, #tile.fragment>
    }
  }
  return
}
