//===- TileOps.td - Operations of the tile dialect ---------*- tablegen -*-===//
//
// Part of tilec. One op per primitive of the .tile language: the kernel
// launch, buffer allocation, the block-wide tile operations and the loops.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEOPS_TD
#define TILEC_DIALECT_TILE_IR_TILEOPS_TD

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "tilec/Dialect/Tile/IR/TileAttrs.td"
include "mlir/Dialect/Arith/IR/ArithBase.td"
include "mlir/Dialect/LLVMIR/LLVMTypes.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Ops that only make sense for the threads of a block.
def Tile_InKernel : NativeOpTrait<"InKernel"> {
  let cppNamespace = "::tilec::tile::OpTrait";
}

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    AutomaticAllocationScope,
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "A grid of thread blocks running the body (T.Kernel)";
  let description = [{
    Launches a grid of `grid` blocks (one to three dimensions) of `threads`
    threads each (one to three dimensions). The body runs once per block;
    its arguments are the block indices, one per grid dimension. Tile ops
    in the body act collectively for all threads of the block.

    ```mlir
    tile.kernel blocks(%bx, %by) in (%gx, %gy) threads(128) {
      ...
    }
    ```

    `keep_register_budget` (`T.disable_warp_group_reg_alloc()`) keeps every
    thread's register budget where the launch put it when the kernel is
    warp-specialized, instead of moving registers from the producer
    warpgroup to the consumers.
  }];
  let arguments = (ins Variadic<Index>:$grid, DenseI64ArrayAttr:$threads,
                       UnitAttr:$keep_register_budget);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::ValueRange":$grid,
                   "::llvm::ArrayRef<int64_t>":$threads)>
  ];
  let extraClassDeclaration = [{
    /// The block indices, one per grid dimension.
    ::mlir::Block::BlockArgListType getBlockIndices() {
      return getBody().getArguments();
    }
    /// The number of threads in a block.
    int64_t getNumThreads();
  }];
}

def Tile_YieldOp : Tile_Op<"yield", [
    Pure, ReturnLike, Terminator,
    ParentOneOf<["KernelOp", "ParallelOp", "PipelinedOp", "SerialOp",
                 "ThreadRangeOp", "UnrollOp", "WarpSpecializeOp"]>]> {
  let summary = "Ends the body of a kernel or a loop";
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Allocation
//===----------------------------------------------------------------------===//

class Tile_AllocOp<string mnemonic, string scope, list<Trait> traits = []>
    : Tile_Op<mnemonic, traits # [
        Tile_InKernel,
        MemoryEffects<[MemAlloc<AutomaticAllocationScopeResource>]>]> {
  let results = (outs Res<AnyStaticShapeMemRef, "the new buffer",
                          [MemAlloc<AutomaticAllocationScopeResource>]>:$buffer);
  let hasVerifier = 1;
  code scopeName = scope;
  let extraClassDeclaration = [{
    /// The memory scope this op allocates in.
    static ::tilec::tile::MemoryScope getAllocScope() {
      return ::tilec::tile::MemoryScope::}] # scope # [{;
    }
  }];
}

def Tile_AllocSharedOp : Tile_AllocOp<"alloc_shared", "Shared"> {
  let summary = "A buffer in the block's shared memory (T.alloc_shared)";
  let description = [{
    ```mlir
    %A_shared = tile.alloc_shared : memref<128x32xf16, #tile.shared>
    ```
    The optional `layout` is the shared layout chosen for the buffer.
  }];
  let arguments = (ins OptionalAttr<Tile_SharedLayoutAttr>:$layout);
  let assemblyFormat = "attr-dict `:` type($buffer)";
}

def Tile_AllocFragmentOp : Tile_AllocOp<"alloc_fragment", "Fragment"> {
  let summary = "A tile in the registers of the block's threads "
                "(T.alloc_fragment)";
  let description = [{
    ```mlir
    %C_local = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
    ```
    The optional `layout` is the fragment layout chosen for the buffer.
  }];
  let arguments = (ins OptionalAttr<Tile_FragmentLayoutAttr>:$layout);
  let assemblyFormat = "attr-dict `:` type($buffer)";
}

def Tile_AllocLocalOp : Tile_AllocOp<"alloc_local", "Local"> {
  let summary = "A buffer private to each thread (T.alloc_local)";
  let description = [{
    ```mlir
    %acc = tile.alloc_local : memref<8xf32, #tile.local>
    ```
  }];
  let assemblyFormat = "attr-dict `:` type($buffer)";
}

def Tile_AllocVarOp : Tile_AllocOp<"alloc_var", "Local"> {
  let summary = "A scalar variable private to each thread (T.alloc_var)";
  let description = [{
    A rank-0 local buffer, optionally initialized. Read and written with
    `memref.load` and `memref.store`.

    ```mlir
    %i = tile.alloc_var init(%c0) : memref<i32, #tile.local>
    ```
  }];
  let arguments = (ins Optional<AnyType>:$init);
  let assemblyFormat = "(`init` `(` $init^ `:` type($init) `)`)? attr-dict "
                       "`:` type($buffer)";
}

//===----------------------------------------------------------------------===//
// Tile operations
//===----------------------------------------------------------------------===//

def Tile_CopyOp : Tile_Op<"copy", [Tile_InKernel, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface, ["isCollective"]>]> {
  let summary = "Copies a region of one buffer to a region of another "
                "(T.copy)";
  let description = [{
    Copies the region of `source` that starts at `source_offsets` and spans
    `source_extents` to the region of `dest` at `dest_offsets` spanning
    `dest_extents`. The two extents must agree once their unit dimensions
    are dropped, so `Q[b, s:s+64, h, :]` copies to a 64x128 tile. Elements
    are converted to the destination's element type. Elements of the
    source region outside the source buffer read as zero; elements of the
    destination region outside the destination buffer are not written. A
    region written without offsets and extents is the whole buffer.

    An `async` copy (global to shared memory only) may complete after the
    op: the pipelining pass marks the copies it overlaps with later
    iterations and synchronizes them itself (cp.async on NVIDIA).

    An `async` copy with a `barrier` is issued by one thread of the block
    for the whole block and signals its completion to the mbarrier at
    `barrier[barrier_index]`, whose transaction count it decrements by the
    bytes it writes (the bulk tensor copy engine on sm_90). The pass that
    issues it arms the barrier with those bytes and waits on it.

    A `bulk` copy (a whole shared tile to global memory) is also issued by
    one thread for the whole block, through the bulk tensor copy engine,
    which reads the tile through the async proxy: the threads that wrote it
    fence their writes before the barrier that precedes the copy. The
    issuing thread waits until the tile has been read, so the copy is done
    with shared memory once a barrier follows; its writes reach global
    memory by the end of the kernel.

    A `no_tma` copy (TileLang's `disable_tma=True`) is never made by the
    bulk tensor copy engine: it stays a copy of the threads, and a pipelined
    loop that has one fills all of its stages with cp.async.

    ```mlir
    tile.copy %A[%row, %k] [128, 32] to %A_shared
        : memref<1024x1024xf16>, memref<128x32xf16, #tile.shared>
    tile.copy async %A[%row, %k] [128, 32] to %A_stage
        : memref<1024x1024xf16>, memref<128x32xf16, strided<[32, 1], offset: ?>, #tile.shared>
    tile.copy async %A[%row, %k] [128, 32] to %A_stage
        barrier(%full[%stage] : memref<3xi64, #tile.shared>)
        : memref<1024x1024xf16>, memref<128x32xf16, strided<[32, 1], offset: ?>, #tile.shared>
    tile.copy bulk %C_shared to %C[%row, %col] [128, 128]
        : memref<128x128xf16, #tile.shared>, memref<1024x1024xf16>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "the buffer read", [MemRead]>:$source,
    Variadic<Index>:$source_offsets,
    DenseI64ArrayAttr:$static_source_offsets,
    DenseI64ArrayAttr:$source_extents,
    Arg<AnyMemRef, "the buffer written", [MemWrite]>:$dest,
    Variadic<Index>:$dest_offsets,
    DenseI64ArrayAttr:$static_dest_offsets,
    DenseI64ArrayAttr:$dest_extents,
    UnitAttr:$async,
    UnitAttr:$bulk,
    Arg<Optional<AnyMemRef>, "the mbarriers signalled", [MemWrite]>:$barrier,
    Optional<Index>:$barrier_index,
    UnitAttr:$no_tma
  );
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedSourceOffsets();
    ::llvm::SmallVector<::mlir::OpFoldResult> getMixedDestOffsets();
  }];
}

def Tile_GemmOp : Tile_Op<"gemm", [Tile_InKernel, Tile_CollectiveOpInterface]> {
  let summary = "Block-wide matrix multiply-accumulate (T.gemm)";
  let description = [{
    `C += op(A) * op(B)`, where `op` transposes its operand when
    `transpose_a` / `transpose_b` is set, so that `op(A)` is MxK, `op(B)`
    is KxN and `C` is MxN. With `clear_accum`, `C` is zeroed first. `A` is
    in shared memory or a fragment, `B` in shared memory or a fragment, and
    the accumulator `C` is a fragment. `policy` says how the MxN tile is
    split over the block's warps.

    Supported element types (A and B, then C): f16 into f16 or f32; bf16
    into f32; f32 (computed as tf32) into f32; f8E4M3FN or f8E5M2 into f32;
    i8 or ui8 into i32.

    `instruction`, set by `tile-infer-layouts`, is the matrix instruction
    the gemm runs on (`#tile.mma_sync`, `#tile.wgmma`, `#tile.mfma`);
    without one it runs on CUDA cores or vector ALUs, one dot product per
    accumulator element.

    ```mlir
    tile.gemm %A_shared, %B_shared, %C_local transpose_b policy(full_row)
        : memref<128x32xf16, #tile.shared>, memref<128x32xf16, #tile.shared>,
          memref<128x128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "", [MemRead]>:$a,
    Arg<AnyMemRef, "", [MemRead]>:$b,
    Arg<AnyMemRef, "", [MemRead, MemWrite]>:$c,
    UnitAttr:$transpose_a,
    UnitAttr:$transpose_b,
    DefaultValuedProp<EnumProp<Tile_GemmWarpPolicy>,
                      "::tilec::tile::GemmWarpPolicy::Square">:$policy,
    UnitAttr:$clear_accum,
    OptionalAttr<Tile_MatrixInstructionAttrInterface>:$instruction
  );
  let assemblyFormat = [{
    $a `,` $b `,` $c (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    (`policy` `(` $policy^ `)`)? (`clear_accum` $clear_accum^)? attr-dict
    `:` type($a) `,` type($b) `,` type($c)
  }];
  let builders = [
    // A gemm as the front end writes it, before an instruction is chosen.
    OpBuilder<(ins "::mlir::Value":$a, "::mlir::Value":$b, "::mlir::Value":$c,
                   "bool":$transpose_a, "bool":$transpose_b,
                   "::tilec::tile::GemmWarpPolicy":$policy,
                   "bool":$clear_accum), [{
      build($_builder, $_state, a, b, c, transpose_a, transpose_b, policy,
            clear_accum, /*instruction=*/nullptr);
    }]>
  ];
  let hasVerifier = 1;
}

def Tile_TensorMapOp : Tile_Op<"tensor_map", [Pure]> {
  let summary = "A TMA tensor map of a kernel tensor, built at launch";
  let description = [{
    Describes the kernel tensor `tensor` (a parameter of the kernel's
    function) for the bulk tensor copy engine (TMA): boxes of `box`
    elements (one extent per tensor dimension, in the tensor's order)
    stored in shared memory with the TMA swizzle of `swizzle` bytes (0 for
    none, 32, 64 or 128); elements outside the tensor read as zero. The
    generated header encodes the map (cuTensorMapEncodeTiled) from the
    tensor's address and shape when it launches the kernel and passes it by
    value (a `__grid_constant__` parameter after the declared ones); in the
    kernel the result is the map's generic address.

    ```mlir
    %map = tile.tensor_map %A box [128, 32] swizzle(64)
        : memref<4096x4096xf16> -> !llvm.ptr
    ```
  }];
  let arguments = (ins AnyMemRef:$tensor, DenseI64ArrayAttr:$box,
                       I64Attr:$swizzle);
  let results = (outs LLVM_AnyPointer:$map);
  let assemblyFormat = [{
    $tensor `box` $box `swizzle` `(` $swizzle `)` attr-dict `:`
    type($tensor) `->` type($map)
  }];
  let hasVerifier = 1;
}

def Tile_FillOp : Tile_Op<"fill", [Tile_InKernel,
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface, ["isCollective"]>]> {
  let summary = "Sets every element of a buffer to a value (T.fill)";
  let description = [{
    ```mlir
    tile.fill %m_local, %neg_inf : memref<128xf32, #tile.fragment>, f32
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemWrite]>:$buffer, AnyType:$value);
  let assemblyFormat = "$buffer `,` $value attr-dict `:` type($buffer) `,` "
                       "type($value)";
  let hasVerifier = 1;
}

def Tile_ClearOp : Tile_Op<"clear", [Tile_InKernel,
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface, ["isCollective"]>]> {
  let summary = "Sets every element of a buffer to zero (T.clear)";
  let description = [{
    ```mlir
    tile.clear %C_local : memref<128x128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemWrite]>:$buffer);
  let assemblyFormat = "$buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce", [Tile_InKernel,
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface, ["isCollective"]>]> {
  let summary = "Reduces a buffer along one dimension (T.reduce_*)";
  let description = [{
    Reduces `source` along dimension `dim` with `kind` into `dest`, whose
    shape is the source shape without `dim` (a rank-1 source reduces into
    a buffer of one element; keeping `dim` with extent 1 is also
    accepted). With `clear` (the default) the result replaces `dest`;
    without it, it is combined with what `dest` holds.

    ```mlir
    tile.reduce max %S_local -> %m_local dim(1) clear(false)
        : memref<128x64xf32, #tile.fragment>, memref<128xf32, #tile.fragment>
    ```
  }];
  let arguments = (ins
    EnumProp<Tile_ReduceKind>:$kind,
    Arg<AnyMemRef, "", [MemRead]>:$source,
    Arg<AnyMemRef, "", [MemRead, MemWrite]>:$dest,
    I64Attr:$dim,
    DefaultValuedAttr<BoolAttr, "true">:$clear
  );
  let assemblyFormat = [{
    $kind $source `->` $dest `dim` `(` $dim `)` (`clear` `(` $clear^ `)`)?
    attr-dict `:` type($source) `,` type($dest)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicOp : Tile_Op<"atomic", [Tile_InKernel,
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface, ["isCollective"]>]> {
  let summary = "Atomically combines a value or a tile into a buffer "
                "(T.atomic_add, T.atomic_max, T.atomic_min)";
  let description = [{
    Combines `value` into `dest` at `indices` atomically, as `kind` says:
    an add (`addf`, `addi`), a maximum (`maxnumf`, `maxs`, `maxu`) or a
    minimum (`minnumf`, `mins`, `minu`), of the kind's family for `dest`'s
    elements (the signed or unsigned kinds as the .tile dtype is). A
    scalar value is combined into one element; a buffer value element-wise
    into the region of `dest` that starts at `indices`. The region's
    `extents` (one per dimension of `dest`) hold the value's shape with
    unit dimensions anywhere, as a slice such as `dQ[b, i:i + 64, h, :]`
    gives: the value's dimensions other than unit ones land, in order, on
    the region's. Without `extents`, the region has the value's shape,
    with leading unit dimensions when the value has lower rank. Elements
    outside `dest` are skipped. `dest` is in global or shared memory.

    The scalar form may give the element's value before the operation
    (`previous`, TileLang's `return_prev=True`): a thread that adds 1 to a
    counter learns the slot it took. Outside `dest` it gives zero.

    ```mlir
    %slot = tile.atomic addi %c1 to %count[%c0] : i32 to memref<1xi32, #tile.shared> -> i32
    tile.atomic addf %C_local to %C[%row, %col]
        : memref<128x128xf32, #tile.fragment> to memref<1024x1024xf32>
    tile.atomic maxs %v to %M[%i] : i32 to memref<64xi32>
    tile.atomic addf %dq to %dQ[%b, %row, %h, %c0] {extents = array<i64: 1, 64, 1, 128>}
        : memref<64x128xf32, #tile.shared> to memref<2x1024x8x128xf32>
    ```
  }];
  let arguments = (ins
    AtomicRMWKindAttr:$kind,
    AnyType:$value,
    Arg<AnyMemRef, "", [MemRead, MemWrite]>:$dest,
    Variadic<Index>:$indices,
    OptionalAttr<DenseI64ArrayAttr>:$extents
  );
  let results = (outs Optional<AnyType>:$previous);
  let extraClassDeclaration = [{
    /// The extents of the region a tile value lands on: `extents`, or the
    /// value's shape after leading unit dimensions.
    ::llvm::SmallVector<int64_t> getRegionExtents();
  }];
  let assemblyFormat = [{
    $kind $value `to` $dest `[` $indices `]` attr-dict `:` type($value) `to`
    type($dest) (`->` type($previous)^)?
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

def Tile_ParallelOp : Tile_Op<"parallel", [
    Tile_InKernel,
    DeclareOpInterfaceMethods<Tile_CollectiveOpInterface, ["isCollective"]>,
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "An element-wise loop nest spread over the block's threads "
                "(T.Parallel)";
  let description = [{
    Runs the body for every index of the iteration space `extents`, with
    the iterations partitioned over the threads of the block. Iterations
    must be independent. The body's arguments are the indices. The optional
    `layout`, chosen by layout inference, says which thread runs which
    iteration: its shape is `extents`.

    ```mlir
    tile.parallel (%i, %j) in (128, 64) {
      ...
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$extents,
                       OptionalAttr<Tile_FragmentLayoutAttr>:$layout);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "::llvm::ArrayRef<int64_t>":$extents)>];
  let extraClassDeclaration = [{
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().getArguments();
    }
  }];
}

class Tile_ForOp<string mnemonic, list<Trait> traits = []>
    : Tile_Op<mnemonic, traits # [
        Tile_InKernel,
        RecursiveMemoryEffects,
        SingleBlockImplicitTerminator<"YieldOp">]> {
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  code forClassDeclaration = [{
    ::mlir::Value getInductionVar() { return getBody().getArgument(0); }
  }];
}

def Tile_SerialOp : Tile_ForOp<"serial"> {
  let summary = "A sequential loop run by every thread (T.serial, range)";
  let description = [{
    ```mlir
    tile.serial %k = %c0 to %n step %c1 {
      ...
    }
    ```
  }];
  let arguments = (ins Index:$lower_bound, Index:$upper_bound, Index:$step);
  let builders = [OpBuilder<(ins "::mlir::Value":$lowerBound,
                                 "::mlir::Value":$upperBound,
                                 "::mlir::Value":$step)>];
  let hasVerifier = 1;
  let extraClassDeclaration = forClassDeclaration;
}

def Tile_UnrollOp : Tile_ForOp<"unroll"> {
  let summary = "A sequential loop to be fully unrolled (T.unroll)";
  let description = [{
    Like `tile.serial`, but its bounds must be constants at lowering time
    and the loop is unrolled.

    ```mlir
    tile.unroll %i = %c0 to %c4 step %c1 {
      ...
    }
    ```
  }];
  let arguments = (ins Index:$lower_bound, Index:$upper_bound, Index:$step);
  let builders = [OpBuilder<(ins "::mlir::Value":$lowerBound,
                                 "::mlir::Value":$upperBound,
                                 "::mlir::Value":$step)>];
  let hasVerifier = 1;
  let extraClassDeclaration = forClassDeclaration;
}

def Tile_PipelinedOp : Tile_ForOp<"pipelined", [Tile_CollectiveOpInterface]> {
  let summary = "A sequential loop whose copies overlap later iterations "
                "(T.Pipelined)";
  let description = [{
    Runs the body for `lower_bound <= k < upper_bound`. The pipelining pass
    overlaps the global-to-shared copies of up to `num_stages - 1` later
    iterations with the compute of the current one; with `num_stages` 0 or
    1 the loop runs as written. `order` and `stage`, when given, assign
    each statement of the body an issue order and a pipeline stage by hand.
    The statements are the body's top-level ops that write memory or hold
    regions (tile ops, stores, loops, ifs); index arithmetic and loads
    belong to the statements that use them.

    ```mlir
    tile.pipelined %k = %c0 to %n stages(3) {
      ...
    }
    ```
  }];
  let arguments = (ins
    Index:$lower_bound, Index:$upper_bound,
    DefaultValuedAttr<I64Attr, "0">:$num_stages,
    OptionalAttr<DenseI64ArrayAttr>:$order,
    OptionalAttr<DenseI64ArrayAttr>:$stage
  );
  let builders = [OpBuilder<(ins "::mlir::Value":$lowerBound,
                                 "::mlir::Value":$upperBound,
                                 "int64_t":$numStages)>];
  let hasVerifier = 1;
  let extraClassDeclaration = forClassDeclaration # [{
    /// The statements that `order` and `stage` refer to, in body order.
    ::llvm::SmallVector<::mlir::Operation *> getStatements();
  }];
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [
    Tile_CollectiveOpInterface,
    HasParent<"KernelOp">,
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Splits a kernel into a producer warpgroup and its consumers";
  let description = [{
    The block runs with one more warpgroup (128 threads) than the kernel's
    `threads`: the first thread of that extra warpgroup runs `producer`
    (per-thread code that issues bulk copies and waits on mbarriers), and
    the kernel's own threads run `consumer`, the tile code, synchronizing
    among themselves only (a block barrier there waits for them, not for
    the producer). What precedes the op in the kernel runs on every thread;
    nothing may follow it. The pipelining pass creates it for loops whose
    copies the bulk copy engine makes.

    ```mlir
    tile.warp_specialize producer {
      scf.for ... { ... tile.copy async ... barrier(...) ... }
    } consumer {
      tile.pipelined ... { ... }
    }
    ```
  }];
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let assemblyFormat = "`producer` $producer `consumer` $consumer attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Annotations
//===----------------------------------------------------------------------===//

def Tile_ThreadRangeOp : Tile_Op<"thread_range", [
    Tile_InKernel,
    Tile_CollectiveOpInterface,
    RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "Code that a range of the block's threads runs (T.ws)";
  let description = [{
    The threads of the block whose linear index is in `[first, first +
    count)` run the body; the others skip it. The tile operations in the
    body spread their work over those threads, as over the block's outside
    it: their layouts are over `count` threads, numbered from `first`, and
    the barriers the body needs synchronize those threads only. Whole warps
    take part. A fragment belongs to the threads of one size of range: the
    threads of each range hold their own registers, so `T.ws(0)` and
    `T.ws(1)` each have a copy of a fragment both use. `barrier_id`, which
    `tile-insert-barriers` chooses, is the named barrier the range's
    threads synchronize with.

    ```mlir
    tile.thread_range 128, 128 {
      tile.copy %A[%m, %k] [128, 64] to %a_s : memref<256x256xf16>, memref<128x64xf16, #tile.shared>
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>]>:$first,
                   ConfinedAttr<I64Attr, [IntPositive]>:$count,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>,
                                                       IntMaxValue<15>]>>:$barrier_id);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$first `,` $count $body attr-dict";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "int64_t":$first, "int64_t":$count)>];
}

def Tile_UseSwizzleOp : Tile_Op<"use_swizzle", [HasParent<"KernelOp">]> {
  let summary = "Rasterizes thread blocks in panels for L2 reuse "
                "(T.use_swizzle)";
  let description = [{
    Remaps the block indices of the enclosing kernel so that consecutive
    blocks walk a panel of `panel_size` rows (`row`) or columns (`col`) of
    the grid before moving on, which keeps their shared operands in L2.
    At most one per kernel, before any use of the block indices.

    ```mlir
    tile.use_swizzle panel(10) order(row)
    ```
  }];
  let arguments = (ins
    I64Attr:$panel_size,
    DefaultValuedProp<EnumProp<Tile_RasterOrder>,
                      "::tilec::tile::RasterOrder::Row">:$order
  );
  let assemblyFormat = "`panel` `(` $panel_size `)` (`order` `(` $order^ `)`)? "
                       "attr-dict";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The block indices (x, y) that block (bx, by) of a grid of (gx, gy)
    /// blocks runs as: linear block ids walk `panel_size` rows (or
    /// columns) of the grid across all columns (rows), alternating
    /// direction, so that neighbouring blocks share operands.
    ::std::pair<::mlir::Value, ::mlir::Value>
    emitRemap(::mlir::OpBuilder &builder, ::mlir::Location loc,
              ::mlir::Value bx, ::mlir::Value by, ::mlir::Value gx,
              ::mlir::Value gy);
  }];
}

def Tile_AnnotateLayoutOp : Tile_Op<"annotate_layout", [Tile_InKernel]> {
  let summary = "Fixes the layout of a buffer (T.annotate_layout)";
  let description = [{
    Sets the layout of a shared buffer (a `#tile.shared_layout`) or a
    fragment (a `#tile.fragment_layout`) instead of letting the compiler
    choose it. The layout's shape must be the buffer's shape.

    ```mlir
    tile.annotate_layout #tile.shared_layout<[128, 32],
        (d0, d1) -> (d0 * 32 + d1)> on %A_shared
        : memref<128x32xf16, #tile.shared>
    ```
  }];
  let arguments = (ins AnyMemRef:$buffer, AnyAttr:$layout);
  let assemblyFormat = "$layout `on` $buffer attr-dict `:` type($buffer)";
  let hasVerifier = 1;
}

def Tile_AssumeOp : Tile_Op<"assume"> {
  let summary = "A fact the program promises (T.assume)";
  let description = [{
    States that `condition` holds wherever the op is reached: for the
    accesses after it in its block and the blocks nested there. The bounds
    verifier (`tile-verify-bounds`) takes it as a fact; it generates no
    code, and nothing checks it at run time.

    ```mlir
    %0 = arith.remsi %M, %c128 : index
    %1 = arith.cmpi eq, %0, %c0 : index
    tile.assume %1
    ```
  }];
  let arguments = (ins I1:$condition);
  let assemblyFormat = "$condition attr-dict";
}

//===----------------------------------------------------------------------===//
// Synchronization of asynchronous copies
//===----------------------------------------------------------------------===//

// What the passes that pipeline copies emit to order them, independent of
// the vendor's instructions: convert-tile-to-nvvm lowers them.

// Ops that order memory accesses between the threads of a block, as a
// barrier does (an mbarrier's arrivals and waits): the race verifier does
// not compare accesses across them.
def Tile_Synchronizes : NativeOpTrait<"Synchronizes"> {
  let cppNamespace = "::tilec::tile::OpTrait";
}

class Tile_MBarrierOp<string mnemonic, list<Trait> traits = []>
    : Tile_Op<mnemonic, !listconcat([Tile_InKernel], traits)> {
  code commonExtraClassDeclaration = [{
    /// The barrier's type: shared 64-bit words, one per barrier.
    mlir::MemRefType getBarriersType() {
      return mlir::cast<mlir::MemRefType>(getBarriers().getType());
    }
  }];
  let hasVerifier = 1;
}

def Tile_MBarrierInitOp : Tile_MBarrierOp<"mbarrier_init"> {
  let summary = "Initializes a memory barrier for a number of arrivals";
  let description = [{
    Initializes barrier `index` of `barriers` (a shared buffer of 64-bit
    words) to complete its phases when `count` threads have arrived and
    the bytes they announced have landed. One thread runs it.

    ```mlir
    tile.mbarrier_init %bars[%c0], 1 : memref<2xi64, #tile.shared>
    ```
  }];
  let arguments = (ins MemRefRankOf<[I64], [1]>:$barriers, Index:$index,
                   ConfinedAttr<I64Attr, [IntPositive]>:$count);
  let assemblyFormat =
      "$barriers `[` $index `]` `,` $count attr-dict `:` type($barriers)";
  let extraClassDeclaration = commonExtraClassDeclaration;
}

def Tile_MBarrierArriveOp
    : Tile_MBarrierOp<"mbarrier_arrive", [Tile_Synchronizes]> {
  let summary = "Arrives on a memory barrier";
  let description = [{
    The running thread arrives on barrier `index` of `barriers`. With
    `expect_bytes`, it also announces that many bytes of asynchronous
    copies, which complete the phase as they land.

    ```mlir
    tile.mbarrier_arrive %bars[%s] expect_bytes 16384 : memref<2xi64, #tile.shared>
    ```
  }];
  let arguments = (ins MemRefRankOf<[I64], [1]>:$barriers, Index:$index,
                   OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:
                       $expect_bytes);
  let assemblyFormat = "$barriers `[` $index `]` (`expect_bytes` "
                       "$expect_bytes^)? attr-dict `:` type($barriers)";
  let extraClassDeclaration = commonExtraClassDeclaration;
}

def Tile_MBarrierWaitOp
    : Tile_MBarrierOp<"mbarrier_wait", [Tile_Synchronizes]> {
  let summary = "Waits until a phase of a memory barrier completes";
  let description = [{
    The running thread waits until phase `phase` (counted from 0 since the
    barrier's initialization) of barrier `index` of `barriers` has
    completed. Only the phase's parity is observed: the phase before it
    must have completed already.

    ```mlir
    tile.mbarrier_wait %bars[%s] phase %round : memref<2xi64, #tile.shared>
    ```
  }];
  let arguments = (ins MemRefRankOf<[I64], [1]>:$barriers, Index:$index,
                   Index:$phase);
  let assemblyFormat = "$barriers `[` $index `]` `phase` $phase attr-dict "
                       "`:` type($barriers)";
  let extraClassDeclaration = commonExtraClassDeclaration;
}

def Tile_NamedBarrierOp
    : Tile_Op<"named_barrier", [Tile_InKernel, Tile_Synchronizes]> {
  let summary = "A barrier among part of a block's threads";
  let description = [{
    Waits until `count` threads of the block, whole warps, have reached a
    `tile.named_barrier` with this `id`, and orders their memory accesses
    as a block barrier does. Threads that take a branch together (`if tx <
    256:`) synchronize among themselves with it; the others go on. Barrier
    0 is the one block barriers use.

    ```mlir
    tile.named_barrier 3, 256
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<15>]>:$id,
                   ConfinedAttr<I64Attr, [IntPositive]>:$count);
  let assemblyFormat = "$id `,` $count attr-dict";
  let hasVerifier = 1;
}

def Tile_WarpBarrierOp : Tile_Op<"warp_barrier", [Tile_InKernel]> {
  let summary = "A barrier among the threads of one warp";
  let description = [{
    Waits until every thread of the running thread's warp has reached a
    `tile.warp_barrier`, and orders their memory accesses: a thread reads
    what the others of its warp wrote before it. Threads of other warps are
    not waited for, so the race verifier still compares their accesses.

    ```mlir
    tile.warp_barrier
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncCommitGroupOp
    : Tile_Op<"async_commit_group", [Tile_InKernel]> {
  let summary = "Closes the running thread's group of asynchronous copies";
  let description = [{
    The asynchronous copies (`tile.copy async` without a barrier) the
    thread issued since its last commit form one group, which
    `tile.async_wait_group` waits for.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitGroupOp
    : Tile_Op<"async_wait_group", [Tile_InKernel]> {
  let summary = "Waits for the running thread's older copy groups";
  let description = [{
    Waits until at most `pending` of the thread's committed groups of
    asynchronous copies are still in flight: the others have landed in
    shared memory, visible to this thread. A block barrier after it makes
    them visible to the block.

    ```mlir
    tile.async_wait_group 1
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "$pending attr-dict";
}

def Tile_FenceAsyncSharedOp
    : Tile_Op<"fence_async_shared", [Tile_InKernel]> {
  let summary = "Orders the thread's shared writes before asynchronous reads";
  let description = [{
    Makes the running thread's earlier writes to shared memory visible to
    the asynchronous proxy, through which matrix instructions that read
    shared memory directly (wgmma) and bulk copies access it.
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Asynchronous and bulk copies
//===----------------------------------------------------------------------===//

// What tile-lower-copies and tile-lower-bulk-copies make of the copies they
// give to the copy engines, independent of the vendor's instructions:
// convert-tile-to-nvvm lowers them.

def Tile_AsyncCopyOp : Tile_Op<"async_copy", [
    Tile_InKernel, AttrSizedOperandSegments,
    DeclareOpInterfaceMethods<Tile_IndexedAccessOpInterface, ["guardAccess"]>
  ]> {
  let summary = "Starts copying a run of elements into shared memory";
  let description = [{
    The running thread starts copying `elements` consecutive elements of
    `source` from `source_indices` to the shared buffer `dest` at
    `dest_indices`. The copy joins the thread's open group, which
    `tile.async_commit_group` closes and `tile.async_wait_group` waits
    for. With `source_elements`, only that many elements are read (none
    for 0) and the rest of the run is filled with zeros. The run is 4, 8
    or 16 bytes, and both addresses must be multiples of its size.

    ```mlir
    tile.async_copy %A[%i, %j], %A_shared[%r, %c], 8 source_elements %n
        : memref<?x?xf16> to memref<64x32xf16, #tile.shared>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "the buffer read", [MemRead]>:$source,
                   Variadic<Index>:$source_indices,
                   Arg<AnyMemRef, "the shared buffer written", [MemWrite]>:
                       $dest,
                   Variadic<Index>:$dest_indices,
                   ConfinedAttr<I64Attr, [IntPositive]>:$elements,
                   Optional<Index>:$source_elements);
  let assemblyFormat = [{
    $source `[` $source_indices `]` `,` $dest `[` $dest_indices `]` `,`
    $elements (`source_elements` $source_elements^)? attr-dict `:`
    type($source) `to` type($dest)
  }];
  let extraClassDeclaration = [{
    /// The bytes the copy moves.
    int64_t getBytes();
  }];
  let hasVerifier = 1;
}

def Tile_TmaLoadOp : Tile_Op<"tma_load", [Tile_InKernel]> {
  let summary = "Starts a bulk tensor copy of one box into shared memory";
  let description = [{
    Starts copying the box of the tensor map `map` (a `tile.tensor_map`)
    at `coordinates` (in elements, innermost dimension first) to the
    shared memory at `dest`. The box's bytes count towards the current
    phase of the mbarrier at `barrier` as they land; elements outside the
    tensor read as zero. One thread issues it.

    ```mlir
    tile.tma_load %map[%x, %y], %panel, barrier %bar
        : !llvm.ptr, !llvm.ptr<3>, !llvm.ptr<3>
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$map, Variadic<I32>:$coordinates,
                   LLVM_PointerInAddressSpace<3>:$dest,
                   LLVM_PointerInAddressSpace<3>:$barrier);
  let assemblyFormat = [{
    $map `[` $coordinates `]` `,` $dest `,` `barrier` $barrier attr-dict `:`
    qualified(type($map)) `,` qualified(type($dest)) `,`
    qualified(type($barrier))
  }];
}

def Tile_TmaStoreOp : Tile_Op<"tma_store", [Tile_InKernel]> {
  let summary = "Starts a bulk tensor copy of one box from shared memory";
  let description = [{
    Starts copying the shared memory at `source` to the box of the tensor
    map `map` at `coordinates` (in elements, innermost dimension first);
    what falls outside the tensor is not written. The copy joins the
    thread's open bulk group, which `tile.bulk_commit_group` closes.

    ```mlir
    tile.tma_store %map[%x, %y], %panel : !llvm.ptr, !llvm.ptr<3>
    ```
  }];
  let arguments = (ins LLVM_AnyPointer:$map, Variadic<I32>:$coordinates,
                   LLVM_PointerInAddressSpace<3>:$source);
  let assemblyFormat = [{
    $map `[` $coordinates `]` `,` $source attr-dict `:`
    qualified(type($map)) `,` qualified(type($source))
  }];
}

def Tile_BulkCommitGroupOp : Tile_Op<"bulk_commit_group", [Tile_InKernel]> {
  let summary = "Closes the running thread's group of bulk copies";
  let description = [{
    The bulk copies out of shared memory (`tile.tma_store`) the thread
    started since its last commit form one group, which
    `tile.bulk_wait_group` waits for.
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_BulkWaitGroupOp : Tile_Op<"bulk_wait_group", [Tile_InKernel]> {
  let summary = "Waits for the running thread's older bulk copy groups";
  let description = [{
    Waits until at most `pending` of the thread's committed groups of bulk
    copies are still in flight. With `read`, it waits only until they have
    read their shared memory, which may then be reused; their writes land
    by the end of the kernel.

    ```mlir
    tile.bulk_wait_group 0 read
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending,
                   UnitAttr:$read);
  let assemblyFormat = "$pending (`read` $read^)? attr-dict";
}

#endif // TILEC_DIALECT_TILE_IR_TILEOPS_TD
