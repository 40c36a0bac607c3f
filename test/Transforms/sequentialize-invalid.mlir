// RUN: tilec-opt %s --split-input-file --tile-sequentialize --verify-diagnostics

// Copies are lowered to loops by tile-lower-copies first.
func.func @copy(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %s = tile.alloc_shared : memref<64xf32, #tile.shared>
    // expected-error@+1 {{'tile.copy' op is not lowered for a sequential target; run tile-lower-copies first (and no tile-pipeline)}}
    tile.copy %a to %s : memref<64xf32>, memref<64xf32, #tile.shared>
  }
  return
}

// -----

func.func @fill() {
  %c1 = arith.constant 1 : index
  %x = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    %f = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    // expected-error@+1 {{'tile.fill' op is not lowered for a sequential target}}
    tile.fill %f, %x : memref<64xf32, #tile.fragment>, f32
  }
  return
}

// -----

// Thread-level code runs in loops over the threads first.
func.func @thread_index(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(64) {
    // expected-error@+1 {{thread-level code is left for one thread to run; run tile-serialize-threads first}}
    %tid = gpu.thread_id x upper_bound 64
    memref.store %x, %a[%tid] : memref<64xf32>
  }
  return
}
