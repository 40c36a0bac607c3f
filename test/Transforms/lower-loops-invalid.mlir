// RUN: tilec-opt %s --split-input-file --tile-lower-loops --verify-diagnostics

func.func @dynamic_bound(%a: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    // expected-error@+1 {{T.unroll needs bounds known at compile time}}
    tile.unroll %u = %c0 to %n step %c1 {
      memref.store %x, %a[%u] : memref<64xf32>
    }
  }
  return
}

// -----

// The trip count is computed, not counted: a huge range fails at once.
func.func @too_long(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 9223372036854775807 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    // expected-error@+1 {{T.unroll of 9223372036854775807 iterations; use T.serial for long loops}}
    tile.unroll %u = %c0 to %big step %c1 {
      memref.store %x, %a[%c0] : memref<64xf32>
    }
  }
  return
}


// -----

// Nested unrolls multiply: the outer loop would copy 4096 x 8193 ops.
func.func @nested_too_large(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    // expected-error@+1 {{T.unroll would copy its body of 8193 operations 4096 times, more than 65536 in all; use T.serial for this loop or the loops inside it}}
    tile.unroll %i = %c0 to %c4096 step %c1 {
      tile.unroll %j = %c0 to %c4096 step %c1 {
        memref.store %x, %a[%c0] : memref<64xf32>
      }
    }
  }
  return
}

// -----

// Loops that are small one by one add up: the kernel's unrolls copy at most
// 65536 operations in all.
func.func @many_too_large(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    tile.unroll %i = %c0 to %c4096 step %c1 {
      memref.store %x, %a[%c0] : memref<64xf32>
      memref.store %x, %a[%c1] : memref<64xf32>
      memref.store %x, %a[%c0] : memref<64xf32>
      memref.store %x, %a[%c1] : memref<64xf32>
      memref.store %x, %a[%c0] : memref<64xf32>
      memref.store %x, %a[%c1] : memref<64xf32>
      memref.store %x, %a[%c0] : memref<64xf32>
    }
    // expected-error@+1 {{with this T.unroll (its body of 9 operations, 4096 times), unrolling copies 69632 operations in this kernel, more than 65536; use T.serial for some of its unrolled loops (a T.unroll inside a T.Parallel loop is copied for each iteration of a thread's share)}}
    tile.unroll %i = %c0 to %c4096 step %c1 {
      memref.store %x, %a[%c0] : memref<64xf32>
      memref.store %x, %a[%c1] : memref<64xf32>
      memref.store %x, %a[%c0] : memref<64xf32>
      memref.store %x, %a[%c1] : memref<64xf32>
      memref.store %x, %a[%c0] : memref<64xf32>
      memref.store %x, %a[%c1] : memref<64xf32>
      memref.store %x, %a[%c0] : memref<64xf32>
      memref.store %x, %a[%c1] : memref<64xf32>
    }
  }
  return
}
