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
