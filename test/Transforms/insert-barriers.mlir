// RUN: tilec-opt %s --split-input-file --tile-insert-barriers | FileCheck %s

// Writing a shared tile and then reading it needs a barrier between the two;
// two reads in a row do not.
// CHECK-LABEL: func.func @read_after_write
// CHECK: tile.copy %arg0 to %[[S:.*]] :
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.copy %[[S]] to %arg1
// CHECK-NEXT: tile.copy %[[S]] to %arg1
// CHECK-NEXT: }
func.func @read_after_write(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    tile.copy %a to %s : memref<64xf32>, memref<64xf32, #tile.shared>
    tile.copy %s to %b : memref<64xf32, #tile.shared>, memref<64xf32>
    tile.copy %s to %b : memref<64xf32, #tile.shared>, memref<64xf32>
  }
  return
}

// -----

// In a loop, the next iteration's write must wait for this iteration's
// reads (write after read), and the read for the write (read after write).
// Element-wise code that only touches global memory and fragments needs
// nothing.
// CHECK-LABEL: func.func @loop
// CHECK: tile.serial
// CHECK-NEXT: arith.muli
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.copy %arg0[{{.*}}] [64] to %[[S:[^ ]*]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.copy %[[S]] to %[[F:[^ ]*]]
// CHECK-NEXT: tile.parallel
// CHECK-NOT: gpu.barrier
// CHECK: return
func.func @loop(%a: memref<1024xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.serial %k = %c0 to %c16 step %c1 {
      %o = arith.muli %k, %c64 : index
      tile.copy %a[%o] [64] to %s : memref<1024xf32>, memref<64xf32, #tile.shared>
      tile.copy %s to %f : memref<64xf32, #tile.shared>, memref<64xf32, #tile.fragment>
      tile.parallel (%i) in (64) {
        %v = memref.load %f[%i] : memref<64xf32, #tile.fragment>
        memref.store %v, %b[%i] : memref<64xf32>
      }
    }
  }
  return
}

// -----

// A write in either branch of an if conflicts with the read after it.
// CHECK-LABEL: func.func @branches
// CHECK: scf.if
// CHECK: tile.fill
// CHECK: } else {
// CHECK: tile.clear
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.copy
func.func @branches(%a: memref<64xf32>, %flag: i1, %x: f32) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    scf.if %flag {
      tile.fill %s, %x : memref<64xf32, #tile.shared>, f32
    } else {
      tile.clear %s : memref<64xf32, #tile.shared>
    }
    tile.copy %s to %a : memref<64xf32, #tile.shared>, memref<64xf32>
  }
  return
}

// -----

// A while loop whose condition the kernel computes is a loop too: its body
// is synchronized inside, and the next iteration's write waits for this
// iteration's read.
// CHECK-LABEL: func.func @while_loop
// CHECK: scf.while
// CHECK: scf.condition
// CHECK: } do {
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.copy %arg0 to %[[S:[^ ]*]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: tile.copy %[[S]] to %arg1
// CHECK-NEXT: memref.load
func.func @while_loop(%a: memref<64xf32>, %b: memref<64xf32>, %n: memref<1xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  %limit = arith.constant 10 : i32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    %count = tile.alloc_local : memref<1xi32, #tile.local>
    scf.while : () -> () {
      %v = memref.load %count[%c0] : memref<1xi32, #tile.local>
      %more = arith.cmpi slt, %v, %limit : i32
      scf.condition(%more)
    } do {
      tile.copy %a to %s : memref<64xf32>, memref<64xf32, #tile.shared>
      tile.copy %s to %b : memref<64xf32, #tile.shared>, memref<64xf32>
      %v = memref.load %count[%c0] : memref<1xi32, #tile.local>
      %next = arith.addi %v, %one : i32
      memref.store %next, %count[%c0] : memref<1xi32, #tile.local>
      scf.yield
    }
  }
  return
}
