// RUN: tilec-opt %s --split-input-file --tile-pipeline=register-stages=1 | FileCheck %s
// RUN: tilec-opt %s --split-input-file --tile-pipeline=register-stages=1 --tile-insert-barriers | FileCheck %s --check-prefix=BARRIERS

// Without asynchronous copies (AMD), three stages become two shared stages
// and a fragment per tile: the first iteration's tiles are copied into
// stage 0 before the loop; each iteration loads the next one's tiles into
// the fragments, computes on stage k % 2, stores the fragments into the
// other stage and synchronizes the block.
// CHECK-LABEL: func.func @gemm
// CHECK: %[[AF:.*]] = tile.alloc_fragment : memref<128x32xf16, #tile.fragment>
// CHECK: %[[AS:.*]] = tile.alloc_shared : memref<2x128x32xf16, #tile.shared>
// CHECK: %[[BF:.*]] = tile.alloc_fragment : memref<32x128xf16, #tile.fragment>
// CHECK: %[[BS:.*]] = tile.alloc_shared : memref<2x32x128xf16, #tile.shared>
// CHECK: scf.if
// CHECK:   %[[A0:.*]] = memref.subview %[[AS]][%c0{{.*}}, 0, 0] [1, 128, 32] [1, 1, 1]
// CHECK:   tile.copy %arg0[{{.*}}] [128, 32] to %[[A0]]
// CHECK:   tile.copy %arg1[{{.*}}] [32, 128] to %{{.*}}
// CHECK: tile.pipelined %[[K:.*]] = %c0 to %[[N:.*]] stages(3) {
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %c1
// CHECK: %[[INRANGE:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]]
// CHECK: scf.if %[[INRANGE]] {
// CHECK:   tile.copy %arg0[{{.*}}] [128, 32] to %[[AF]] : memref<1024x1024xf16>, memref<128x32xf16, #tile.fragment>
// CHECK:   tile.copy %arg1[{{.*}}] [32, 128] to %[[BF]]
// CHECK: %[[CUR:.*]] = arith.remui %{{.*}}, %c2
// CHECK: %[[A:.*]] = memref.subview %[[AS]][%[[CUR]], 0, 0]
// CHECK: tile.gemm %[[A]], %{{.*}}, %{{.*}} :
// CHECK: %[[OTHER:.*]] = arith.subi %c1{{.*}}, %[[CUR]]
// CHECK: scf.if
// CHECK:   %[[ANEXT:.*]] = memref.subview %[[AS]][%[[OTHER]], 0, 0] [1, 128, 32] [1, 1, 1] {tile.filled_ahead}
// CHECK:   tile.copy %[[AF]] to %[[ANEXT]]
// CHECK:   tile.copy %[[BF]] to %{{.*}}
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: }
// tile-insert-barriers adds the one before the loop (stage 0 is read in
// it) and none inside: the stores into the other stage are the pipeline's.
// BARRIERS-LABEL: func.func @gemm
// BARRIERS: gpu.barrier
// BARRIERS-NEXT: tile.pipelined
// BARRIERS-NOT: gpu.barrier
// BARRIERS: tile.gemm
// BARRIERS-NOT: gpu.barrier
// BARRIERS: tile.copy %{{.*}} to %{{.*}} : memref<32x128xf16, #tile.fragment>
// BARRIERS: gpu.barrier
// BARRIERS-NEXT: }
// BARRIERS-NOT: gpu.barrier
// BARRIERS: return
func.func @gemm(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    %as = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %n stages(3) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %a[%bx, %kk] [128, 32] to %as : memref<1024x1024xf16>, memref<128x32xf16, #tile.shared>
      tile.copy %b[%kk, %by] [32, 128] to %bs : memref<1024x1024xf16>, memref<32x128xf16, #tile.shared>
      tile.gemm %as, %bs, %acc : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A copy into part of its buffer is not staged (the fragment would carry
// the rest); the loop keeps it in place.
// CHECK-LABEL: func.func @partial
// CHECK-NOT: tile.alloc_fragment
// CHECK: tile.alloc_shared : memref<64xf32, #tile.shared>
// CHECK-NOT: filled_ahead
func.func @partial(%a: memref<1024xf32>, %out: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %n stages(2) {
      %o = arith.muli %k, %c32 : index
      tile.copy %a[%o] [32] to %s[0] [32] : memref<1024xf32>, memref<64xf32, #tile.shared>
      tile.copy %s to %f : memref<64xf32, #tile.shared>, memref<64xf32, #tile.fragment>
    }
  }
  return
}

// -----

// A copy that is the body's first op (the loop computes nothing for its
// indices) gives way to its stage like any other.
// CHECK-LABEL: func.func @copy_first
// CHECK: tile.pipelined
// CHECK: %[[CUR:.*]] = arith.remui %{{.*}}, %c2
// CHECK-NEXT: %[[A:.*]] = memref.subview %{{.*}}[%[[CUR]], 0, 0] [1, 1, 1] [1, 1, 1]
// CHECK-NEXT: %[[B:.*]] = memref.subview %{{.*}}[%[[CUR]], 0, 0] [1, 1, 64] [1, 1, 1]
// CHECK-NEXT: tile.gemm %[[A]], %[[B]], %{{.*}} :
// CHECK: tile.copy %{{.*}} to %{{.*}} : memref<1x1xf16, #tile.fragment>
// CHECK: tile.copy %{{.*}} to %{{.*}} : memref<1x64xf16, #tile.fragment>
func.func @copy_first(%a: memref<64x64xf16>, %b: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c64) threads(128) {
    %as = tile.alloc_shared : memref<1x1xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<1x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<1x64xf32, #tile.fragment>
    tile.pipelined %k = %c0 to %c64 stages(3) {
      tile.copy %a[%by, %k] [1, 1] to %as : memref<64x64xf16>, memref<1x1xf16, #tile.shared>
      tile.copy %b[%k, 0] [1, 64] to %bs : memref<64x64xf16>, memref<1x64xf16, #tile.shared>
      tile.gemm %as, %bs, %acc : memref<1x1xf16, #tile.shared>, memref<1x64xf16, #tile.shared>, memref<1x64xf32, #tile.fragment>
    }
  }
  return
}
