// RUN: tilec-opt %s --split-input-file --tile-distribute --canonicalize --cse | FileCheck %s

// Each thread runs the loop body at each slot of the loop's layout: here 2
// adjacent elements per thread, 32 threads over 64 elements. The two slots
// are a run along the loop's dimension, run as one vector body: one 8-byte
// load and store of global memory; the fragment becomes a 2-slot register
// array, indexed by constants.
// CHECK-LABEL: func.func @elementwise
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 32
// CHECK: %[[REGS:.*]] = memref.alloca() : memref<2xf32>
// CHECK: %[[I0:.*]] = arith.muli %[[TID]], %c2
// CHECK: %[[V:.*]] = vector.load %arg0[%[[I0]]] {alignment = 8 : i64} : memref<64xf32>, vector<2xf32>
// CHECK: %[[V0:.*]] = vector.extract %[[V]][0]
// CHECK: memref.store %[[V0]], %[[REGS]][%c0]
// CHECK: %[[V1:.*]] = vector.extract %[[V]][1]
// CHECK: memref.store %[[V1]], %[[REGS]][%c1]
// CHECK: %[[R0:.*]] = memref.load %[[REGS]][%c0]
// CHECK: %[[R1:.*]] = memref.load %[[REGS]][%c1]
// CHECK: %[[R:.*]] = vector.from_elements %[[R0]], %[[R1]] : vector<2xf32>
// CHECK: %[[W:.*]] = arith.mulf %[[R]], %{{.*}} : vector<2xf32>
// CHECK: vector.store %[[W]], %arg1[%[[I0]]] {alignment = 8 : i64}
// CHECK-NOT: tile.parallel
// CHECK-NOT: tile.alloc_fragment
#grid = #tile.fragment_layout<[64], threads = 32, slots = 2, (d0) -> (d0 floordiv 2, d0 mod 2), inverse = (d0, d1) -> (d0 * 2 + d1)>
func.func @elementwise(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %f = tile.alloc_fragment {layout = #grid} : memref<64xf32, #tile.fragment>
    tile.parallel (%i) in (64) layout #grid {
      %v = memref.load %a[%i] : memref<64xf32>
      memref.store %v, %f[%i] : memref<64xf32, #tile.fragment>
    }
    tile.parallel (%i) in (64) layout #grid {
      %v = memref.load %f[%i] : memref<64xf32, #tile.fragment>
      %w = arith.mulf %v, %two : f32
      memref.store %w, %b[%i] : memref<64xf32>
    }
  }
  return
}

// -----

// 100 elements over 32 threads in runs of 2: the runs past element 100
// are guarded, the first 64 elements are not; each run is one vector body.
// CHECK-LABEL: func.func @tail
// CHECK: %[[TID:.*]] = gpu.thread_id x upper_bound 32
// CHECK: vector.load %arg0
// CHECK-NOT: scf.if
// CHECK: %[[I2:.*]] = arith.addi %{{.*}}, %c64
// CHECK: %[[IN2:.*]] = arith.cmpi ult, %[[I2]], %c100
// CHECK: scf.if %[[IN2]] {
// CHECK:   vector.load %arg0[%[[I2]]] {alignment = 8 : i64} : memref<100xf32>, vector<2xf32>
// CHECK:   memref.store %{{.*}}, %{{.*}}[%c2]
// CHECK:   memref.store %{{.*}}, %{{.*}}[%c3]
#grid = #tile.fragment_layout<[100], threads = 32, slots = 4, (d0) -> ((d0 floordiv 2) mod 32, (d0 floordiv 64) * 2 + d0 mod 2), inverse = (d0, d1) -> ((d1 floordiv 2) * 64 + d0 * 2 + d1 mod 2)>
func.func @tail(%a: memref<100xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %f = tile.alloc_fragment {layout = #grid} : memref<100xf32, #tile.fragment>
    tile.parallel (%i) in (100) layout #grid {
      %v = memref.load %a[%i] : memref<100xf32>
      memref.store %v, %f[%i] : memref<100xf32, #tile.fragment>
    }
    tile.parallel (%i) in (100) layout #grid {
      %v = memref.load %f[%i] : memref<100xf32, #tile.fragment>
      %w = arith.addf %v, %v : f32
      memref.store %w, %a[%i] : memref<100xf32>
    }
  }
  return
}

// -----

// A row reduction over the 32 lanes of a warp: each thread combines its own
// two slots, then XOR shuffles with lanes 1, 2, 4, 8 and 16 away. The
// result is held by every lane of the row; the first lane alone writes
// it to the tensor.
// CHECK-LABEL: func.func @warp_sum
// CHECK: %[[SRC:.*]] = memref.alloca() : memref<2xf32>
// CHECK: %[[DST:.*]] = memref.alloca() : memref<1xf32>
// CHECK: %[[A:.*]] = memref.load %[[SRC]][%c0]
// CHECK: %[[B:.*]] = memref.load %[[SRC]][%c1]
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK: %[[X1:.*]], %{{.*}} = gpu.shuffle xor %[[S]], %c1_i32, %c32_i32 : f32
// CHECK: %[[S1:.*]] = arith.addf %[[S]], %[[X1]]
// CHECK: gpu.shuffle xor %[[S1]], %c2_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c32_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c8_i32, %c32_i32
// CHECK: %[[X16:.*]], %{{.*}} = gpu.shuffle xor %[[S8:.*]], %c16_i32, %c32_i32
// CHECK: %[[TOTAL:.*]] = arith.addf %[[S8]], %[[X16]]
// CHECK: memref.store %[[TOTAL]], %[[DST]][%c0]
// CHECK-NOT: gpu.barrier
// CHECK: %[[ROW:.*]] = arith.divui %[[TID:.*]], %c32
// CHECK: %[[REPLICA:.*]] = arith.remui %[[TID]], %c32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[REPLICA]], %c0
// CHECK: scf.if %[[FIRST]] {
// CHECK:   %[[V:.*]] = memref.load %[[DST]][%c0]
// CHECK:   memref.store %[[V]], %{{.*}}[%[[ROW]], %[[ROW]]] : memref<2x64xf32>
#tile2 = #tile.fragment_layout<[2, 64], threads = 64, slots = 2, (d0, d1) -> ((d0 mod 2) * 32 + (d1 floordiv 2) mod 32, (d0 floordiv 2 + (d1 floordiv 2) floordiv 32) * 2 + d1 mod 2), inverse = (d0, d1) -> ((d1 floordiv 2) * 2 + d0 floordiv 32, (d0 mod 32) * 2 + d1 mod 2)>
#rows2 = #tile.fragment_layout<[2], threads = 64, slots = 1, replicate = 32, (d0, d1) -> ((d0 mod 2) * 32 + d1, d0 floordiv 2), inverse = (d0, d1) -> (d1 * 2 + d0 floordiv 32, d0 mod 32)>
func.func @warp_sum(%a: memref<2x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %f = tile.alloc_fragment {layout = #tile2} : memref<2x64xf32, #tile.fragment>
    %s = tile.alloc_fragment {layout = #rows2} : memref<2xf32, #tile.fragment>
    tile.reduce sum %f -> %s dim(1) : memref<2x64xf32, #tile.fragment>, memref<2xf32, #tile.fragment>
    tile.parallel (%i) in (2) layout #rows2 {
      %v = memref.load %s[%i] : memref<2xf32, #tile.fragment>
      memref.store %v, %a[%i, %i] : memref<2x64xf32>
    }
  }
  return
}

// -----

// A row spread over 4 warps: after the shuffles, each warp leaves its
// partial in shared memory and every thread combines the 4 partials in
// warp order (0, 1, 2, 3), so that all replicas are equal. clear(false)
// then combines with the old value.
// CHECK-LABEL: func.func @block_max
// CHECK: %[[SCRATCH:.*]] = tile.alloc_shared : memref<128xf32, #tile.shared>
// CHECK: %[[DST:.*]] = memref.alloca() : memref<1xf32>
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32
// CHECK: %[[PARTIAL:.*]] = arith.maxnumf
// CHECK: %[[LANE:.*]] = arith.remui %[[TID:.*]], %c32
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32
// CHECK: gpu.barrier
// CHECK: %[[OWN:.*]] = arith.muli %[[WARP]], %c32
// CHECK: %[[SLOT:.*]] = arith.addi %[[OWN]], %[[LANE]]
// CHECK: memref.store %[[PARTIAL]], %[[SCRATCH]][%[[SLOT]]]
// CHECK: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.andi %[[WARP]], %c-4
// CHECK: %[[W0:.*]] = memref.load %[[SCRATCH]]
// CHECK: arith.xori %[[FIRST]], %c1
// CHECK: %[[W1:.*]] = memref.load %[[SCRATCH]]
// CHECK: %[[M01:.*]] = arith.maxnumf %[[W0]], %[[W1]]
// CHECK: arith.xori %[[FIRST]], %c2
// CHECK: arith.xori %[[FIRST]], %c3
// CHECK: %[[M:.*]] = arith.maxnumf
// CHECK: gpu.barrier
// CHECK: %[[OLD:.*]] = memref.load %[[DST]][%c0]
// CHECK: %[[NEW:.*]] = arith.maxnumf %[[OLD]], %[[M]]
// CHECK: memref.store %[[NEW]], %[[DST]][%c0]
#wide = #tile.fragment_layout<[1, 512], threads = 128, slots = 4, (d0, d1) -> (d0 * 128 + (d1 floordiv 4) mod 128, (d0 + (d1 floordiv 4) floordiv 128) * 4 + d1 mod 4), inverse = (d0, d1) -> (d1 floordiv 4 + d0 floordiv 128, (d0 mod 128) * 4 + d1 mod 4)>
#one = #tile.fragment_layout<[1], threads = 128, slots = 1, replicate = 128, (d0, d1) -> (d0 * 128 + d1, d0), inverse = (d0, d1) -> (d1 + d0 floordiv 128, d0 mod 128)>
func.func @block_max(%out: memref<1xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %f = tile.alloc_fragment {layout = #wide} : memref<1x512xf32, #tile.fragment>
    %m = tile.alloc_fragment {layout = #one} : memref<1xf32, #tile.fragment>
    tile.reduce max %f -> %m dim(1) clear(false) : memref<1x512xf32, #tile.fragment>, memref<1xf32, #tile.fragment>
    tile.parallel (%i) in (1) layout #one {
      %v = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      memref.store %v, %out[%i] : memref<1xf32>
    }
  }
  return
}

// -----

// Two reductions across the warps exchange their partials in one scratch
// buffer: each one's use of it lies between barriers of its own.
// CHECK-LABEL: func.func @two_block_reductions
// CHECK: %[[SCRATCH:.*]] = tile.alloc_shared : memref<128xf32, #tile.shared>
// CHECK-NOT: tile.alloc_shared
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: memref.load %[[SCRATCH]]
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
#wide = #tile.fragment_layout<[1, 512], threads = 128, slots = 4, (d0, d1) -> (d0 * 128 + (d1 floordiv 4) mod 128, (d0 + (d1 floordiv 4) floordiv 128) * 4 + d1 mod 4), inverse = (d0, d1) -> (d1 floordiv 4 + d0 floordiv 128, (d0 mod 128) * 4 + d1 mod 4)>
#one = #tile.fragment_layout<[1], threads = 128, slots = 1, replicate = 128, (d0, d1) -> (d0 * 128 + d1, d0), inverse = (d0, d1) -> (d1 + d0 floordiv 128, d0 mod 128)>
func.func @two_block_reductions(%out: memref<2xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %f = tile.alloc_fragment {layout = #wide} : memref<1x512xf32, #tile.fragment>
    %m = tile.alloc_fragment {layout = #one} : memref<1xf32, #tile.fragment>
    %s = tile.alloc_fragment {layout = #one} : memref<1xf32, #tile.fragment>
    tile.reduce max %f -> %m dim(1) : memref<1x512xf32, #tile.fragment>, memref<1xf32, #tile.fragment>
    tile.reduce sum %f -> %s dim(1) : memref<1x512xf32, #tile.fragment>, memref<1xf32, #tile.fragment>
    tile.parallel (%i) in (1) layout #one {
      %v = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      %w = memref.load %s[%i] : memref<1xf32, #tile.fragment>
      %x = arith.addf %v, %w : f32
      memref.store %x, %out[%i] : memref<2xf32>
    }
  }
  return
}

// -----

// The same row on a wave64 target: lanes 32 away are in the same wave and
// combine by shuffle; only the 2 waves meet in shared memory.
// CHECK-LABEL: func.func @wave_max
// CHECK: %[[SCRATCH:.*]] = tile.alloc_shared : memref<128xf32, #tile.shared>
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c64_i32
// CHECK: gpu.shuffle xor %{{.*}}, %c32_i32, %c64_i32
// CHECK: %[[LANE:.*]] = arith.remui %[[TID:.*]], %c64
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c64
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: %[[FIRST:.*]] = arith.andi %[[WARP]], %c-2
// CHECK: arith.xori %[[FIRST]], %c1
// CHECK-NOT: arith.xori %[[FIRST]], %c2
// CHECK: gpu.barrier
#wide = #tile.fragment_layout<[1, 512], threads = 128, slots = 4, (d0, d1) -> (d0 * 128 + (d1 floordiv 4) mod 128, (d0 + (d1 floordiv 4) floordiv 128) * 4 + d1 mod 4), inverse = (d0, d1) -> (d1 floordiv 4 + d0 floordiv 128, (d0 mod 128) * 4 + d1 mod 4)>
#one = #tile.fragment_layout<[1], threads = 128, slots = 1, replicate = 128, (d0, d1) -> (d0 * 128 + d1, d0), inverse = (d0, d1) -> (d1 + d0 floordiv 128, d0 mod 128)>
module attributes {tile.target = #tile.target<chip = "gfx942", warp_size = 64, shared_memory = 65536, registers = 512, features = none>} {
func.func @wave_max(%out: memref<1xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %f = tile.alloc_fragment {layout = #wide} : memref<1x512xf32, #tile.fragment>
    %m = tile.alloc_fragment {layout = #one} : memref<1xf32, #tile.fragment>
    tile.reduce max %f -> %m dim(1) clear(true) : memref<1x512xf32, #tile.fragment>, memref<1xf32, #tile.fragment>
    tile.parallel (%i) in (1) layout #one {
      %v = memref.load %m[%i] : memref<1xf32, #tile.fragment>
      memref.store %v, %out[%i] : memref<1xf32>
    }
  }
  return
}
}

// -----

// A gemm of shared operands on CUDA cores: one loop over K around every
// accumulator slot, an outer product that loads A's row once per step.
// CHECK-LABEL: func.func @simt_gemm
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<4xf32>
// CHECK: %[[ROW:.*]] = arith.divui %[[TID:.*]], %c4
// CHECK: %[[I0:.*]] = memref.load %[[ACC]][%c0]
// CHECK: %[[I1:.*]] = memref.load %[[ACC]][%c1]
// CHECK: %[[I2:.*]] = memref.load %[[ACC]][%c2]
// CHECK: %[[I3:.*]] = memref.load %[[ACC]][%c3]
// CHECK: %[[DOT:.*]]:4 = scf.for %[[K:.*]] = %c0 to %c8 step %c1 iter_args(%[[S0:.*]] = %[[I0]], %{{.*}} = %[[I1]], %{{.*}} = %[[I2]], %{{.*}} = %[[I3]]) -> (f32, f32, f32, f32) {
// CHECK:   %[[A:.*]] = memref.load %{{.*}}[%[[ROW]], %[[K]]] : memref<16x8xf16, #tile.shared>
// CHECK:   %[[B:.*]] = memref.load %{{.*}}[%{{.*}}, %[[K]]] : memref<16x8xf16, #tile.shared>
// CHECK:   %[[AF:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK:   %[[BF:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK:   %[[P:.*]] = arith.mulf %[[AF]], %[[BF]]
// CHECK:   %[[R0:.*]] = arith.addf %[[S0]], %[[P]]
// CHECK-COUNT-3: arith.mulf %[[AF]], %{{.*}} : f32
// CHECK:   scf.yield %[[R0]], %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK: memref.store %[[DOT]]#0, %[[ACC]][%c0]
// CHECK: memref.store %[[DOT]]#3, %[[ACC]][%c3]
// CHECK-NOT: scf.for
// CHECK-NOT: tile.gemm
#acc = #tile.fragment_layout<[16, 16], threads = 64, slots = 4, (d0, d1) -> ((d0 mod 16) * 4 + (d1 floordiv 4) mod 4, (d0 floordiv 16 + (d1 floordiv 4) floordiv 4) * 4 + d1 mod 4), inverse = (d0, d1) -> ((d1 floordiv 4) * 16 + d0 floordiv 4, (d0 mod 4) * 4 + d1 mod 4)>
func.func @simt_gemm(%c: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc_shared : memref<16x8xf16, #tile.shared>
    %b = tile.alloc_shared : memref<16x8xf16, #tile.shared>
    %acc = tile.alloc_fragment {layout = #acc} : memref<16x16xf32, #tile.fragment>
    tile.gemm %a, %b, %acc transpose_b : memref<16x8xf16, #tile.shared>, memref<16x8xf16, #tile.shared>, memref<16x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (16, 16) layout #acc {
      %v = memref.load %acc[%i, %j] : memref<16x16xf32, #tile.fragment>
      memref.store %v, %c[%i, %j] : memref<16x16xf32>
    }
  }
  return
}

// -----

// Rows 12 to 15 of the layout are past a 12-row accumulator: the threads
// that would hold them read no operand, and keep and store nothing there.
// CHECK-LABEL: func.func @simt_gemm_tail_rows
// CHECK: %[[ROW:.*]] = arith.divui %{{.*}}, %c4
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %[[ROW]], %c12
// CHECK: %[[DOT:.*]]:4 = scf.for %[[K:.*]] = %c0 to %c8 step %c1 iter_args(%[[S0:.*]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}})
// CHECK:   %[[R0:.*]] = scf.if %[[VALID]] -> (f32) {
// CHECK:     memref.load %{{.*}}[%[[ROW]], %[[K]]] : memref<12x8xf16, #tile.shared>
// CHECK:     scf.yield
// CHECK:   } else {
// CHECK:     scf.yield %[[S0]] : f32
// CHECK:   }
// CHECK: scf.if %[[VALID]] {
// CHECK:   memref.store %[[DOT]]#0
#tail = #tile.fragment_layout<[12, 16], threads = 64, slots = 4, (d0, d1) -> ((d0 mod 16) * 4 + (d1 floordiv 4) mod 4, (d0 floordiv 16 + (d1 floordiv 4) floordiv 4) * 4 + d1 mod 4), inverse = (d0, d1) -> ((d1 floordiv 4) * 16 + d0 floordiv 4, (d0 mod 4) * 4 + d1 mod 4)>
func.func @simt_gemm_tail_rows(%c: memref<12x16xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %a = tile.alloc_shared : memref<12x8xf16, #tile.shared>
    %b = tile.alloc_shared : memref<16x8xf16, #tile.shared>
    %acc = tile.alloc_fragment {layout = #tail} : memref<12x16xf32, #tile.fragment>
    tile.gemm %a, %b, %acc transpose_b : memref<12x8xf16, #tile.shared>, memref<16x8xf16, #tile.shared>, memref<12x16xf32, #tile.fragment>
    tile.parallel (%i, %j) in (12, 16) layout #tail {
      %v = memref.load %acc[%i, %j] : memref<12x16xf32, #tile.fragment>
      memref.store %v, %c[%i, %j] : memref<12x16xf32>
    }
  }
  return
}
