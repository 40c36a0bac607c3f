// RUN: tilec-opt %s --split-input-file --tile-verify-collectives --verify-diagnostics

// A gemm under a condition on the thread index: half of the block would
// skip its share of the output.
func.func @gemm_under_thread_condition(%a: memref<128x64xf16>) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %tid = gpu.thread_id x upper_bound 256
    %a_s = tile.alloc_shared : memref<128x64xf16, #tile.shared>
    %b_s = tile.alloc_shared : memref<64x128xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %first = arith.cmpi ult, %tid, %c128 : index
    // expected-note@+1 {{the condition is here}}
    scf.if %first {
      // expected-error@+1 {{every thread of the block runs this tile operation together, but it is under a condition that differs between threads}}
      tile.gemm %a_s, %b_s, %acc : memref<128x64xf16, #tile.shared>, memref<64x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A copy into shared memory in a loop whose trip count differs between
// threads, under a uniform condition.
func.func @copy_in_divergent_loop(%a: memref<256xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %tid = gpu.thread_id x upper_bound 64
    %shared = tile.alloc_shared : memref<64xf32, #tile.shared>
    %uniform = arith.cmpi ult, %bx, %n : index
    scf.if %uniform {
      // expected-note@+1 {{the condition is here}}
      tile.serial %i = %c0 to %tid step %c1 {
        // expected-error@+1 {{every thread of the block runs this tile operation together}}
        tile.copy %a[%c0] [64] to %shared : memref<256xf32>, memref<64xf32, #tile.shared>
      }
    }
  }
  return
}

// -----

// A T.Parallel loop over a fragment, under a condition on a value each
// thread computed for itself.
func.func @parallel_under_thread_value(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %tid = gpu.thread_id x upper_bound 64
    %frag = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %v = memref.load %a[%tid] : memref<64xf32>
    %positive = arith.cmpf ogt, %v, %one : f32
    // expected-note@+1 {{the condition is here}}
    scf.if %positive {
      // expected-error@+1 {{every thread of the block runs this tile operation together}}
      tile.parallel (%i) in (64) {
        memref.store %one, %frag[%i] : memref<64xf32, #tile.fragment>
      }
    }
  }
  return
}

// -----

// A block barrier only the first warp reaches.
func.func @barrier_under_thread_condition() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %tid = gpu.thread_id x upper_bound 64
    %first = arith.cmpi ult, %tid, %c32 : index
    // expected-note@+1 {{the condition is here}}
    scf.if %first {
      // expected-error@+1 {{T.sync_threads() waits for every thread of the block, but it is under a condition that differs between threads, so some would never arrive; T.sync_threads(id, count) synchronizes part of the block}}
      gpu.barrier
    }
  }
  return
}

// -----

// A tile-wide atomic under a condition on the thread index.
func.func @tile_atomic_under_thread_condition(%c: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %tid = gpu.thread_id x upper_bound 64
    %frag = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    %first = arith.cmpi ult, %tid, %c32 : index
    // expected-note@+1 {{the condition is here}}
    scf.if %first {
      // expected-error@+1 {{every thread of the block runs this tile operation together}}
      tile.atomic addf %frag to %c[%c0] : memref<64xf32, #tile.fragment> to memref<64xf32>
    }
  }
  return
}

// -----

// The threads of a T.ws range run its tile operations together; a block
// barrier there would wait for threads that never come.
func.func @block_barrier_in_range(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %tid = gpu.thread_id x upper_bound 256
    %shared = tile.alloc_shared : memref<64xf32, #tile.shared>
    tile.thread_range 128, 128 {
      // Collective for the range's threads: accepted.
      tile.fill %shared, %zero : memref<64xf32, #tile.shared>, f32
      // expected-error@+1 {{T.sync_threads() waits for every thread of the block, which T.ws runs part of; T.sync_threads(id, count) synchronizes the threads of the T.ws}}
      gpu.barrier
    }
  }
  return
}

// -----

// Inside a range, a condition on the thread index still splits its threads.
func.func @divergent_in_range(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c160 = arith.constant 160 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %tid = gpu.thread_id x upper_bound 256
    %shared = tile.alloc_shared : memref<64xf32, #tile.shared>
    tile.thread_range 128, 128 {
      %first = arith.cmpi ult, %tid, %c160 : index
      // expected-note@+1 {{the condition is here}}
      scf.if %first {
        // expected-error@+1 {{every thread of the block runs this tile operation together}}
        tile.fill %shared, %zero : memref<64xf32, #tile.shared>, f32
      }
    }
  }
  return
}
