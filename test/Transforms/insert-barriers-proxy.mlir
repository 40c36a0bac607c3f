// RUN: tilec-opt %s --tile-set-target=features=wgmma --tile-insert-barriers | FileCheck %s
// RUN: tilec-opt %s --tile-insert-barriers | FileCheck %s --check-prefix=PLAIN

// The barrier between the threads' stores into A's tile and the gemm that
// reads it (on wgmma, through the async proxy) comes after a proxy fence;
// the one between the gemm and the next iteration's stores needs none.
// CHECK-LABEL: func.func @fence
// CHECK: tile.serial
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.gemm
// CHECK-NOT: tile.fence_async_shared
// PLAIN-LABEL: func.func @fence
// PLAIN-NOT: tile.fence_async_shared
func.func @fence(%a: memref<128x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %as = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.serial %k = %c0 to %c4 step %c1 {
      tile.copy %a to %as : memref<128x32xf16>, memref<128x32xf16, #tile.shared>
      tile.gemm %as, %bs, %acc : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
    }
  }
  return
}

// A bulk copy reads its tile through the async proxy on any target: the
// barrier after the threads' stores comes after a fence, and the stores of
// the next iteration wait for the copy with a barrier of their own.
// CHECK-LABEL: func.func @bulk
// CHECK: tile.serial
// CHECK-NEXT: arith.muli
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.copy %{{.*}} to %{{.*}} :
// CHECK-NEXT: tile.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.copy bulk
// PLAIN-LABEL: func.func @bulk
// PLAIN: tile.fence_async_shared
// PLAIN-NEXT: gpu.barrier
// PLAIN-NEXT: tile.copy bulk
func.func @bulk(%a: memref<128x64xf16>, %c: memref<1024x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %cs = tile.alloc_shared : memref<128x64xf16, #tile.shared>
    tile.serial %k = %c0 to %c4 step %c1 {
      %row = arith.muli %k, %c128 : index
      tile.copy %a to %cs : memref<128x64xf16>, memref<128x64xf16, #tile.shared>
      tile.copy bulk %cs to %c[%row, 0] [128, 64] : memref<128x64xf16, #tile.shared>, memref<1024x64xf16>
    }
  }
  return
}

// A tile written before a loop and read by the gemm of every iteration
// (FlashAttention's Q) is fenced and synchronized once, before the loop;
// the body, which writes no shared memory, needs no barrier.
// CHECK-LABEL: func.func @before_loop
// CHECK: tile.copy %arg0 to
// CHECK-NEXT: tile.fence_async_shared
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.serial
// CHECK-NOT: gpu.barrier
// CHECK: return
// PLAIN-LABEL: func.func @before_loop
// PLAIN: tile.copy %arg0 to
// PLAIN-NEXT: gpu.barrier
// PLAIN-NEXT: tile.serial
// PLAIN-NOT: gpu.barrier
// PLAIN: return
func.func @before_loop(%a: memref<128x32xf16>, %b: memref<32x128xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %as = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.copy %a to %as : memref<128x32xf16>, memref<128x32xf16, #tile.shared>
    tile.serial %k = %c0 to %c4 step %c1 {
      tile.gemm %as, %bs, %acc : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
    }
  }
  return
}
