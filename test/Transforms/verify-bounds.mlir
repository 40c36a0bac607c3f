// RUN: tilec-opt %s --split-input-file --tile-verify-bounds=remarks=true --verify-diagnostics | FileCheck %s

// A block's rows stay inside a static tensor: proved, nothing changes.
// CHECK-LABEL: func.func @static_rows
// CHECK-NOT: scf.if
// CHECK: memref.load %arg0[%{{.*}}] : memref<4096xf32>
func.func @static_rows(%a: memref<4096xf32>, %b: memref<4096xf32>) attributes {tile.arg_names = ["A", "B"]} {
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  // expected-remark@+1 {{bounds of this kernel's 2 memory accesses: 2 proved, 0 guarded; 0 branches decided at compile time (0 queries)}}
  tile.kernel blocks(%bx) in (%c32) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %base = arith.muli %bx, %c128 : index
    %i = arith.addi %base, %t : index
    // expected-remark@+1 {{this read of 'A' is proved in bounds}}
    %v = memref.load %a[%i] : memref<4096xf32>
    // expected-remark@+1 {{this write to 'B' is proved in bounds}}
    memref.store %v, %b[%i] : memref<4096xf32>
  }
  return
}

// -----

// A run-time extent with the guard the copies put around tails: the guard
// proves the access.
// CHECK-LABEL: func.func @guarded_tail
// CHECK: scf.if
// CHECK: vector.load
func.func @guarded_tail(%a: memref<?xf32> {tile.dims = array<i64: 1>}, %n: index) attributes {tile.arg_names = ["A", "n"]} {
  %c128 = arith.constant 128 : index
  %c4 = arith.constant 4 : index
  %cst = arith.constant dense<0.0> : vector<4xf32>
  %grid = arith.ceildivsi %n, %c128 : index
  // expected-remark@+1 {{bounds of this kernel's 1 memory accesses: 1 proved, 0 guarded; 0 branches decided at compile time (2 queries)}}
  tile.kernel blocks(%bx) in (%grid) threads(32) {
    %t = gpu.thread_id x upper_bound 32
    %base = arith.muli %bx, %c128 : index
    %off = arith.muli %t, %c4 : index
    %i = arith.addi %base, %off : index
    %last = arith.addi %i, %c4 : index
    %ok = arith.cmpi ule, %last, %n : index
    %r = scf.if %ok -> (vector<4xf32>) {
      // expected-remark@+1 {{this read of 'A' is proved in bounds}}
      %v = vector.load %a[%i] : memref<?xf32>, vector<4xf32>
      scf.yield %v : vector<4xf32>
    } else {
      scf.yield %cst : vector<4xf32>
    }
  }
  return
}

// -----

// T.assume that the extent is a multiple of the block makes the guard
// always pass: it goes.
// CHECK-LABEL: func.func @assumed_multiple
// CHECK-NOT: scf.if
// CHECK: vector.load
func.func @assumed_multiple(%a: memref<?xf32> {tile.dims = array<i64: 1>}, %n: index) attributes {tile.arg_names = ["A", "n"]} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c4 = arith.constant 4 : index
  %cst = arith.constant dense<0.0> : vector<4xf32>
  %grid = arith.ceildivsi %n, %c128 : index
  // expected-remark@+1 {{bounds of this kernel's 1 memory accesses: 1 proved, 0 guarded; 1 branches decided at compile time (2 queries)}}
  tile.kernel blocks(%bx) in (%grid) threads(32) {
    %rem = arith.remsi %n, %c128 : index
    %multiple = arith.cmpi eq, %rem, %c0 : index
    tile.assume %multiple
    %t = gpu.thread_id x upper_bound 32
    %base = arith.muli %bx, %c128 : index
    %off = arith.muli %t, %c4 : index
    %i = arith.addi %base, %off : index
    %last = arith.addi %i, %c4 : index
    %ok = arith.cmpi ule, %last, %n : index
    %r = scf.if %ok -> (vector<4xf32>) {
      // expected-remark@+1 {{this read of 'A' is proved in bounds}}
      %v = vector.load %a[%i] : memref<?xf32>, vector<4xf32>
      scf.yield %v : vector<4xf32>
    } else {
      scf.yield %cst : vector<4xf32>
    }
  }
  return
}

// -----

// An index loaded from memory (a gather) cannot be proved: the read is
// guarded, the store too.
// CHECK-LABEL: func.func @gather
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[J:.*]], %arg2
// CHECK: scf.if %[[OK]] -> (f32)
// CHECK-NEXT: memref.load %arg0[%[[J]]]
// CHECK: } else {
// CHECK-NEXT: arith.constant 0.000000e+00 : f32
// CHECK: scf.if
// CHECK-NEXT: memref.store
func.func @gather(%a: memref<?xf32> {tile.dims = array<i64: 2>},
                  %idx: memref<128xindex>, %n: index) attributes {tile.arg_names = ["A", "idx", "n"]} {
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{bounds of this kernel's 3 memory accesses: 1 proved, 2 guarded}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    // expected-remark@+1 {{this read of 'idx' is proved in bounds}}
    %j = memref.load %idx[%t] : memref<128xindex>
    // expected-remark@+1 {{this read of 'A' could not be proved in bounds; it is guarded}}
    %v = memref.load %a[%j] : memref<?xf32>
    // expected-remark@+1 {{this write to 'A' could not be proved in bounds; it is guarded}}
    memref.store %v, %a[%j] : memref<?xf32>
  }
  return
}

// -----

// A guarded vector access keeps the lanes inside the tensor, at both
// ends: lanes [-j, n - j), clamped to [0, 4], in a mask.
// CHECK-LABEL: func.func @gather_vector
// CHECK: %[[LEFT:.*]] = arith.subi %arg2, %[[J:.*]] : index
// CHECK: %[[POS:.*]] = arith.maxsi %[[LEFT]], %c0
// CHECK: %[[LANES:.*]] = arith.minsi %[[POS]], %c4
// CHECK: %[[NEG:.*]] = arith.subi %c0, %[[J]] : index
// CHECK: %[[NEGPOS:.*]] = arith.maxsi %[[NEG]], %c0
// CHECK: %[[SKIPPED:.*]] = arith.minsi %[[NEGPOS]], %c4
// CHECK: %[[COUNT:.*]] = arith.index_cast %[[LANES]] : index to i32
// CHECK: %[[COUNTS:.*]] = vector.broadcast %[[COUNT]] : i32 to vector<4xi32>
// CHECK: %[[BELOW:.*]] = arith.cmpi slt, %{{.*}}, %[[COUNTS]] : vector<4xi32>
// CHECK: %[[FIRST:.*]] = arith.index_cast %[[SKIPPED]] : index to i32
// CHECK: %[[FIRSTS:.*]] = vector.broadcast %[[FIRST]] : i32 to vector<4xi32>
// CHECK: %[[ABOVE:.*]] = arith.cmpi sge, %{{.*}}, %[[FIRSTS]] : vector<4xi32>
// CHECK: %[[MASK:.*]] = arith.andi %[[BELOW]], %[[ABOVE]] : vector<4xi1>
// CHECK: vector.maskedload %arg0[%[[J]]], %[[MASK]]
func.func @gather_vector(%a: memref<?xf32> {tile.dims = array<i64: 2>},
                         %idx: memref<128xindex>, %n: index) attributes {tile.arg_names = ["A", "idx", "n"]} {
  %c1 = arith.constant 1 : index
  // expected-remark@+1 {{1 proved, 1 guarded}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    // expected-remark@+1 {{proved in bounds}}
    %j = memref.load %idx[%t] : memref<128xindex>
    // expected-remark@+1 {{could not be proved in bounds; it is guarded}}
    %v = vector.load %a[%j] : memref<?xf32>, vector<4xf32>
  }
  return
}

// -----

// A loop's induction variable stays in its range, its step included.
// CHECK-LABEL: func.func @strided_loop
func.func @strided_loop(%a: memref<?x64xf32> {tile.dims = array<i64: 1, -1>}, %k: index) attributes {tile.arg_names = ["A", "K"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c63 = arith.constant 63 : index
  %cst = arith.constant 0.0 : f32
  // expected-remark@+1 {{bounds of this kernel's 1 memory accesses: 1 proved, 0 guarded}}
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    scf.for %i = %c0 to %k step %c1 {
      scf.for %j = %c0 to %c63 step %c2 {
        %j1 = arith.addi %j, %c1 : index
        // expected-remark@+1 {{proved in bounds}}
        memref.store %cst, %a[%i, %j1] : memref<?x64xf32>
      }
    }
  }
  return
}

// -----

// Shared and local buffers are checked as tensors are: a thread's element
// of a shared tile, and a local array indexed by a loop, proved. Constant
// indices of local buffers (a fragment's registers) are checked but left
// out of the counts.
// CHECK-LABEL: func.func @shared_and_local
// CHECK-NOT: scf.if
func.func @shared_and_local(%a: memref<128xf32>) attributes {tile.arg_names = ["A"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-remark@+1 {{bounds of this kernel's 3 memory accesses: 3 proved, 0 guarded}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %s = tile.alloc_shared : memref<128xf32, #tile.shared> loc("S"(unknown))
    %l = memref.alloca() : memref<4xf32> loc("L"(unknown))
    // expected-remark@+1 {{this read of 'A' is proved in bounds}}
    %x = memref.load %a[%t] : memref<128xf32>
    // expected-remark@+1 {{this write to shared buffer 'S' is proved in bounds}}
    memref.store %x, %s[%t] : memref<128xf32, #tile.shared>
    scf.for %k = %c0 to %c4 step %c1 {
      // expected-remark@+1 {{this write to local buffer 'L' is proved in bounds}}
      memref.store %x, %l[%k] : memref<4xf32>
    }
    memref.store %x, %l[%c0] : memref<4xf32>
  }
  return
}

// -----

// A swizzled tile's row and column, read back from the offset before the
// swizzle: proved without the exclusive or.
func.func @swizzled_tile(%a: memref<64x64xf16>) attributes {tile.arg_names = ["A"]} {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %c56 = arith.constant 56 : index
  %c63 = arith.constant 63 : index
  %c64 = arith.constant 64 : index
  // expected-remark@+1 {{bounds of this kernel's 2 memory accesses: 2 proved, 0 guarded; 0 branches decided at compile time (1 queries)}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    %s = tile.alloc_shared {layout = #tile.shared_layout<[64, 64], (d0, d1) -> (d1 + d0 * 64), swizzle = <bits = 3, base = 3, shift = 3>>} : memref<64x64xf16, #tile.shared>
    %r = arith.divui %t, %c8 : index
    %q = arith.remui %t, %c8 : index
    %c = arith.muli %q, %c8 : index
    // expected-remark@+1 {{this read of 'A' is proved in bounds}}
    %v = vector.load %a[%r, %c] : memref<64x64xf16>, vector<8xf16>
    %rows = arith.muli %r, %c64 : index
    %o = arith.addi %rows, %c : index
    %high = arith.shrui %o, %c3 : index
    %source = arith.andi %high, %c56 : index
    %x = arith.xori %o, %source : index
    %row = arith.shrui %x, %c6 : index
    %col = arith.andi %x, %c63 : index
    // expected-remark@+1 {{this write to a shared buffer is proved in bounds}}
    vector.store %v, %s[%row, %col] : memref<64x64xf16, #tile.shared>, vector<8xf16>
  }
  return
}

// -----

// A cp.async from an index loaded from memory: not proved, so outside the
// tensor it reads nothing and fills zeros (its source size is 0), from
// index 0. The stage it writes, k mod 2 of two, is proved.
// CHECK-LABEL: func.func @async_gather
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: %[[I:.*]] = arith.select %[[OK]], %{{.*}}, %[[ZERO:.*]] : index
// CHECK: %[[N:.*]] = arith.select %[[OK]], %{{.*}}, %[[ZERO]] : index
// CHECK: tile.async_copy %arg0[%[[I]]], %{{.*}}, 4 source_elements %[[N]]
func.func @async_gather(%a: memref<512xf32>, %idx: memref<16xindex>) attributes {tile.arg_names = ["A", "I"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  // expected-remark@+1 {{bounds of this kernel's 4 memory accesses: 3 proved, 1 guarded}}
  tile.kernel blocks(%bx) in (%c1) threads(16) {
    %t = gpu.thread_id x upper_bound 16
    %buf = tile.alloc_shared : memref<2x64xf32, #tile.shared>
    %j = arith.muli %t, %c4 : index
    // expected-remark@+1 {{this read of 'I' is proved in bounds}}
    %i = memref.load %idx[%t] : memref<16xindex>
    scf.for %k = %c0 to %c8 step %c1 {
      %stage = arith.remui %k, %c2 : index
      // expected-remark@+1 {{this view of a shared buffer is proved in bounds}}
      %view = memref.subview %buf[%stage, 0] [1, 64] [1, 1] : memref<2x64xf32, #tile.shared> to memref<64xf32, strided<[1], offset: ?>, #tile.shared>
      // expected-remark@+2 {{this read of 'A' could not be proved in bounds; it is guarded}}
      // expected-remark@+1 {{this write to a shared buffer is proved in bounds}}
      tile.async_copy %a[%i], %view[%j], 4 : memref<512xf32> to memref<64xf32, strided<[1], offset: ?>, #tile.shared>
    }
  }
  return
}

// -----

// Atomic adds are writes: one from a gathered index is guarded, and its
// old value is zero outside the tensor.
// CHECK-LABEL: func.func @atomic_scatter
// CHECK: scf.if %{{.*}} -> (f32)
// CHECK-NEXT: memref.atomic_rmw addf
func.func @atomic_scatter(%a: memref<64xf32>, %idx: memref<128xindex>) attributes {tile.arg_names = ["A", "I"]} {
  %c1 = arith.constant 1 : index
  %cst = arith.constant 1.0 : f32
  // expected-remark@+1 {{bounds of this kernel's 2 memory accesses: 1 proved, 1 guarded}}
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = gpu.thread_id x upper_bound 128
    // expected-remark@+1 {{this read of 'I' is proved in bounds}}
    %i = memref.load %idx[%t] : memref<128xindex>
    // expected-remark@+1 {{this write to 'A' could not be proved in bounds; it is guarded}}
    %old = memref.atomic_rmw addf %cst, %a[%i] : (f32, memref<64xf32>) -> f32
  }
  return
}
