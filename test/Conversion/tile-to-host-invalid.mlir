// RUN: tilec-opt %s --convert-tile-to-host --verify-diagnostics

// Tile ops other than kernels, buffers, swizzles and assumptions are
// lowered by tile-sequentialize first.
func.func @copy(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    // expected-error@+1 {{'tile.copy' op has no lowering for the host target}}
    tile.copy %a to %s : memref<64xf32>, memref<64xf32, #tile.shared>
  }
  return
}
