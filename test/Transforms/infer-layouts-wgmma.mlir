// RUN: tilec-opt %s --split-input-file --tile-set-target=features=mma_sync,wgmma --tile-infer-layouts | FileCheck %s

// With wgmma, the one warpgroup holds the whole 128x128 accumulator: two
// m64n128 instruction tiles, 128 registers per thread; a warp's rows are
// 16 w + [0, 16) of each 64-row tile. The operand tiles get the panelled
// layouts wgmma reads: A's 64-byte rows one panel, B's 256-byte rows two.
// CHECK-DAG: #[[ACC:.*]] = #tile.fragment_layout<[128, 128], threads = 128, slots = 128, (d0, d1) -> ((d0 floordiv 128 + d1 floordiv 128) * 128 + ((d0 mod 64) floordiv 16) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, {{.*}}>
// CHECK-DAG: #[[A:.*]] = #tile.shared_layout<[128, 32], (d0, d1) -> (d1 + d0 * 32), swizzle = <bits = 2, base = 3, shift = 3>>
// CHECK-DAG: #[[B:.*]] = #tile.shared_layout<[32, 128], (d0, d1) -> ((d1 floordiv 64) * 2048 + d0 * 64 + d1 mod 64), swizzle = <bits = 3, base = 3, shift = 3>>
// CHECK-LABEL: func.func @gemm
// CHECK: tile.alloc_shared {layout = #[[A]]} : memref<128x32xf16, #tile.shared>
// CHECK: tile.alloc_shared {layout = #[[B]]} : memref<32x128xf16, #tile.shared>
// CHECK: tile.alloc_fragment {layout = #[[ACC]]} : memref<128x128xf32, #tile.fragment>
// CHECK: tile.gemm {{.*}} {instruction = #tile.wgmma}
func.func @gemm() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %as = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.gemm %as, %bs, %acc : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
  }
  return
}

// -----

// Two warpgroups, each 64 rows by full_row: the placement of mma.sync
// accumulators of 8 warps by rows (the same attribute), so reductions and
// register operands of FlashAttention-like code work on it unchanged.
// CHECK: #[[ROWS:.*]] = #tile.fragment_layout<[128, 64], threads = 256, slots = 32, (d0, d1) -> ((d0 floordiv 16 + d1 floordiv 64) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2,
// CHECK-LABEL: func.func @rows
// CHECK: tile.alloc_fragment {layout = #[[ROWS]]}
func.func @rows() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %as = tile.alloc_shared : memref<128x64xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
    tile.gemm %as, %bs, %acc transpose_b policy(full_row) : memref<128x64xf16, #tile.shared>, memref<64x64xf16, #tile.shared>, memref<128x64xf32, #tile.fragment>
  }
  return
}

// -----

// What wgmma does not take stays on mma.sync, whose square partition of a
// 64x64 tile is 2x2 warps (wgmma's would be one warpgroup): an f16
// accumulator, int8 B stored K by N, and (on 128 rows,
// 4 warps of 32) B's rows of 48 bytes, which no swizzle panels.
// CHECK: #[[MMA1:.*]] = #tile.fragment_layout<[64, 64], threads = 128, slots = 32, (d0, d1) -> (((d0 floordiv 32) * 2 + d1 floordiv 32) * 32
// CHECK-LABEL: func.func @f16_accumulator
// CHECK: tile.alloc_fragment {layout = #[[MMA1]]}
func.func @f16_accumulator() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %as = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    tile.gemm %as, %bs, %acc : memref<64x32xf16, #tile.shared>, memref<32x64xf16, #tile.shared>, memref<64x64xf16, #tile.fragment>
  }
  return
}

// -----

// A in registers, with each warp's 16 rows of the one warpgroup's 64: wgmma
// takes A as mma.sync's m16k16 fragments, so A's layout is the A operand
// layout of 4 warps by rows (here the accumulator layout of a 64x32 tile),
// and the accumulator's that of 4 warps by rows too.
// CHECK: #[[A2:.*]] = #tile.fragment_layout<[64, 32], threads = 128, slots = 16, (d0, d1) -> ((d0 floordiv 16 + d1 floordiv 32) * 32
// CHECK: #[[ACC2:.*]] = #tile.fragment_layout<[64, 64], threads = 128, slots = 32, (d0, d1) -> ((d0 floordiv 16 + d1 floordiv 64) * 32
// CHECK-LABEL: func.func @registers
// CHECK: tile.alloc_fragment {layout = #[[A2]]} : memref<64x32xf16, #tile.fragment>
// CHECK: tile.alloc_fragment {layout = #[[ACC2]]} : memref<64x64xf32, #tile.fragment>
func.func @registers() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc_fragment : memref<64x32xf16, #tile.fragment>
    %bs = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.gemm %a, %bs, %acc : memref<64x32xf16, #tile.fragment>, memref<32x64xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// A in registers over 128 rows of one warpgroup (two bands of 64 per
// warp) runs on wgmma: the accumulator's layout has a warp's 16 rows in
// each band, and A's is the same layout of its [128, 32] tile, so a
// gemm's result feeds the next slot for slot.
// CHECK: #[[AREG:.*]] = #tile.fragment_layout<[128, 32], threads = 128, slots = 32, (d0, d1) -> ((d0 floordiv 128 + d1 floordiv 32) * 128 + ((d0 mod 64) floordiv 16) * 32
// CHECK: #[[MMA2:.*]] = #tile.fragment_layout<[128, 64], threads = 128, slots = 64, (d0, d1) -> ((d0 floordiv 128 + d1 floordiv 64) * 128 + ((d0 mod 64) floordiv 16) * 32
// CHECK-LABEL: func.func @registers_tall
// CHECK: tile.alloc_fragment {layout = #[[AREG]]} : memref<128x32xf16, #tile.fragment>
// CHECK: tile.alloc_fragment {layout = #[[MMA2]]} : memref<128x64xf32, #tile.fragment>
func.func @registers_tall() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc_fragment : memref<128x32xf16, #tile.fragment>
    %bs = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
    tile.gemm %a, %bs, %acc : memref<128x32xf16, #tile.fragment>, memref<32x64xf16, #tile.shared>, memref<128x64xf32, #tile.fragment>
  }
  return
}

// -----

// CHECK: #[[MMA3:.*]] = #tile.fragment_layout<[64, 64], threads = 128, slots = 32, (d0, d1) -> (((d0 floordiv 32) * 2 + d1 floordiv 32) * 32
// CHECK-LABEL: func.func @int8_k_by_n
// CHECK: tile.alloc_fragment {layout = #[[MMA3]]}
func.func @int8_k_by_n() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %as = tile.alloc_shared : memref<64x64xi8, #tile.shared>
    %bs = tile.alloc_shared : memref<64x64xi8, #tile.shared>
    %acc = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    tile.gemm %as, %bs, %acc : memref<64x64xi8, #tile.shared>, memref<64x64xi8, #tile.shared>, memref<64x64xi32, #tile.fragment>
  }
  return
}

// -----

// CHECK: #[[MMA4:.*]] = #tile.fragment_layout<[128, 24], threads = 128, slots = 24, (d0, d1) -> ((d0 floordiv 32 + d1 floordiv 24) * 32
// CHECK-LABEL: func.func @narrow_rows
// CHECK: tile.alloc_fragment {layout = #[[MMA4]]}
func.func @narrow_rows() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %as = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<32x24xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x24xf32, #tile.fragment>
    tile.gemm %as, %bs, %acc : memref<128x32xf16, #tile.shared>, memref<32x24xf16, #tile.shared>, memref<128x24xf32, #tile.fragment>
  }
  return
}
