// RUN: tilec-opt %s --split-input-file --tile-set-target="chip=gfx942 warp-size=64 registers=512 features=mfma,mfma_fp8_fnuz" --tile-infer-layouts --tile-distribute --canonicalize --cse | FileCheck %s

// One wave of 64 lanes, a 16x16 accumulator, K = 32: both operands in
// shared memory, so the two MFMAs of the step take their K in the packed
// order. Lane l reads row l % 16 of A and column l % 16 of B at the eight
// K from 8 * (l / 16), A's eight in one read (K is its fastest dimension)
// split in two, B's one by one; the MFMA takes B's fragment first (the
// swapped issue, C^T = B^T A^T), chained through the steps. Each lane
// then holds four consecutive columns of one row, stored as one vector.
// The tiles get the swizzles the LDS bank model picks.
// CHECK: #[[ASWZ:.*]] = #tile.shared_layout<[16, 32], (d0, d1) -> (d1 + d0 * 32), swizzle = <bits = 2, base = 3, shift = 3>>
// CHECK-LABEL: func.func @one_wave
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 64
// CHECK: tile.alloc_shared {layout = #[[ASWZ]]}
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<4xf32>
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c64
// CHECK: %[[ROW:.*]] = arith.remui %[[LANE]], %c16
// CHECK: %[[GROUP:.*]] = arith.divui %[[LANE]], %c16
// CHECK: %[[K:.*]] = arith.muli %[[GROUP]], %c8
// CHECK: %[[AROW:.*]] = arith.addi %{{.*}}, %[[ROW]]
// CHECK: %[[A:.*]] = vector.load %{{.*}}[%[[AROW]], %[[K]]] {alignment = 16 : i64} : memref<16x32xf16, #tile.shared>, vector<8xf16>
// CHECK: %[[A0:.*]] = vector.shuffle %[[A]], %[[A]] [0, 1, 2, 3] : vector<8xf16>, vector<8xf16>
// CHECK: %[[A1:.*]] = vector.shuffle %[[A]], %[[A]] [4, 5, 6, 7] : vector<8xf16>, vector<8xf16>
// CHECK: memref.load %[[B:.*]][%[[K]], %[[ROW]]] : memref<32x16xf16, #tile.shared>
// CHECK: %[[B0:.*]] = vector.from_elements {{.*}} : vector<4xf16>
// CHECK: %[[K4:.*]] = arith.addi %[[K]], %c4
// CHECK: memref.load %[[B]][%[[K4]], %[[ROW]]]
// CHECK: %[[B1:.*]] = vector.from_elements {{.*}} : vector<4xf16>
// CHECK: %[[C0:.*]] = amdgpu.mfma 16x16x16 %[[B0]] * %[[A0]] + %cst blgp = none : vector<4xf16>, vector<4xf16>, vector<4xf32>
// CHECK: %[[C1:.*]] = amdgpu.mfma 16x16x16 %[[B1]] * %[[A1]] + %[[C0]]
// CHECK-COUNT-4: memref.store %{{.*}}, %[[ACC]]
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x16xf32>, vector<4xf32>
// CHECK-NOT: tile.gemm
func.func @one_wave(%out: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc_shared : memref<16x32xf16, #tile.shared>
    %b = tile.alloc_shared : memref<32x16xf16, #tile.shared>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    tile.gemm %a, %b, %c clear_accum : memref<16x32xf16, #tile.shared>, memref<32x16xf16, #tile.shared>, memref<16x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 16) {
      %x = memref.load %c[%i, %j] : memref<16x16xf32, #tile.fragment>
      memref.store %x, %out[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// -----

// K = 16: one MFMA per step, unpacked. Lane l reads A's four K from
// 4 * (l / 16) as one 8-byte vector, B's one by one.
// CHECK-LABEL: func.func @one_step
// CHECK: %[[GROUP:.*]] = arith.divui %{{.*}}, %c16
// CHECK: %[[K:.*]] = arith.muli %[[GROUP]], %c4
// CHECK: %[[A:.*]] = vector.load %{{.*}}[%{{.*}}, %[[K]]] {alignment = 8 : i64} : memref<16x16xf16, #tile.shared>, vector<4xf16>
// CHECK-NOT: vector.shuffle
// CHECK-COUNT-4: memref.load %{{.*}} : memref<16x16xf16, #tile.shared>
// CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<4xf16>
// CHECK: amdgpu.mfma 16x16x16 %[[B]] * %[[A]] + %cst
// CHECK-NOT: amdgpu.mfma
func.func @one_step(%out: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc_shared : memref<16x16xf16, #tile.shared>
    %b = tile.alloc_shared : memref<16x16xf16, #tile.shared>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    tile.gemm %a, %b, %c clear_accum : memref<16x16xf16, #tile.shared>, memref<16x16xf16, #tile.shared>, memref<16x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 16) {
      %x = memref.load %c[%i, %j] : memref<16x16xf32, #tile.fragment>
      memref.store %x, %out[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// -----

// FlashAttention's chain: S = Q K^T on two waves of full rows, P = S in
// f16 (the same layout, slot for slot), O = P V with P from registers.
// The second gemm's A fragments are P's slots, four per step of K.
// CHECK-LABEL: func.func @chain
// CHECK: %[[S:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[P:.*]] = memref.alloca() : memref<8xf16>
// CHECK-COUNT-2: amdgpu.mfma 16x16x16 %{{.*}} * %{{.*}} + %cst
// CHECK: %[[P0:.*]] = memref.load %[[P]][%c0] : memref<8xf16>
// CHECK: %[[P1:.*]] = memref.load %[[P]][%c1] : memref<8xf16>
// CHECK: %[[P2:.*]] = memref.load %[[P]][%c2] : memref<8xf16>
// CHECK: %[[P3:.*]] = memref.load %[[P]][%c3] : memref<8xf16>
// CHECK: %[[PA:.*]] = vector.from_elements %[[P0]], %[[P1]], %[[P2]], %[[P3]] : vector<4xf16>
// CHECK: amdgpu.mfma 16x16x16 %{{.*}} * %[[PA]] + %cst
// CHECK-NOT: tile.gemm
func.func @chain(%out: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %q = tile.alloc_shared : memref<32x16xf16, #tile.shared>
    %k = tile.alloc_shared : memref<32x16xf16, #tile.shared>
    %v = tile.alloc_shared : memref<32x32xf16, #tile.shared>
    %s = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    %p = tile.alloc_fragment : memref<32x32xf16, #tile.fragment>
    %o = tile.alloc_fragment : memref<32x32xf32, #tile.fragment>
    tile.gemm %q, %k, %s transpose_b policy(full_row) clear_accum : memref<32x16xf16, #tile.shared>, memref<32x16xf16, #tile.shared>, memref<32x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (32, 32) {
      %x = memref.load %s[%i, %j] : memref<32x32xf32, #tile.fragment>
      %h = arith.truncf %x : f32 to f16
      memref.store %h, %p[%i, %j] : memref<32x32xf16, #tile.fragment>
    }
    tile.gemm %p, %v, %o policy(full_row) clear_accum : memref<32x32xf16, #tile.fragment>, memref<32x32xf16, #tile.shared>, memref<32x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (32, 32) {
      %x = memref.load %o[%i, %j] : memref<32x32xf32, #tile.fragment>
      memref.store %x, %out[%i, %j] : memref<32x32xf32>
    }
  }
  return
}

// -----

// Four waves split a 64x64 tile 2x2 (square policy); each computes 2x2
// tiles per step of K, with bf16 operands, transposed: A stored K by M, B
// stored N by K.
// CHECK-LABEL: func.func @waves_bf16
// CHECK: memref.alloca() : memref<16xf32>
// CHECK: %[[WAVE:.*]] = arith.divui %{{.*}}, %c64
// CHECK: %[[WROW:.*]] = arith.divui %[[WAVE]], %c2
// CHECK: %[[ROWBASE:.*]] = arith.muli %[[WROW]], %c32
// CHECK: %[[K:.*]] = arith.muli %{{.*}}, %c4
// CHECK: %[[M:.*]] = arith.addi %[[ROWBASE]], %{{.*}}
// CHECK: memref.load %{{.*}}[%[[K]], %[[M]]] : memref<16x64xbf16, #tile.shared>
// CHECK-COUNT-4: amdgpu.mfma 16x16x16 %{{.*}} * %{{.*}} + %cst blgp = none : vector<4xbf16>, vector<4xbf16>, vector<4xf32>
// CHECK-NOT: amdgpu.mfma
func.func @waves_bf16(%out: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %a = tile.alloc_shared : memref<16x64xbf16, #tile.shared>
    %b = tile.alloc_shared : memref<64x16xbf16, #tile.shared>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.gemm %a, %b, %c transpose_a transpose_b clear_accum : memref<16x64xbf16, #tile.shared>, memref<64x16xbf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %c[%i, %j] : memref<64x64xf32, #tile.fragment>
      memref.store %x, %out[%i, %j] : memref<64x64xf32>
    }
  }
  return
}

// -----

// K is A's fastest dimension, but a swizzle annotated with runs of two
// elements would split a four-element read: A is read one by one.
// CHECK-LABEL: func.func @narrow_swizzle
// CHECK-NOT: vector.load
// CHECK: amdgpu.mfma
func.func @narrow_swizzle(%out: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc_shared : memref<16x32xf16, #tile.shared>
    tile.annotate_layout #tile.shared_layout<[16, 32], (d0, d1) -> (d0 * 32 + d1), swizzle = <bits = 2, base = 1, shift = 4>> on %a : memref<16x32xf16, #tile.shared>
    %b = tile.alloc_shared : memref<32x16xf16, #tile.shared>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    tile.gemm %a, %b, %c clear_accum : memref<16x32xf16, #tile.shared>, memref<32x16xf16, #tile.shared>, memref<16x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 16) {
      %x = memref.load %c[%i, %j] : memref<16x16xf32, #tile.fragment>
      memref.store %x, %out[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// -----

// FNUZ 8-bit floats (mfma-fp8, gfx942): one MFMA of K = 32 per step, each
// lane passing eight consecutive K from 8 * (l / 16), A's (e4m3) as one
// 8-byte read, B's (e5m2, N its fastest dimension) byte by byte.
// CHECK-LABEL: func.func @fp8
// CHECK: %[[GROUP:.*]] = arith.divui %{{.*}}, %c16
// CHECK: %[[K:.*]] = arith.muli %[[GROUP]], %c8
// CHECK: %[[A:.*]] = vector.load %{{.*}}[%{{.*}}, %[[K]]] {alignment = 8 : i64} : memref<16x32xf8E4M3FNUZ, #tile.shared>, vector<8xf8E4M3FNUZ>
// CHECK-COUNT-8: memref.load %{{.*}} : memref<32x16xf8E5M2FNUZ, #tile.shared>
// CHECK: %[[B:.*]] = vector.from_elements {{.*}} : vector<8xf8E5M2FNUZ>
// CHECK-NOT: vector.shuffle
// CHECK: amdgpu.mfma 16x16x32 %[[B]] * %[[A]] + %cst blgp = none : vector<8xf8E5M2FNUZ>, vector<8xf8E4M3FNUZ>, vector<4xf32>
// CHECK-NOT: amdgpu.mfma
// RUN: tilec-opt %s --split-input-file --tile-set-target="chip=gfx90a warp-size=64 registers=512 features=mfma" --tile-infer-layouts --tile-distribute --canonicalize --cse | FileCheck %s --check-prefix=NOFP8
// Without mfma-fp8 (gfx90a) the same gemm stays on the vector ALUs.
// NOFP8-LABEL: func.func @fp8
// NOFP8-NOT: amdgpu.mfma
// NOFP8: return
func.func @fp8(%out: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc_shared : memref<16x32xf8E4M3FNUZ, #tile.shared>
    %b = tile.alloc_shared : memref<32x16xf8E5M2FNUZ, #tile.shared>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    tile.gemm %a, %b, %c clear_accum : memref<16x32xf8E4M3FNUZ, #tile.shared>, memref<32x16xf8E5M2FNUZ, #tile.shared>, memref<16x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 16) {
      %x = memref.load %c[%i, %j] : memref<16x16xf32, #tile.fragment>
      memref.store %x, %out[%i, %j] : memref<16x16xf32>
    }
  }
  return
}
