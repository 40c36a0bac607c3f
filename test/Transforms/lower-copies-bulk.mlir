// RUN: tilec-opt %s --split-input-file --tile-set-target=features=tma --tile-lower-copies | FileCheck %s
// RUN: tilec-opt %s --split-input-file --tile-lower-copies | FileCheck %s --check-prefix=THREADS

// The epilogue of a GEMM through shared memory: the fragment's copy into
// the tile becomes a loop, the tile's copy to C stays whole for the bulk
// copy engine, and the tile takes two 64-column panels with the 128-byte
// swizzle.
// CHECK: #[[PANELS:.*]] = #tile.shared_layout<[128, 128], (d0, d1) -> ((d1 floordiv 64) * 8192 + d0 * 64 + d1 mod 64), swizzle = <bits = 3, base = 3, shift = 3>>
// CHECK-LABEL: func.func @epilogue
// CHECK: tile.alloc_shared {layout = #[[PANELS]]}
// CHECK: tile.parallel
// CHECK: tile.copy bulk %{{.*}} to %arg0[%{{.*}}, %{{.*}}] [128, 128] : memref<128x128xf16, #tile.shared>, memref<1024x1000xf16>
// THREADS-LABEL: func.func @epilogue
// THREADS-NOT: tile.copy
// THREADS-NOT: layout =
func.func @epilogue(%c: memref<1024x1000xf16>) {
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    %cs = tile.alloc_shared : memref<128x128xf16, #tile.shared>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %acc to %cs : memref<128x128xf32, #tile.fragment>, memref<128x128xf16, #tile.shared>
    tile.copy %cs to %c[%row, %col] [128, 128] : memref<128x128xf16, #tile.shared>, memref<1024x1000xf16>
  }
  return
}

// -----

// A tile whose rows are 16 bytes goes as one unswizzled box, into a region
// with unit dimensions.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: layout =
// CHECK: tile.copy bulk %{{.*}} to %arg0[1, %{{.*}}, 2, 0] [1, 64, 1, 8]
func.func @plain(%o: memref<2x256x4x8xf16>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<64x8xf16, #tile.shared>
    %row = arith.muli %bx, %c64 : index
    tile.copy %s to %o[1, %row, 2, 0] [1, 64, 1, 8] : memref<64x8xf16, #tile.shared>, memref<2x256x4x8xf16>
  }
  return
}

// -----

// What the threads copy: into a tensor the kernel also reads (the
// engine's writes are not ordered with those reads), part of a tile, with a
// conversion, a tile a gemm reads, into strides TMA cannot take (a dynamic
// extent, 8-byte rows) and a box of more than 256 rows.
// CHECK-LABEL: func.func @threads
// CHECK-NOT: bulk
func.func @threads(%c: memref<1024x1024xf16>, %c2: memref<1024x1024xf16>,
                   %c3: memref<1024x1024xf16>, %d: memref<1024x1024xf32>,
                   %e: memref<?x?xf16>, %f: memref<64x4xf16>,
                   %g: memref<1024x64xf16>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    %t = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    tile.copy %s to %c[0, 0] [64, 64] : memref<64x64xf16, #tile.shared>, memref<1024x1024xf16>
    tile.copy %c[64, 0] [64, 64] to %t : memref<1024x1024xf16>, memref<64x64xf16, #tile.shared>
    %u = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    tile.copy %u[0, 0] [32, 64] to %c2[128, 0] [32, 64] : memref<64x64xf16, #tile.shared>, memref<1024x1024xf16>
    %v = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    tile.copy %v to %d[0, 0] [64, 64] : memref<64x64xf16, #tile.shared>, memref<1024x1024xf32>
    %w = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    %acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    tile.gemm %w, %w, %acc : memref<64x64xf16, #tile.shared>, memref<64x64xf16, #tile.shared>, memref<64x64xf32, #tile.fragment>
    tile.copy %w to %c3[192, 0] [64, 64] : memref<64x64xf16, #tile.shared>, memref<1024x1024xf16>
    %x = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    tile.copy %x to %e[0, 0] [64, 64] : memref<64x64xf16, #tile.shared>, memref<?x?xf16>
    %y = tile.alloc_shared : memref<64x4xf16, #tile.shared>
    tile.copy %y to %f : memref<64x4xf16, #tile.shared>, memref<64x4xf16>
    %z = tile.alloc_shared : memref<512x64xf16, #tile.shared>
    tile.copy %z to %g[0, 0] [512, 64] : memref<512x64xf16, #tile.shared>, memref<1024x64xf16>
  }
  return
}

// -----

// The same copies, each in a kernel of its own with what makes it a
// thread copy removed, are bulk: the checks above fail for their reasons.
// CHECK-LABEL: func.func @controls
// CHECK-COUNT-4: tile.copy bulk
func.func @controls(%c: memref<1024x1024xf16>, %c2: memref<1024x1024xf16>,
                    %c3: memref<1024x1024xf16>, %g: memref<1024x64xf16>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(128) {
    %s = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    tile.copy %s to %c[0, 0] [64, 64] : memref<64x64xf16, #tile.shared>, memref<1024x1024xf16>
    %u = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    tile.copy %u to %c2[128, 0] [32, 64] : memref<32x64xf16, #tile.shared>, memref<1024x1024xf16>
    %w = tile.alloc_shared : memref<64x64xf16, #tile.shared>
    tile.copy %w to %c3[192, 0] [64, 64] : memref<64x64xf16, #tile.shared>, memref<1024x1024xf16>
    %z = tile.alloc_shared : memref<256x64xf16, #tile.shared>
    tile.copy %z to %g[0, 0] [256, 64] : memref<256x64xf16, #tile.shared>, memref<1024x64xf16>
  }
  return
}

// -----

// A view of a tensor has no tensor map of its own: its copy stays with the
// threads.
// CHECK-LABEL: func.func @view_epilogue
// CHECK-NOT: tile.copy bulk
// CHECK-NOT: layout =
// THREADS-LABEL: func.func @view_epilogue
func.func @view_epilogue(%c: memref<8x128x1024xf16>) {
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    %flat = memref.reinterpret_cast %c to offset: [0], sizes: [1024, 1024], strides: [1024, 1] : memref<8x128x1024xf16> to memref<1024x1024xf16>
    %cs = tile.alloc_shared : memref<128x128xf16, #tile.shared>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.copy %cs to %flat[%row, %col] [128, 128] : memref<128x128xf16, #tile.shared>, memref<1024x1024xf16>
  }
  return
}
