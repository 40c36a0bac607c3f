// RUN: tilec-opt %s --tile-set-target=shared-memory=32768 --tile-pipeline=register-stages=1 --verify-diagnostics | FileCheck %s
// RUN: tilec-opt %s --tile-set-target=shared-memory=65536 --tile-pipeline=register-stages=1 | FileCheck %s --check-prefix=FITS

// Two stages of A and B (8 KiB each) beside a 16 KiB buffer take 48 KiB:
// with 32 KiB of shared memory the loop keeps one stage and runs as
// written (the check counts every shared buffer of the kernel, not only the
// staged ones). With 64 KiB it is pipelined.
// CHECK-LABEL: func.func @too_big
// CHECK-NOT: tile.alloc_fragment : memref<128x32xf16
// CHECK-NOT: memref<2x
// CHECK-NOT: filled_ahead
// FITS-LABEL: func.func @too_big
// FITS: tile.alloc_fragment : memref<128x32xf16, #tile.fragment>
// FITS: tile.alloc_shared : memref<2x128x32xf16, #tile.shared>
func.func @too_big(%a: memref<1024x1024xf16>, %b: memref<1024x1024xf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    %as = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %bs = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %cs = tile.alloc_shared : memref<128x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    // expected-warning @below {{T.Pipelined runs unpipelined: a second stage of its tiles would take the shared memory to 49152 bytes, more than the target's}}
    tile.pipelined %k = %c0 to %n stages(2) {
      %kk = arith.muli %k, %c32 : index
      tile.copy %a[%bx, %kk] [128, 32] to %as : memref<1024x1024xf16>, memref<128x32xf16, #tile.shared>
      tile.copy %b[%kk, %by] [32, 128] to %bs : memref<1024x1024xf16>, memref<32x128xf16, #tile.shared>
      tile.gemm %as, %bs, %acc : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>, memref<128x128xf32, #tile.fragment>
    }
  }
  return
}
