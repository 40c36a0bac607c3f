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

// -----

// A condition or loop bound that differs between threads leaves some out
// of a barrier inside: the statement is synchronized as a whole, before
// it, whether it reads the thread index directly, through a loop's
// induction variable, or through a variable stored under such a
// condition. A condition every thread computes alike keeps its barrier
// inside.
// CHECK-LABEL: func.func @divergent_control
// CHECK: %[[TID:.*]] = gpu.thread_id
// CHECK-NEXT: memref.store %{{.*}}, %[[S:.*]][%[[TID]]] :
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.load %[[S]]
// CHECK: gpu.barrier
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[TID]]]
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for %[[I:.*]] = %{{.*}} to %[[TID]]
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[I]]]
// CHECK-NEXT: memref.load %[[S]]
// CHECK: scf.if
// CHECK-NEXT: memref.load %[[S]]
// CHECK: gpu.barrier
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[TID]]]
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK: %[[SET:.*]] = memref.load %{{.*}}[] :
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.if %[[SET]] {
// CHECK-NEXT: memref.load %[[S]]
// CHECK: gpu.barrier
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%[[TID]]]
// CHECK-NEXT: %[[UNIFORM:.*]] = arith.cmpi ult
// CHECK-NEXT: scf.if %[[UNIFORM]] {
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.load %[[S]]
func.func @divergent_control(%out: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %true = arith.constant true
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    %flag = tile.alloc_var : memref<i1, #tile.local>
    %tid = gpu.thread_id x upper_bound 64
    memref.store %x, %s[%tid] : memref<64xf32, #tile.shared>
    %first = arith.cmpi eq, %tid, %c0 : index
    scf.if %first {
      %v = memref.load %s[%c1] : memref<64xf32, #tile.shared>
      memref.store %v, %out[%c0] : memref<64xf32>
    }
    memref.store %x, %s[%tid] : memref<64xf32, #tile.shared>
    scf.for %i = %c0 to %tid step %c1 {
      memref.store %x, %s[%i] : memref<64xf32, #tile.shared>
      %v = memref.load %s[%c1] : memref<64xf32, #tile.shared>
      %below = arith.cmpi ult, %i, %c1 : index
      scf.if %below {
        %w = memref.load %s[%i] : memref<64xf32, #tile.shared>
        memref.store %w, %out[%i] : memref<64xf32>
      }
    }
    memref.store %x, %s[%tid] : memref<64xf32, #tile.shared>
    scf.if %first {
      memref.store %true, %flag[] : memref<i1, #tile.local>
    }
    %set = memref.load %flag[] : memref<i1, #tile.local>
    scf.if %set {
      %v = memref.load %s[%c1] : memref<64xf32, #tile.shared>
      memref.store %v, %out[%c1] : memref<64xf32>
    }
    memref.store %x, %s[%tid] : memref<64xf32, #tile.shared>
    %uniform = arith.cmpi ult, %bx, %n : index
    scf.if %uniform {
      %v = memref.load %s[%c1] : memref<64xf32, #tile.shared>
      memref.store %v, %out[%c1] : memref<64xf32>
    }
  }
  return
}

// -----

// Each range of threads synchronizes on a named barrier of its own, one the
// kernel's T.sync_threads(id, count) do not use, from 15 down.
// CHECK-LABEL: func.func @range_barriers
func.func @range_barriers(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    %shared = tile.alloc_shared : memref<64xf32, #tile.shared>
    tile.named_barrier 15, 64
    // CHECK: tile.thread_range 0, 128 {
    // CHECK: memref.store
    // CHECK-NEXT: tile.named_barrier 14, 128
    // CHECK-NEXT: memref.load
    // CHECK: } {barrier_id = 14 : i64}
    tile.thread_range 0, 128 {
      memref.store %zero, %shared[%c0] : memref<64xf32, #tile.shared>
      %v = memref.load %shared[%c1] : memref<64xf32, #tile.shared>
      memref.store %v, %a[%c0] : memref<64xf32>
    }
    // CHECK: gpu.barrier
    // CHECK-NEXT: tile.thread_range 128, 128 {
    // CHECK: } {barrier_id = 13 : i64}
    tile.thread_range 128, 128 {
      memref.store %zero, %shared[%c1] : memref<64xf32, #tile.shared>
    }
  }
  return
}
