// RUN: tilec-opt %s --split-input-file --tile-verify-bounds --verify-diagnostics

// One loop iteration too many over a static tensor: the only
// counter-example is the last one.
func.func @off_by_one(%a: memref<64xf32>) attributes {tile.arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c65 = arith.constant 65 : index
  %cst = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(1) {
    scf.for %i = %c0 to %c65 step %c1 {
      // expected-error@+1 {{this write to 'A' can be out of bounds: index 64 along dimension 0, of extent 64, when the loop index at line 11 = 64; guard it with an if, or state what the launch guarantees with T.assume}}
      memref.store %cst, %a[%i] : memref<64xf32>
    }
  }
  return
}

// -----

// Rows of a run-time extent with no guard: a grid of ceildiv(M, 32)
// blocks runs past M unless M is a multiple of 32.
func.func @unguarded_rows(%a: memref<?x256xf32> {tile.dims = array<i64: 1, -1>}, %m: index) attributes {tile.arg_names = ["A", "M"]} {
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c4 = arith.constant 4 : index
  %grid = arith.ceildivsi %m, %c32 : index
  tile.kernel blocks(%bx) in (%grid) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %row = arith.divui %t, %c64 : index
    %col = arith.remui %t, %c64 : index
    %c = arith.muli %col, %c4 : index
    %base = arith.muli %bx, %c32 : index
    %r = arith.addi %base, %row : index
    // expected-error@+1 {{this read of 'A' can be out of bounds: index 1 along dimension 0, of extent 1, when M = 1, bx = 0, thread = 64; guard it with an if, or state what the launch guarantees with T.assume}}
    %v = vector.load %a[%r, %c] : memref<?x256xf32>, vector<4xf32>
  }
  return
}

// -----

// A vector's last lanes past the end.
func.func @vector_tail(%a: memref<128xf32>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %i = arith.muli %t, %c4 : index
    %j = arith.addi %i, %c2 : index
    // expected-error@+1 {{this read of 'A' can be out of bounds: indices 126 to 129 along dimension 0, of extent 128, when thread = 31; guard it with an if, or state what the launch guarantees with T.assume}}
    %v = vector.load %a[%j] : memref<128xf32>, vector<4xf32>
  }
  return
}

// -----

// A neighbour to the left of the first element.
func.func @negative(%a: memref<128xf32>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %left = arith.subi %t, %c1 : index
    // expected-error@+1 {{this read of 'A' can be out of bounds: index -1 along dimension 0, of extent 128, when thread = 0; guard it with an if, or state what the launch guarantees with T.assume}}
    %v = memref.load %a[%left] : memref<128xf32>
  }
  return
}

// -----

// A guard one off: i <= n lets i = n through.
func.func @guard_off_by_one(%a: memref<?xf32> {tile.dims = array<i64: 1>}, %n: index) attributes {tile.arg_names = ["A", "n"]} {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %grid = arith.ceildivsi %n, %c128 : index
  %cst = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%grid) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %base = arith.muli %bx, %c128 : index
    %i = arith.addi %base, %t : index
    %ok = arith.cmpi ule, %i, %n : index
    scf.if %ok {
      // expected-error@+1 {{this write to 'A' can be out of bounds: index 1 along dimension 0, of extent 1, when n = 1, bx = 0, thread = 1; guard it with an if, or state what the launch guarantees with T.assume}}
      memref.store %cst, %a[%i] : memref<?xf32>
    }
  }
  return
}

// -----

// A fact that is not enough: M even does not make rows of 32 fit.
func.func @weak_assumption(%a: memref<?xf32> {tile.dims = array<i64: 1>}, %m: index) attributes {tile.arg_names = ["A", "M"]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %grid = arith.ceildivsi %m, %c32 : index
  tile.kernel blocks(%bx) in (%grid) threads(32) {
    %rem = arith.remsi %m, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    tile.assume %even
    %t = gpu.thread_id x upper_bound 32
    %base = arith.muli %bx, %c32 : index
    %i = arith.addi %base, %t : index
    // expected-error@+1 {{this read of 'A' can be out of bounds: index 2 along dimension 0, of extent 2, when M = 2, bx = 0, thread = 2; guard it with an if, or state what the launch guarantees with T.assume}}
    %v = memref.load %a[%i] : memref<?xf32>
  }
  return
}

// -----

// Shared memory past the tile: thread t writes S[t + 1].
func.func @shared_past_the_end(%a: memref<128xf32>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %s = tile.alloc_shared : memref<128xf32, #tile.shared> loc("S"(unknown))
    %x = memref.load %a[%t] : memref<128xf32>
    %u = arith.addi %t, %c1 : index
    // expected-error@+1 {{this write to shared buffer 'S' can be out of bounds: index 128 along dimension 0, of extent 128, when thread = 127; guard it with an if, or state what the launch guarantees with T.assume}}
    memref.store %x, %s[%u] : memref<128xf32, #tile.shared>
  }
  return
}

// -----

// A swizzled tile written one column to the right: the column before the
// swizzle, read back from its offset, runs past the row.
func.func @swizzled_past_the_row(%a: memref<64x64xf16>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c56 = arith.constant 56 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %cst = arith.constant 1.0 : f16
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %t = gpu.thread_id x upper_bound 64
    %s = tile.alloc_shared {layout = #tile.shared_layout<[64, 64], (d0, d1) -> (d1 + d0 * 64), swizzle = <bits = 3, base = 3, shift = 3>>} : memref<64x64xf16, #tile.shared>
    %c = arith.addi %t, %c1 : index
    %rows = arith.muli %c3, %c64 : index
    %o = arith.addi %rows, %c : index
    %high = arith.shrui %o, %c3 : index
    %source = arith.andi %high, %c56 : index
    %x = arith.xori %o, %source : index
    %row = arith.shrui %x, %c6 : index
    %col = arith.andi %x, %c63 : index
    // expected-error@+1 {{this write to a shared buffer can be out of bounds: index 64 along dimension 1, of extent 64, when thread = 63}}
    memref.store %cst, %s[%row, %col] : memref<64x64xf16, #tile.shared>
  }
  return
}

// -----

// A cp.async cannot be guarded where it writes: a chunk past the shared
// tile is an error.
func.func @async_past_the_tile(%a: memref<512xf32>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %buf = tile.alloc_shared : memref<64xf32, #tile.shared>
    %j = arith.muli %t, %c4 : index
    // expected-error@+1 {{this write to a shared buffer can be out of bounds: indices 64 to 67 along dimension 0, of extent 64, when thread = 16}}
    tile.async_copy %a[%j], %buf[%j], 4 : memref<512xf32> to memref<64xf32, #tile.shared>
  }
  return
}

// -----

// Three stages of a buffer of two: the view of the third is outside it.
func.func @stage_past_the_buffer(%a: memref<64xf32>) attributes {tile.arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %buf = tile.alloc_shared : memref<2x64xf32, #tile.shared>
    scf.for %k = %c0 to %c3 step %c1 {
      // expected-error@+1 {{this view of a shared buffer can be out of bounds: index 2 along dimension 0, of extent 2, when the loop index at line 186 = 2}}
      %view = memref.subview %buf[%k, 0] [1, 64] [1, 1] : memref<2x64xf32, #tile.shared> to memref<64xf32, strided<[1], offset: ?>, #tile.shared>
    }
  }
  return
}
