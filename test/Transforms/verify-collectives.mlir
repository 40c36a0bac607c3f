// RUN: tilec-opt %s --tile-verify-collectives | FileCheck %s

// Tile operations under conditions every thread of the block agrees on, and
// per-thread operations on local buffers under conditions on the thread
// index, are accepted and left alone.

// CHECK-LABEL: func.func @uniform_and_local
func.func @uniform_and_local(%a: memref<256xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c4) threads(128) {
    %tid = gpu.thread_id x upper_bound 128
    %shared = tile.alloc_shared : memref<64xf32, #tile.shared>
    %local = tile.alloc_local : memref<4xf32, #tile.local>
    // A condition on the block index is the same for all its threads.
    %early = arith.cmpi ult, %bx, %c1 : index
    // CHECK: scf.if
    // CHECK-NEXT: tile.fill
    scf.if %early {
      tile.fill %shared, %zero : memref<64xf32, #tile.shared>, f32
    }
    // CHECK: tile.serial
    // CHECK: tile.copy
    tile.serial %i = %c0 to %n step %c1 {
      tile.copy %a[%c0] [64] to %shared : memref<256xf32>, memref<64xf32, #tile.shared>
    }
    // Each thread fills and loads its own local buffer in full.
    %first = arith.cmpi ult, %tid, %c4 : index
    // CHECK: scf.if
    // CHECK-NEXT: tile.fill
    // CHECK-NEXT: tile.copy
    // CHECK-NEXT: tile.atomic
    scf.if %first {
      tile.fill %local, %zero : memref<4xf32, #tile.local>, f32
      tile.copy %a[%tid] [4] to %local : memref<256xf32>, memref<4xf32, #tile.local>
      tile.atomic addf %zero to %a[%tid] : f32 to memref<256xf32>
    }
    gpu.barrier
  }
  return
}
