// RUN: tilec-opt %s --split-input-file --tile-sequentialize | FileCheck %s

// A parallel loop becomes a loop nest over its iteration space, in order;
// serial, pipelined and unrolled loops become scf.for (a pipelined loop
// steps by one); layout annotations go.
// CHECK-LABEL: func.func @loops
// CHECK: tile.kernel
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c64{{.*}} step %c1{{(_[0-9]+)?}}
// CHECK:   scf.for %[[J:.*]] = %{{.*}} to %c4{{.*}} step %c1{{(_[0-9]+)?}}
// CHECK:     memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<64x4xf32, #tile.fragment>
// CHECK: scf.for %[[S:.*]] = %c0{{(_[0-9]+)?}} to %arg1 step %c2{{(_[0-9]+)?}}
// CHECK:   memref.store %{{.*}}, %arg0[%[[S]]]
// CHECK: scf.for %[[P:.*]] = %c0{{(_[0-9]+)?}} to %arg1 step %c1{{(_[0-9]+)?}}
// CHECK:   memref.store %{{.*}}, %arg0[%[[P]]]
// CHECK: scf.for %[[U:.*]] = %c1{{(_[0-9]+)?}} to %c7{{(_[0-9]+)?}} step %c3{{(_[0-9]+)?}}
// CHECK:   memref.store %{{.*}}, %arg0[%[[U]]]
// CHECK-NOT: tile.parallel
// CHECK-NOT: tile.serial
// CHECK-NOT: tile.pipelined
// CHECK-NOT: tile.unroll
// CHECK-NOT: tile.annotate_layout
#rows = #tile.fragment_layout<[64, 4], threads = 64, slots = 4, (d0, d1) -> (d0, d1)>
func.func @loops(%a: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %f = tile.alloc_fragment : memref<64x4xf32, #tile.fragment>
    tile.annotate_layout #rows on %f : memref<64x4xf32, #tile.fragment>
    tile.parallel (%i, %j) in (64, 4) {
      memref.store %x, %f[%i, %j] : memref<64x4xf32, #tile.fragment>
    }
    tile.serial %s = %c0 to %n step %c2 {
      memref.store %x, %a[%s] : memref<64xf32>
    }
    tile.pipelined %k = %c0 to %n stages(3) {
      memref.store %x, %a[%k] : memref<64xf32>
    }
    tile.unroll %u = %c1 to %c7 step %c3 {
      memref.store %x, %a[%u] : memref<64xf32>
    }
  }
  return
}

// -----

// A GEMM becomes loops over (i, k, j) that convert the operands to C's
// type and multiply-add there, after zeroing C when it clears; B
// transposed is read as B[j, k].
// CHECK-LABEL: func.func @gemm
// CHECK: scf.for %[[I0:.*]] = %c0{{(_[0-9]+)?}} to %c16{{(_[0-9]+)?}}
// CHECK:   scf.for %[[J0:.*]] = %c0{{(_[0-9]+)?}} to %c8{{(_[0-9]+)?}}
// CHECK:     memref.store %cst, %[[C:.*]][%[[I0]], %[[J0]]]
// CHECK: scf.for %[[I:.*]] = %c0{{(_[0-9]+)?}} to %c16{{(_[0-9]+)?}}
// CHECK:   scf.for %[[K:.*]] = %c0{{(_[0-9]+)?}} to %c32{{(_[0-9]+)?}}
// CHECK:     scf.for %[[J:.*]] = %c0{{(_[0-9]+)?}} to %c8{{(_[0-9]+)?}}
// CHECK:       %[[A:.*]] = memref.load %{{.*}}[%[[I]], %[[K]]] : memref<16x32xf16, #tile.shared>
// CHECK:       %[[B:.*]] = memref.load %{{.*}}[%[[J]], %[[K]]] : memref<8x32xf16, #tile.shared>
// CHECK:       %[[OLD:.*]] = memref.load %[[C]][%[[I]], %[[J]]]
// CHECK:       %[[AW:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK:       %[[BW:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK:       %[[P:.*]] = arith.mulf %[[AW]], %[[BW]] : f32
// CHECK:       %[[SUM:.*]] = arith.addf %[[OLD]], %[[P]] : f32
// CHECK:       memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]
// CHECK-NOT: tile.gemm
func.func @gemm() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc_shared : memref<16x32xf16, #tile.shared>
    %b = tile.alloc_shared : memref<8x32xf16, #tile.shared>
    %c = tile.alloc_fragment : memref<16x8xf32, #tile.fragment>
    tile.gemm %a, %b, %c transpose_b clear_accum : memref<16x32xf16, #tile.shared>, memref<8x32xf16, #tile.shared>, memref<16x8xf32, #tile.fragment>
  }
  return
}

// -----

// An integer GEMM accumulates in i32 without zeroing C first.
// CHECK-LABEL: func.func @gemm_int
// CHECK-NOT: memref.store %c0_i32
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.muli
// CHECK: arith.addi
func.func @gemm_int() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %a = tile.alloc_shared : memref<16x32xi8, #tile.shared>
    %b = tile.alloc_shared : memref<32x8xi8, #tile.shared>
    %c = tile.alloc_fragment : memref<16x8xi32, #tile.fragment>
    tile.gemm %a, %b, %c : memref<16x32xi8, #tile.shared>, memref<32x8xi8, #tile.shared>, memref<16x8xi32, #tile.fragment>
  }
  return
}

// -----

// A reduction is a loop per result element carrying the identity; without
// clear the result is combined with what the destination held.
// CHECK-LABEL: func.func @reduce
// CHECK: scf.for %[[R:.*]] = %c0{{(_[0-9]+)?}} to %c4{{(_[0-9]+)?}}
// CHECK:   %[[ID:.*]] = arith.constant 0xFF800000 : f32
// CHECK:   %[[MAX:.*]] = scf.for %[[C:.*]] = %c0{{(_[0-9]+)?}} to %c64{{(_[0-9]+)?}} step %c1{{(_[0-9]+)?}} iter_args(%[[ACC:.*]] = %[[ID]])
// CHECK:     %[[X:.*]] = memref.load %{{.*}}[%[[R]], %[[C]]]
// CHECK:     %[[M:.*]] = arith.maxnumf %[[ACC]], %[[X]]
// CHECK:     scf.yield %[[M]]
// CHECK:   %[[OLD:.*]] = memref.load %[[DST:.*]][%[[R]]]
// CHECK:   %[[NEW:.*]] = arith.maxnumf %[[OLD]], %[[MAX]]
// CHECK:   memref.store %[[NEW]], %[[DST]][%[[R]]]
// CHECK: scf.for %[[C2:.*]] = %c0{{(_[0-9]+)?}} to %c64{{(_[0-9]+)?}}
// CHECK:   %[[SUM:.*]] = scf.for %[[R2:.*]] = %c0{{(_[0-9]+)?}} to %c4{{(_[0-9]+)?}}
// CHECK:     math.absf
// CHECK:     arith.addf
// CHECK:   memref.store %[[SUM]], %{{.*}}[%c0{{.*}}, %[[C2]]]
// CHECK-NOT: tile.reduce
func.func @reduce() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %x = tile.alloc_fragment : memref<4x64xf32, #tile.fragment>
    %r = tile.alloc_fragment : memref<4xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<1x64xf32, #tile.fragment>
    tile.reduce max %x -> %r dim(1) clear(false) : memref<4x64xf32, #tile.fragment>, memref<4xf32, #tile.fragment>
    tile.reduce abssum %x -> %s dim(0) : memref<4x64xf32, #tile.fragment>, memref<1x64xf32, #tile.fragment>
  }
  return
}

// -----

// Statements run in order, so a barrier the kernel wrote has nothing to
// order.
// CHECK-LABEL: func.func @barrier
// CHECK-NOT: gpu.barrier
// CHECK: memref.store
// CHECK-NEXT: memref.load
func.func @barrier(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    memref.store %x, %s[%c0] : memref<64xf32, #tile.shared>
    gpu.barrier
    %v = memref.load %s[%c0] : memref<64xf32, #tile.shared>
    memref.store %v, %a[%c1] : memref<64xf32>
  }
  return
}
