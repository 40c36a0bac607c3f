// RUN: tilec-opt %s --split-input-file --tile-swizzle-shared --verify-diagnostics

// A tile the bulk copy engine fills in a swizzled layout (its address is
// taken), also reached through a view that cuts the tile: that access
// cannot follow the layout, and the copy cannot give it up.
#panels = #tile.shared_layout<[32, 128], (d0, d1) -> ((d1 floordiv 64) * 2048 + d0 * 64 + d1 mod 64), swizzle = <bits = 3, base = 3, shift = 3>>
func.func @cut_view(%row: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    // expected-error@+1 {{this shared buffer is filled by the bulk tensor copy engine or read by wgmma in a swizzled layout, but 'memref.subview' also accesses it in a way that cannot follow the layout}}
    %s = tile.alloc_shared {layout = #panels} : memref<32x128xf16, #tile.shared>
    %base, %offset, %sizes:2, %strides:2 = memref.extract_strided_metadata %s : memref<32x128xf16, #tile.shared> -> memref<f16, #tile.shared>, index, index, index, index, index
    // expected-note@+1 {{the access}}
    %half = memref.subview %s[0, 0] [32, 64] [1, 1] : memref<32x128xf16, #tile.shared> to memref<32x64xf16, strided<[128, 1]>, #tile.shared>
  }
  return
}
