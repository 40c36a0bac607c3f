// RUN: tilec-opt %s -split-input-file -verify-diagnostics

func.func @outside_kernel() {
  // expected-error@+1 {{'tile.alloc_shared' op must be inside a tile.kernel (a T.Kernel block)}}
  %0 = tile.alloc_shared : memref<4xf32, #tile.shared>
  return
}

// -----

func.func @grid_rank(%n: index) {
  // expected-error@+1 {{grid must have one to three dimensions, got 4}}
  tile.kernel blocks(%a, %b, %c, %d) in (%n, %n, %n, %n) threads(32) {
  }
  return
}

// -----

func.func @threads_rank(%n: index) {
  // expected-error@+1 {{threads must have one to three dimensions, got 4}}
  tile.kernel blocks(%a) in (%n) threads(2, 2, 2, 2) {
  }
  return
}

// -----

func.func @threads_positive(%n: index) {
  // expected-error@+1 {{thread counts must be positive, got 0}}
  tile.kernel blocks(%a) in (%n) threads(0) {
  }
  return
}

// -----

func.func @threads_limit(%n: index) {
  // expected-error@+1 {{a block has at most 1024 threads, this one has 64x32}}
  tile.kernel blocks(%a) in (%n) threads(64, 32) {
  }
  return
}

// -----

func.func @block_indices(%n: index) {
  // expected-error@+1 {{has 1 block indices for a grid of 2 dimensions}}
  tile.kernel blocks(%a) in (%n, %n) threads(128) {
  }
  return
}

// -----

func.func @block_index_type(%n: index) {
  // expected-error@+1 {{block indices must be of index type}}
  "tile.kernel"(%n) <{threads = array<i64: 32>}> ({
  ^bb0(%a: i32):
    "tile.yield"() : () -> ()
  }) : (index) -> ()
  return
}

// -----

func.func @alloc_scope(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{result must be a buffer in shared memory (memory space #tile.shared), got one in a fragment}}
    %0 = tile.alloc_shared : memref<4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @alloc_global(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{result must be a buffer in a fragment (memory space #tile.fragment), got one in global memory}}
    %0 = tile.alloc_fragment : memref<4xf32>
  }
  return
}

// -----

func.func @alloc_foreign_space(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{result must be a buffer in local memory (memory space #tile.local), got one in an unknown memory space}}
    %0 = tile.alloc_local : memref<4xf32, 5>
  }
  return
}

// -----

func.func @alloc_element(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{a buffer must hold integers or floating-point numbers, got 'index'}}
    %0 = tile.alloc_shared : memref<4xindex, #tile.shared>
  }
  return
}

// -----

func.func @alloc_layout_shape(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{layout is for a 4x4 buffer but the buffer is 8x4}}
    %0 = tile.alloc_shared {layout = #tile.shared_layout<[4, 4], (d0, d1) -> (d0 * 4 + d1)>} : memref<8x4xf32, #tile.shared>
  }
  return
}

// -----

func.func @alloc_fragment_layout_shape(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{layout is for a 128 buffer but the buffer is 64}}
    %0 = tile.alloc_fragment {layout = #tile.fragment_layout<[128], threads = 128, slots = 1, (d0) -> (d0, 0)>} : memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @alloc_var_rank(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{a variable is a rank-0 buffer, got 4}}
    %0 = tile.alloc_var : memref<4xf32, #tile.local>
  }
  return
}

// -----

func.func @alloc_var_init(%n: index) {
  %zero = arith.constant 0 : i32
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{initial value has type 'i32' but the variable holds 'f32'}}
    %0 = tile.alloc_var init(%zero : i32) : memref<f32, #tile.local>
  }
  return
}

// -----

func.func @copy_rank(%A: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    // expected-error@+1 {{source region has 1 offsets and 1 extents but the source buffer has rank 2}}
    tile.copy %A[0] [64] to %s : memref<64x64xf16>, memref<64x64xf16, #tile.shared>
  }
  return
}

// -----

func.func @copy_offset_operands(%A: memref<64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64xf16, #tile.shared>
    // expected-error@+1 {{expected 1 dynamic source offset values}}
    "tile.copy"(%A, %s) <{static_source_offsets = array<i64: -9223372036854775808>, source_extents = array<i64: 64>, static_dest_offsets = array<i64: 0>, dest_extents = array<i64: 64>, operandSegmentSizes = array<i32: 1, 0, 1, 0, 0, 0>}> : (memref<64xf16>, memref<64xf16, #tile.shared>) -> ()
  }
  return
}

// -----

func.func @copy_extent(%A: memref<64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64xf16, #tile.shared>
    // expected-error@+1 {{source region extents must be positive, got 0 in dimension 0}}
    tile.copy %A[0] [0] to %s : memref<64xf16>, memref<64xf16, #tile.shared>
  }
  return
}

// -----

func.func @copy_negative_offset(%A: memref<64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<32xf16, #tile.shared>
    // expected-error@+1 {{destination region offset must not be negative, got -1 in dimension 0}}
    tile.copy %A[%a] [32] to %s[-1] [32] : memref<64xf16>, memref<32xf16, #tile.shared>
  }
  return
}

// -----

func.func @copy_outside(%A: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    // expected-error@+1 {{source region [48, 80) in dimension 0 is outside the source buffer, whose extent there is 64}}
    tile.copy %A[48, 0] [32, 64] to %s : memref<64x64xf16>, memref<32x64xf16, #tile.shared>
  }
  return
}

// -----

func.func @copy_shape(%A: memref<?x?xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    // expected-error@+1 {{copies a 64x32 region into a 32x64 region; the extents must agree once unit dimensions are dropped}}
    "tile.copy"(%A, %a, %a, %s) <{static_source_offsets = array<i64: -9223372036854775808, -9223372036854775808>, source_extents = array<i64: 64, 32>, static_dest_offsets = array<i64: 0, 0>, dest_extents = array<i64: 32, 64>, operandSegmentSizes = array<i32: 1, 2, 1, 0, 0, 0>}> : (memref<?x?xf16>, index, index, memref<32x64xf16, #tile.shared>) -> ()
  }
  return
}

// -----

func.func @copy_squeezed_shape(%A: memref<?x?x?xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    // expected-error@+1 {{copies a 1x64x32 region into a 32x64 region}}
    tile.copy %A[%a, 0, 0] [1, 64, 32] to %s : memref<?x?x?xf16>, memref<32x64xf16, #tile.shared>
  }
  return
}

// -----

func.func @copy_elements(%A: memref<64xindex>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64xf16, #tile.shared>
    // expected-error@+1 {{source buffer must hold integers or floating-point numbers, got 'index'}}
    tile.copy %A to %s : memref<64xindex>, memref<64xf16, #tile.shared>
  }
  return
}

// -----

func.func @copy_foreign_space(%A: memref<64xf16, 7>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64xf16, #tile.shared>
    // expected-error@+1 {{buffers must be in a tile memory scope}}
    tile.copy %A to %s : memref<64xf16, 7>, memref<64xf16, #tile.shared>
  }
  return
}

// -----

func.func @copy_whole_dynamic(%A: memref<?xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64xf16, #tile.shared>
    // expected-error@+1 {{a whole-buffer copy needs a static shape; give the region of 'memref<?xf16>' as [offsets] [extents]}}
    tile.copy %A to %s : memref<?xf16>, memref<64xf16, #tile.shared>
  }
  return
}

// -----

func.func @copy_no_extents(%A: memref<64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64xf16, #tile.shared>
    // expected-error@+1 {{a region needs at least one extent}}
    tile.copy %A[0] [] to %s : memref<64xf16>, memref<64xf16, #tile.shared>
  }
  return
}

// -----

func.func @gemm_a_global(%A: memref<64x32xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %B = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error@+1 {{operand A must be in shared memory or a fragment, but it is in global memory}}
    tile.gemm %A, %B, %C : memref<64x32xf16>, memref<32x64xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_b_local(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %B = tile.alloc_local : memref<32x64xf16, #tile.local>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error@+1 {{operand B must be in shared memory or a fragment, but it is in local memory}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #tile.shared>, memref<32x64xf16, #tile.local>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_c_shared(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %B = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %C = tile.alloc_shared : memref<64x64xf32, #tile.shared>
    // expected-error@+1 {{operand C must be in a fragment, but it is in shared memory}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #tile.shared>, memref<32x64xf16, #tile.shared>, memref<64x64xf32, #tile.shared>
  }
  return
}

// -----

func.func @gemm_instruction_not_one(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %B = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error@+1 {{'tile.gemm' op attribute 'instruction' failed to satisfy constraint}}
    tile.gemm %A, %B, %C {instruction = #tile.swizzle<bits = 2, base = 3, shift = 3>} : memref<64x32xf16, #tile.shared>, memref<32x64xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_rank(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc_shared : memref<2x64x32xf16, #tile.shared>
    %B = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error@+1 {{operand A must be a 2-D buffer of static shape, got 2x64x32}}
    tile.gemm %A, %B, %C : memref<2x64x32xf16, #tile.shared>, memref<32x64xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_k(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %B = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error@+1 {{reduction dimensions differ: A is 64x32 (K = 32) but B is 64x32 (K = 64)}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #tile.shared>, memref<64x32xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_k_transposed(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %B = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error@+1 {{reduction dimensions differ: A is 64x32 (K = 32) but B (transposed) is 32x64 (K = 64)}}
    tile.gemm %A, %B, %C transpose_b : memref<64x32xf16, #tile.shared>, memref<32x64xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_c_shape(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %B = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error@+1 {{accumulator C is 64x64 but A x B is 64x128}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_mixed(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %B = tile.alloc_shared : memref<32x64xbf16, #tile.shared>
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error@+1 {{A holds 'f16' but B holds 'bf16'; the operands must have the same element type}}
    tile.gemm %A, %B, %C : memref<64x32xf16, #tile.shared>, memref<32x64xbf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @gemm_accumulator(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %A = tile.alloc_shared : memref<64x32xbf16, #tile.shared>
    %B = tile.alloc_shared : memref<32x64xbf16, #tile.shared>
    %C = tile.alloc_fragment : memref<64x64xbf16, #tile.fragment>
    // expected-error@+1 {{cannot accumulate 'bf16' products in 'bf16' (supported: f16 into f16 or f32; bf16, f32, f8E4M3FN and f8E5M2, or f8E4M3FNUZ and f8E5M2FNUZ, into f32; i8 into i32)}}
    tile.gemm %A, %B, %C : memref<64x32xbf16, #tile.shared>, memref<32x64xbf16, #tile.shared>, memref<64x64xbf16, #tile.fragment>
  }
  return
}

// -----

func.func @fill_type(%n: index) {
  %zero = arith.constant 0.0 : f16
  tile.kernel blocks(%a) in (%n) threads(128) {
    %C = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    // expected-error@+1 {{fill value has type 'f16' but the buffer holds 'f32'}}
    tile.fill %C, %zero : memref<64x64xf32, #tile.fragment>, f16
  }
  return
}

// -----

func.func @fill_elements(%A: memref<4xindex>, %n: index) {
  %zero = arith.constant 0 : index
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{the buffer must hold integers or floating-point numbers, got 'index'}}
    tile.fill %A, %zero : memref<4xindex>, index
  }
  return
}

// -----

func.func @clear_elements(%A: memref<4xindex>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{the buffer must hold integers or floating-point numbers, got 'index'}}
    tile.clear %A : memref<4xindex>
  }
  return
}

// -----

func.func @reduce_global(%A: memref<64x64xf32>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error@+1 {{source must be in a fragment, shared or local memory, but it is in global memory; copy it on chip first}}
    tile.reduce max %A -> %m dim(1) : memref<64x64xf32>, memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_dynamic(%A: memref<?xf32, #tile.shared>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %m = tile.alloc_fragment : memref<1xf32, #tile.fragment>
    // expected-error@+1 {{buffers must have static shapes}}
    tile.reduce max %A -> %m dim(0) : memref<?xf32, #tile.shared>, memref<1xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_elements(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_fragment : memref<4xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<1xf32, #tile.fragment>
    // expected-error@+1 {{dimension 1 is out of range for a rank-1 source}}
    tile.reduce sum %s -> %m dim(1) : memref<4xf32, #tile.fragment>, memref<1xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_shape(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    // expected-error@+1 {{reducing a 64x32 source along dimension 1 gives 64, but the destination is 32}}
    tile.reduce sum %s -> %m dim(1) : memref<64x32xf32, #tile.fragment>, memref<32xf32, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_type(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf16, #tile.fragment>
    // expected-error@+1 {{source holds 'f32' but the destination holds 'f16'}}
    tile.reduce sum %s -> %m dim(1) : memref<64x32xf32, #tile.fragment>, memref<64xf16, #tile.fragment>
  }
  return
}

// -----

func.func @reduce_index(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_fragment : memref<64x32xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error@+1 {{dimension -1 is out of range for a rank-2 source}}
    tile.reduce sum %s -> %m dim(-1) : memref<64x32xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @atomic_scope(%n: index) {
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%a) in (%n) threads(128) {
    %l = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error@+1 {{destination must be in global or shared memory, but it is in a fragment}}
    tile.atomic addf %one to %l[%a] : f32 to memref<64xf32, #tile.fragment>
  }
  return
}

// -----

func.func @atomic_type(%A: memref<64xi8>, %n: index) {
  %one = arith.constant 1 : i8
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{atomics into 'i8' are not supported (f16, bf16, f32, f64, i32 and i64 are)}}
    tile.atomic addi %one to %A[%a] : i8 to memref<64xi8>
  }
  return
}

// -----

func.func @atomic_kind_family(%A: memref<64xi32>, %n: index) {
  %one = arith.constant 1 : i32
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{kind 'maxnumf' is for floats, but the destination holds 'i32'}}
    tile.atomic maxnumf %one to %A[%a] : i32 to memref<64xi32>
  }
  return
}

// -----

func.func @atomic_kind(%A: memref<64xf32>, %n: index) {
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{kind 'mulf' is not an add, maximum or minimum (addf, addi, maxnumf, maxs, maxu, minnumf, mins, minu)}}
    tile.atomic mulf %one to %A[%a] : f32 to memref<64xf32>
  }
  return
}

// -----

func.func @atomic_indices(%A: memref<64x64xf32>, %n: index) {
  %one = arith.constant 1.0 : f32
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{has 1 indices for a rank-2 destination}}
    tile.atomic addf %one to %A[%a] : f32 to memref<64x64xf32>
  }
  return
}

// -----

func.func @atomic_value(%A: memref<64xf32>, %n: index) {
  %one = arith.constant 1.0 : f16
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{value has type 'f16' but the destination holds 'f32'}}
    tile.atomic addf %one to %A[%a] : f16 to memref<64xf32>
  }
  return
}

// -----

func.func @atomic_dynamic_tile(%A: memref<64xf32>, %T: memref<?xf32, #tile.shared>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{a tile value must have a static shape}}
    tile.atomic addf %T to %A[%a] : memref<?xf32, #tile.shared> to memref<64xf32>
  }
  return
}

// -----

func.func @atomic_tile_rank(%A: memref<64xf32>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %t = tile.alloc_fragment : memref<4x4xf32, #tile.fragment>
    // expected-error@+1 {{a 4x4 tile does not fit a rank-1 destination}}
    tile.atomic addf %t to %A[%a] : memref<4x4xf32, #tile.fragment> to memref<64xf32>
  }
  return
}

// -----

func.func @atomic_region_rank(%A: memref<8x64xf32>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %t = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error@+1 {{has 1 region extents for a rank-2 destination}}
    tile.atomic addf %t to %A[%a, %a] {extents = array<i64: 64>} : memref<64xf32, #tile.fragment> to memref<8x64xf32>
  }
  return
}

// -----

func.func @atomic_region_shape(%A: memref<8x64xf32>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %t = tile.alloc_fragment : memref<2x32xf32, #tile.fragment>
    // expected-error@+1 {{a 2x32 tile does not fill a 1x64 region}}
    tile.atomic addf %t to %A[%a, %a] {extents = array<i64: 1, 64>} : memref<2x32xf32, #tile.fragment> to memref<8x64xf32>
  }
  return
}

// -----

func.func @atomic_tile_elements(%A: memref<64xf32>, %t: memref<4xindex, #tile.local>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{the value must hold integers or floating-point numbers, got 'index'}}
    tile.atomic addf %t to %A[%a] : memref<4xindex, #tile.local> to memref<64xf32>
  }
  return
}

// -----

func.func @parallel_empty(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{needs at least one dimension}}
    "tile.parallel"() <{extents = array<i64>}> ({
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  return
}

// -----

func.func @parallel_extent(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{extents must be positive, got 0}}
    tile.parallel (%i) in (0) {
    }
  }
  return
}

// -----

func.func @parallel_ivs(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{has 1 induction variables for 2 dimensions}}
    tile.parallel (%i) in (4, 4) {
    }
  }
  return
}

// -----

func.func @parallel_iv_type(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{induction variables must be of index type}}
    "tile.parallel"() <{extents = array<i64: 4>}> ({
    ^bb0(%i: i32):
      "tile.yield"() : () -> ()
    }) : () -> ()
  }
  return
}

// -----

func.func @serial_step(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{step must be positive, got 0}}
    tile.serial %i = %c0 to %n step %c0 {
    }
  }
  return
}

// -----

func.func @unroll_step(%n: index) {
  %c0 = arith.constant 0 : index
  %cm1 = arith.constant -1 : index
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{step must be positive, got -1}}
    tile.unroll %i = %c0 to %n step %cm1 {
    }
  }
  return
}

// -----

func.func @serial_iv(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{body must take one index induction variable}}
    "tile.serial"(%n, %n, %n) ({
    ^bb0(%i: index, %j: index):
      "tile.yield"() : () -> ()
    }) : (index, index, index) -> ()
  }
  return
}

// -----

func.func @unroll_iv(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{body must take one index induction variable}}
    "tile.unroll"(%n, %n, %n) ({
    ^bb0(%i: i64):
      "tile.yield"() : () -> ()
    }) : (index, index, index) -> ()
  }
  return
}

// -----

func.func @pipelined_stages(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{num_stages must not be negative, got -2}}
    tile.pipelined %k = %c0 to %n stages(-2) {
    }
  }
  return
}

// -----

func.func @pipelined_order_alone(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{order and stage must be given together}}
    tile.pipelined %k = %c0 to %n stages(2) order [0] {
    }
  }
  return
}

// -----

func.func @pipelined_schedule_size(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%a) in (%n) threads(128) {
    %buf = tile.alloc_local : memref<4xf32, #tile.local>
    %one = arith.constant 1.0 : f32
    // expected-error@+1 {{order and stage must have one entry per statement of the body (1), got 2 and 2}}
    tile.pipelined %k = %c0 to %n stages(2) order [0, 1] stage [0, 1] {
      %x = arith.addi %k, %k : index
      memref.store %one, %buf[%x] : memref<4xf32, #tile.local>
    }
  }
  return
}

// -----

func.func @pipelined_order_permutation(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%a) in (%n) threads(128) {
    %buf = tile.alloc_local : memref<4xf32, #tile.local>
    %one = arith.constant 1.0 : f32
    // expected-error@+1 {{order must be a permutation of 0..1}}
    tile.pipelined %k = %c0 to %n stages(2) order [1, 1] stage [0, 1] {
      memref.store %one, %buf[%k] : memref<4xf32, #tile.local>
      tile.clear %buf : memref<4xf32, #tile.local>
    }
  }
  return
}

// -----

func.func @pipelined_stage_range(%n: index) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%a) in (%n) threads(128) {
    %buf = tile.alloc_local : memref<4xf32, #tile.local>
    %one = arith.constant 1.0 : f32
    // expected-error@+1 {{stage 2 is outside [0, 2)}}
    tile.pipelined %k = %c0 to %n stages(2) order [0, 1] stage [0, 2] {
      memref.store %one, %buf[%k] : memref<4xf32, #tile.local>
      memref.store %one, %buf[%k] : memref<4xf32, #tile.local>
    }
  }
  return
}

// -----

func.func @pipelined_iv(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{body must take one index induction variable}}
    "tile.pipelined"(%n, %n) ({
      "tile.yield"() : () -> ()
    }) : (index, index) -> ()
  }
  return
}

// -----

func.func @swizzle_panel(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{panel size must be positive, got 0}}
    tile.use_swizzle panel(0)
  }
  return
}

// -----

func.func @swizzle_twice(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    tile.use_swizzle panel(8)
    // expected-error@+1 {{a kernel takes at most one use_swizzle}}
    tile.use_swizzle panel(4)
  }
  return
}

// -----

func.func @swizzle_nested(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    tile.parallel (%i) in (4) {
      // expected-error@+1 {{'tile.use_swizzle' op expects parent op 'tile.kernel'}}
      tile.use_swizzle panel(8)
    }
  }
  return
}

// -----

func.func @annotate_shared_kind(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<4xf32, #tile.shared>
    // expected-error@+1 {{a buffer in shared memory takes a #tile.shared_layout, got #tile.fragment_layout}}
    tile.annotate_layout #tile.fragment_layout<[4], threads = 4, slots = 1, (d0) -> (d0, 0)> on %s : memref<4xf32, #tile.shared>
  }
  return
}

// -----

func.func @annotate_fragment_kind(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %f = tile.alloc_fragment : memref<4xf32, #tile.fragment>
    // expected-error@+1 {{a fragment takes a #tile.fragment_layout, got 3 : i64}}
    tile.annotate_layout 3 on %f : memref<4xf32, #tile.fragment>
  }
  return
}

// -----

func.func @annotate_local(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %l = tile.alloc_local : memref<4xf32, #tile.local>
    // expected-error@+1 {{only buffers in shared memory and fragments have layouts, but this one is in local memory}}
    tile.annotate_layout #tile.shared_layout<[4], (d0) -> (d0)> on %l : memref<4xf32, #tile.local>
  }
  return
}

// -----

func.func @annotate_shape(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<8xf32, #tile.shared>
    // expected-error@+1 {{layout is for a 4 buffer but the buffer is 8}}
    tile.annotate_layout #tile.shared_layout<[4], (d0) -> (d0)> on %s : memref<8xf32, #tile.shared>
  }
  return
}

// -----

func.func @annotate_fragment_shape(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %f = tile.alloc_fragment : memref<8xf32, #tile.fragment>
    // expected-error@+1 {{layout is for a 4 buffer but the buffer is 8}}
    tile.annotate_layout #tile.fragment_layout<[4], threads = 4, slots = 1, (d0) -> (d0, 0)> on %f : memref<8xf32, #tile.fragment>
  }
  return
}

// -----

func.func @yield_parent() {
  // expected-error@+1 {{'tile.yield' op expects parent op to be one of 'tile.kernel, tile.parallel, tile.pipelined, tile.serial, tile.thread_range, tile.unroll, tile.warp_specialize'}}
  "tile.yield"() : () -> ()
}

// -----

func.func @parallel_layout(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    // expected-error@+1 {{layout is for a 64 iteration space but the loop runs over 128}}
    tile.parallel (%i) in (128) layout #tile.fragment_layout<[64], threads = 128, slots = 1, (d0) -> (d0, 0)> {
    }
  }
  return
}

// -----

func.func @barrier_not_async(%A: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    %bars = tile.alloc_shared : memref<2xi64, #tile.shared>
    // expected-error@+1 {{only an async copy completes on a barrier}}
    tile.copy %A to %s barrier(%bars[%a] : memref<2xi64, #tile.shared>) : memref<64x64xf16>, memref<64x64xf16, #tile.shared>
  }
  return
}

// -----

func.func @bulk_direction(%A: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    // expected-error@+1 {{a bulk copy goes from shared to global memory}}
    tile.copy bulk %A to %s : memref<64x64xf16>, memref<64x64xf16, #tile.shared>
  }
  return
}

// -----

func.func @bulk_part(%A: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    // expected-error@+1 {{a bulk copy reads a whole shared tile, as allocated}}
    tile.copy bulk %s[0, 0] [32, 64] to %A[0, 0] [32, 64] : memref<64x64xf16, #tile.shared>, memref<64x64xf16>
  }
  return
}

// -----

func.func @bulk_convert(%A: memref<64x64xf32>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    // expected-error@+1 {{a bulk copy does not convert elements: it copies 'f16' into 'f32'}}
    tile.copy bulk %s to %A : memref<64x64xf16, #tile.shared>, memref<64x64xf32>
  }
  return
}

// -----

func.func @barrier_type(%A: memref<64x64xf16>, %n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    %bars = tile.alloc_shared : memref<2xi32, #tile.shared>
    // expected-error@+1 {{the barrier must be a 1-D buffer of i64 mbarriers in shared memory, got 'memref<2xi32, #tile.shared>'}}
    tile.copy async %A to %s barrier(%bars[%a] : memref<2xi32, #tile.shared>) : memref<64x64xf16>, memref<64x64xf16, #tile.shared>
  }
  return
}

// -----

func.func @tensor_map_rank(%A: memref<64x64xf16>) {
  // expected-error@+1 {{needs one box extent per tensor dimension (1 to 5), got 1 for a rank-2 tensor}}
  %m = tile.tensor_map %A box [64] swizzle(0) : memref<64x64xf16> -> !llvm.ptr
  return
}

// -----

func.func @tensor_map_box(%A: memref<1024x1024xf16>) {
  // expected-error@+1 {{box extents must be in [1, 256], got 512}}
  %m = tile.tensor_map %A box [512, 64] swizzle(128) : memref<1024x1024xf16> -> !llvm.ptr
  return
}

// -----

func.func @tensor_map_swizzle(%A: memref<64x64xf16>) {
  // expected-error@+1 {{swizzle must be 0, 32, 64 or 128 bytes, got 16}}
  %m = tile.tensor_map %A box [64, 64] swizzle(16) : memref<64x64xf16> -> !llvm.ptr
  return
}

// -----

func.func @tensor_map_row(%A: memref<64x64xf16>) {
  // expected-error@+1 {{the box's rows are 128 bytes; they must be a multiple of 16 and at most the swizzle's 64}}
  %m = tile.tensor_map %A box [64, 64] swizzle(64) : memref<64x64xf16> -> !llvm.ptr
  return
}

// -----

func.func @tensor_map_scope(%n: index) {
  tile.kernel blocks(%a) in (%n) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    // expected-error@+1 {{maps a tensor in global memory, not shared memory}}
    %m = tile.tensor_map %s box [64, 64] swizzle(128) : memref<64x64xf16, #tile.shared> -> !llvm.ptr
  }
  return
}

// -----

func.func @tensor_map_param(%A: memref<64x64xf16>) {
  %v = memref.cast %A : memref<64x64xf16> to memref<64x64xf16>
  // expected-error@+1 {{maps a parameter of the kernel's function}}
  %m = tile.tensor_map %v box [64, 64] swizzle(128) : memref<64x64xf16> -> !llvm.ptr
  return
}

// -----

func.func @layout_conversion_not_a_loop(%A: memref<64x64xf16>) {
  // expected-error@+1 {{'tile.layout_conversion' is a string attribute of a tile.parallel loop}}
  %v = memref.cast %A {tile.layout_conversion = "why"} : memref<64x64xf16> to memref<64x64xf16>
  return
}

// -----

func.func @filled_ahead_not_a_stage(%A: memref<64x64xf16>) {
  // expected-error@+1 {{'tile.filled_ahead' is a unit attribute of a memref.subview (a pipeline stage)}}
  %v = memref.cast %A {tile.filled_ahead} : memref<64x64xf16> to memref<64x64xf16>
  return
}

// -----

func.func @mbarrier_in_global(%bars: memref<2xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error@+1 {{'tile.mbarrier_init' op the barriers must be in shared memory, got 'memref<2xi64>'}}
    tile.mbarrier_init %bars[%c0], 1 : memref<2xi64>
  }
  return
}

// -----

func.func @mbarrier_no_arrivals() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %bars = tile.alloc_shared : memref<2xi64, #tile.shared>
    // expected-error@+1 {{'tile.mbarrier_init' op attribute 'count' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
    tile.mbarrier_init %bars[%c0], 0 : memref<2xi64, #tile.shared>
  }
  return
}

// -----

func.func @mbarrier_words(%phase: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %bars = tile.alloc_shared : memref<2xi32, #tile.shared>
    // expected-error@+1 {{'tile.mbarrier_wait' op operand #0 must be 1D memref of 64-bit signless integer values}}
    tile.mbarrier_wait %bars[%c0] phase %phase : memref<2xi32, #tile.shared>
  }
  return
}

// -----

func.func @wait_outside_kernel() {
  // expected-error@+1 {{'tile.async_wait_group' op must be inside a tile.kernel (a T.Kernel block)}}
  tile.async_wait_group 0
  return
}

// -----

func.func @async_copy_to_global(%A: memref<64x64xf16>, %B: memref<64x64xf16>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error@+1 {{'tile.async_copy' op must write shared memory, got 'memref<64x64xf16>'}}
    tile.async_copy %A[%i, %i], %B[%i, %i], 8 : memref<64x64xf16> to memref<64x64xf16>
  }
  return
}

// -----

func.func @async_copy_run(%A: memref<64x64xf16>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    // expected-error@+1 {{'tile.async_copy' op copies runs of 4, 8 or 16 bytes, got 6}}
    tile.async_copy %A[%i, %i], %s[%i, %i], 3 : memref<64x64xf16> to memref<64x64xf16, #tile.shared>
  }
  return
}

// -----

func.func @async_copy_types(%A: memref<64x64xf32>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    // expected-error@+1 {{'tile.async_copy' op copies between different element types: 'memref<64x64xf32>' and 'memref<64x64xf16, #tile.shared>'}}
    tile.async_copy %A[%i, %i], %s[%i, %i], 8 : memref<64x64xf32> to memref<64x64xf16, #tile.shared>
  }
  return
}

// -----

func.func @async_copy_indices(%A: memref<64x64xf16>, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    // expected-error@+1 {{'tile.async_copy' op needs one index per dimension of each buffer}}
    tile.async_copy %A[%i], %s[%i, %i], 8 : memref<64x64xf16> to memref<64x64xf16, #tile.shared>
  }
  return
}

// -----

func.func @bulk_copy_outside(%map: !llvm.ptr, %tile: !llvm.ptr<3>, %x: i32) {
  // expected-error@+1 {{'tile.tma_store' op must be inside a tile.kernel}}
  tile.tma_store %map[%x], %tile : !llvm.ptr, !llvm.ptr<3>
  return
}

// -----

func.func @named_barrier_too_many() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error@+1 {{'tile.named_barrier' op waits for 256 threads, more than the block's 128}}
    tile.named_barrier 1, 256
  }
  return
}

// -----

func.func @named_barrier_part_of_a_warp() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error@+1 {{'tile.named_barrier' op waits for 48 threads, which is not a multiple of 32 (whole warps arrive)}}
    tile.named_barrier 1, 48
  }
  return
}

// -----

func.func @named_barrier_id() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error@+1 {{attribute 'id' failed to satisfy constraint}}
    tile.named_barrier 16, 32
  }
  return
}

// -----

func.func @atomic_previous_of_tile(%C: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    // expected-error@+1 {{'tile.atomic' op gives the previous value of one element, of the destination's type 'f32', for a scalar value only}}
    %p = tile.atomic addf %s to %C[%c0] : memref<64xf32, #tile.shared> to memref<64xf32> -> f32
  }
  return
}

// -----

func.func @thread_range_outside_block() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error@+1 {{'tile.thread_range' op runs threads 64 to 191, outside the 0 to 127 that reach it}}
    tile.thread_range 64, 128 {
    }
  }
  return
}

// -----

func.func @thread_range_outside_range() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    tile.thread_range 128, 128 {
      // expected-error@+1 {{'tile.thread_range' op runs threads 0 to 127, outside the 128 to 255 that reach it}}
      tile.thread_range 0, 128 {
      }
    }
  }
  return
}

// -----

func.func @thread_range_part_of_a_warp() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error@+1 {{'tile.thread_range' op runs threads 16 to 47, which are not whole warps of 32}}
    tile.thread_range 16, 32 {
    }
  }
  return
}
