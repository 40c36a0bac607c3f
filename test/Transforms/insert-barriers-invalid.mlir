// RUN: tilec-opt %s --split-input-file --tile-insert-barriers --verify-diagnostics

// A range of threads needs a named barrier of its own, and the kernel's
// T.sync_threads(id, count) use all 15.
func.func @no_barrier_left() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(256) {
    tile.named_barrier 1, 64
    tile.named_barrier 2, 64
    tile.named_barrier 3, 64
    tile.named_barrier 4, 64
    tile.named_barrier 5, 64
    tile.named_barrier 6, 64
    tile.named_barrier 7, 64
    tile.named_barrier 8, 64
    tile.named_barrier 9, 64
    tile.named_barrier 10, 64
    tile.named_barrier 11, 64
    tile.named_barrier 12, 64
    tile.named_barrier 13, 64
    tile.named_barrier 14, 64
    tile.named_barrier 15, 64
    // expected-error@+1 {{the kernel's ranges of threads need more named barriers than the 15 that T.sync_threads(id, count) leaves free}}
    tile.thread_range 0, 128 {
    }
  }
  return
}
