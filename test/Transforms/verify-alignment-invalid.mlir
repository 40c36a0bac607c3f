// RUN: tilec-opt %s --split-input-file --tile-verify-alignment --verify-diagnostics

// A 16-byte vector every 8 bytes: thread 1's is misaligned.
func.func @half_step(%a: memref<256xf32>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %j = arith.muli %t, %c2 : index
    // expected-error@+1 {{internal error: this vector read of 'A' needs 16-byte alignment but can be at byte 8 of the buffer, when thread = 1; this is a bug in tilec: please report it with the input file and the command line}}
    %v = vector.load %a[%j] {alignment = 16 : i64} : memref<256xf32>, vector<4xf32>
  }
  return
}

// -----

// A cp.async of 16 bytes from rows of 1001 halves: row 1 starts 2002 bytes
// in, which is not a multiple of 16.
func.func @odd_rows(%a: memref<64x1001xf16>) attributes {tile.arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %buf = tile.alloc_shared : memref<32x8xf16, #tile.shared>
    // expected-error@+1 {{internal error: this asynchronous copy read of 'A' needs 16-byte alignment but can be at byte 2002 of the buffer, when thread = 1}}
    tile.async_copy %a[%t, %c0], %buf[%t, %c0], 8 : memref<64x1001xf16> to memref<32x8xf16, #tile.shared>
  }
  return
}

// -----

// Rows of a tensor of run-time width K, four floats a thread, with nothing
// known of K: with K = 1, row 1 starts 4 bytes in.
func.func @unknown_width(%a: memref<?x?xf32> {tile.dims = array<i64: 1, 2>}, %m: index, %k: index) attributes {tile.arg_names = ["A", "M", "K"]} {
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%m) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %j = arith.muli %t, %c4 : index
    // expected-error@+1 {{internal error: this vector read of 'A' needs 16-byte alignment but can be at byte 4 of the buffer, when M = 2, K = 1, bx = 1, thread = 0}}
    %v = vector.load %a[%bx, %j] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
  }
  return
}
