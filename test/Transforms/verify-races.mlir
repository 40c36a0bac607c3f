// RUN: tilec-opt %s --split-input-file --tile-verify-races=remarks=1 --verify-diagnostics | FileCheck %s

// The mma.sync accumulator's store: thread t writes 2 elements of row
// t / 4 at column 2 (t mod 4) of its block's 8x8 tile, for blocks of a
// run-time grid. Proved, and left as it is.
// CHECK-LABEL: func.func @mma_tile
// CHECK: vector.store
func.func @mma_tile(%c: memref<?x64xf16> {tile.dims = array<i64: 1, -1>}, %m: index) attributes {tile.arg_names = ["C", "M"]} {
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %grid = arith.ceildivsi %m, %c8 : index
  %v = arith.constant dense<1.0> : vector<2xf16>
  // expected-remark@+1 {{races of this kernel's 1 writes: 1 proved free, 0 not proved}}
  tile.kernel blocks(%bx, %by) in (%grid, %c8) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %r = arith.divui %t, %c4 : index
    %q = arith.remui %t, %c4 : index
    %col = arith.muli %q, %c2 : index
    %row0 = arith.muli %bx, %c8 : index
    %row = arith.addi %row0, %r : index
    %col0 = arith.muli %by, %c8 : index
    %j = arith.addi %col0, %col : index
    %ok = arith.cmpi ult, %row, %m : index
    scf.if %ok {
      // expected-remark@+1 {{this write to 'C' is proved free of races}}
      vector.store %v, %c[%row, %j] : memref<?x64xf16>, vector<2xf16>
    }
  }
  return
}

// -----

// A barrier in the loop orders the steps: thread t writes S[t + k] in
// step k, and S[1] in step 0 is thread 1's, in step 1 thread 0's.
func.func @barrier_between_steps(%a: memref<128xf32>) attributes {tile.arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // expected-remark@+1 {{races of this kernel's 1 writes: 1 proved free}}
  tile.kernel blocks(%bx) in (%c1) threads(2) {
    %t = gpu.thread_id x upper_bound 2
    %s = tile.alloc_shared : memref<4xf32, #tile.shared>
    %x = memref.load %a[%t] : memref<128xf32>
    scf.for %k = %c0 to %c2 step %c1 {
      %i = arith.addi %t, %k : index
      // expected-remark@+1 {{this write to a shared buffer is proved free of races}}
      memref.store %x, %s[%i] : memref<4xf32, #tile.shared>
      gpu.barrier
    }
  }
  return
}

// -----

// Shared memory is the block's own: every block writes S[t].
func.func @shared_per_block(%a: memref<128xf32>) attributes {tile.arg_names = ["A"]} {
  %c16 = arith.constant 16 : index
  // expected-remark@+1 {{races of this kernel's 1 writes: 1 proved free}}
  tile.kernel blocks(%bx) in (%c16) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %s = tile.alloc_shared : memref<128xf32, #tile.shared>
    %x = memref.load %a[%t] : memref<128xf32>
    // expected-remark@+1 {{this write to a shared buffer is proved free of races}}
    memref.store %x, %s[%t] : memref<128xf32, #tile.shared>
  }
  return
}

// -----

// One thread writes: the condition of the if holds for thread 0 alone.
func.func @first_thread(%a: memref<128xf32>, %b: memref<16xf32>) attributes {tile.arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  // expected-remark@+1 {{races of this kernel's 1 writes: 1 proved free}}
  tile.kernel blocks(%bx) in (%c16) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %x = memref.load %a[%t] : memref<128xf32>
    %first = arith.cmpi eq, %t, %c0 : index
    scf.if %first {
      // expected-remark@+1 {{this write to 'B' is proved free of races}}
      memref.store %x, %b[%bx] : memref<16xf32>
    }
  }
  return
}

// -----

// The same value to the same element in every thread of every block, as
// a statement outside T.Parallel: not a race.
func.func @uniform(%b: memref<1xf32>) attributes {tile.arg_names = ["B"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %cst = arith.constant 1.0 : f32
  // expected-remark@+1 {{races of this kernel's 1 writes: 1 proved free}}
  tile.kernel blocks(%bx) in (%c4) threads(128) {
    // expected-remark@+1 {{this write to 'B' is the same in every thread}}
    memref.store %cst, %b[%c0] : memref<1xf32>
  }
  return
}

// -----

// An element from memory: nothing to prove it with, and nothing to report.
func.func @scatter(%a: memref<128xf32>, %i: memref<128xi32>, %b: memref<128xf32>) attributes {tile.arg_names = ["A", "I", "B"]} {
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{races of this kernel's 1 writes: 0 proved free, 1 not proved}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %x = memref.load %a[%t] : memref<128xf32>
    %j = memref.load %i[%t] : memref<128xi32>
    %k = arith.index_cast %j : i32 to index
    // expected-remark@+1 {{this write to 'B' could not be proved free of races}}
    memref.store %x, %b[%k] : memref<128xf32>
  }
  return
}

// -----

// Only global and shared memory: a thread's own registers are not
// checked.
func.func @registers(%a: memref<128xf32>) attributes {tile.arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{races of this kernel's 0 writes}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %x = memref.load %a[%t] : memref<128xf32>
    %r = memref.alloca() : memref<4xf32>
    memref.store %x, %r[%c0] : memref<4xf32>
  }
  return
}
