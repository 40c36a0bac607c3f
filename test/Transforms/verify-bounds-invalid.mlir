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
