// RUN: tilec-opt %s --split-input-file --tile-verify-alignment=remarks=1 --verify-diagnostics | FileCheck %s

// Rows of a tensor of run-time width K, four floats a thread: row r
// starts at r * K, a multiple of 4 elements only if K is. T.assume says
// it is, so the 16-byte vectors are proved (the product of two run-time
// values, which the prover's linear arithmetic leaves alone, through what
// its factors are multiples of).
// CHECK-LABEL: func.func @assumed_width
// CHECK: vector.load {{.*}} {alignment = 16 : i64}
func.func @assumed_width(%a: memref<?x?xf32> {tile.dims = array<i64: 1, 2>}, %m: index, %k: index) attributes {tile.arg_names = ["A", "M", "K"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark@+1 {{alignment of this kernel's 1 vector, copy and matrix-load accesses: 1 proved, 0 lowered, 0 not proved}}
  tile.kernel blocks(%bx) in (%m) threads(32) {
    %r = arith.remui %k, %c4 : index
    %multiple = arith.cmpi eq, %r, %c0 : index
    tile.assume %multiple
    %t = gpu.thread_id x upper_bound 32
    %j = arith.muli %t, %c4 : index
    // expected-remark@+1 {{this vector read of 'A' is proved 16-byte aligned}}
    %v = vector.load %a[%bx, %j] {alignment = 16 : i64} : memref<?x?xf32>, vector<4xf32>
  }
  return
}

// -----

// A start loaded from memory: not proved, and not refuted (nothing is
// known of it). The access is taken as 4-byte aligned, which LLVM splits
// into scalar loads rather than trust.
// CHECK-LABEL: func.func @gathered_start
// CHECK: vector.load {{.*}} {alignment = 4 : i64}
func.func @gathered_start(%a: memref<1024xf32>, %idx: memref<32xindex>) attributes {tile.arg_names = ["A", "I"]} {
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{alignment of this kernel's 1 vector, copy and matrix-load accesses: 0 proved, 1 lowered, 0 not proved}}
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %j = memref.load %idx[%t] : memref<32xindex>
    // expected-remark@+1 {{this vector read of 'A' could not be proved 16-byte aligned; it is taken as 4-byte aligned}}
    %v = vector.load %a[%j] {alignment = 16 : i64} : memref<1024xf32>, vector<4xf32>
  }
  return
}

// -----

// A swizzled tile keeps runs of 8 halves whole: the 16-byte stores are as
// aligned as the offsets before the swizzle, which are multiples of 8.
// Its stage is one of two, 8 KiB apart.
func.func @swizzled_stage(%a: memref<64x64xf16>) attributes {tile.arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c56 = arith.constant 56 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  %v = arith.constant dense<1.0> : vector<8xf16>
  // expected-remark@+1 {{alignment of this kernel's 1 vector, copy and matrix-load accesses: 1 proved}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %s = tile.alloc_shared {layout = #tile.shared_layout<[2, 64, 64], (d0, d1, d2) -> (d2 + d1 * 64 + d0 * 4096), swizzle = <bits = 3, base = 3, shift = 3>>} : memref<2x64x64xf16, #tile.shared>
    scf.for %k = %c0 to %c4 step %c1 {
      %stage = arith.remui %k, %c2 : index
      %view = memref.subview %s[%stage, 0, 0] [1, 64, 64] [1, 1, 1] : memref<2x64x64xf16, #tile.shared> to memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.shared>
      %r = arith.divui %t, %c8 : index
      %q = arith.remui %t, %c8 : index
      %c = arith.muli %q, %c8 : index
      %rows = arith.muli %r, %c64 : index
      %o = arith.addi %rows, %c : index
      %high = arith.shrui %o, %c3 : index
      %source = arith.andi %high, %c56 : index
      %x = arith.xori %o, %source : index
      %row = arith.shrui %x, %c6 : index
      %col = arith.andi %x, %c63 : index
      // expected-remark@+1 {{this vector write to a shared buffer is proved 16-byte aligned}}
      vector.store %v, %view[%row, %col] {alignment = 16 : i64} : memref<64x64xf16, strided<[64, 1], offset: ?>, #tile.shared>, vector<8xf16>
    }
  }
  return
}

// -----

// A cp.async of 16 bytes: the tensor's row of 1000 halves is 2000 bytes,
// a multiple of 16, and the column a multiple of 8 halves. Both sides are
// proved.
func.func @async_rows(%a: memref<64x1000xf16>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c4 = arith.constant 4 : index
  // expected-remark@+1 {{alignment of this kernel's 2 vector, copy and matrix-load accesses: 2 proved}}
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %buf = tile.alloc_shared : memref<8x32xf16, #tile.shared>
    %row = arith.divui %t, %c4 : index
    %q = arith.remui %t, %c4 : index
    %col = arith.muli %q, %c8 : index
    // expected-remark@+2 {{this asynchronous copy read of 'A' is proved 16-byte aligned}}
    // expected-remark@+1 {{this asynchronous copy write to a shared buffer is proved 16-byte aligned}}
    tile.async_copy %a[%row, %col], %buf[%row, %col], 8 : memref<64x1000xf16> to memref<8x32xf16, #tile.shared>
  }
  return
}
