//===- Passes.td - Passes of the tile dialect --------------*- tablegen -*-===//
//
// Part of tilec. The tile-level passes, in the order the pipeline runs them.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileSetTarget : Pass<"tile-set-target", "mlir::ModuleOp"> {
  let summary = "Give the module the #tile.target the passes compile for";
  let description = [{
    Sets the module's `tile.target` attribute, which tells the tile passes
    what the target's code may use (see `#tile.target`). The driver sets it
    from `--arch`; this pass is for running the passes on their own, as in
    tilec-opt's tests:

    ```
    tilec-opt --tile-set-target="chip=sm_90a features=mma_sync,wgmma"
    ```
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"generic\"",
           "The chip's name, as --arch takes it">,
    Option<"warpSize", "warp-size", "int64_t", "32",
           "The lanes of a warp or wave">,
    Option<"sharedMemory", "shared-memory", "int64_t", "0",
           "The shared memory one block may use, in bytes (0: no limit)">,
    Option<"registers", "registers", "int64_t", "255",
           "The 32-bit registers one thread may hold">,
    ListOption<"features", "features", "std::string",
               "What the code may use: mma_sync, async_copy, tma, wgmma, "
               "warp_specialization, mfma, mfma_fp8_fnuz">
  ];
  let dependentDialects = ["::tilec::tile::TileDialect"];
}

def TileVerifyCollectives : Pass<"tile-verify-collectives",
                                  "mlir::func::FuncOp"> {
  let summary = "Check that every thread of a block reaches its tile operations";
  let description = [{
    A copy, gemm, fill, reduction or `T.Parallel` loop is spread over the
    threads of a block, and a block barrier (`T.sync_threads()`) waits for
    all of them, so each must be reached by every thread together. This
    pass reports one that sits under an `if`, a `while` or a loop whose
    condition or bounds differ between threads (`if tx < 128:`): part of
    the block would skip its share of the work, or never arrive at the
    barrier. Ops on a thread's own local buffers are exempt, as each
    thread runs them in full. The first tile pass on every target.

    ```mlir
    %first = arith.cmpi slt, %tid, %c128 : index
    scf.if %first {
      // error: every thread of the block runs this tile operation ...
      tile.clear %acc : memref<128x128xf32, #tile.fragment>
    }
    ```
  }];
}

def TilePipeline : Pass<"tile-pipeline", "mlir::func::FuncOp"> {
  let summary = "Overlap the copies of T.Pipelined loops with compute";
  let description = [{
    Software-pipelines every `tile.pipelined` loop with two or more stages
    on targets with asynchronous copies (`async_copy` among the features of
    the module's `#tile.target`, which gives this pass and the others what
    the target may use). The body's copies from global
    memory into shared buffers that only the loop reads are issued
    `num_stages - 1` iterations ahead, as `async` copies into
    `num_stages` copies of their buffers (a leading dimension, indexed
    `k % num_stages`); the first `num_stages - 1` are issued before the
    loop. Every iteration first waits until at most `num_stages - 2` groups
    of copies are in flight (`cp.async.wait_group`) and synchronizes the
    block, then issues the copies of iteration `k + num_stages - 1` as one
    group, then runs the rest of the body on its own stage. Copies whose
    operands are not computed by side-effect-free ops, or whose buffers
    are written elsewhere or read after the loop, stay in place.

    With `register-stages` instead (for targets without asynchronous
    copies, AMD), the copies that fill whole shared buffers go through registers:
    their buffers get two stages, the first iteration's tiles are copied
    into stage 0 before the loop, and every iteration `k` first loads the
    tiles of iteration `k + 1` into a fragment of each buffer's shape
    (global loads in flight during the compute), runs the body on stage
    `k % 2`, then stores the fragments into the other stage and
    synchronizes the block once. Any number of stages from two gives this
    pipeline. A loop whose second stages would take the kernel's shared
    buffers past the target's shared memory runs as written, with a
    warning. Without either, loops run as written.

    On targets with `tma`, a loop whose copies all fill whole 2-D tiles from tensors
    whose strides are static multiples of 16 bytes is pipelined with the
    bulk tensor copy engine instead: one mbarrier per stage, initialized
    before the loop; the first thread of the block arms a stage's barrier
    with its bytes and issues its copies (`tile.copy async ... barrier`);
    every iteration waits on its stage's barrier, runs the body, then
    synchronizes the block and issues the copies of iteration
    `k + num_stages - 1` into the stage the previous iteration read. The
    multi-buffered tiles get the panelled, swizzled layout TMA writes.

    With `warp_specialization` as well, a TMA loop that is a statement of its
    kernel (of two warpgroups or more, in one dimension) is split over a
    producer warpgroup (`tile.warp_specialize`): the producer's thread runs
    through the iterations ahead of the consumers, waiting for a stage's
    `empty` barrier (every consumer arrives on it at the end of the
    iteration that read the stage) before arming its `full` barrier and
    issuing its copies; the consumers wait on `full` and compute. No block
    barrier is left in the loop. The statements before the loop with
    effects go to the consumers; what the producer needs must not depend on
    them. A single warpgroup keeps its first thread issuing: its blocks are
    small enough for several to share a multiprocessor.

    The schedule is the pass's own: a loop's hand-written `order` and
    `stage`, which name the statements of the body as written, are
    removed from every `tile.pipelined` loop, pipelined or not.
  }];
  let options = [
    Option<"registerStages", "register-stages", "bool", "false",
           "On targets without cp.async, stage the next iteration's tiles "
           "in registers, over two shared stages (AMD)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileLowerCopies : Pass<"tile-lower-copies", "mlir::func::FuncOp"> {
  let summary = "Rewrite copies, fills, clears and atomics as loops";
  let description = [{
    Rewrites `tile.copy`, `tile.fill`, `tile.clear` and `tile.atomic`
    into `tile.parallel` loops of element loads and stores (a scalar
    atomic into one `memref.atomic_rmw`), so that layout inference and
    distribution see one kind of element-wise code. A copy's loop runs over
    its region without unit dimensions. Reads outside the source buffer
    give zero and writes outside the destination are skipped, as
    `tile.copy` defines; the bounds checks are only emitted where a region
    can leave its buffer.

    An `async` copy becomes `tile.async_copy` (cp.async) of 16-, 8- or
    4-byte chunks, zero-filled outside the tensor, in a loop whose
    layout gives consecutive chunks to consecutive threads; where chunks
    would not be aligned in both buffers, or the copy converts elements,
    it is copied synchronously like any other.

    An `async` copy with a `barrier` (from `tile-pipeline` on TMA)
    becomes bulk tensor copies: the first thread of the block issues one
    `tile.tma_load` per panel of the destination tile's layout, on a
    `tile.tensor_map` of the source with that panel as its box, completing
    on the barrier.

    On targets with `tma`, a copy of a whole shared tile (as allocated) to
    global
    memory that the bulk tensor copy engine can make (the conditions of
    TMA loads), into a tensor the kernel does not otherwise read, stays a
    `tile.copy` marked `bulk` for `tile-lower-bulk-copies`, and the tile
    takes the panelled layout its boxes need. A tile that already has a
    layout or is read by anything but such copies is copied by the
    threads.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileInferLayouts : Pass<"tile-infer-layouts", "mlir::func::FuncOp"> {
  let summary = "Choose fragment layouts and partition loops over threads";
  let description = [{
    Gives every `tile.alloc_fragment` a fragment layout and every
    `tile.parallel` loop the layout that partitions its iterations over the
    block's threads. Annotated layouts come first; then a loop that indexes
    a laid-out fragment with its own induction variables takes that
    fragment's layout, and the fragments it indexes so take the loop's; a
    fragment read as `b[i]` in a loop over `(i, j)`, or written by a
    reduction over the last dimension, takes the loop's layout without its
    last dimension, held by every thread of the row. What remains gets the
    grid layout: coalesced, 16-byte runs per thread, given first to the free
    loops of highest rank, so that the 1-D loops over row statistics follow
    the loops over the rows.

    Where the uses of a fragment need layouts that do not match, the
    fragment goes through shared memory instead of failing: a loop that
    needs another layout, or reads or writes elements its threads do not
    hold (a transposed index, `w[n, k // 2]`, a serial loop's variable), and
    code outside the loops that reads a fragment, access a shared copy of
    it, stored from the fragment before and loaded back after where they
    write; a reduction whose operand has another layout, or one that cannot
    be split into rows, works on a fragment of its own, converted through a
    shared copy. The loops so inserted carry `tile.layout_conversion` with
    the reason, and `--emit=layouts` lists them. Layouts that conflict
    between annotations or gemms are reported as a conflict naming the
    buffer and both lines.

    On targets with `mma_sync`, a `tile.gemm` whose types tensor cores take (f16 or
    bf16 operands) seeds its accumulator with the mma.sync accumulator
    layout of its warp partition, and an A operand in registers with the
    matching A operand layout; a gemm whose shape does not split into
    whole 16x8 warp tiles stays on CUDA cores, with a warning.

    With `wgmma`, a gemm that warpgroup MMA can run (both operands in
    shared memory, in tiles of rows of a multiple of 32 bytes, and a
    partition of the tile over warpgroups in m64 rows) takes the wgmma
    accumulator layout instead, and its operand tiles the panelled,
    swizzled layout that wgmma reads and TMA writes.

    With `mfma`, a gemm that AMD's matrix cores take (f16 or bf16 operands
    into f32, K a multiple of 16) seeds its accumulator with the MFMA
    accumulator layout of its partition over waves of 64 lanes in 16x16
    tiles, and an A operand in registers with the matching A operand
    layout; a gemm whose shape does not split so stays on the vector ALUs,
    with a warning. With `mfma_fp8_fnuz` as well (gfx942), so does a gemm of
    FNUZ 8-bit floats (f8E4M3FNUZ, f8E5M2FNUZ) into f32 with both operands
    in shared memory and K a multiple of 32; other 8-bit floats stay on the
    vector ALUs with a warning that says which the matrix cores take.

    A gemm with A in registers that runs on none of these is an error:
    only tensor cores take A from registers. Each thread's share of the
    fragments and loops is bounded (it is unrolled), and so is what the
    fragments hold: past the target's `registers` (32-bit) there is
    a warning with the figure, past four times that an error, as for a gemm
    on CUDA cores that gives a thread more than 4096 multiply-adds.
  }];
  let options = [
    Option<"maxVectorBytes", "max-vector-bytes", "int64_t", "16",
           "The widest access a thread makes to global or shared memory">
  ];
}

def TileInsertBarriers : Pass<"tile-insert-barriers", "mlir::func::FuncOp"> {
  let summary = "Synchronize the block between conflicting shared accesses";
  let description = [{
    Inserts `gpu.barrier` between two statements of a kernel when one writes
    shared memory that the other reads or writes (read-after-write,
    write-after-write and write-after-read), including across iterations of
    the enclosing loops. A statement is a top-level op of a kernel or loop
    body; code inside `tile.parallel` is one statement. A loop whose body
    conflicts with what came before it gets one barrier before the loop,
    not one per iteration. An `scf.if` whose condition, or a loop whose
    bounds, differ between the block's threads (they derive from
    `gpu.thread_id`, `gpu.lane_id` or `gpu.shuffle`, through values or a
    thread's own variables) is one statement too: a barrier inside would
    leave some threads out.

    On targets with `wgmma`, a barrier before a statement that holds a
    `tile.gemm` comes after a `fence.proxy.async.shared::cta`: wgmma reads
    shared memory through the async proxy, which ordinary stores are not
    ordered with otherwise. A barrier before a `bulk` copy, which the bulk
    tensor copy engine makes through the async proxy, always does.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def TileLowerBulkCopies : Pass<"tile-lower-bulk-copies",
                                "mlir::func::FuncOp"> {
  let summary = "Issue bulk copies to global memory from one thread";
  let description = [{
    Lowers each `tile.copy bulk` (from `tile-lower-copies` on TMA):
    the first thread of the block, or of the consumers where a producer
    warpgroup exists, issues one `tile.tma_store` per panel of
    the shared tile's layout, on a `tile.tensor_map` of the destination
    with that panel as its box (TMA writes nothing outside the tensor),
    commits them as a bulk group and waits until they have read the tile.
    It runs after `tile-insert-barriers`, which orders the tile's writers
    before the copy (with an async-proxy fence) and the copy before the
    tile's next writers.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileDistribute : Pass<"tile-distribute", "mlir::func::FuncOp"> {
  let summary = "Turn block-wide fragment code into per-thread code";
  let description = [{
    Lowers what the block's threads do together into what each thread does.
    A fragment becomes a per-thread array of its layout's slots. A
    `tile.parallel` loop becomes, for each slot of its layout, the body at
    the index that slot holds (unrolled, guarded where the slot can fall
    outside the iteration space), with fragment elements read from and
    written to the thread's slots. A `tile.reduce` becomes a reduction over
    the thread's own slots, then across threads with warp shuffles and,
    between warps, shared memory. A `tile.gemm` to which layout inference
    gave a matrix instruction (mma.sync, wgmma or MFMA) is emitted by that
    instruction (lib/Target/NVIDIA, lib/Target/AMD), once its accumulator
    and register operands are checked to be in the instruction's layouts;
    other gemms become one loop over K around a thread's accumulator
    elements (an outer product on CUDA cores or vector ALUs). Layouts are checked
    exhaustively: an access to a fragment element that the accessing thread
    does not hold is an error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::amdgpu::AMDGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
}

def TileSwizzleShared : Pass<"tile-swizzle-shared", "mlir::func::FuncOp"> {
  let summary = "Swizzle shared tiles so that ldmatrix is free of bank "
                "conflicts";
  let description = [{
    Gives each shared buffer that ldmatrix reads, or that
    `tile.annotate_layout` gives a swizzled layout, an XOR swizzle of the
    elements of its tiles (its last two dimensions): rows of 128 bytes or
    more XOR their 16-byte chunk index with the row index, shorter rows
    with the index of their 128-byte line, so that eight rows read at one
    column hit eight different bank groups. The swizzle is applied by
    rewriting the indices of every load, store, ldmatrix and cp.async of
    the buffer (and of its pipeline stages), and recorded as the buffer's
    `layout`. A buffer with an access of another kind keeps its plain
    layout (with a warning when a swizzle was annotated).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileLowerLoops : Pass<"tile-lower-loops", "mlir::func::FuncOp"> {
  let summary = "Lower serial, unrolled and pipelined loops to scf.for";
  let description = [{
    Rewrites `tile.serial` and `tile.pipelined` as `scf.for`, and
    `tile.unroll` as its unrolled body (its bounds must be constants).
    Pipelining, where a target does it, happens before this pass.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileSerializeThreads : Pass<"tile-serialize-threads",
                                 "mlir::func::FuncOp"> {
  let summary = "Run a kernel's thread-level code one thread after another";
  let description = [{
    For targets that run a block on one thread (`--target host`), before
    `tile-sequentialize`: a kernel that tells its threads apart
    (`gpu.thread_id`, `gpu.lane_id`, `gpu.shuffle`) runs each stretch of
    its thread-level
    statements in a loop over the block's threads, as the GPU runs them on
    every thread at once. Barriers (`gpu.barrier`, the kernel's own and
    those `tile-insert-barriers` would place) end a stretch: every thread
    has run it before any runs the next. `tile.pipelined` loops become
    `tile.serial` ones first, since nothing overlaps on one thread. Block-wide statements
    (`tile.parallel`, `tile.gemm`, `tile.reduce`, ...) run once between
    stretches, and loops and `if`s that hold barriers or block-wide
    statements run once around the stretches inside them.

    Within a loop, `gpu.thread_id` is the loop's thread and `gpu.lane_id`
    that thread modulo `warp-size`. A shuffle becomes
    an exchange through memory: each thread stores its value, a barrier
    ends the stretch, and each reads the value of the lane the shuffle
    names (with the semantics of PTX's `shfl.sync` on warps of
    `warp-size` lanes; a lane outside the block or the group keeps its own
    value). A thread's own buffers (`tile.alloc_local`, `tile.alloc_var`)
    that several stretches use get a copy per thread, and values that one
    stretch computes and another uses are kept per thread in memory.

    Barriers among part of the block (`tile.named_barrier`,
    `tile.warp_barrier`) are barriers of the block here. An `scf.if` whose
    condition differs between threads and which holds them is split
    first: each such barrier comes out of it, the statements between
    barriers go under the condition (values that later ones use come out
    as results, zero where the condition is false), loops there run for
    every thread with their bodies under the condition, and `if`s there
    take the conjunction of both conditions.

    What one thread cannot run for all is an error: a block barrier or
    shuffle under a condition or loop bound that differs between threads,
    a partial barrier in the `else` of such a condition or in a `while`
    under it, a
    block-wide statement that uses a value that differs between threads,
    and a thread's own buffer that block-wide statements use as well.
  }];
  let options = [
    Option<"warpSize", "warp-size", "int64_t", "32",
           "The lanes of a warp, whose shuffles the exchanges follow">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def TileSequentialize : Pass<"tile-sequentialize", "mlir::func::FuncOp"> {
  let summary = "Rewrite a block's tile ops as the loops one thread runs";
  let description = [{
    For targets that run a block's work on one thread (`--target host`),
    rewrites the tile ops of each kernel into sequential loops over whole
    tiles: a `tile.parallel` into a loop nest over its iteration space, a
    `tile.gemm` into a nest over (i, k, j) that accumulates in C's element
    type, a `tile.reduce` into a loop per result element (combined with
    what the result held unless `clear`), and `tile.serial`, `tile.unroll`
    and `tile.pipelined` into `scf.for`. Layout annotations go: one thread
    holds every element. Statements keep their order, which is all a
    block's barriers guarantee, so a kernel free of races computes what it
    computes on a GPU, up to the order of floating-point sums.

    Copies, fills, clears and atomic adds must already be loops
    (`tile-lower-copies`, without `tile-pipeline`); any left is an error.
    So is code that tells the threads apart (`gpu.thread_id`,
    `gpu.lane_id`, `gpu.shuffle`), which `tile-serialize-threads` turns
    into loops over the threads first; the kernel's own `gpu.barrier`s go.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // TILEC_DIALECT_TILE_TRANSFORMS_PASSES_TD
