// RUN: tilec-opt %s --split-input-file --tile-set-target=features=mma_sync,wgmma --tile-infer-layouts --tile-distribute --canonicalize --cse | FileCheck %s

// A 128x128x32 gemm on one warpgroup: per 16-deep step of K, one
// m64n128k16 wgmma for each of the two 64-row tiles, from descriptors of
// A (K-major: 64-byte swizzle, 8 rows of 64 bytes 512 bytes apart) and B
// (MN-major: 128-byte swizzle, its two panels 4096 bytes apart, 8 rows of
// K 1024 bytes apart). The second row tile of A is 4096 bytes on (256 in
// the descriptor's 16-byte units), the next step of K 32 bytes along A's
// rows (2) and 16 rows of 128 bytes down B (128). One fence, one commit,
// one wait; the accumulators pinned in registers on both sides.
// CHECK-LABEL: func.func @gemm
// CHECK-DAG: %[[ABITS:.*]] = arith.constant -9223371899415756800 : i64
// CHECK-DAG: %[[BBITS:.*]] = arith.constant 4611686293322072064 : i64
// CHECK: %[[DESCA:.*]] = arith.ori %{{.*}}, %[[ABITS]] : i64
// CHECK: %[[DESCB:.*]] = arith.ori %{{.*}}, %[[BBITS]] : i64
// CHECK-COUNT-2: llvm.inline_asm has_side_effects "", "=f,
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async %[[DESCA]], %[[DESCB]], %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: %[[A1:.*]] = arith.addi %[[DESCA]], %c256_i64
// CHECK: nvvm.wgmma.mma_async %[[A1]], %[[DESCB]],
// CHECK: %[[A2:.*]] = arith.addi %[[DESCA]], %c2_i64
// CHECK: %[[B2:.*]] = arith.addi %[[DESCB]], %c128_i64
// CHECK: nvvm.wgmma.mma_async %[[A2]], %[[B2]],
// CHECK: nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-2: llvm.inline_asm has_side_effects "", "=f,
// CHECK-NOT: tile.gemm
func.func @gemm(%c: memref<128x128xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %as = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.gemm %as, %bs, %acc : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 128) {
      %x = memref.load %acc[%i, %j] : memref<128x128xf32, #tile.fragment>
      memref.store %x, %c[%i, %j] : memref<128x128xf32>
    }
  }
  return
}

// -----

// Cleared first: the first step of K ignores the accumulators (scale-d 0)
// instead of a loop of zero stores. int8 in, int32 out, both K-major: s8
// instructions 32 deep.
// CHECK-LABEL: func.func @clear_int8
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 32>, D[<s32>, <zero>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
func.func @clear_int8(%c: memref<64x64xi32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %as = tile.alloc_shared : memref<64x64xi8, #tile.shared>
    %bs = tile.alloc_shared : memref<64x64xi8, #tile.shared>
    %acc = tile.alloc_fragment : memref<64x64xi32, #tile.fragment>
    tile.gemm %as, %bs, %acc transpose_b clear_accum : memref<64x64xi8, #tile.shared>, memref<64x64xi8, #tile.shared>, memref<64x64xi32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 64) {
      %x = memref.load %acc[%i, %j] : memref<64x64xi32, #tile.fragment>
      memref.store %x, %c[%i, %j] : memref<64x64xi32>
    }
  }
  return
}


// -----

// A in registers (FlashAttention's P V): per K step of 16, four registers
// of f16 pairs from the thread's A slots, all packed before the fence, and
// a wgmma in inline PTX (the NVVM op reads A from shared memory only):
// accumulators tied in and out, then A, B's descriptor and scale-d; B is
// MN-major (imm-trans-b 1).
// CHECK-LABEL: func.func @register_a
// CHECK-COUNT-8: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects "{\0A.reg .pred p;\0Asetp.ne.b32 p, $37, 0;\0Awgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {$0, {{.*}}, $15}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;\0A}\0A", "=f,{{.*}},r,r,r,r,l,r"
// CHECK: llvm.inline_asm has_side_effects "{{.*}}wgmma.mma_async
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
func.func @register_a(%c: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %p = tile.alloc_fragment : memref<64x32xf16, #tile.fragment>
    %vs = tile.alloc_shared : memref<32x32xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 32) {
      %z = arith.constant 0.0 : f16
      memref.store %z, %p[%i, %j] : memref<64x32xf16, #tile.fragment>
    }
    tile.gemm %p, %vs, %acc policy(full_row) : memref<64x32xf16, #tile.fragment>, memref<32x32xf16, #tile.shared>, memref<64x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 32) {
      %x = memref.load %acc[%i, %j] : memref<64x32xf32, #tile.fragment>
      memref.store %x, %c[%i, %j] : memref<64x32xf32>
    }
  }
  return
}

// -----

// A in registers over 128 rows of one warpgroup: each warp holds 16 rows
// of both bands of 64, band mi's step ki in A slots 8 (2 mi + ki) on, so
// the two K steps of the two bands take four different sets of words.
// CHECK-LABEL: func.func @register_a_tall
// CHECK-COUNT-16: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
// CHECK-NOT: wgmma.mma_async
func.func @register_a_tall(%c: memref<128x32xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %p = tile.alloc_fragment : memref<128x32xf16, #tile.fragment>
    %vs = tile.alloc_shared : memref<32x32xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 32) {
      %z = arith.constant 0.0 : f16
      memref.store %z, %p[%i, %j] : memref<128x32xf16, #tile.fragment>
    }
    tile.gemm %p, %vs, %acc policy(full_row) : memref<128x32xf16, #tile.fragment>, memref<32x32xf16, #tile.shared>, memref<128x32xf32, #tile.fragment>
    tile.parallel (%i, %j) in (128, 32) {
      %x = memref.load %acc[%i, %j] : memref<128x32xf32, #tile.fragment>
      memref.store %x, %c[%i, %j] : memref<128x32xf32>
    }
  }
  return
}
