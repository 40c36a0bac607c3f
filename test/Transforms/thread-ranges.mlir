// RUN: tilec-opt %s --split-input-file --tile-lower-copies --tile-infer-layouts --tile-insert-barriers | FileCheck %s
// RUN: tilec-opt %s --split-input-file --tile-lower-copies --tile-infer-layouts --tile-insert-barriers --tile-distribute | FileCheck %s --check-prefix=DIST
// RUN: tilec-opt %s --split-input-file --tile-serialize-threads | FileCheck %s --check-prefix=HOST

// Code in a tile.thread_range runs on its threads: its fragments are laid
// out over them, its barriers are a named barrier of their own, and a
// barrier of the block orders it with the other threads' statements.

// CHECK: #[[ROWS:.*]] = #tile.fragment_layout<[2, 1024], threads = 256,
// CHECK-LABEL: func.func @producer_consumer
// DIST-LABEL: func.func @producer_consumer
// HOST-LABEL: func.func @producer_consumer
func.func @producer_consumer(%x: memref<2x1024xf32>, %y: memref<2xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(384) {
    %tile = tile.alloc_shared : memref<2x1024xf32, #tile.shared>
    // CHECK: tile.alloc_fragment {layout = #[[ROWS]]}
    %rows = tile.alloc_fragment : memref<2x1024xf32, #tile.fragment>
    %sums = tile.alloc_fragment : memref<2xf32, #tile.fragment>
    // CHECK: tile.thread_range 256, 128 {
    // CHECK: } {barrier_id = 15 : i64}
    // DIST: %[[TID:.*]] = gpu.thread_id x
    // DIST: %[[OFFSET:.*]] = arith.subi %[[TID]], %c256
    // DIST: %[[IN:.*]] = arith.cmpi ult, %[[OFFSET]], %c128
    // DIST: scf.if %[[IN]] {
    // HOST-NOT: tile.thread_range
    tile.thread_range 256, 128 {
      tile.copy %x to %tile : memref<2x1024xf32>, memref<2x1024xf32, #tile.shared>
    }
    // CHECK-NEXT: gpu.barrier
    // CHECK-NEXT: tile.thread_range 0, 256 {
    // CHECK: } {barrier_id = 14 : i64}
    // DIST: gpu.barrier
    // DIST: scf.if
    // DIST: tile.named_barrier 14, 256
    // DIST: tile.named_barrier 14, 256
    tile.thread_range 0, 256 {
      tile.copy %tile to %rows : memref<2x1024xf32, #tile.shared>, memref<2x1024xf32, #tile.fragment>
      tile.reduce sum %rows -> %sums dim(1) : memref<2x1024xf32, #tile.fragment>, memref<2xf32, #tile.fragment>
      tile.copy %sums to %y : memref<2xf32, #tile.fragment>, memref<2xf32>
    }
  }
  return
}

// -----

// Thread-level code of a range runs, on one thread, for the range's
// threads alone; its statements of the whole range run once.

// HOST-LABEL: func.func @thread_level_in_range
func.func @thread_level_in_range(%out: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %tid = gpu.thread_id x upper_bound 256
    // HOST-DAG: %[[HI:.*]] = arith.constant 256 : index
    // HOST-DAG: %[[LO:.*]] = arith.constant 128 : index
    // HOST: scf.for %[[T:.*]] = %[[LO]] to %[[HI]]
    // HOST: memref.store %{{.*}}, %{{.*}}[%[[T]]]
    // HOST-NOT: tile.thread_range
    tile.thread_range 128, 128 {
      memref.store %one, %out[%tid] : memref<256xf32>
    }
  }
  return
}
