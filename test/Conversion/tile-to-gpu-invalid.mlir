// RUN: tilec-opt %s --split-input-file --convert-tile-to-gpu --verify-diagnostics

func.func @not_distributed(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    // expected-error@+1 {{'tile.parallel' must be lowered by the tile passes (tile-lower-copies to tile-lower-loops) before convert-tile-to-gpu}}
    tile.parallel (%i) in (64) {
      memref.store %x, %a[%i] : memref<64xf32>
    }
  }
  return
}

// -----

// A value loaded on the host side cannot be recomputed in the kernel.
func.func @host_load(%a: memref<64xf32>, %n: memref<index>) {
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.0 : f32
  %i = memref.load %n[] : memref<index>
  // expected-error@+1 {{the kernel uses a value computed outside it that cannot be recomputed inside}}
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    memref.store %x, %a[%i] : memref<64xf32>
  }
  return
}

// -----

// A dynamic extent must say which argument holds it.
// expected-error@+1 {{argument 0 has a dynamic extent but no tile.dims}}
func.func @no_dims(%a: memref<?xf32>, %n: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    memref.store %x, %a[%c0] : memref<?xf32>
  }
  return
}

// -----

// A kernel launches from the function's own body, where the host side
// computes its grid.
func.func @nested_kernel(%c: i1, %n: index) {
  scf.if %c {
    // expected-error@+1 {{a kernel must be at the top level of a func.func}}
    tile.kernel blocks(%a) in (%n) threads(128) {
    }
  }
  return
}
