//===- Passes.td - The verifiers of tile kernels -----------*- tablegen -*-===//
//
// Part of tilec. The passes that prove properties of a kernel (one-to-one
// layouts, accesses in bounds, no races, aligned accesses) with Z3, in the
// order the pipeline runs them.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_VERIFICATION_PASSES_TD
#define TILEC_VERIFICATION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileVerifyLayouts : Pass<"tile-verify-layouts", "mlir::func::FuncOp"> {
  let summary = "Prove every layout of a kernel one-to-one";
  let description = [{
    After `tile-infer-layouts`, proves for the layout `tile.annotate_layout`
    gives a shared buffer, with Z3, that no two elements share an offset,
    and for the one it gives a fragment that no two elements (or replicas)
    share a thread's register and that each lands on one of the block's
    threads, in one of its registers. A failure is an error naming the two
    elements (or the one out of place).

    Then it checks every layout the kernel has (on `tile.alloc_shared`,
    `tile.alloc_fragment` and `tile.parallel`, chosen by tilec or
    annotated) by going through its elements: a shared layout's offsets,
    after the swizzle, are distinct and inside the buffer; a fragment
    layout's (thread, register) places are distinct and inside its threads
    and registers; and its inverse, which a partitioned loop runs, gives
    back the element each used register holds and none for the others. A
    failure there is tilec's bug, reported as an internal error that names
    the layout. Layouts of more than 2^20 elements are left to the unit
    tests of their families.
  }];
  let options = [
    Option<"resourceLimit", "resource-limit", "unsigned", "200000",
           "The prover's resource limit per query (Z3's rlimit)">,
  ];
}

def TileVerifyBounds : Pass<"tile-verify-bounds", "mlir::func::FuncOp"> {
  let summary = "Prove memory accesses in bounds with Z3; guard the rest";
  let description = [{
    For per-thread code (after `tile-lower-loops`), proves with the Z3
    prover that every access of a tensor argument, a shared buffer or a
    local one stays inside it, on every execution of the launch: block
    indices below the grid size, the thread index below the block size,
    loop induction variables in their ranges, run-time dimensions at least
    1, the conditions of the enclosing `if`s, and the facts of
    `tile.assume`. The accesses are loads, stores, atomics, those of the
    ops of the IndexedAccessOpInterface (the source and destination of
    `tile.async_copy`, the rows `nvgpu.ldmatrix` reads), and views of the
    stages of shared buffers; a swizzled shared tile is checked before its
    swizzle. Bulk tensor copies (`tile.tma_load`, `tile.tma_store`) are
    bounded by the copy engine.

    - Proved: nothing changes.
    - Refuted: an error at the access, with the values of an execution
      that reads or writes past the buffer (the dimensions, block and
      thread indices and loop variables).
    - Unknown (a timeout, non-linear or data-dependent indices): with
      `guard`, the access is guarded (a load of elements past the buffer
      gives zeros, a store of them is dropped, a cp.async reads nothing
      and fills zeros); what cannot be guarded is left as it is.

    An `scf.if` whose condition the prover shows always true, or always
    false, is replaced by the branch that runs: the bounds checks of copies
    that the facts make unnecessary go. With `remarks`, every access gets a
    remark saying which of the three it is.
  }];
  let options = [
    Option<"guard", "guard", "bool", "true",
           "Guard the accesses that could not be proved in bounds">,
    Option<"remarks", "remarks", "bool", "false",
           "Emit a remark for every access: proved, guarded or refuted">,
    Option<"resourceLimit", "resource-limit", "unsigned", "200000",
           "The prover's resource limit per query (Z3's rlimit, which "
           "unlike a time limit gives the same answers on every machine); "
           "a query past it is answered unknown, and after four such "
           "queries in a kernel no more are asked">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileVerifyRaces : Pass<"tile-verify-races", "mlir::func::FuncOp"> {
  let summary = "Prove with Z3 that no two threads write one element unordered";
  let description = [{
    For per-thread code (after `tile-lower-loops`), proves with the Z3
    prover that no two writes to a tensor argument or a shared buffer
    (stores, vector stores, the writes of the IndexedAccessOpInterface's
    ops such as `tile.async_copy` destinations; a write
    and itself included) can write one element from two threads with
    nothing to order them: a thread of another block (for tensors), or
    another thread of the block between the same two barriers. The facts
    are the bounds verifier's: the launch, loop ranges, enclosing
    conditions and `tile.assume`.

    - Proved: nothing changes.
    - Refuted, for executions unordered for sure (nothing that
      synchronizes between them): an error at the store naming the two
      threads, their blocks, and the element both write, with a note at
      the other write of a pair.
    - Unknown (data-dependent indices, non-linear arithmetic, the resource
      limit, executions unordered only across a loop's iterations): nothing
      changes; with `remarks`, a remark says so.

    Swizzled shared tiles are compared before the swizzle, which permutes
    runs of elements whole. A store whose element and value are the same
    in every thread (a statement outside `T.Parallel`, which every thread
    runs alike) is not a race. With `remarks`, every write gets a remark.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", "false",
           "Emit a remark for every store: proved free of races, or not">,
    Option<"resourceLimit", "resource-limit", "unsigned", "200000",
           "The prover's resource limit per query (Z3's rlimit); a query "
           "past it is answered unknown, and after four such queries in a "
           "kernel no more are asked">,
  ];
}

def TileVerifyAlignment
    : Pass<"tile-verify-alignment", "mlir::func::FuncOp"> {
  let summary = "Prove with Z3 the alignment vector accesses and copies need";
  let description = [{
    For per-thread code (after `tile-lower-loops`), proves with the Z3
    prover that the address of every `vector.load` and `vector.store` with
    an `alignment` (the vector bodies of `T.Parallel` and copies), and of
    every access of the IndexedAccessOpInterface's ops that needs one (each
    side of a `tile.async_copy`: a multiple of its 4, 8 or 16 bytes; the
    row each lane of `nvgpu.ldmatrix` names: 16 bytes), is a multiple of
    what the instruction needs. The facts are those of the
    bounds verifier, and the alignment of buffers: 16 bytes for a tensor's
    pointer (the generated header checks it) and 128 bytes for the start
    of a shared buffer; a view starts at its offsets times the strides of
    what it views, and a tensor of run-time extents has strides that are
    products of them.

    - Proved: nothing changes.
    - Refuted: an error at the access with an execution whose address is
      misaligned; tilec made the access, so this is a bug in tilec.
    - Unknown: a vector access takes the largest alignment that is proved
      (down to its element's), which makes LLVM split it rather than trust
      it; a copy or ldmatrix is left as it is. With `remarks`, a remark
      says so.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", "false",
           "Emit a remark for every access: proved, lowered or not proved">,
    Option<"resourceLimit", "resource-limit", "unsigned", "200000",
           "The prover's resource limit per query (Z3's rlimit); a query "
           "past it is answered unknown, and after four such queries in a "
           "kernel no more are asked">,
  ];
}

#endif // TILEC_VERIFICATION_PASSES_TD
