// The README's GEMM in the tile dialect: C = A * B for 1024x1024 fp16
// matrices with fp32 accumulation, 128x128 tiles, a 3-stage pipeline.
func.func @matmul(%A: memref<1024x1024xf16>, %B: memref<1024x1024xf16>,
                  %C: memref<1024x1024xf16>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx, %by) in (%c8, %c8) threads(128) {
    %A_shared = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    %B_shared = tile.alloc_shared : memref<32x128xf16, #tile.shared>
    %C_local = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    tile.clear %C_local : memref<128x128xf32, #tile.fragment>
    %row = arith.muli %by, %c128 : index
    %col = arith.muli %bx, %c128 : index
    tile.pipelined %ko = %c0 to %c32 stages(3) {
      %k = arith.muli %ko, %c32 : index
      tile.copy %A[%row, %k] [128, 32] to %A_shared
          : memref<1024x1024xf16>, memref<128x32xf16, #tile.shared>
      tile.copy %B[%k, %col] [32, 128] to %B_shared
          : memref<1024x1024xf16>, memref<32x128xf16, #tile.shared>
      tile.gemm %A_shared, %B_shared, %C_local
          : memref<128x32xf16, #tile.shared>, memref<32x128xf16, #tile.shared>,
            memref<128x128xf32, #tile.fragment>
    }
    tile.copy %C_local to %C[%row, %col] [128, 128]
        : memref<128x128xf32, #tile.fragment>, memref<1024x1024xf16>
  }
  return
}
