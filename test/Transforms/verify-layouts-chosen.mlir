// RUN: tilec-opt %s --split-input-file --tile-verify-layouts --verify-diagnostics | FileCheck %s

// The layouts tilec chose (as tile-infer-layouts leaves them on buffers
// and loops) are checked element by element. One-to-one ones pass: a row
// of 4 per thread with its inverse, and the 128-byte swizzle of a 64x64
// f16 tile.
// CHECK-LABEL: func.func @good
// CHECK: tile.alloc_fragment
#rows = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1), inverse = (d0, d1) -> (d0, d1)>
#swizzled = #tile.shared_layout<[64, 64], (d0, d1) -> (d0 * 64 + d1), swizzle = <bits = 3, base = 3, shift = 3>>
func.func @good() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_fragment {layout = #rows} : memref<32x4xf32, #tile.fragment>
    %s = tile.alloc_shared {layout = #swizzled} : memref<64x64xf16, #tile.shared>
  }
  return
}

// -----

// Two elements of a row in one register: an internal error, since tilec
// chose it, naming the layout.
#halves = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1 floordiv 2)>
func.func @shared_register() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error@+1 {{internal error: the layout tilec chose for a fragment puts elements [0, 0] and [0, 1] in the same place (thread 0, register 0) (#tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1 floordiv 2)>); this is a bug in tilec}}
    %a = tile.alloc_fragment {layout = #halves} : memref<32x4xf32, #tile.fragment>
  }
  return
}

// -----

// An element past the block's registers.
#past = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1 + 1)>
func.func @past_the_registers() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error@+1 {{internal error: the layout tilec chose for a fragment puts element [0, 3] at thread 0, register 4, outside its 32 threads of 4 registers}}
    %a = tile.alloc_fragment {layout = #past} : memref<32x4xf32, #tile.fragment>
  }
  return
}

// -----

// A loop partitioned by an inverse that visits a thread's first element
// twice and its second never.
#twice = #tile.fragment_layout<[32, 2], threads = 32, slots = 2, (d0, d1) -> (d0, d1), inverse = (d0, d1) -> (d0, 0)>
func.func @inverse_twice(%t: memref<32x2xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error@+1 {{internal error: the layout tilec chose for a T.Parallel loop has an inverse that gives element [0, 0] for thread 0, register 1, which holds [0, 1]}}
    tile.parallel (%i, %j) in (32, 2) layout #twice {
      %x = memref.load %t[%i, %j] : memref<32x2xf32>
    }
  }
  return
}

// -----

// A swizzle of a tile that is not a whole number of its runs of 64
// elements moves elements of the last, partial one past the end.
#short = #tile.shared_layout<[8, 60], (d0, d1) -> (d0 * 60 + d1), swizzle = <bits = 3, base = 3, shift = 3>>
func.func @partial_run() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error@+1 {{internal error: the layout tilec chose for a shared buffer puts element [7, 28] at offset 504, outside its 480 elements}}
    %s = tile.alloc_shared {layout = #short} : memref<8x60xf16, #tile.shared>
  }
  return
}
