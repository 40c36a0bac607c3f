// RUN: tilec-opt %s --split-input-file --tile-serialize-threads | FileCheck %s

// Each stretch between barriers is a loop over the block's threads, whose
// induction variable stands for gpu.thread_id. A variable that several
// stretches use gets a copy per thread, initialized in the first; a value
// one stretch computes and another uses is kept per thread; the shuffle
// is an exchange through memory across a barrier. A loop holding a
// barrier runs once around its stretches. The barrier between the store to
// shared memory and the load that another thread makes is the one
// tile-insert-barriers would place.
// CHECK-LABEL: func.func @stretches
// CHECK: tile.kernel
// CHECK-DAG: %[[X:.*]] = memref.alloca() : memref<64xf32>
// CHECK-DAG: %[[ACC:.*]] = tile.alloc_local : memref<64xf32, #tile.local>
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %c64{{.*}} step
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%[[T]]]
// CHECK-NEXT: %[[LOADED:.*]] = memref.load %arg0[%[[T]]]
// CHECK-NEXT: memref.store %[[LOADED]], %[[X]][%[[T]]]
// CHECK-NEXT: memref.store %[[LOADED]], %[[S:.*]][%[[T]]]
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %[[T2:.*]] = %{{.*}} to %c64{{.*}} step
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[T2]], %c1
// CHECK-NEXT: %[[WRAPPED:.*]] = arith.remui %[[NEXT]], %c4
// CHECK-NEXT: memref.load %[[S]][%[[WRAPPED]]]
// CHECK-NEXT: memref.load %[[X]][%[[T2]]]
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%[[T2]]]
// CHECK: scf.for %{{.*}} = %c0 to %arg1
// CHECK: scf.for %[[T3:.*]] =
// CHECK-NEXT: memref.load %[[ACC]][%[[T3]]]
// CHECK-NEXT: memref.store %{{.*}}, %[[VALUES:.*]][%[[T3]]]
// CHECK: scf.for %[[T4:.*]] =
// CHECK: %[[LANE:.*]] = arith.remui %[[T4]], %c32
// CHECK: %[[FROM:.*]] = arith.select %{{.*}}, %{{.*}}, %[[T4]] : index
// CHECK: memref.load %[[VALUES]][%[[FROM]]]
// CHECK-NOT: gpu.
func.func @stretches(%out: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  %c1_i32 = arith.constant 1 : i32
  %c32_i32 = arith.constant 32 : i32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    %acc = tile.alloc_var init(%one : f32) : memref<f32, #tile.local>
    %tid = gpu.thread_id x upper_bound 64
    %x = memref.load %out[%tid] : memref<64xf32>
    memref.store %x, %s[%tid] : memref<64xf32, #tile.shared>
    %next = arith.addi %tid, %c1 : index
    %wrapped = arith.remui %next, %c4 : index
    %y = memref.load %s[%wrapped] : memref<64xf32, #tile.shared>
    %sum = arith.addf %x, %y : f32
    memref.store %sum, %acc[] : memref<f32, #tile.local>
    scf.for %i = %c0 to %n step %c1 {
      %v = memref.load %acc[] : memref<f32, #tile.local>
      %down, %valid = gpu.shuffle down %v, %c1_i32, %c32_i32 : f32
      memref.store %down, %acc[] : memref<f32, #tile.local>
    }
    %final = memref.load %acc[] : memref<f32, #tile.local>
    memref.store %final, %out[%tid] : memref<64xf32>
  }
  return
}

// -----

// A block of (8, 4) threads: the loop's thread splits into x and y. A
// block-wide statement runs once, between stretches: arithmetic it uses is
// recomputed before it, and a value read from memory, which every thread
// reads alike, is the first thread's copy.
// CHECK-LABEL: func.func @two_dimensions
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %c32{{.*}} step
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: %[[X:.*]] = arith.remui %[[T]], %c8
// CHECK-NEXT: %[[Y:.*]] = arith.divui %[[T]], %c8
// CHECK: %[[LEN:.*]] = memref.load %arg2[%arg3]
// CHECK-NEXT: memref.store %[[LEN]], %[[LENS:.*]][%[[T]]] : memref<32xindex>
// CHECK-NEXT: memref.store %{{.*}}, %arg1[%[[Y]], %[[X]]]
// CHECK: tile.parallel
// CHECK-NEXT: %[[ROW:.*]] = arith.muli %arg3, %c2
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[FIRST:.*]] = memref.load %[[LENS]][%[[C0]]] : memref<32xindex>
// CHECK-NEXT: memref.load %arg0[%[[ROW]], %[[FIRST]]]
func.func @two_dimensions(%a: memref<4x8xf32>, %b: memref<4x8xf32>,
                          %lens: memref<1xindex>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(8, 4) {
    %tx = gpu.thread_id x upper_bound 8
    %ty = gpu.thread_id y upper_bound 4
    %row = arith.muli %bx, %c2 : index
    %len = memref.load %lens[%bx] : memref<1xindex>
    memref.store %one, %b[%ty, %tx] : memref<4x8xf32>
    tile.parallel (%j) in (8) {
      %v = memref.load %a[%row, %len] : memref<4x8xf32>
      memref.store %v, %b[%c1, %j] : memref<4x8xf32>
    }
  }
  return
}

// -----

// gpu.lane_id is the loop's thread modulo the warp size.
// CHECK-LABEL: func.func @lanes
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %c64{{.*}} step
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK-NEXT: memref.store %[[LANE]], %arg0[%[[T]]]
// CHECK-NOT: gpu.lane_id
func.func @lanes(%out: memref<64xindex>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %tid = gpu.thread_id x upper_bound 64
    %lane = gpu.lane_id
    memref.store %lane, %out[%tid] : memref<64xindex>
  }
  return
}

// -----

// A branch on the thread index around barriers among the threads that take
// it: the barriers come out, each a barrier of the block here, the loop
// around them runs once with its body under the condition, and the
// statements between run under it, a value computed before a barrier
// yielded to the statements after it. The warp barrier is one too.
// CHECK-LABEL: func.func @partial_barriers
// CHECK: %[[VALUES:.*]] = memref.alloca() : memref<128xf32>
// CHECK: %[[CONDS:.*]] = memref.alloca() : memref<128xi1>
// CHECK: %[[S:.*]] = tile.alloc_shared
// CHECK: scf.for %[[T:.*]] =
// CHECK-NEXT: %[[LOW:.*]] = arith.cmpi ult, %[[T]], %c64
// CHECK-NEXT: memref.store %[[LOW]], %[[CONDS]][%[[T]]]
// CHECK-NEXT: scf.if %[[LOW]] {
// CHECK: memref.store %{{.*}}, %[[S]][%[[T]]]
// CHECK: tile.serial
// CHECK: scf.for %[[T2:.*]] =
// CHECK: %[[NEXT:.*]] = arith.addi %[[T2]], %c1
// CHECK: %[[Y:.*]] = scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: %[[LOADED:.*]] = memref.load %[[S]][%[[NEXT]]]
// CHECK-NEXT: scf.yield %[[LOADED]] : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.0
// CHECK-NEXT: scf.yield %[[ZERO]] : f32
// CHECK: memref.store %[[Y]], %[[VALUES]][%[[T2]]]
// CHECK: scf.for %[[T3:.*]] =
// CHECK-NEXT: %[[LOW3:.*]] = memref.load %[[CONDS]][%[[T3]]]
// CHECK-NEXT: scf.if %[[LOW3]] {
// CHECK-NEXT: %[[Y3:.*]] = memref.load %[[VALUES]][%[[T3]]]
// CHECK-NEXT: memref.store %[[Y3]], %[[S]][%[[T3]]]
// CHECK: scf.for %[[T4:.*]] =
// CHECK-NEXT: %[[LOW4:.*]] = arith.cmpi ult, %[[T4]], %c64
// CHECK-NEXT: scf.if %[[LOW4]] {
// CHECK-NEXT: memref.load %[[S]][%[[T4]]]
// CHECK-NEXT: memref.store %{{.*}}, %arg0[%[[T4]]]
// CHECK-NOT: tile.named_barrier
// CHECK-NOT: tile.warp_barrier
// CHECK-NOT: gpu.
func.func @partial_barriers(%out: memref<128xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<128xf32, #tile.shared>
    %tid = gpu.thread_id x upper_bound 128
    %low = arith.cmpi ult, %tid, %c64 : index
    scf.if %low {
      %x = memref.load %out[%tid] : memref<128xf32>
      memref.store %x, %s[%tid] : memref<128xf32, #tile.shared>
      tile.serial %i = %c0 to %n step %c1 {
        tile.named_barrier 1, 64
        %next = arith.addi %tid, %c1 : index
        %y = memref.load %s[%next] : memref<128xf32, #tile.shared>
        tile.named_barrier 1, 64
        memref.store %y, %s[%tid] : memref<128xf32, #tile.shared>
      }
      tile.warp_barrier
      %z = memref.load %s[%tid] : memref<128xf32, #tile.shared>
      memref.store %z, %out[%tid] : memref<128xf32>
    }
  }
  return
}
