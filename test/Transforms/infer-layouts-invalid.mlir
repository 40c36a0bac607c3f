// RUN: tilec-opt %s --split-input-file --tile-set-target=features=mma_sync --tile-infer-layouts --verify-diagnostics

// A layout for another number of threads than the kernel's.
func.func @thread_count() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    // expected-error@+1 {{has a layout over 32 threads, but its kernel runs 64}}
    %a = tile.alloc_fragment {layout = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1)>} : memref<32x4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_shared() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<8x64xf32, #tile.shared>
    %m = tile.alloc_fragment : memref<8xf32, #tile.fragment>
    // expected-error@+1 {{reductions of shared or local buffers are not supported yet; reduce a fragment}}
    tile.reduce sum %s -> %m dim(1) : memref<8x64xf32, #tile.shared>, memref<8xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_first_dim() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %f = tile.alloc_fragment : memref<8x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error@+1 {{reductions over dimension 0 of a rank-2 fragment are not supported yet; only the last dimension}}
    tile.reduce sum %f -> %m dim(0) : memref<8x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
  }
  return
}

// -----

// The square policy puts 2x2 warps on a 64x64 accumulator; read as the A
// operand of another square gemm from registers, its rows would have to be
// replicated over each row of warps instead.
func.func @accumulator_as_a() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %b = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %b2 = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    // expected-note@+1 {{the fragment is allocated here}}
    %c = tile.alloc_fragment : memref<64x64xf16, #tile.fragment>
    %d = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-note@+1 {{its layout was fixed here}}
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.shared>, memref<32x64xf16, #tile.shared>, memref<64x64xf16, #tile.fragment>
    // expected-error@+1 {{a fragment is distributed over the threads in two ways that do not match}}
    tile.gemm %c, %b2, %d : memref<64x64xf16, #tile.fragment>, memref<64x64xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// Only tensor cores take A from registers, and only as 16-bit floats: a
// gemm of f32 operands has no layout for an A fragment.
func.func @f32_a_in_registers() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %b = tile.alloc_shared : memref<64x64xf32, #tile.shared>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error@+1 {{T.gemm with A in registers runs only on tensor cores: f16 or bf16 operands, in whole 16x8 warp tiles on NVIDIA or 16x16 wave tiles on AMD gfx90a and gfx942; this gemm, of f32 operands, does not, so tilec has no layout for its A: stage A in shared memory (T.alloc_shared and T.copy) instead}}
    tile.gemm %a, %b, %c : memref<64x64xf32, #tile.fragment>, memref<64x64xf32, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// Fragments of several times the register file: 128x256 f32 accumulators
// on 32 threads hold 1024 registers each.
func.func @registers_far_past_the_file() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error@+1 {{the kernel's fragments need 1024 32-bit registers per thread (this one 1024); a thread has 255, and the rest spills to local memory, more than the back end can compile in reasonable time: use smaller tiles or more threads}}
    %c = tile.alloc_fragment : memref<128x256xf32, #tile.fragment>
    %cst = arith.constant 0.0 : f32
    tile.fill %c, %cst : memref<128x256xf32, #tile.fragment>, f32
  }
  return
}

// -----

// A gemm on CUDA cores unrolls a dot product of K terms per accumulator
// element: 128 elements per thread times K = 40 (no multiple of mma.sync's
// 16) is too many.
func.func @scalar_gemm_too_long() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_shared : memref<64x40xf16, #tile.shared>
    %b = tile.alloc_shared : memref<40x64xf16, #tile.shared>
    %c = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error@+1 {{T.gemm runs on CUDA cores here, and gives each thread 5120 multiply-adds to unroll (its accumulator elements times K); at most 4096 compile in reasonable time: use more threads, a smaller tile or a smaller K step, or operands the tensor cores take}}
    tile.gemm %a, %b, %c : memref<64x40xf16, #tile.shared>, memref<40x64xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

// Past the register file, fragments spill: a warning with the figure.
func.func @registers_past_the_file() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-warning@+1 {{the kernel's fragments need 256 32-bit registers per thread (this one 256); a thread has 255, and the rest spills to local memory, which is slow: use smaller tiles or more threads}}
    %c = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    %cst = arith.constant 0.0 : f32
    tile.fill %c, %cst : memref<64x128xf32, #tile.fragment>, f32
  }
  return
}

// -----

// Two annotations of one fragment that disagree: no use to convert for.
#rows = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1)>
#cols = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> ((d0 + d1) mod 32, d1)>
func.func @annotations_disagree() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-note@+1 {{the fragment is allocated here}}
    %a = tile.alloc_fragment : memref<32x4xf32, #tile.fragment>
    // expected-note@+1 {{its layout was fixed here}}
    tile.annotate_layout #rows on %a : memref<32x4xf32, #tile.fragment>
    // expected-error@+1 {{a fragment is distributed over the threads in two ways that do not match}}
    tile.annotate_layout #cols on %a : memref<32x4xf32, #tile.fragment>
  }
  return
}

// -----

// The threads of a T.ws range hold a fragment of their own, over their
// number; the block's threads cannot share it.
func.func @fragment_of_two_thread_counts(%y: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %f = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    tile.thread_range 0, 128 {
      tile.parallel (%i) in (128) {
        // expected-note@+1 {{used by 128 here}}
        memref.store %zero, %f[%i] : memref<128xf32, #tile.fragment>
      }
    }
    tile.parallel (%i) in (128) {
      // expected-error@+1 {{is used here by 256 threads together, and by 128 before; a fragment is spread over one number of threads, so give each its own fragment}}
      %v = memref.load %f[%i] : memref<128xf32, #tile.fragment>
      memref.store %v, %y[%i] : memref<128xf32>
    }
  }
  return
}
