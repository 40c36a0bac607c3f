// RUN: tilec-opt %s --split-input-file --tile-set-target=features=mma_sync --tile-distribute --verify-diagnostics

// A gemm recorded to run on mma.sync whose accumulator has another layout
// (here one row of 8 elements per thread).
#rows = #tile.fragment_layout<[16, 16], threads = 32, slots = 8, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8), inverse = (d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 8 + d1)>
func.func @accumulator_not_in_instruction_layout() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_shared : memref<16x32xf16, #tile.shared>
    %b = tile.alloc_shared : memref<32x16xf16, #tile.shared>
    %c = tile.alloc_fragment {layout = #rows} : memref<16x16xf32, #tile.fragment>
    // expected-error@+1 {{the accumulator is not in the layout #tile.mma_sync gives it}}
    tile.gemm %a, %b, %c {instruction = #tile.mma_sync} : memref<16x32xf16, #tile.shared>, memref<32x16xf16, #tile.shared>, memref<16x16xf32, #tile.fragment>
  }
  return
}

// -----

// mma.sync takes no 8-bit floats (wgmma does).
#rows = #tile.fragment_layout<[16, 16], threads = 32, slots = 8, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8), inverse = (d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 8 + d1)>
func.func @types_not_on_instruction() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_shared : memref<16x32xf8E4M3FN, #tile.shared>
    %b = tile.alloc_shared : memref<16x32xf8E4M3FN, #tile.shared>
    %c = tile.alloc_fragment {layout = #rows} : memref<16x16xf32, #tile.fragment>
    // expected-error@+1 {{the gemm's types, shapes or block do not run on its instruction, #tile.mma_sync}}
    tile.gemm %a, %b, %c transpose_b {instruction = #tile.mma_sync} : memref<16x32xf8E4M3FN, #tile.shared>, memref<16x32xf8E4M3FN, #tile.shared>, memref<16x16xf32, #tile.fragment>
  }
  return
}

// -----

// A gemm recorded to run on MFMA, distributed for NVIDIA.
#rows = #tile.fragment_layout<[16, 16], threads = 32, slots = 8, (d0, d1) -> (d0 * 2 + d1 floordiv 8, d1 mod 8), inverse = (d0, d1) -> (d0 floordiv 2, (d0 mod 2) * 8 + d1)>
func.func @instruction_of_another_vendor() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_shared : memref<16x32xf16, #tile.shared>
    %b = tile.alloc_shared : memref<32x16xf16, #tile.shared>
    %c = tile.alloc_fragment {layout = #rows} : memref<16x16xf32, #tile.fragment>
    // expected-error@+1 {{the gemm runs on #tile.mfma, which the target (generic) does not have}}
    tile.gemm %a, %b, %c {instruction = #tile.mfma} : memref<16x32xf16, #tile.shared>, memref<32x16xf16, #tile.shared>, memref<16x16xf32, #tile.fragment>
  }
  return
}
