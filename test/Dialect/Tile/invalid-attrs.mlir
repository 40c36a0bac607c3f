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
