// RUN: tilec-opt %s | FileCheck %s
// RUN: tilec-opt %s | tilec-opt | FileCheck %s
// RUN: tilec-opt %s --mlir-print-op-generic | tilec-opt | FileCheck %s

// CHECK-DAG: #[[SWZ:shared_layout[0-9]*]] = #tile.shared_layout<[64, 64], (d0, d1) -> (d0 * 64 + d1), swizzle = <bits = 3, base = 3, shift = 3>>
// CHECK-DAG: #[[ROWS:fragment_layout[0-9]*]] = #tile.fragment_layout<[128, 64], threads = 128, slots = 64, (d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[REP:fragment_layout[0-9]*]] = #tile.fragment_layout<[128], threads = 128, slots = 1, replicate = 2, (d0, d1) -> (d0 floordiv 2 + d1 * 64, 0)>

// CHECK-LABEL: func.func @gemm
func.func @gemm(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>,
                %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  // CHECK: tile.kernel blocks(%[[BX:.*]], %[[BY:.*]]) in (%{{.*}}, %{{.*}}) threads(128) {
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    // CHECK: tile.use_swizzle panel(10){{$}}
    tile.use_swizzle panel(10)
    // CHECK: tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %As = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %Bs = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    // CHECK: tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %Cl = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    // CHECK: tile.clear %{{.*}} : memref<128x128xf32, #tile.fragment>
    tile.clear %Cl : memref<128x128xf32, #tile.fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    // CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %{{.*}} stages(3) {
    tile.pipelined %k = %c0 to %c32 stages(3) {
      %kk = arith.muli %k, %c32 : index
      // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] [128, 32] to %{{.*}} : memref<1024x1024xf16>, memref<128x32xf16, #tile.shared>
      tile.copy %A[%row, %kk] [128, 32] to %As : memref<1024x1024xf16>, memref<128x32xf16, #tile.shared>
      tile.copy %B[%kk, %col] [32, 128] to %Bs : memref<1024x1024xf16>, memref<32x128xf16, #tile.shared>
      // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
      tile.gemm %As, %Bs, %Cl : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
    }
    // CHECK: tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] [128, 128] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
    tile.copy %Cl to %C[%row, %col] [128, 128] : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}

// CHECK-LABEL: func.func @attention_pieces
func.func @attention_pieces(%Q: memref<?x?x32x128xf16>, %O: memref<?x?x32x128xf32>,
                            %seq: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %neg_inf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f32
  // CHECK: tile.kernel blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}, %{{.*}}) threads(32, 4, 1) {
  tile.kernel blocks(%bx, %by, %bz) in (%seq, %c4, %c4) threads(32, 4, 1) {
    %Qs = tile.alloc_shared : memref<64x128xf16, #tile.shared>
    %Ks = tile.alloc_shared {layout = #tile.shared_layout<[64, 64], (d0, d1) -> (d0 * 64 + d1), swizzle = <bits = 3, base = 3, shift = 3>>} : memref<64x64xf16, #tile.shared>
    // CHECK: tile.alloc_fragment {layout = #[[ROWS]]} : memref<128x64xf32, #tile.fragment>
    %S = tile.alloc_fragment {layout = #tile.fragment_layout<[128, 64], threads = 128, slots = 64, (d0, d1) -> (d0, d1)>} : memref<128x64xf32, #tile.fragment>
    %m = tile.alloc_fragment : memref<128xf32, #tile.fragment>
    %l = tile.alloc_local : memref<8xf32, #tile.local>
    // CHECK: tile.alloc_var init(%{{.*}} : f32) : memref<f32, #tile.local>
    %v = tile.alloc_var init(%one : f32) : memref<f32, #tile.local>
    // CHECK: tile.alloc_var : memref<i32, #tile.local>
    %w = tile.alloc_var : memref<i32, #tile.local>
    // CHECK: tile.annotate_layout #[[SWZ]] on %{{.*}} : memref<64x64xf16, #tile.shared>
    tile.annotate_layout #tile.shared_layout<[64, 64], (d0, d1) -> (d0 * 64 + d1), swizzle = <bits = 3, base = 3, shift = 3>> on %Ks : memref<64x64xf16, #tile.shared>
    // CHECK: tile.annotate_layout #[[REP]] on %{{.*}} : memref<128xf32, #tile.fragment>
    tile.annotate_layout #tile.fragment_layout<[128], threads = 128, slots = 1, replicate = 2, (d0, d1) -> (d0 floordiv 2 + d1 * 64, 0)> on %m : memref<128xf32, #tile.fragment>
    // A rank-reducing copy of a slice of a dynamically shaped tensor.
    // CHECK: tile.copy %{{.*}}[%{{.*}}, 0, %{{.*}}, 0] [1, 64, 1, 128] to %{{.*}} : memref<?x?x32x128xf16>, memref<64x128xf16, #tile.shared>
    tile.copy %Q[%bz, 0, %by, 0] [1, 64, 1, 128] to %Qs : memref<?x?x32x128xf16>, memref<64x128xf16, #tile.shared>
    // CHECK: tile.fill %{{.*}}, %{{.*}} : memref<128xf32, #tile.fragment>, f32
    tile.fill %m, %neg_inf : memref<128xf32, #tile.fragment>, f32
    // CHECK: tile.reduce max %{{.*}} -> %{{.*}} dim(1) clear(false) : memref<128x64xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
    tile.reduce max %S -> %m dim(1) clear(false) : memref<128x64xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
    // CHECK: tile.reduce sum %{{.*}} -> %{{.*}} dim(1) : memref<128x64xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
    tile.reduce sum %S -> %m dim(1) : memref<128x64xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
    // CHECK: tile.reduce min
    tile.reduce min %S -> %m dim(1) : memref<128x64xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
    // CHECK: tile.reduce absmax {{.*}} dim(0) : memref<128x64xf32, #tile.fragment>, memref<1x64xf32, #tile.fragment>
    %colmax = tile.alloc_fragment : memref<1x64xf32, #tile.fragment>
    tile.reduce absmax %S -> %colmax dim(0) : memref<128x64xf32, #tile.fragment>, memref<1x64xf32, #tile.fragment>
    // CHECK: tile.reduce abssum {{.*}} dim(0) : memref<8xf32, #tile.local>, memref<1xf32, #tile.local>
    %total = tile.alloc_local : memref<1xf32, #tile.local>
    tile.reduce abssum %l -> %total dim(0) : memref<8xf32, #tile.local>, memref<1xf32, #tile.local>
    // CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (128, 64) {
    tile.parallel (%i, %j) in (128, 64) {
      // CHECK: memref.load %{{.*}}[%[[I]], %[[J]]]
      %s = memref.load %S[%i, %j] : memref<128x64xf32, #tile.fragment>
      %mi = memref.load %m[%i] : memref<128xf32, #tile.fragment>
      %d = arith.subf %s, %mi : f32
      %e = math.exp2 %d : f32
      memref.store %e, %S[%i, %j] : memref<128x64xf32, #tile.fragment>
    }
    // CHECK: tile.serial %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
    tile.serial %t = %c0 to %seq step %c1 {
      %x = memref.load %v[] : memref<f32, #tile.local>
      %y = arith.addf %x, %one : f32
      memref.store %y, %v[] : memref<f32, #tile.local>
    }
    // CHECK: tile.unroll %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
    tile.unroll %u = %c0 to %c4 step %c1 {
      memref.store %one, %l[%u] : memref<8xf32, #tile.local>
    }
    // CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} stages(2) order [1, 0] stage [0, 1] {
    tile.pipelined %k = %c0 to %seq stages(2) order [1, 0] stage [0, 1] {
      tile.copy %Q[%bz, %k, %by, 0] [1, 64, 1, 128] to %Qs : memref<?x?x32x128xf16>, memref<64x128xf16, #tile.shared>
      tile.clear %S : memref<128x64xf32, #tile.fragment>
    }
    // CHECK: tile.pipelined %{{.*}} = %{{.*}} to %{{.*}} {
    tile.pipelined %k = %c0 to %c4 {
    }
    // CHECK: tile.atomic addf %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : f32 to memref<?x?x32x128xf32>
    tile.atomic addf %one to %O[%bz, %bx, %by, %c0] : f32 to memref<?x?x32x128xf32>
    // CHECK: %{{.*}} = tile.atomic addf %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : f32 to memref<?x?x32x128xf32> -> f32
    %before = tile.atomic addf %one to %O[%bz, %bx, %by, %c0] : f32 to memref<?x?x32x128xf32> -> f32
    // CHECK: tile.atomic addf %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<128x64xf32, #tile.fragment> to memref<?x?x32x128xf32>
    tile.atomic addf %S to %O[%bz, %bx, %by, %c0] : memref<128x64xf32, #tile.fragment> to memref<?x?x32x128xf32>
  }
  return
}

// CHECK-LABEL: func.func @gemm_variants
func.func @gemm_variants() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    // CHECK: tile.use_swizzle panel(4) order(col)
    tile.use_swizzle panel(4) order(col)
    %As = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %Bs = tile.alloc_shared : memref<64x32xf16, #tile.shared>
    %C = tile.alloc_fragment : memref<128x64xf32, #tile.fragment>
    %C16 = tile.alloc_fragment : memref<128x64xf16, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} transpose_a transpose_b policy(full_row) clear_accum :
    tile.gemm %As, %Bs, %C transpose_a transpose_b policy(full_row) clear_accum : memref<32x128xf16, #tile.shared>, memref<64x32xf16, #tile.shared>, memref<128x64xf32, #tile.fragment>
    // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} transpose_a transpose_b policy(full_col) :
    tile.gemm %As, %Bs, %C16 transpose_a transpose_b policy(full_col) : memref<32x128xf16, #tile.shared>, memref<64x32xf16, #tile.shared>, memref<128x64xf16, #tile.fragment>
    // The matrix instruction a gemm runs on, as tile-infer-layouts records it.
    // CHECK: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} transpose_a transpose_b {instruction = #tile.wgmma} :
    tile.gemm %As, %Bs, %C transpose_a transpose_b {instruction = #tile.wgmma} : memref<32x128xf16, #tile.shared>, memref<64x32xf16, #tile.shared>, memref<128x64xf32, #tile.fragment>
    // A from registers, int8 into int32, fp8 mixes into f32.
    %Ar = tile.alloc_fragment : memref<128x32xi8, #tile.fragment>
    %Bi = tile.alloc_shared : memref<32x64xi8, #tile.shared>
    %Ci = tile.alloc_fragment : memref<128x64xi32, #tile.fragment>
    // CHECK: tile.gemm {{.*}} : memref<128x32xi8, #tile.fragment>, memref<32x64xi8, #tile.shared>, memref<128x64xi32, #tile.fragment>
    tile.gemm %Ar, %Bi, %Ci : memref<128x32xi8, #tile.fragment>, memref<32x64xi8, #tile.shared>, memref<128x64xi32, #tile.fragment>
    %A8 = tile.alloc_shared : memref<128x32xf8E4M3FN, #tile.shared>
    %B8 = tile.alloc_shared : memref<64x32xf8E5M2, #tile.shared>
    // CHECK: tile.gemm {{.*}} transpose_b : memref<128x32xf8E4M3FN, #tile.shared>, memref<64x32xf8E5M2, #tile.shared>
    tile.gemm %A8, %B8, %C transpose_b : memref<128x32xf8E4M3FN, #tile.shared>, memref<64x32xf8E5M2, #tile.shared>, memref<128x64xf32, #tile.fragment>
    %Ab = tile.alloc_shared : memref<128x32xbf16, #tile.shared>
    %Bb = tile.alloc_shared : memref<32x64xbf16, #tile.shared>
    tile.gemm %Ab, %Bb, %C : memref<128x32xbf16, #tile.shared>, memref<32x64xbf16, #tile.shared>, memref<128x64xf32, #tile.fragment>
    %At = tile.alloc_shared : memref<128x32xf32, #tile.shared>
    %Bt = tile.alloc_shared : memref<32x64xf32, #tile.shared>
    tile.gemm %At, %Bt, %C : memref<128x32xf32, #tile.shared>, memref<32x64xf32, #tile.shared>, memref<128x64xf32, #tile.fragment>
    // Copies between on-chip buffers convert element types.
    // CHECK: tile.copy %{{.*}} to %{{.*}} : memref<128x64xf32, #tile.fragment>, memref<128x64xf16, #tile.fragment>
    tile.copy %C to %C16 : memref<128x64xf32, #tile.fragment>, memref<128x64xf16, #tile.fragment>
  }
  return
}

// A whole shared tile written to global memory by the bulk copy engine.
// CHECK-LABEL: func.func @bulk_store
func.func @bulk_store(%C: memref<1024x1024xf16>, %row: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %Cs = tile.alloc_shared : memref<128x64xf16, #tile.shared>
    // CHECK: tile.copy bulk %{{.*}} to %{{.*}}[%{{.*}}, 64] [128, 64] : memref<128x64xf16, #tile.shared>, memref<1024x1024xf16>
    tile.copy bulk %Cs to %C[%row, 64] [128, 64] : memref<128x64xf16, #tile.shared>, memref<1024x1024xf16>
  }
  return
}

// A pipeline stage filled by the bulk copy engine, completing on one of the
// stages' mbarriers, and the tensor map of its source.
// CHECK-LABEL: func.func @bulk_copy
func.func @bulk_copy(%A: memref<1024x1024xf16>, %k: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // CHECK: tile.tensor_map %{{.*}} box [128, 64] swizzle(128) : memref<1024x1024xf16> -> !llvm.ptr
    %map = tile.tensor_map %A box [128, 64] swizzle(128) : memref<1024x1024xf16> -> !llvm.ptr
    %bars = tile.alloc_shared : memref<2xi64, #tile.shared>
    %As = tile.alloc_shared : memref<128x64xf16, #tile.shared>
    // CHECK: tile.copy async %{{.*}}[%{{.*}}, %{{.*}}] [128, 64] to %{{.*}} barrier(%{{.*}}[%{{.*}}] : memref<2xi64, #tile.shared>) : memref<1024x1024xf16>, memref<128x64xf16, #tile.shared>
    tile.copy async %A[%bx, %k] [128, 64] to %As barrier(%bars[%c1] : memref<2xi64, #tile.shared>) : memref<1024x1024xf16>, memref<128x64xf16, #tile.shared>
  }
  return
}

// The synchronization of asynchronous copies: memory barriers and copy
// groups.
// CHECK-LABEL: func.func @synchronization
func.func @synchronization(%round: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %bars = tile.alloc_shared : memref<2xi64, #tile.shared>
    // CHECK: tile.mbarrier_init %{{.*}}[%{{.*}}], 1 : memref<2xi64, #tile.shared>
    tile.mbarrier_init %bars[%c0], 1 : memref<2xi64, #tile.shared>
    // CHECK: tile.mbarrier_arrive %{{.*}}[%{{.*}}] expect_bytes 16384 : memref<2xi64, #tile.shared>
    tile.mbarrier_arrive %bars[%c0] expect_bytes 16384 : memref<2xi64, #tile.shared>
    // CHECK: tile.mbarrier_arrive %{{.*}}[%{{.*}}] : memref<2xi64, #tile.shared>
    tile.mbarrier_arrive %bars[%c1] : memref<2xi64, #tile.shared>
    // CHECK: tile.mbarrier_wait %{{.*}}[%{{.*}}] phase %{{.*}} : memref<2xi64, #tile.shared>
    tile.mbarrier_wait %bars[%c0] phase %round : memref<2xi64, #tile.shared>
    // CHECK: tile.named_barrier 3, 64
    tile.named_barrier 3, 64
    // CHECK: tile.warp_barrier
    tile.warp_barrier
    // CHECK: tile.thread_range 64, 64 {
    // CHECK-NEXT: tile.thread_range 96, 32 {
    // CHECK-NEXT: tile.named_barrier 2, 32
    // CHECK-NEXT: }
    // CHECK-NEXT: } {barrier_id = 1 : i64}
    tile.thread_range 64, 64 {
      tile.thread_range 96, 32 {
        tile.named_barrier 2, 32
      }
    } {barrier_id = 1 : i64}
    // CHECK: tile.async_commit_group
    tile.async_commit_group
    // CHECK: tile.async_wait_group 1
    tile.async_wait_group 1
    // CHECK: tile.fence_async_shared
    tile.fence_async_shared
  }
  return
}

// The copies the copy passes give to the copy engines.
// CHECK-LABEL: func.func @engine_copies
func.func @engine_copies(%A: memref<64x64xf16>, %i: index, %n: index,
                         %map: !llvm.ptr, %tile: !llvm.ptr<3>,
                         %bar: !llvm.ptr<3>, %x: i32) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    // CHECK: tile.async_copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8 source_elements %{{.*}} : memref<64x64xf16> to memref<64x64xf16, #tile.shared>
    tile.async_copy %A[%i, %i], %s[%i, %i], 8 source_elements %n : memref<64x64xf16> to memref<64x64xf16, #tile.shared>
    // CHECK: tile.async_copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 2 : memref<64x64xf16> to memref<64x64xf16, #tile.shared>
    tile.async_copy %A[%i, %i], %s[%i, %i], 2 : memref<64x64xf16> to memref<64x64xf16, #tile.shared>
    // CHECK: tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}, barrier %{{.*}} : !llvm.ptr, !llvm.ptr<3>, !llvm.ptr<3>
    tile.tma_load %map[%x, %x], %tile, barrier %bar : !llvm.ptr, !llvm.ptr<3>, !llvm.ptr<3>
    // CHECK: tile.tma_store %{{.*}}[%{{.*}}], %{{.*}} : !llvm.ptr, !llvm.ptr<3>
    tile.tma_store %map[%x], %tile : !llvm.ptr, !llvm.ptr<3>
    // CHECK: tile.bulk_commit_group
    tile.bulk_commit_group
    // CHECK: tile.bulk_wait_group 0 read
    tile.bulk_wait_group 0 read
    // CHECK: tile.bulk_wait_group 2{{$}}
    tile.bulk_wait_group 2
  }
  return
}
