// RUN: tilec-opt %s --split-input-file --tile-set-target=features=mma_sync --tile-infer-layouts --tile-distribute --canonicalize --cse | FileCheck %s

// Layouts come from inference. One warp, a 16x16 accumulator of two m16n8 tiles, K = 32 in two steps:
// per step one ldmatrix.x4 of A, one transposed ldmatrix.x4 of B (stored
// K by N) giving both n-tiles, and two mma.sync, chained through the steps
// and stored to the accumulator's 8 slots at the end.
// CHECK-LABEL: func.func @one_warp
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<8xf32>
// CHECK: %[[A:.*]] = memref.memory_space_cast %{{.*}} : memref<16x32xf16, #tile.shared> to memref<16x32xf16, #gpu.address_space<workgroup>>
// CHECK: %[[B:.*]] = memref.memory_space_cast %{{.*}} : memref<32x16xf16, #tile.shared> to memref<32x16xf16, #gpu.address_space<workgroup>>
// CHECK: %[[A0:.*]] = nvgpu.ldmatrix %[[A]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK: %[[B0:.*]] = nvgpu.ldmatrix %[[B]][{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK: %[[C0:.*]] = nvgpu.mma.sync(%[[A0]], %{{.*}}, %[[ZERO:.*]]) {mmaShape = [16, 8, 16]}
// CHECK: %[[C1:.*]] = nvgpu.mma.sync(%[[A0]], %{{.*}}, %[[ZERO]]) {mmaShape = [16, 8, 16]}
// CHECK: %[[A1:.*]] = nvgpu.ldmatrix %[[A]]
// CHECK: nvgpu.ldmatrix %[[B]]
// CHECK: nvgpu.mma.sync(%[[A1]], %{{.*}}, %[[C0]])
// CHECK: nvgpu.mma.sync(%[[A1]], %{{.*}}, %[[C1]])
// CHECK-COUNT-8: memref.store %{{.*}}, %[[ACC]]
// CHECK-NOT: tile.gemm
func.func @one_warp(%out: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
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

// bf16 has no nvgpu.mma.sync form; it goes to NVVM's, with each pair of
// elements packed in a 32-bit register. A is transposed (stored K by M):
// its matrices are read transposed; B transposed (stored N by K) is not.
// CHECK-LABEL: func.func @bf16_transposed
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<32x16xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
func.func @bf16_transposed(%out: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_shared : memref<32x16xbf16, #tile.shared>
    %b = tile.alloc_shared : memref<16x32xbf16, #tile.shared>
    %c = tile.alloc_fragment : memref<16x16xf32, #tile.fragment>
    tile.gemm %a, %b, %c transpose_a transpose_b clear_accum : memref<32x16xbf16, #tile.shared>, memref<16x32xbf16, #tile.shared>, memref<16x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 16) {
      %x = memref.load %c[%i, %j] : memref<16x16xf32, #tile.fragment>
      memref.store %x, %out[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// -----

// int8 takes k32 steps: A's fragments come from ldmatrix (16 bytes a row),
// B stored K by N cannot be read transposed in bytes and is gathered.
// CHECK-LABEL: func.func @int8
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x32xi8, #gpu.address_space<workgroup>> -> vector<4x4xi8>
// CHECK-COUNT-8: memref.load %{{.*}} : memref<32x8xi8, #gpu.address_space<workgroup>>
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
func.func @int8(%out: memref<16x8xi32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_shared : memref<16x32xi8, #tile.shared>
    %b = tile.alloc_shared : memref<32x8xi8, #tile.shared>
    %c = tile.alloc_fragment : memref<16x8xi32, #tile.fragment>
    tile.gemm %a, %b, %c clear_accum : memref<16x32xi8, #tile.shared>, memref<32x8xi8, #tile.shared>, memref<16x8xi32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 8) {
      %x = memref.load %c[%i, %j] : memref<16x8xi32, #tile.fragment>
      memref.store %x, %out[%i, %j] : memref<16x8xi32>
    }
  }
  return
}

// -----

// f32 operands run as tf32, k8 steps; B stored N by K uses ldmatrix.
// CHECK-LABEL: func.func @tf32
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x8xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 2 : i32, transpose = false} : memref<8x8xf32, #gpu.address_space<workgroup>> -> vector<2x1xf32>
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
func.func @tf32(%out: memref<16x8xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_shared : memref<16x8xf32, #tile.shared>
    %b = tile.alloc_shared : memref<8x8xf32, #tile.shared>
    %c = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
    tile.gemm %a, %b, %c transpose_b clear_accum : memref<16x8xf32, #tile.shared>, memref<8x8xf32, #tile.shared>, memref<16x8xf32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 8) {
      %x = memref.load %c[%i, %j] : memref<16x8xf32, #tile.fragment>
      memref.store %x, %out[%i, %j] : memref<16x8xf32>
    }
  }
  return
}
