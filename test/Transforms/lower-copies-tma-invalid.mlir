// RUN: tilec-opt %s --verify-diagnostics --tile-lower-copies

// TMA writes a tile in its panels or plainly, not in a row-major swizzle.
#rows = #tile.shared_layout<[32, 64], (d0, d1) -> (d0 * 64 + d1), swizzle = <bits = 3, base = 3, shift = 3>>
func.func @swizzled_rows(%b: memref<1024x1024xf16>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %c0 = arith.constant 0 : index
    %bars = tile.alloc_shared : memref<1xi64, #tile.shared>
    %s = tile.alloc_shared {layout = #rows} : memref<32x64xf16, #tile.shared>
    // expected-error@+1 {{'tile.copy' op completes on a barrier but does not fill a 2-D shared tile in a layout TMA writes}}
    tile.copy async %b[0, 0] [32, 64] to %s barrier(%bars[%c0] : memref<1xi64, #tile.shared>) : memref<1024x1024xf16>, memref<32x64xf16, #tile.shared>
  }
  return
}
