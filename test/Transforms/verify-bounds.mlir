// RUN: tilec-opt %s --split-input-file --tile-verify-bounds=remarks=true --verify-diagnostics | FileCheck %s

// A block's rows stay inside a static tensor: proved, nothing changes.
// CHECK-LABEL: func.func @static_rows
// CHECK-NOT: scf.if
// CHECK: memref.load %arg0[%{{.*}}] : memref<4096xf32>
func.func @static_rows(%a: memref<4096xf32>, %b: memref<4096xf32>) attributes {tile.arg_names = ["A", "B"]} {
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  // expected-remark@+1 {{bounds of this kernel's 2 tensor accesses: 2 proved, 0 guarded; 0 branches decided at compile time (0 queries)}}
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
  // expected-remark@+1 {{bounds of this kernel's 1 tensor accesses: 1 proved, 0 guarded; 0 branches decided at compile time (2 queries)}}
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
  // expected-remark@+1 {{bounds of this kernel's 1 tensor accesses: 1 proved, 0 guarded; 1 branches decided at compile time (2 queries)}}
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
  // expected-remark@+1 {{bounds of this kernel's 3 tensor accesses: 1 proved, 2 guarded}}
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
  // expected-remark@+1 {{bounds of this kernel's 1 tensor accesses: 1 proved, 0 guarded}}
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
