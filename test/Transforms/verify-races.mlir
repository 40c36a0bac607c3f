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

// Every thread of block bx writes bx to D[bx], as `D[bx] = bx` outside
// T.Parallel: the block makes the write once, and blocks write apart.
func.func @uniform_in_block(%a: memref<512xf32>, %d: memref<4xi32>) attributes {tile.arg_names = ["A", "D"]} {
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  // expected-remark@+1 {{races of this kernel's 2 writes: 2 proved free}}
  tile.kernel blocks(%bx) in (%c4) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %base = arith.muli %bx, %c128 : index
    %i = arith.addi %base, %t : index
    %x = memref.load %a[%i] : memref<512xf32>
    // expected-remark@+1 {{this write to 'A' is proved free of races}}
    memref.store %x, %a[%i] : memref<512xf32>
    %v = arith.index_cast %bx : index to i32
    // expected-remark@+1 {{this write to 'D' is proved free of races}}
    memref.store %v, %d[%bx] : memref<4xi32>
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

// -----

// Rows of a 64x64 f16 tile in the 128-byte swizzle, 8 elements a thread,
// as a copy fills it: the swizzle moves runs of 8 elements whole, so the
// writes are compared where they were before it. Proved.
func.func @swizzled_tile(%a: memref<64x64xf16>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c56 = arith.constant 56 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  // expected-remark@+1 {{races of this kernel's 1 writes: 1 proved free}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %s = tile.alloc_shared {layout = #tile.shared_layout<[64, 64], (d0, d1) -> (d1 + d0 * 64), swizzle = <bits = 3, base = 3, shift = 3>>} : memref<64x64xf16, #tile.shared>
    %r = arith.divui %t, %c8 : index
    %q = arith.remui %t, %c8 : index
    %c = arith.muli %q, %c8 : index
    %v = vector.load %a[%r, %c] : memref<64x64xf16>, vector<8xf16>
    %rows = arith.muli %r, %c64 : index
    %o = arith.addi %rows, %c : index
    %high = arith.shrui %o, %c3 : index
    %source = arith.andi %high, %c56 : index
    %x = arith.xori %o, %source : index
    %row = arith.shrui %x, %c6 : index
    %col = arith.andi %x, %c63 : index
    // expected-remark@+1 {{this write to a shared buffer is proved free of races}}
    vector.store %v, %s[%row, %col] : memref<64x64xf16, #tile.shared>, vector<8xf16>
  }
  return
}

// -----

// A pipelined copy: cp.async into the stage of step k, two stages. The
// copies are not ordered by the barrier (they land at the wait), so every
// step's are compared with every other's: thread t's chunk is its own in
// every stage. Proved.
func.func @async_stages(%a: memref<512xf32>) attributes {tile.arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  // expected-remark@+1 {{races of this kernel's 1 writes: 1 proved free}}
  tile.kernel blocks(%bx) in (%c1) threads(16) {
    %t = gpu.thread_id x upper_bound 16
    %buf = tile.alloc_shared : memref<2x64xf32, #tile.shared>
    %j = arith.muli %t, %c4 : index
    scf.for %k = %c0 to %c8 step %c1 {
      %stage = arith.remui %k, %c2 : index
      %view = memref.subview %buf[%stage, 0] [1, 64] [1, 1] : memref<2x64xf32, #tile.shared> to memref<64xf32, strided<[1], offset: ?>, #tile.shared>
      %base = arith.muli %k, %c64 : index
      %i = arith.addi %base, %j : index
      // expected-remark@+1 {{this write to a shared buffer is proved free of races}}
      tile.async_copy %a[%i], %view[%j], 4 : memref<512xf32> to memref<64xf32, strided<[1], offset: ?>, #tile.shared>
      tile.async_commit_group
      tile.async_wait_group 0
      gpu.barrier
    }
  }
  return
}

// -----

// Two writes to one buffer: thread t writes S[t] and S[t + 128], which no
// other thread writes. Proved, pair and all.
func.func @two_halves(%a: memref<256xf32>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  // expected-remark@+1 {{races of this kernel's 2 writes: 2 proved free}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %s = tile.alloc_shared : memref<256xf32, #tile.shared>
    %x = memref.load %a[%t] : memref<256xf32>
    // expected-remark@+1 {{this write to a shared buffer is proved free of races}}
    memref.store %x, %s[%t] : memref<256xf32, #tile.shared>
    %u = arith.addi %t, %c128 : index
    // expected-remark@+1 {{this write to a shared buffer is proved free of races}}
    memref.store %x, %s[%u] : memref<256xf32, #tile.shared>
  }
  return
}

// -----

// Two writes of one element by different threads, with a barrier between
// them: ordered. Proved.
func.func @barrier_between_writes(%a: memref<128xf32>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c127 = arith.constant 127 : index
  // expected-remark@+1 {{races of this kernel's 2 writes: 2 proved free}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %s = tile.alloc_shared : memref<128xf32, #tile.shared>
    %x = memref.load %a[%t] : memref<128xf32>
    // expected-remark@+1 {{this write to a shared buffer is proved free of races}}
    memref.store %x, %s[%t] : memref<128xf32, #tile.shared>
    gpu.barrier
    %r = arith.subi %c127, %t : index
    // expected-remark@+1 {{this write to a shared buffer is proved free of races}}
    memref.store %x, %s[%r] : memref<128xf32, #tile.shared>
  }
  return
}

// -----

// A barrier between the two writes of a step, none after the second: the
// second write of step k and the first of step k + 1 are unordered, and
// thread t + 1 writes in the first what thread t wrote in the second. Not
// an error (the prover sees it only through the loop's wrap-around, which
// it does not claim for sure), but not proved either.
func.func @across_steps(%a: memref<128xf32>) attributes {tile.arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark@+1 {{races of this kernel's 2 writes: 0 proved free, 2 not proved}}
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %t = gpu.thread_id x upper_bound 64
    %s = tile.alloc_shared : memref<128xf32, #tile.shared>
    %x = memref.load %a[%t] : memref<128xf32>
    %u = arith.addi %t, %c1 : index
    scf.for %k = %c0 to %c4 step %c1 {
      // expected-remark@+1 {{this write to a shared buffer could not be proved free of races}}
      memref.store %x, %s[%u] : memref<128xf32, #tile.shared>
      gpu.barrier
      // expected-remark@+1 {{this write to a shared buffer could not be proved free of races}}
      memref.store %x, %s[%t] : memref<128xf32, #tile.shared>
    }
  }
  return
}

// -----

// A while loop's iterations are unordered like a loop's: thread 0 writes
// S[1] after the barrier of one iteration and thread 1 writes it before the
// barrier of the next, with nothing between the two.
// CHECK-LABEL: func.func @while_wraps
func.func @while_wraps(%a: memref<128xf32>, %n: memref<1xi32>) attributes {tile.arg_names = ["A", "N"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // expected-remark@+1 {{races of this kernel's 2 writes: 0 proved free, 2 not proved}}
  tile.kernel blocks(%bx) in (%c1) threads(2) {
    %t = gpu.thread_id x upper_bound 2
    %s = tile.alloc_shared : memref<2xf32, #tile.shared>
    %x = memref.load %a[%t] : memref<128xf32>
    %limit = memref.load %n[%c0] : memref<1xi32>
    %count = tile.alloc_local : memref<1xi32, #tile.local>
    scf.while : () -> () {
      %v = memref.load %count[%c0] : memref<1xi32, #tile.local>
      %more = arith.cmpi slt, %v, %limit : i32
      scf.condition(%more)
    } do {
      // expected-remark@+1 {{this write to a shared buffer could not be proved free of races}}
      memref.store %x, %s[%t] : memref<2xf32, #tile.shared>
      gpu.barrier
      %o = arith.subi %c1, %t : index
      // expected-remark@+1 {{this write to a shared buffer could not be proved free of races}}
      memref.store %x, %s[%o] : memref<2xf32, #tile.shared>
      %v = memref.load %count[%c0] : memref<1xi32, #tile.local>
      %one = arith.constant 1 : i32
      %next = arith.addi %v, %one : i32
      memref.store %next, %count[%c0] : memref<1xi32, #tile.local>
      scf.yield
    }
  }
  return
}

// -----

// A warp barrier orders the threads of one warp: thread t writes S[t],
// then the element its mirror in the warp wrote, which only threads of its
// own warp write. Every pair is asked about twice, threads of one warp past
// the barrier and threads of two without it.
func.func @warp_mirror(%s: memref<64xf32>) attributes {tile.arg_names = ["S"]} {
  %c1 = arith.constant 1 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %x = arith.constant 1.0 : f32
  // expected-remark@+1 {{races of this kernel's 2 writes: 2 proved free, 0 not proved}}
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %t = gpu.thread_id x upper_bound 64
    %lane = arith.remui %t, %c32 : index
    %base = arith.subi %t, %lane : index
    %last = arith.addi %base, %c31 : index
    %mirror = arith.subi %last, %lane : index
    // expected-remark@+1 {{this write to 'S' is proved free of races}}
    memref.store %x, %s[%t] : memref<64xf32>
    tile.warp_barrier
    // expected-remark@+1 {{this write to 'S' is proved free of races}}
    memref.store %x, %s[%mirror] : memref<64xf32>
  }
  return
}
