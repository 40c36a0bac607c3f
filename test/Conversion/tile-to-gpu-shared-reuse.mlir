// RUN: tilec-opt %s --split-input-file --convert-tile-to-gpu | FileCheck %s

// Shared buffers whose uses do not overlap share bytes. %a is last used
// before the barrier and %b first used after it, so %b starts where %a
// does; %c is used with %b in one statement (the loop), so it goes after.
// CHECK-LABEL: gpu.func @reuse
// CHECK-SAME: tile.shared_memory_bytes = 8192 : i64
// CHECK: memref.view %{{.*}}[%c0{{(_[0-9]+)?}}][] {{.*}} to memref<32x32xf32
// CHECK: memref.view %{{.*}}[%c0{{(_[0-9]+)?}}][] {{.*}} to memref<32x32xf32
// CHECK: memref.view %{{.*}}[%c4096][] {{.*}} to memref<1024xf32
// CHECK: memref.store
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @reuse(%i: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_shared : memref<32x32xf32, #tile.shared>
    %b = tile.alloc_shared : memref<32x32xf32, #tile.shared>
    %c = tile.alloc_shared : memref<1024xf32, #tile.shared>
    memref.store %x, %a[%i, %i] : memref<32x32xf32, #tile.shared>
    gpu.barrier
    scf.for %k = %c0 to %c4 step %c1 {
      memref.store %x, %b[%k, %i] : memref<32x32xf32, #tile.shared>
      memref.store %x, %c[%k] : memref<1024xf32, #tile.shared>
    }
  }
  return
}

// -----

// Without a barrier between the last use of %a and the first use of %b,
// sharing their bytes needs one: inserted before %b's first use where the
// buffers would not fit the target's shared memory side by side, as here,
// 6 KiB.
// CHECK-LABEL: gpu.func @barrier_inserted
// CHECK-SAME: tile.shared_memory_bytes = 4096 : i64
// CHECK: memref.view %{{.*}}[%c0{{(_[0-9]+)?}}][]
// CHECK: memref.view %{{.*}}[%c0{{(_[0-9]+)?}}][]
// CHECK: memref.load
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store
module attributes {tile.target = #tile.target<chip = "sm_90a", warp_size = 32, shared_memory = 6144, registers = 255, features = none>} {
func.func @barrier_inserted(%i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_shared : memref<32x32xf32, #tile.shared>
    %b = tile.alloc_shared : memref<32x32xf32, #tile.shared>
    %v = memref.load %a[%i, %i] : memref<32x32xf32, #tile.shared>
    memref.store %v, %b[%i, %i] : memref<32x32xf32, #tile.shared>
  }
  return
}
}

// -----

// Within the limit, or with none, the same buffers keep bytes of their own
// rather than wait at a barrier.
// CHECK-LABEL: gpu.func @no_barrier_needed
// CHECK-SAME: tile.shared_memory_bytes = 8192 : i64
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @no_barrier_needed(%i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_shared : memref<32x32xf32, #tile.shared>
    %b = tile.alloc_shared : memref<32x32xf32, #tile.shared>
    %v = memref.load %a[%i, %i] : memref<32x32xf32, #tile.shared>
    memref.store %v, %b[%i, %i] : memref<32x32xf32, #tile.shared>
  }
  return
}

// -----

// Buffers used together, in one loop, are laid out one after the other,
// as they always were, with no barrier added.
// CHECK-LABEL: gpu.func @no_reuse
// CHECK-SAME: tile.shared_memory_bytes = 8192 : i64
// CHECK: memref.view %{{.*}}[%c0{{(_[0-9]+)?}}][]
// CHECK: memref.view %{{.*}}[%c4096][]
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @no_reuse(%i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_shared : memref<32x32xf32, #tile.shared>
    %b = tile.alloc_shared : memref<32x32xf32, #tile.shared>
    scf.for %k = %c0 to %c4 step %c1 {
      %v = memref.load %a[%k, %i] : memref<32x32xf32, #tile.shared>
      memref.store %v, %b[%i, %k] : memref<32x32xf32, #tile.shared>
    }
  }
  return
}
