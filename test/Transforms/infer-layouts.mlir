// RUN: tilec-opt %s --split-input-file --tile-infer-layouts | FileCheck %s

// A free loop over 16-bit global data gets the grid layout with 16-byte
// runs: 8 halves per thread per run, 32 threads per 256-element row.
// The fragment it writes takes the loop's layout; the loop that reads the
// fragment row-wise takes it too; the reduction's result is held by the 32
// threads of each row, one replica per thread.
// CHECK-DAG: #[[TILE:.*]] = #tile.fragment_layout<[4, 256], threads = 128, slots = 8, (d0, d1) -> ((d0 mod 4) * 32 + (d1 floordiv 8) mod 32, (d0 floordiv 4 + (d1 floordiv 8) floordiv 32) * 8 + d1 mod 8), inverse = (d0, d1) -> ((d1 floordiv 8) * 4 + d0 floordiv 32, (d0 mod 32) * 8 + d1 mod 8)>
// CHECK-DAG: #[[ROWS:.*]] = #tile.fragment_layout<[4], threads = 128, slots = 1, replicate = 32, (d0, d1) -> ((d0 mod 4) * 32 + d1, d0 floordiv 4), inverse = (d0, d1) -> (d1 * 4 + d0 floordiv 32, d0 mod 32)>
// CHECK-LABEL: func.func @rows
// CHECK: tile.alloc_fragment {layout = #[[TILE]]} : memref<4x256xf32, #tile.fragment>
// CHECK: tile.alloc_fragment {layout = #[[ROWS]]} : memref<4xf32, #tile.fragment>
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (4, 256) layout #[[TILE]]
// CHECK: tile.reduce max
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (4, 256) layout #[[TILE]]
func.func @rows(%a: memref<4x256xf16>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %f = tile.alloc_fragment : memref<4x256xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<4xf32, #tile.fragment>
    tile.parallel (%i, %j) in (4, 256) {
      %v = memref.load %a[%i, %j] : memref<4x256xf16>
      %w = arith.extf %v : f16 to f32
      memref.store %w, %f[%i, %j] : memref<4x256xf32, #tile.fragment>
    }
    tile.reduce max %f -> %m dim(1) : memref<4x256xf32, #tile.fragment>, memref<4xf32, #tile.fragment>
    tile.parallel (%i, %j) in (4, 256) {
      %x = memref.load %f[%i, %j] : memref<4x256xf32, #tile.fragment>
      %y = memref.load %m[%i] : memref<4xf32, #tile.fragment>
      %z = arith.subf %x, %y : f32
      memref.store %z, %f[%i, %j] : memref<4x256xf32, #tile.fragment>
    }
  }
  return
}

// -----

// An annotated layout wins, and flows to the loop that indexes the fragment
// and from it to the other fragment the loop writes.
// CHECK-DAG: #[[MINE:.*]] = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @annotated
// CHECK: %[[A:.*]] = tile.alloc_fragment {layout = #[[MINE]]}
// CHECK: %[[B:.*]] = tile.alloc_fragment {layout = #[[MINE]]}
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (32, 4) layout #[[MINE]]
#mine = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1)>
func.func @annotated() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_fragment : memref<32x4xf32, #tile.fragment>
    %b = tile.alloc_fragment : memref<32x4xf32, #tile.fragment>
    tile.annotate_layout #mine on %a : memref<32x4xf32, #tile.fragment>
    tile.parallel (%i, %j) in (32, 4) {
      %x = memref.load %a[%i, %j] : memref<32x4xf32, #tile.fragment>
      memref.store %x, %b[%i, %j] : memref<32x4xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A loop that only touches shared memory still gets a layout: the grid for
// its widest element (here 4-byte floats: runs of 4).
// CHECK-DAG: #[[GRID:.*]] = #tile.fragment_layout<[64, 64], threads = 256, slots = 16, {{.*}}>
// CHECK-LABEL: func.func @shared_only
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (64, 64) layout #[[GRID]]
func.func @shared_only() {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %s = tile.alloc_shared : memref<64x64xf32, #tile.shared>
    tile.parallel (%i, %j) in (64, 64) {
      memref.store %zero, %s[%i, %j] : memref<64x64xf32, #tile.shared>
    }
  }
  return
}

// -----

// A loop that writes a thread's local buffer runs in full on every thread:
// its layout replicates every element on all 32 threads. A loop that only
// reads the local buffer is partitioned as usual.
// CHECK-DAG: #[[ALL:.*]] = #tile.fragment_layout<[8], threads = 32, slots = 8, replicate = 32, (d0, d1) -> (d1, d0), inverse = (d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[SPLIT:.*]] = #tile.fragment_layout<[64], threads = 32, slots = 2,
// CHECK-LABEL: func.func @local_table
// CHECK: tile.parallel (%{{.*}}) in (8) layout #[[ALL]]
// CHECK: tile.parallel (%{{.*}}) in (64) layout #[[SPLIT]]
func.func @local_table(%c: memref<8xf32>, %y: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %t = tile.alloc_local : memref<8xf32, #tile.local>
    tile.parallel (%k) in (8) {
      %v = memref.load %c[%k] : memref<8xf32>
      memref.store %v, %t[%k] : memref<8xf32, #tile.local>
    }
    tile.parallel (%i) in (64) {
      %v = memref.load %t[%c7] : memref<8xf32, #tile.local>
      memref.store %v, %y[%i] : memref<64xf32>
    }
  }
  return
}
