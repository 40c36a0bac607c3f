// RUN: tilec-opt %s --split-input-file --tile-infer-layouts --tile-verify-layouts --verify-diagnostics | FileCheck %s

// One-to-one annotated layouts pass: a transposed shared tile, and a
// fragment with a row per thread.
// CHECK-LABEL: func.func @good
// CHECK: tile.annotate_layout
#transposed = #tile.shared_layout<[32, 64], (d0, d1) -> (d1 * 32 + d0)>
#rows = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1)>
func.func @good() {
  %c1 = arith.constant 1 : index
  %x = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %s = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    tile.annotate_layout #transposed on %s : memref<32x64xf16, #tile.shared>
    %a = tile.alloc_fragment : memref<32x4xf32, #tile.fragment>
    tile.annotate_layout #rows on %a : memref<32x4xf32, #tile.fragment>
    tile.fill %a, %x : memref<32x4xf32, #tile.fragment>, f32
  }
  return
}

// -----

// Rows of 64 elements at a pitch of 32 overlap.
#overlap = #tile.shared_layout<[32, 64], (d0, d1) -> (d0 * 32 + d1)>
func.func @overlapping_rows() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %s = tile.alloc_shared : memref<32x64xf16, #tile.shared>
    // expected-error@+1 {{the layout annotated for a shared buffer puts elements [0, 32] and [1, 0] in the same place (offset 32); a layout must give every element a place of its own}}
    tile.annotate_layout #overlap on %s : memref<32x64xf16, #tile.shared>
  }
  return
}

// -----

// Two columns of a row in one register.
#shared_slot = #tile.fragment_layout<[32, 4], threads = 32, slots = 4, (d0, d1) -> (d0, d1 floordiv 2)>
func.func @shared_register() {
  %c1 = arith.constant 1 : index
  %x = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_fragment : memref<32x4xf32, #tile.fragment>
    // expected-error@+1 {{the layout annotated for a fragment puts elements [0, 0] and [0, 1] in the same place (thread and register 0, 0); a layout must give every element a place of its own}}
    tile.annotate_layout #shared_slot on %a : memref<32x4xf32, #tile.fragment>
    tile.fill %a, %x : memref<32x4xf32, #tile.fragment>, f32
  }
  return
}

// -----

// A thread the block does not have.
#too_many = #tile.fragment_layout<[64, 2], threads = 32, slots = 2, (d0, d1) -> (d0, d1)>
func.func @missing_thread() {
  %c1 = arith.constant 1 : index
  %x = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_fragment : memref<64x2xf32, #tile.fragment>
    // expected-error@+1 {{the layout annotated for a fragment puts element [32, 0] at 32, outside the 32 threads; a layout must give every element a place of its own}}
    tile.annotate_layout #too_many on %a : memref<64x2xf32, #tile.fragment>
    tile.fill %a, %x : memref<64x2xf32, #tile.fragment>, f32
  }
  return
}

// -----

// Replicas of one element must sit on different threads or registers.
#one_replica_place = #tile.fragment_layout<[32], threads = 32, slots = 1, replicate = 2, (d0, d1) -> (d0, 0)>
func.func @replicas_collide() {
  %c1 = arith.constant 1 : index
  %x = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads(32) {
    %a = tile.alloc_fragment : memref<32xf32, #tile.fragment>
    // expected-error-re@+1 {{the layout annotated for a fragment puts elements [{{[0-9]+}}] (replica {{[01]}}) and [{{[0-9]+}}] (replica {{[01]}}) in the same place (thread and register {{[0-9]+}}, 0); a layout must give every element a place of its own}}
    tile.annotate_layout #one_replica_place on %a : memref<32xf32, #tile.fragment>
    tile.fill %a, %x : memref<32xf32, #tile.fragment>, f32
  }
  return
}
