// RUN: tilec-opt %s --split-input-file --tile-serialize-threads --verify-diagnostics

// One thread cannot run a barrier that only some threads reach.
func.func @divergent_barrier(%out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1_i32 = arith.constant 1 : i32
  %c32_i32 = arith.constant 32 : i32
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %tid = gpu.thread_id x upper_bound 64
    %first = arith.cmpi ult, %tid, %c1 : index
    // expected-error@+1 {{on a target that runs a block on one thread, a barrier or warp shuffle under a condition or loop bound that differs between threads is not supported}}
    scf.if %first {
      %down, %valid = gpu.shuffle down %x, %c1_i32, %c32_i32 : f32
      memref.store %down, %out[%c0] : memref<64xf32>
    }
  }
  return
}

// -----

// A statement of the whole block cannot take a value of each thread's.
func.func @thread_value_in_block_statement(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %tid = gpu.thread_id x upper_bound 64
    %v = memref.load %a[%tid] : memref<64xf32>
    tile.parallel (%j) in (64) {
      // expected-error@+1 {{a statement of the whole block uses a value that differs between threads}}
      memref.store %v, %a[%j] : memref<64xf32>
    }
  }
  return
}

// -----

// A thread's own buffer that a block-wide statement also uses.
func.func @shared_local(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    // expected-error@+1 {{a thread's own buffer that both thread-level code and statements of the whole block use is not supported on a target that runs a block on one thread}}
    %l = tile.alloc_local : memref<4xf32, #tile.local>
    %tid = gpu.thread_id x upper_bound 64
    memref.store %x, %l[%c0] : memref<4xf32, #tile.local>
    tile.parallel (%j) in (4) {
      %v = memref.load %l[%j] : memref<4xf32, #tile.local>
      memref.store %v, %a[%j] : memref<4xf32>
    }
    %w = memref.load %a[%tid] : memref<4xf32>
  }
  return
}

// -----

// Barriers among the threads of both branches of a condition would need
// the two to run side by side.
func.func @barrier_in_else(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %tid = gpu.thread_id x upper_bound 64
    %low = arith.cmpi ult, %tid, %c32 : index
    // expected-error@+1 {{on a target that runs a block on one thread, barriers in the else branch of a condition that differs between threads are not supported}}
    scf.if %low {
      memref.store %x, %out[%tid] : memref<64xf32>
    } else {
      tile.named_barrier 1, 32
      memref.store %x, %out[%tid] : memref<64xf32>
    }
  }
  return
}

// -----

// A while loop's condition is evaluated by every thread in turn.
func.func @barrier_in_while(%out: memref<64xf32>, %flag: memref<i1>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %tid = gpu.thread_id x upper_bound 64
    %low = arith.cmpi ult, %tid, %c32 : index
    scf.if %low {
      // expected-error@+1 {{on a target that runs a block on one thread, a barrier under a condition that differs between threads must be in the branch itself, in loops or in ifs there}}
      scf.while : () -> () {
        %go = memref.load %flag[] : memref<i1>
        scf.condition(%go)
      } do {
        tile.warp_barrier
        scf.yield
      }
    }
  }
  return
}

// -----

// A value computed before a barrier under the condition and used after it
// must be a number, which the threads that skip the branch take as zero.
func.func @vector_across_barrier(%out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %tid = gpu.thread_id x upper_bound 64
    %low = arith.cmpi ult, %tid, %c32 : index
    scf.if %low {
      // expected-error@+1 {{on a target that runs a block on one thread, a barrier under a condition that differs between threads cannot follow a value of type 'vector<2xf32>' computed under it}}
      %pair = vector.load %out[%tid] : memref<64xf32>, vector<2xf32>
      tile.named_barrier 1, 32
      vector.store %pair, %out[%tid] : memref<64xf32>, vector<2xf32>
    }
  }
  return
}
