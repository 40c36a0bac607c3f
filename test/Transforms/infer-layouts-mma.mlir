// RUN: tilec-opt %s --split-input-file --tile-set-target=features=mma_sync --tile-infer-layouts | FileCheck %s

// With mma.sync, each gemm records the instruction it runs on, and its
// accumulator gets the accumulator layout of its
// warp partition (full_row: 4 warps of 16 rows); the reduction of its rows
// is held by the 4 lanes of each lane group; the f16 copy of the scores,
// written in the scores' layout, is what the second gemm needs of A in
// registers, so there is no conflict.
// CHECK-DAG: #[[S:.*]] = #tile.fragment_layout<[64, 64], threads = 128, slots = 32, {{.*}}>
// CHECK-DAG: #[[O:.*]] = #tile.fragment_layout<[64, 32], threads = 128, slots = 16, {{.*}}>
// CHECK-DAG: #[[ROWS:.*]] = #tile.fragment_layout<[64], threads = 128, slots = 2, replicate = 4, {{.*}}>
// CHECK-LABEL: func.func @attention_like
// CHECK: tile.alloc_fragment {layout = #[[S]]} : memref<64x64xf32, #tile.fragment>
// CHECK: tile.alloc_fragment {layout = #[[S]]} : memref<64x64xf16, #tile.fragment>
// CHECK: tile.alloc_fragment {layout = #[[O]]} : memref<64x32xf32, #tile.fragment>
// CHECK: tile.alloc_fragment {layout = #[[ROWS]]} : memref<64xf32, #tile.fragment>
// CHECK: tile.gemm {{.*}} clear_accum {instruction = #tile.mma_sync}
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (64, 64) layout #[[S]]
// CHECK: tile.gemm {{.*}} clear_accum {instruction = #tile.mma_sync}
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (64, 32) layout #[[O]]
func.func @attention_like(%out: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %qs = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %ks = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %vs = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %s = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %p = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %o = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.gemm %qs, %ks, %s transpose_b policy(full_row) clear_accum : memref<64x32xf16, #tile.shared>, memref<64x32xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
    tile.reduce max %s -> %m dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %s[%i, %j] : memref<64x64xf32, #tile.fragment>
      %y = memref.load %m[%i] : memref<64xf32, #tile.fragment>
      %z = arith.subf %x, %y : f32
      %h = arith.truncf %z : f32 to f16
      memref.store %h, %p[%i, %j] : memref<64x64xf16, #tile.fragment>
    }
    tile.gemm %p, %vs, %o policy(full_row) clear_accum : memref<64x64xf16, #tile.fragment>, memref<64x32xf16, #tile.shared>, memref<64x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 32) {
      %x = memref.load %o[%i, %j] : memref<64x32xf32, #tile.fragment>
      memref.store %x, %out[%i, %j] : memref<64x32xf32>
    }
  }
  return
}

// -----

// The square policy splits 128x128 over 4 warps as 2x2; an f16 gemm with K
// of 8, less than one mma.sync step, keeps the grid layout.
// CHECK-DAG: #[[MMA:.*]] = #tile.fragment_layout<[128, 128], threads = 128, slots = 128, (d0, d1) -> (((d0 floordiv 64) * 2 + d1 floordiv 64) * 32
// CHECK-DAG: #[[GRID:.*]] = #tile.fragment_layout<[64, 64], threads = 128, slots = 32, (d0, d1) -> ((d0 mod 8) * 16
// CHECK-LABEL: func.func @square
// CHECK: tile.alloc_fragment {layout = #[[MMA]]} : memref<128x128xf32, #tile.fragment>
// CHECK: tile.alloc_fragment {layout = #[[GRID]]} : memref<64x64xf32, #tile.fragment>
func.func @square() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %b = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %c = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.gemm %a, %b, %c : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
    %a8 = tile.alloc_shared : memref<64x8xf16, #tile.shared>
    %b8 = tile.alloc_shared : memref<8x64xf16, #tile.shared>
    %c8 = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.gemm %a8, %b8, %c8 : memref<64x8xf16, #tile.shared>, memref<8x64xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}
