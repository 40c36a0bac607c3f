//===- TileDialect.td - The tile dialect -------------------*- tablegen -*-===//
//
// Part of tilec. The dialect that .tile kernels are parsed into.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEDIALECT_TD
#define TILEC_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tilec::tile";
  let summary = "Tile-level GPU kernels: buffers in memory scopes and "
                "block-wide operations on them";
  let description = [{
    The `tile` dialect is the IR of TileLang-style kernels. A kernel is a
    `func.func` whose body holds one `tile.kernel` op: a grid of thread
    blocks, each running the kernel body with a fixed number of threads.
    Inside, buffers are `memref`s whose memory space is a memory scope
    attribute (`#tile.shared`, `#tile.fragment`, `#tile.local`; a memref
    without a memory space is in global memory) and the block's threads act
    on them collectively through tile ops: `tile.copy`, `tile.gemm`,
    `tile.fill`, `tile.reduce`, and the loops `tile.parallel` and
    `tile.pipelined`. Element reads and writes are `memref.load` and
    `memref.store`; scalar arithmetic is `arith` and `math`.

    A `#tile.fragment` buffer is distributed over the registers of the
    block's threads. Its shape is the logical tile shape; which thread
    holds which element is its fragment layout (`#tile.fragment_layout`),
    inferred by the compiler or annotated. A `#tile.shared` buffer lives in
    shared memory; its shared layout (`#tile.shared_layout`) maps a logical
    index to an offset, swizzles included.

    Two discardable attributes describe a kernel function's parameters:
    `tile.arg_names` (on the `func.func`) names every argument as the
    .tile source did, and `tile.dims` (on a memref argument with dynamic
    dimensions) gives, for each dimension, the index of the `index`
    argument that holds its extent, or -1 where the extent is static.
    After outlining, a kernel's `gpu.func` carries
    `tile.shared_memory_bytes`, the dynamic shared memory it needs. Layout
    inference marks the `tile.parallel` loops it inserts to move a fragment
    through shared memory with `tile.layout_conversion`, the reason for the
    conversion.
  }];

  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect"
  ];

  let useDefaultAttributePrinterParser = 0;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Memory scopes print as bare keywords (`#tile.shared`); the other
    /// attributes use their generated formats.
    ::mlir::Attribute parseAttribute(::mlir::DialectAsmParser &parser,
                                     ::mlir::Type type) const override;
    void printAttribute(::mlir::Attribute attr,
                        ::mlir::DialectAsmPrinter &printer) const override;

  private:
    void registerAttributes();
    void registerOps();
  }];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // TILEC_DIALECT_TILE_IR_TILEDIALECT_TD
