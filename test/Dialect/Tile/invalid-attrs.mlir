// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{layout shape must be positive, got 0}}
#l = #tile.shared_layout<[4, 0], (d0, d1) -> (d0 + d1)>
func.func private @f() attributes {l = #l}

// -----

// expected-error@+1 {{swizzle must permute at least one bit}}
#s = #tile.swizzle<bits = 0, base = 3, shift = 3>
func.func private @f() attributes {s = #s}

// -----

// expected-error@+1 {{swizzle shift (2) must be at least its bit count (3)}}
#s = #tile.swizzle<bits = 3, base = 3, shift = 2>
func.func private @f() attributes {s = #s}

// -----

// expected-error@+1 {{swizzle reaches bit 40; offsets are at most 32 bits}}
#s = #tile.swizzle<bits = 10, base = 10, shift = 20>
func.func private @f() attributes {s = #s}

// -----

// expected-error@+1 {{shared layout map must not have symbols}}
#l = #tile.shared_layout<[4, 4], (d0, d1)[s0] -> (d0 * s0 + d1)>
func.func private @f() attributes {l = #l}

// -----

// expected-error@+1 {{shared layout map takes 1 indices but the shape has 2 dimensions}}
#l = #tile.shared_layout<[4, 4], (d0) -> (d0)>
func.func private @f() attributes {l = #l}

// -----

// expected-error@+1 {{shared layout map must have one result (the offset), got 2}}
#l = #tile.shared_layout<[4, 4], (d0, d1) -> (d0, d1)>
func.func private @f() attributes {l = #l}

// -----

// expected-error@+1 {{fragment layout needs a positive thread count, got 0}}
#l = #tile.fragment_layout<[4], threads = 0, slots = 1, (d0) -> (d0, 0)>
func.func private @f() attributes {l = #l}

// -----

// expected-error@+1 {{fragment layout needs a positive slot count, got -1}}
#l = #tile.fragment_layout<[4], threads = 4, slots = -1, (d0) -> (d0, 0)>
func.func private @f() attributes {l = #l}

// -----

// expected-error@+1 {{fragment layout replication must be positive, got 0}}
#l = #tile.fragment_layout<[4], threads = 4, slots = 1, replicate = 0, (d0) -> (d0, 0)>
func.func private @f() attributes {l = #l}

// -----

// expected-error@+1 {{fragment layout map must not have symbols}}
#l = #tile.fragment_layout<[4], threads = 4, slots = 1, (d0)[s0] -> (d0, s0)>
func.func private @f() attributes {l = #l}

// -----

// expected-error@+1 {{fragment layout map takes 1 indices but expects 2 (1 dimensions and the replica)}}
#l = #tile.fragment_layout<[4], threads = 8, slots = 1, replicate = 2, (d0) -> (d0, 0)>
func.func private @f() attributes {l = #l}

// -----

// expected-error@+1 {{fragment layout map must have two results (thread and slot), got 1}}
#l = #tile.fragment_layout<[4], threads = 4, slots = 1, (d0) -> (d0)>
func.func private @f() attributes {l = #l}

// -----

// expected-error@+1 {{layout shape must be positive, got -4}}
#l = #tile.fragment_layout<[-4], threads = 4, slots = 1, (d0) -> (d0, 0)>
func.func private @f() attributes {l = #l}

// -----

// expected-error@+1 {{unknown tile attribute 'register'}}
func.func private @f(memref<4xf32, #tile.register>)

// -----

// expected-error@+1 {{'tile.arg_names' names 1 arguments but the function has 2}}
func.func private @names(memref<4xf32>, index) attributes {tile.arg_names = ["A"]}

// -----

// expected-error@+1 {{'tile.arg_names' must be an array of strings}}
func.func private @names(memref<4xf32>) attributes {tile.arg_names = [1]}

// -----

// expected-error@+1 {{'tile.arg_names' belongs on a function}}
"tile.anything"() {tile.arg_names = ["A"]} : () -> ()

// -----

// expected-error@+1 {{unknown tile attribute 'tile.other' on an operation}}
func.func private @other() attributes {tile.other}

// -----

// expected-error@+1 {{'tile.dims' of argument 0 has 1 entries for a rank-2 memref}}
func.func private @dims(memref<?x4xf32> {tile.dims = array<i64: 1>}, index)

// -----

// expected-error@+1 {{'tile.dims' of argument 0 must name an index argument for dynamic dimension 0}}
func.func private @dims(memref<?x4xf32> {tile.dims = array<i64: 1, -1>}, i32)

// -----

// expected-error@+1 {{'tile.dims' of argument 0 gives dimension 1 an extent argument, but it is static}}
func.func private @dims(memref<?x4xf32> {tile.dims = array<i64: 1, 1>}, index)

// -----

// expected-error@+1 {{'tile.dims' is an array of i64 on a memref argument}}
func.func private @dims(f32 {tile.dims = array<i64: 1>}, index)

// -----

// expected-error@+1 {{'tile.workspace' is a unit attribute on a memref argument of a function}}
func.func private @workspace(f32 {tile.workspace})

// -----

// expected-error@+1 {{'tile.workspace' is a unit attribute on a memref argument of a function}}
func.func private @workspace(memref<4xf32> {tile.workspace = 1 : i64})

// -----

// expected-error@+1 {{unknown tile attribute 'tile.other' on an argument}}
func.func private @dims(f32 {tile.other})

// -----

// expected-error@+1 {{'tile.shared_memory_bytes' must be a non-negative integer}}
func.func private @smem() attributes {tile.shared_memory_bytes = -1}

// -----

// expected-error@+1 {{'tile.target' is a #tile.target attribute of a module}}
func.func @target_on_a_function() attributes {tile.target = #tile.target<chip = "sm_80", warp_size = 32, shared_memory = 0, registers = 255, features = mma_sync>} {
  return
}
