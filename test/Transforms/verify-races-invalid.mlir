// RUN: tilec-opt %s --split-input-file --tile-verify-races --verify-diagnostics

// Two threads of one block write one element: thread t writes B[t mod 64].
func.func @wrapped(%b: memref<64xf32>) attributes {tile.arg_names = ["B"]} {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %i = arith.remui %t, %c64 : index
    // expected-error@+1 {{this write to 'B' races: threads 0 and 64 of block bx = 0 both write element [0]; give each element one writer, or make the write atomic (T.atomic_add)}}
    memref.store %cst, %b[%i] : memref<64xf32>
  }
  return
}

// -----

// Blocks that overlap: each covers 128 elements but starts 64 after the
// last. Thread 64 of block 0 and thread 0 of block 1 write element 64.
func.func @overlapping_blocks(%a: memref<?xf32> {tile.dims = array<i64: 1>}, %n: index) attributes {tile.arg_names = ["A", "N"]} {
  %c64 = arith.constant 64 : index
  %grid = arith.ceildivsi %n, %c64 : index
  tile.kernel blocks(%bx) in (%grid) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %base = arith.muli %bx, %c64 : index
    %i = arith.addi %base, %t : index
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      %v = arith.index_cast %t : index to i32
      %f = arith.sitofp %v : i32 to f32
      // expected-error@+1 {{this write to 'A' races: thread 64 of block bx = 0 and thread 0 of block bx = 1 both write element [64], when N = 65; give each element one writer, or make the write atomic (T.atomic_add)}}
      memref.store %f, %a[%i] : memref<?xf32>
    }
  }
  return
}

// -----

// Vectors of 4 whose starts are 2 apart overlap: thread 0 writes [0, 4)
// and thread 1 [2, 6).
func.func @overlapping_vectors(%a: memref<256xf32>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = arith.constant dense<1.0> : vector<4xf32>
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %t = gpu.thread_id x upper_bound 64
    %i = arith.muli %t, %c2 : index
    // expected-error@+1 {{this write to 'A' races: threads 0 and 1 of block bx = 0 both write element [2]; give each element one writer, or make the write atomic (T.atomic_add)}}
    vector.store %v, %a[%i] : memref<256xf32>, vector<4xf32>
  }
  return
}

// -----

// A loop with no barrier: thread t writes S[t + k] in step k, so thread 1
// in step 0 and thread 0 in step 1 write S[1] unordered.
func.func @rotating_shared(%a: memref<128xf32>) attributes {tile.arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  tile.kernel blocks(%bx) in (%c1) threads(2) {
    %t = gpu.thread_id x upper_bound 2
    %s = tile.alloc_shared : memref<4xf32, #tile.shared>
    %x = memref.load %a[%t] : memref<128xf32>
    scf.for %k = %c0 to %c2 step %c1 {
      %i = arith.addi %t, %k : index
      // expected-error@+1 {{this write to a shared buffer races: threads 0 and 1 of block bx = 0 both write element [1], when the loop index at line 68 = 1 and 0; give each element one writer, or separate the writes with a barrier}}
      memref.store %x, %s[%i] : memref<4xf32, #tile.shared>
    }
  }
  return
}

// -----

// Every thread writes A[0], each its own value: a race although the
// element does not depend on the thread.
func.func @same_element(%a: memref<128xf32>, %b: memref<1xf32>) attributes {tile.arg_names = ["A", "B"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %x = memref.load %a[%t] : memref<128xf32>
    // expected-error@+1 {{this write to 'B' races: threads 0 and 1 of block bx = 0 both write element [0]; give each element one writer, or make the write atomic (T.atomic_add)}}
    memref.store %x, %b[%c0] : memref<1xf32>
  }
  return
}

// -----

// Every thread of a block writes its block's index to D[0]: alike inside
// the block, a race between blocks.
func.func @uniform_between_blocks(%d: memref<1xi32>) attributes {tile.arg_names = ["D"]} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c4) threads(128) {
    %v = arith.index_cast %bx : index to i32
    // expected-error@+1 {{this write to 'D' races: thread 0 of block bx = 0 and thread 0 of block bx = 1 both write element [0]; give each element one writer, or make the write atomic (T.atomic_add)}}
    memref.store %v, %d[%c0] : memref<1xi32>
  }
  return
}

// -----

// Stages of a shared buffer are views of it: stage 1's row 0 is the
// buffer's row 1, which thread 0 also writes through stage 0 (rows
// overlap since the view starts one row in).
func.func @overlapping_views(%a: memref<128xf32>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %s = tile.alloc_shared : memref<3x64xf32, #tile.shared>
    %x = memref.load %a[%t] : memref<128xf32>
    %view = memref.subview %s[1, 0] [2, 64] [1, 1] : memref<3x64xf32, #tile.shared> to memref<2x64xf32, strided<[64, 1], offset: 64>, #tile.shared>
    %row = arith.divui %t, %c64 : index
    %col = arith.remui %t, %c64 : index
    // Rows 0 and 1 of the view, each thread's: injective...
    memref.store %x, %view[%row, %col] : memref<2x64xf32, strided<[64, 1], offset: 64>, #tile.shared>
    // ...but here thread 64 writes the buffer's row 1 too, as thread 0
    // did above, and thread 0 writes it in this store as well.
    %r = arith.addi %row, %c1 : index
    %wrapped = arith.remui %r, %c1 : index
    // expected-error@+1 {{this write to a shared buffer races: threads 0 and 64 of block bx = 0 both write element [1, 0]}}
    memref.store %x, %view[%wrapped, %col] : memref<2x64xf32, strided<[64, 1], offset: 64>, #tile.shared>
  }
  return
}

// -----

// Two writes, one element: thread t writes B[t] and B[t + 1], so thread 1
// in the first and thread 0 in the second both write B[1].
func.func @neighbours(%a: memref<128xf32>, %b: memref<129xf32>) attributes {tile.arg_names = ["A", "B"]} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %x = memref.load %a[%t] : memref<128xf32>
    // expected-error@+1 {{this write to 'B' races with the one at line 148: thread 1 here and thread 0 there, of block bx = 0, both write element [1]; give each element one writer, or make the writes atomic (T.atomic_add)}}
    memref.store %x, %b[%t] : memref<129xf32>
    %u = arith.addi %t, %c1 : index
    // expected-note@+1 {{the other write}}
    memref.store %x, %b[%u] : memref<129xf32>
  }
  return
}

// -----

// A swizzled tile written 8 elements a thread, but threads t and t + 64
// take the same row (t / 8 mod 8): the element is named where the swizzle
// puts it.
func.func @swizzled_collision(%a: memref<64x64xf16>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c56 = arith.constant 56 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %s = tile.alloc_shared {layout = #tile.shared_layout<[64, 64], (d0, d1) -> (d1 + d0 * 64), swizzle = <bits = 3, base = 3, shift = 3>>} : memref<64x64xf16, #tile.shared>
    %r0 = arith.divui %t, %c8 : index
    %r = arith.remui %r0, %c8 : index
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
    // expected-error@+1 {{this write to a shared buffer races: threads 0 and 64 of block bx = 0 both write element [0, 0]; give each element one writer, or separate the writes with a barrier}}
    vector.store %v, %s[%row, %col] : memref<64x64xf16, #tile.shared>, vector<8xf16>
  }
  return
}

// -----

// cp.async chunks of 4 elements, but 16 threads share 8 chunks: threads 0
// and 8 copy into the same one.
func.func @async_collision(%a: memref<512xf32>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  tile.kernel blocks(%bx) in (%c1) threads(16) {
    %t = gpu.thread_id x upper_bound 16
    %buf = tile.alloc_shared : memref<64xf32, #tile.shared>
    %q = arith.remui %t, %c8 : index
    %j = arith.muli %q, %c4 : index
    %i = arith.muli %t, %c4 : index
    // expected-error@+1 {{this write to a shared buffer races: threads 0 and 8 of block bx = 0 both write element [0]; give each element one writer, or separate the writes with a barrier}}
    tile.async_copy %a[%i], %buf[%j], 4 : memref<512xf32> to memref<64xf32, #tile.shared>
  }
  return
}

// -----

// A thread's own variable holds what each thread stored into it: the
// threads' values for A[0] differ, so the one element has several writers
// with different values.
func.func @through_local(%a: memref<64xi32>) attributes {tile.arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %t = gpu.thread_id x upper_bound 64
    %v = tile.alloc_var : memref<i32, #tile.local>
    %parity = arith.remui %t, %c2 : index
    %p = arith.index_cast %parity : index to i32
    memref.store %p, %v[] : memref<i32, #tile.local>
    %w = memref.load %v[] : memref<i32, #tile.local>
    // expected-error@+1 {{this write to 'A' races: threads 0 and 1 of block bx = 0 both write element [0]; give each element one writer, or make the write atomic (T.atomic_add)}}
    memref.store %w, %a[%c0] : memref<64xi32>
  }
  return
}

// -----

// A warp barrier does not order threads of different warps: thread t and
// thread t + 32 write the same element on either side of it.
func.func @across_warps(%a: memref<64xi32>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant 7 : i32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %t = gpu.thread_id x upper_bound 64
    %shifted = arith.addi %t, %c32 : index
    %other = arith.remui %shifted, %c64 : index
    // expected-error@+1 {{this write to 'A' races with the one at line 246: thread 0 here and thread 32 there, of block bx = 0, both write element [0]}}
    memref.store %v, %a[%t] : memref<64xi32>
    tile.warp_barrier
    // expected-note@+1 {{the other write}}
    memref.store %v, %a[%other] : memref<64xi32>
  }
  return
}
