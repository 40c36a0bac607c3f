// RUN: tilec-opt %s --split-input-file --tile-distribute --canonicalize --cse | FileCheck %s

// A copy of a 4x128 tile from a tensor of 100 columns: runs of 4 floats
// start at multiples of 4 and 100 is one, so the bound check of a run's
// first column holds for the whole run: one check, one 16-byte load, zero
// where outside.
// CHECK-LABEL: func.func @tail_columns
// CHECK: %[[COL:.*]] = arith.muli %{{.*}}, %c4
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[COL]], %c100
// CHECK: %[[V:.*]] = scf.if %[[IN]] -> (vector<4xf32>) {
// CHECK:   %[[L:.*]] = vector.load %arg0[%{{.*}}, %[[COL]]] {alignment = 16 : i64} : memref<4x100xf32>, vector<4xf32>
// CHECK:   scf.yield %[[L]]
// CHECK: } else {
// CHECK:   scf.yield %cst
// CHECK: vector.store %[[V]], %arg1
#grid = #tile.fragment_layout<[4, 128], threads = 32, slots = 16, (d0, d1) -> ((d1 floordiv 4) mod 32, (d0 + (d1 floordiv 4) floordiv 32) * 4 + d1 mod 4), inverse = (d0, d1) -> (d1 floordiv 4, (d0 mod 32) * 4 + d1 mod 4)>
func.func @tail_columns(%a: memref<4x100xf32>, %b: memref<4x128xf32>) {
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    tile.parallel (%i, %j) in (4, 128) layout #grid {
      %in = arith.cmpi ult, %j, %c100 : index
      %v = scf.if %in -> (f32) {
        %x = memref.load %a[%i, %j] : memref<4x100xf32>
        scf.yield %x : f32
      } else {
        scf.yield %zero : f32
      }
      memref.store %v, %b[%i, %j] : memref<4x128xf32>
    }
  }
  return
}

// -----

// With 99 columns, a run can straddle the bound: element by element.
// CHECK-LABEL: func.func @straddle
// CHECK-NOT: vector.load
// CHECK: memref.load %arg0
#grid = #tile.fragment_layout<[4, 128], threads = 32, slots = 16, (d0, d1) -> ((d1 floordiv 4) mod 32, (d0 + (d1 floordiv 4) floordiv 32) * 4 + d1 mod 4), inverse = (d0, d1) -> (d1 floordiv 4, (d0 mod 32) * 4 + d1 mod 4)>
func.func @straddle(%a: memref<4x99xf32>, %b: memref<4x128xf32>) {
  %c1 = arith.constant 1 : index
  %c99 = arith.constant 99 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    tile.parallel (%i, %j) in (4, 128) layout #grid {
      %in = arith.cmpi ult, %j, %c99 : index
      %v = scf.if %in -> (f32) {
        %x = memref.load %a[%i, %j] : memref<4x99xf32>
        scf.yield %x : f32
      } else {
        scf.yield %zero : f32
      }
      memref.store %v, %b[%i, %j] : memref<4x128xf32>
    }
  }
  return
}

// -----

// A value the same along the run (a row's bias) is loaded once and
// broadcast.
// CHECK-LABEL: func.func @bias
// CHECK: %[[BIAS:.*]] = memref.load %arg1[%{{.*}}] : memref<4xf32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[BIAS]] : f32 to vector<4xf32>
// CHECK: arith.addf %{{.*}}, %[[SPLAT]] : vector<4xf32>
#grid = #tile.fragment_layout<[4, 128], threads = 32, slots = 16, (d0, d1) -> ((d1 floordiv 4) mod 32, (d0 + (d1 floordiv 4) floordiv 32) * 4 + d1 mod 4), inverse = (d0, d1) -> (d1 floordiv 4, (d0 mod 32) * 4 + d1 mod 4)>
func.func @bias(%a: memref<4x128xf32>, %bias: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    tile.parallel (%i, %j) in (4, 128) layout #grid {
      %x = memref.load %a[%i, %j] : memref<4x128xf32>
      %y = memref.load %bias[%i] : memref<4xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %a[%i, %j] : memref<4x128xf32>
    }
  }
  return
}

// -----

// The column index used as data cannot be a vector of lanes here: element
// by element.
// CHECK-LABEL: func.func @index_as_data
// CHECK-NOT: vector.store
// CHECK: arith.index_cast
#grid = #tile.fragment_layout<[4, 128], threads = 32, slots = 16, (d0, d1) -> ((d1 floordiv 4) mod 32, (d0 + (d1 floordiv 4) floordiv 32) * 4 + d1 mod 4), inverse = (d0, d1) -> (d1 floordiv 4, (d0 mod 32) * 4 + d1 mod 4)>
func.func @index_as_data(%a: memref<4x128xi32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    tile.parallel (%i, %j) in (4, 128) layout #grid {
      %x = arith.index_cast %j : index to i32
      memref.store %x, %a[%i, %j] : memref<4x128xi32>
    }
  }
  return
}

// -----

// Bool and int4 elements take a byte each in memory, but a vector of them
// packs them into bits: runs of them are accessed element by element.
// CHECK-LABEL: func.func @bool_copy
// CHECK-NOT: vector.load
// CHECK-NOT: vector.store
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}] : memref<4x128xi1>
// CHECK: memref.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<4x128xi1>
#runs = #tile.fragment_layout<[4, 128], threads = 32, slots = 16, (d0, d1) -> ((d0 mod 4) * 8 + (d1 floordiv 16) mod 8, (d0 floordiv 4 + (d1 floordiv 16) floordiv 8) * 16 + d1 mod 16), inverse = (d0, d1) -> ((d1 floordiv 16) * 4 + d0 floordiv 8, (d0 mod 8) * 16 + d1 mod 16)>
func.func @bool_copy(%a: memref<4x128xi1>, %b: memref<4x128xi1>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %f = tile.alloc_fragment {layout = #runs} : memref<4x128xi1, #tile.fragment>
    tile.parallel (%i, %j) in (4, 128) layout #runs {
      %x = memref.load %a[%i, %j] : memref<4x128xi1>
      memref.store %x, %f[%i, %j] : memref<4x128xi1, #tile.fragment>
    }
    tile.parallel (%i, %j) in (4, 128) layout #runs {
      %x = memref.load %f[%i, %j] : memref<4x128xi1, #tile.fragment>
      memref.store %x, %b[%i, %j] : memref<4x128xi1>
    }
  }
  return
}

// -----

// CHECK-LABEL: func.func @int4_copy
// CHECK-NOT: vector.load
// CHECK-NOT: vector.store
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}] : memref<4x128xi4>
// CHECK: memref.store %{{.*}}, %arg1[%{{.*}}, %{{.*}}] : memref<4x128xi4>
#runs = #tile.fragment_layout<[4, 128], threads = 32, slots = 16, (d0, d1) -> ((d0 mod 4) * 8 + (d1 floordiv 16) mod 8, (d0 floordiv 4 + (d1 floordiv 16) floordiv 8) * 16 + d1 mod 16), inverse = (d0, d1) -> ((d1 floordiv 16) * 4 + d0 floordiv 8, (d0 mod 8) * 16 + d1 mod 16)>
func.func @int4_copy(%a: memref<4x128xi4>, %b: memref<4x128xi4>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %f = tile.alloc_fragment {layout = #runs} : memref<4x128xi4, #tile.fragment>
    tile.parallel (%i, %j) in (4, 128) layout #runs {
      %x = memref.load %a[%i, %j] : memref<4x128xi4>
      memref.store %x, %f[%i, %j] : memref<4x128xi4, #tile.fragment>
    }
    tile.parallel (%i, %j) in (4, 128) layout #runs {
      %x = memref.load %f[%i, %j] : memref<4x128xi4, #tile.fragment>
      memref.store %x, %b[%i, %j] : memref<4x128xi4>
    }
  }
  return
}
