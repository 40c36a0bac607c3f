// RUN: tilec-opt %s --split-input-file --tile-infer-layouts | FileCheck %s

// Two fragments with different annotated layouts in one loop: the loop runs
// in %a's layout and writes %b through a shared copy of it, loaded from %b
// before the loop (which may write only part of it) and stored back after.
#rows = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1)>
#cols = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> ((d0 + d1) mod 32, d1)>
// CHECK-LABEL: func.func @conflict
// CHECK: %[[S:.*]] = tile.alloc_shared : memref<32x4xf32, #tile.shared>
// CHECK: %[[A:.*]] = tile.alloc_fragment {layout = #[[ROWS:.*]]} :
// CHECK: %[[B:.*]] = tile.alloc_fragment {layout = #[[COLS:.*]]} :
// CHECK: tile.parallel {{.*}} layout #[[COLS]] attributes {tile.layout_conversion = "another use fixed its layout in another way"}
// CHECK-NEXT: memref.load %[[B]]
// CHECK-NEXT: memref.store {{.*}}, %[[S]]
// CHECK: tile.parallel {{.*}} layout #[[ROWS]] {
// CHECK-NEXT: memref.load %[[A]]
// CHECK-NEXT: memref.store {{.*}}, %[[S]]
// CHECK: tile.parallel {{.*}} layout #[[COLS]] attributes {tile.layout_conversion
// CHECK-NEXT: memref.load %[[S]]
// CHECK-NEXT: memref.store {{.*}}, %[[B]]
func.func @conflict() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_fragment : memref<32x4xf32, #tile.fragment>
    %b = tile.alloc_fragment : memref<32x4xf32, #tile.fragment>
    tile.annotate_layout #rows on %a : memref<32x4xf32, #tile.fragment>
    tile.annotate_layout #cols on %b : memref<32x4xf32, #tile.fragment>
    tile.parallel (%i, %j) in (32, 4) {
      %x = memref.load %a[%i, %j] : memref<32x4xf32, #tile.fragment>
      memref.store %x, %b[%i, %j] : memref<32x4xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A transposed read: each thread reads elements another holds, so the loop
// reads a shared copy, and writes nothing back.
// CHECK-LABEL: func.func @transpose
// CHECK: %[[S:.*]] = tile.alloc_shared : memref<32x32xf32, #tile.shared>
// CHECK: %[[T:.*]] = tile.alloc_fragment {layout = #[[GRID:.*]]} :
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (32, 32) layout #[[GRID]] {
// CHECK: tile.parallel {{.*}} layout #[[GRID]] attributes {tile.layout_conversion = "the loop reads or writes elements its layout gives to other threads"}
// CHECK-NEXT: memref.load %[[T]]
// CHECK-NEXT: memref.store {{.*}}, %[[S]]
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 32) layout #[[GRID]] {
// CHECK-NEXT: memref.load %[[S]][%[[J]], %[[I]]]
// CHECK-NOT: tile.parallel
func.func @transpose(%out: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %t = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (32, 32) {
      %x = arith.constant 1.0 : f32
      memref.store %x, %t[%i, %j] : memref<32x32xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (32, 32) {
      %x = memref.load %t[%j, %i] : memref<32x32xf32, #tile.fragment>
      memref.store %x, %out[%i, %j] : memref<32x32xf32>
    }
  }
  return
}

// -----

// The reduced fragment's annotated layout is not a grid: the reduction
// reads a copy laid out as a grid, made through shared memory.
// CHECK-LABEL: func.func @reduce_not_grid
// CHECK: %[[GRID:.*]] = tile.alloc_fragment {layout = #[[GRIDL:.*]]} : memref<32x4xf32
// CHECK: %[[S:.*]] = tile.alloc_shared : memref<32x4xf32, #tile.shared>
// CHECK: %[[F:.*]] = tile.alloc_fragment {layout = #[[ANNOTATED:.*]]} : memref<32x4xf32
// CHECK: tile.parallel {{.*}} layout #[[ANNOTATED]] attributes {tile.layout_conversion = "its layout cannot be split into rows"}
// CHECK-NEXT: memref.load %[[F]]
// CHECK-NEXT: memref.store {{.*}}, %[[S]]
// CHECK: tile.parallel {{.*}} layout #[[GRIDL]] attributes {tile.layout_conversion
// CHECK-NEXT: memref.load %[[S]]
// CHECK-NEXT: memref.store {{.*}}, %[[GRID]]
// CHECK: tile.reduce sum %[[GRID]] ->
func.func @reduce_not_grid() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %f = tile.alloc_fragment {layout = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1)>} : memref<32x4xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    tile.reduce sum %f -> %m dim(1) : memref<32x4xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
  }
  return
}

// -----

// The result's layout was fixed by an annotation; the reduction, which
// combines with what it holds, writes a fragment of its own, copied from
// and back to the result.
// CHECK-LABEL: func.func @reduce_dest
// CHECK: %[[OWN:.*]] = tile.alloc_fragment {layout = #[[ROWS:.*]]} : memref<8xf32
// CHECK: %[[S:.*]] = tile.alloc_shared : memref<8xf32, #tile.shared>
// CHECK: %[[F:.*]] = tile.alloc_fragment
// CHECK: %[[M:.*]] = tile.alloc_fragment {layout = #[[ANNOTATED:.*]]} : memref<8xf32
// CHECK: tile.parallel (%{{.*}}) in (8) layout #[[ANNOTATED]] attributes {tile.layout_conversion
// CHECK-NEXT: memref.load %[[M]]
// CHECK: tile.parallel (%{{.*}}) in (8) layout #[[ROWS]] attributes {tile.layout_conversion
// CHECK-NEXT: memref.load %[[S]]
// CHECK-NEXT: memref.store {{.*}}, %[[OWN]]
// CHECK: tile.reduce max %[[F]] -> %[[OWN]] dim(1) clear(false)
// CHECK: tile.parallel (%{{.*}}) in (8) layout #[[ROWS]] attributes {tile.layout_conversion
// CHECK-NEXT: memref.load %[[OWN]]
// CHECK: tile.parallel (%{{.*}}) in (8) layout #[[ANNOTATED]] attributes {tile.layout_conversion
// CHECK-NEXT: memref.load %[[S]]
// CHECK-NEXT: memref.store {{.*}}, %[[M]]
func.func @reduce_dest(%in: memref<8x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %f = tile.alloc_fragment : memref<8x64xf32, #tile.fragment>
    %m = tile.alloc_fragment {layout = #tile.fragment_layout<[8], threads = 64, slots = 8, replicate = 64, (d0, d1) -> (d1, d0)>} : memref<8xf32, #tile.fragment>
    tile.parallel (%i, %j) in (8, 64) {
      %x = memref.load %in[%i, %j] : memref<8x64xf32>
      memref.store %x, %f[%i, %j] : memref<8x64xf32, #tile.fragment>
    }
    tile.reduce max %f -> %m dim(1) clear(false) : memref<8x64xf32, #tile.fragment>, memref<8xf32, #tile.fragment>
  }
  return
}

// -----

// Row statistics filled before the loop over the rows: the 2-D loop takes
// the grid layout first, so the fill follows the reduction's rows and no
// conversion is needed.
// CHECK-LABEL: func.func @rows_first
// CHECK-NOT: tile.layout_conversion
// CHECK: %[[F:.*]] = tile.alloc_fragment {layout = #[[GRID:.*]]} : memref<4x256xf32
// CHECK: %[[M:.*]] = tile.alloc_fragment {layout = #[[ROWS:.*]]} : memref<4xf32
// CHECK: tile.parallel (%{{.*}}) in (4) layout #[[ROWS]] {
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (4, 256) layout #[[GRID]] {
// CHECK-NOT: tile.layout_conversion
func.func @rows_first(%in: memref<4x256xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %f = tile.alloc_fragment : memref<4x256xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<4xf32, #tile.fragment>
    tile.parallel (%i) in (4) {
      %x = arith.constant 0.0 : f32
      memref.store %x, %m[%i] : memref<4xf32, #tile.fragment>
    }
    tile.parallel (%i, %j) in (4, 256) {
      %x = memref.load %in[%i, %j] : memref<4x256xf32>
      memref.store %x, %f[%i, %j] : memref<4x256xf32, #tile.fragment>
    }
    tile.reduce max %f -> %m dim(1) clear(false) : memref<4x256xf32, #tile.fragment>, memref<4xf32, #tile.fragment>
  }
  return
}
