// RUN: tilec-opt %s --split-input-file --convert-tile-to-nvvm | FileCheck %s

// Memory barriers are 8-byte words of shared memory: each op takes the
// address of its barrier. A wait observes the parity of its phase; the
// arming announces its bytes.
// CHECK-LABEL: func.func @mbarriers
// CHECK: %[[BARS:.*]] = tile.alloc_shared : memref<4xi64, #tile.shared>
// CHECK: %[[OFF:.*]] = arith.muli %arg0, %c8
// CHECK: %[[META:[^,]*]], %{{.*}} = memref.extract_strided_metadata %[[BARS]]
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[META]]
// CHECK: %[[ADDR:.*]] = arith.addi %{{.*}}, %[[OFF]]
// CHECK: %[[WIDE:.*]] = arith.index_castui %[[ADDR]] : index to i64
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[WIDE]] : i64 to !llvm.ptr<3>
// CHECK: nvvm.mbarrier.init %[[PTR]], %c128_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c4096_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3>
// CHECK: %[[PAR:.*]] = arith.remui %arg1, %c2
// CHECK: %[[PARITY:.*]] = arith.index_castui %[[PAR]] : index to i32
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PARITY]], %c0_i32 : !llvm.ptr<3>, i32, i32
// CHECK-NOT: tile.mbarrier
func.func @mbarriers(%stage: index, %round: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %bars = tile.alloc_shared : memref<4xi64, #tile.shared>
    tile.mbarrier_init %bars[%stage], 128 : memref<4xi64, #tile.shared>
    tile.mbarrier_arrive %bars[%stage] expect_bytes 4096 : memref<4xi64, #tile.shared>
    tile.mbarrier_arrive %bars[%stage] : memref<4xi64, #tile.shared>
    tile.mbarrier_wait %bars[%stage] phase %round : memref<4xi64, #tile.shared>
  }
  return
}

// -----

// cp.async's groups, and the fence between ordinary shared writes and the
// async proxy's reads.
// CHECK-LABEL: func.func @groups
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 2
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
func.func @groups() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    tile.async_commit_group
    tile.async_wait_group 2
    tile.fence_async_shared
  }
  return
}

// -----

// An asynchronous copy becomes cp.async on the shared buffer seen as
// workgroup memory: 16-byte runs bypass L1, shorter ones do not, and the
// count of elements read is kept.
// CHECK-LABEL: func.func @async_copies
// CHECK: %[[S:.*]] = tile.alloc_shared : memref<8x32xf16, #tile.shared>
// CHECK: %[[W:.*]] = memref.memory_space_cast %[[S]] : memref<8x32xf16, #tile.shared> to memref<8x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %arg0[%arg1, %arg2], %[[W]][%arg1, %arg2], 8, %arg3 {bypassL1} : memref<64x64xf16> to memref<8x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %arg0[%arg1, %arg2], %{{.*}}[%arg1, %arg2], 4 : memref<64x64xf16> to memref<8x32xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: tile.async_copy
func.func @async_copies(%a: memref<64x64xf16>, %i: index, %j: index, %n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<8x32xf16, #tile.shared>
    tile.async_copy %a[%i, %j], %s[%i, %j], 8 source_elements %n : memref<64x64xf16> to memref<8x32xf16, #tile.shared>
    tile.async_copy %a[%i, %j], %s[%i, %j], 4 : memref<64x64xf16> to memref<8x32xf16, #tile.shared>
  }
  return
}

// -----

// Bulk tensor copies: a load lands in the cluster's view of the block's
// shared memory and completes on the barrier; a store's group is waited
// for until it has read the tile.
// CHECK-LABEL: func.func @bulk
// CHECK: %[[CLUSTER:.*]] = llvm.addrspacecast %arg1 : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[CLUSTER]], %arg0, %arg2, box[%arg3, %arg4] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.global.shared.cta %arg0, %arg1, box[%arg3, %arg4] : !llvm.ptr, <3>
// CHECK: nvvm.cp.async.bulk.commit.group
// CHECK: nvvm.cp.async.bulk.wait_group 0 {read}
// CHECK: nvvm.cp.async.bulk.wait_group 1
// CHECK-NOT: tile.
func.func @bulk(%map: !llvm.ptr, %tile: !llvm.ptr<3>, %bar: !llvm.ptr<3>, %x: i32, %y: i32) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    tile.tma_load %map[%x, %y], %tile, barrier %bar : !llvm.ptr, !llvm.ptr<3>, !llvm.ptr<3>
    tile.tma_store %map[%x, %y], %tile : !llvm.ptr, !llvm.ptr<3>
    tile.bulk_commit_group
    tile.bulk_wait_group 0 read
    tile.bulk_wait_group 1
  }
  return
}

// -----

// A named barrier waits for its count of threads on its id; a warp barrier
// for every lane of the warp.
// CHECK-LABEL: func.func @partial_barriers
// CHECK: nvvm.barrier id = %c3_i32 number_of_threads = %c128_i32
// CHECK: nvvm.bar.warp.sync %c-1_i32 : i32
// CHECK-NOT: tile.named_barrier
// CHECK-NOT: tile.warp_barrier
func.func @partial_barriers() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    tile.named_barrier 3, 128
    tile.warp_barrier
  }
  return
}
