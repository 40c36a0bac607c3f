// RUN: tilec-opt %s --split-input-file --tile-distribute --verify-diagnostics

// The layout gives element i to thread i / 2; reading element 63 - i from
// the thread that runs iteration i reads another thread's register.
#grid = #tile.fragment_layout<[64], threads = 32, slots = 2, (d0) -> (d0 floordiv 2, d0 mod 2), inverse = (d0, d1) -> (d0 * 2 + d1)>
func.func @other_thread(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c63 = arith.constant 63 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-note@+1 {{the fragment is allocated here}}
    %f = tile.alloc_fragment {layout = #grid} : memref<64xf32, #tile.fragment>
    tile.parallel (%i) in (64) layout #grid {
      %j = arith.subi %c63, %i : index
      // expected-error@+2 {{thread 0 reads or writes element [63] of a fragment, which its layout gives to another thread}}
      // expected-note@+1 {{a thread can only reach the fragment elements it holds}}
      %v = memref.load %f[%j] : memref<64xf32, #tile.fragment>
      memref.store %v, %a[%i] : memref<64xf32>
    }
  }
  return
}

// -----

#grid = #tile.fragment_layout<[64], threads = 32, slots = 2, (d0) -> (d0 floordiv 2, d0 mod 2), inverse = (d0, d1) -> (d0 * 2 + d1)>
func.func @data_dependent_index(%a: memref<64xindex>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %f = tile.alloc_fragment {layout = #grid} : memref<64xf32, #tile.fragment>
    tile.parallel (%i) in (64) layout #grid {
      %j = memref.load %a[%i] : memref<64xindex>
      // expected-error@+1 {{is indexed with a value that is not computed from the T.Parallel loop variables and constants}}
      %v = memref.load %f[%j] : memref<64xf32, #tile.fragment>
    }
  }
  return
}

// -----

func.func @no_layout(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error@+1 {{fragment has no layout; run layout inference first}}
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @loop_without_layout(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error@+1 {{loop has no layout; run layout inference first}}
    tile.parallel (%i) in (64) {
      memref.store %zero, %a[%i] : memref<64xf32>
    }
  }
  return
}

// -----

// An annotated layout without an inverse cannot be distributed.
#noinverse = #tile.fragment_layout<[64], threads = 32, slots = 2, (d0) -> (d0 floordiv 2, d0 mod 2)>
func.func @no_inverse(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error@+1 {{the loop's layout has no inverse map, which distribution needs to know the element each thread's slot holds}}
    tile.parallel (%i) in (64) layout #noinverse {
      memref.store %zero, %a[%i] : memref<64xf32>
    }
  }
  return
}

// -----

#grid = #tile.fragment_layout<[64], threads = 32, slots = 2, (d0) -> (d0 floordiv 2, d0 mod 2), inverse = (d0, d1) -> (d0 * 2 + d1)>
func.func @outside_loop(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %f = tile.alloc_fragment {layout = #grid} : memref<64xf32, #tile.fragment>
    // expected-error@+1 {{a fragment is used outside a T.Parallel loop; a fragment's elements are spread over the threads and can only be reached from one}}
    %v = memref.load %f[%c0] : memref<64xf32, #tile.fragment>
    memref.store %v, %a[%c0] : memref<64xf32>
  }
  return
}

// -----

#acc = #tile.fragment_layout<[16, 16], threads = 64, slots = 4, (d0, d1) -> ((d0 mod 16) * 4 + (d1 floordiv 4) mod 4, (d0 floordiv 16 + (d1 floordiv 4) floordiv 4) * 4 + d1 mod 4), inverse = (d0, d1) -> ((d1 floordiv 4) * 16 + d0 floordiv 4, (d0 mod 4) * 4 + d1 mod 4)>
func.func @register_operand() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc_fragment {layout = #acc} : memref<16x16xf32, #tile.fragment>
    %b = tile.alloc_shared : memref<16x16xf32, #tile.shared>
    %acc = tile.alloc_fragment {layout = #acc} : memref<16x16xf32, #tile.fragment>
    // expected-error@+1 {{T.gemm with A in registers runs only on tensor cores: f16 or bf16 operands, in whole 16x8 warp tiles on NVIDIA or 16x16 wave tiles on AMD gfx90a and gfx942}}
    tile.gemm %a, %b, %acc : memref<16x16xf32, #tile.fragment>, memref<16x16xf32, #tile.shared>, memref<16x16xf32, #tile.fragment>
  }
  return
}

// -----

// A gemm recorded to run on wgmma, distributed for a target without it.
func.func @wgmma_without_wgmma() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%arg0) in (%c1) threads(128) {
    %0 = tile.alloc_shared {layout = #tile.shared_layout<[128, 32], (d0, d1) -> (d1 + d0 * 32), swizzle = <bits = 2, base = 3, shift = 3>>} : memref<128x32xf16, #tile.shared>
    %1 = tile.alloc_shared {layout = #tile.shared_layout<[32, 128], (d0, d1) -> ((d1 floordiv 64) * 2048 + d0 * 64 + d1 mod 64), swizzle = <bits = 3, base = 3, shift = 3>>} : memref<32x128xf16, #tile.shared>
    %2 = tile.alloc_fragment {layout = #tile.fragment_layout<[128, 128], threads = 128, slots = 128, (d0, d1) -> ((d0 floordiv 128 + d1 floordiv 128) * 128 + ((d0 mod 64) floordiv 16) * 32 + (d0 mod 8) * 4 + (d1 mod 8) floordiv 2, ((d0 mod 128) floordiv 64 + (d1 mod 128) floordiv 128) * 64 + ((d1 mod 128) floordiv 8) * 4 + ((d0 mod 16) floordiv 8) * 2 + d1 mod 2), inverse = (d0, d1) -> ((d0 floordiv 128) * 128 + (d1 floordiv 64) * 64 + ((d0 mod 128) floordiv 32) * 16 + ((d1 mod 4) floordiv 2) * 8 + (d0 mod 32) floordiv 4, ((d1 mod 64) floordiv 4) * 8 + (d0 mod 4) * 2 + d1 mod 2)>} : memref<128x128xf32, #tile.fragment>
    // expected-error@+1 {{the gemm runs on #tile.wgmma, which the target (generic) does not have}}
    tile.gemm %0, %1, %2 {instruction = #tile.wgmma} : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
  }
  return
}
