//===- TileAttrs.td - Memory scopes, enums and layouts -----*- tablegen -*-===//
//
// Part of tilec. Attributes of the tile dialect: the memory scope of a
// buffer, the small enums of tile ops, and the shared and fragment layouts.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEATTRS_TD
#define TILEC_DIALECT_TILE_IR_TILEATTRS_TD

include "tilec/Dialect/Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/EnumAttr.td"
include "tilec/Dialect/Tile/IR/TileInterfaces.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Enums
//
// Op options are enum properties (printed as bare keywords); only the memory
// scope, which appears in types, is an attribute.
//===----------------------------------------------------------------------===//

def Tile_MemoryScope : I32EnumAttr<"MemoryScope",
    "where a buffer lives", [
      I32EnumAttrCase<"Global", 0, "global">,
      I32EnumAttrCase<"Shared", 1, "shared">,
      I32EnumAttrCase<"Fragment", 2, "fragment">,
      I32EnumAttrCase<"Local", 3, "local">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}

// Printed and parsed by the dialect as a bare keyword: `#tile.shared`.
def Tile_MemoryScopeAttr : EnumAttr<Tile_Dialect, Tile_MemoryScope, "scope"> {
  let summary = "Memory scope of a buffer, used as a memref memory space";
  let description = [{
    The memory space of a tile buffer. `#tile.global` is device memory
    (also what a memref without a memory space means), `#tile.shared` is
    the block's shared memory, `#tile.fragment` is a tile distributed over
    the registers of the block's threads by a fragment layout, and
    `#tile.local` is private to each thread.
  }];
}

def Tile_GemmWarpPolicy : I32EnumAttr<"GemmWarpPolicy",
    "how a gemm partitions its output tile over the block's warps", [
      I32EnumAttrCase<"Square", 0, "square">,
      I32EnumAttrCase<"FullRow", 1, "full_row">,
      I32EnumAttrCase<"FullCol", 2, "full_col">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "a reduction", [
      I32EnumAttrCase<"Max", 0, "max">,
      I32EnumAttrCase<"Min", 1, "min">,
      I32EnumAttrCase<"Sum", 2, "sum">,
      I32EnumAttrCase<"AbsMax", 3, "absmax">,
      I32EnumAttrCase<"AbsSum", 4, "abssum">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}

def Tile_RasterOrder : I32EnumAttr<"RasterOrder",
    "the order in which swizzled thread blocks walk a panel", [
      I32EnumAttrCase<"Row", 0, "row">,
      I32EnumAttrCase<"Col", 1, "col">
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tilec::tile";
}

//===----------------------------------------------------------------------===//
// The target
//===----------------------------------------------------------------------===//

def Tile_TargetFeature : I32BitEnumAttr<"TargetFeature",
    "what the code for a target may use", [
      I32BitEnumAttrCaseNone<"None", "none">,
      I32BitEnumAttrCaseBit<"MmaSync", 0, "mma_sync">,
      I32BitEnumAttrCaseBit<"AsyncCopy", 1, "async_copy">,
      I32BitEnumAttrCaseBit<"Tma", 2, "tma">,
      I32BitEnumAttrCaseBit<"Wgmma", 3, "wgmma">,
      I32BitEnumAttrCaseBit<"WarpSpecialization", 4, "warp_specialization">,
      I32BitEnumAttrCaseBit<"Mfma", 5, "mfma">,
      I32BitEnumAttrCaseBit<"MfmaFp8Fnuz", 6, "mfma_fp8_fnuz">
    ]> {
  let cppNamespace = "::tilec::tile";
  let genSpecializedAttr = 0;
  let separator = " | ";
}

def Tile_TargetAttr : Tile_Attr<"Target", "target"> {
  let summary = "The GPU a module is compiled for, and what its code may use";
  let description = [{
    Set by the driver on the module (as `tile.target`) from the `--arch`
    table, with the features the command line turns off (`--no-tma`,
    `--no-wgmma`, `--no-async-copies`, `--no-warp-specialize`) left out.
    The tile passes read it instead of taking one option each:

    - `chip`: the `--arch` name, `sm_90a` or `gfx942`;
    - `warp_size`: the lanes of a warp or wave, 32 or 64;
    - `shared_memory`: the bytes of shared memory (LDS) one block may use;
    - `registers`: the 32-bit registers one thread may hold;
    - `features`: `mma_sync` (tensor-core mma.sync, NVIDIA sm_80 on),
      `async_copy` (cp.async), `tma` (the bulk tensor copy engine with
      transaction barriers), `wgmma` (warpgroup MMA), `warp_specialization`
      (a producer warpgroup, with register reallocation), `mfma` (AMD's
      matrix cores) and `mfma_fp8_fnuz` (MFMA on FNUZ 8-bit floats).

    ```mlir
    module attributes {tile.target = #tile.target<chip = "sm_90a",
        warp_size = 32, shared_memory = 232448, registers = 255,
        features = "mma_sync | async_copy | tma | wgmma | warp_specialization">}
    ```

    A module without one gets the generic target: warps of 32, no limit on
    shared memory (`shared_memory = 0`), 255 registers and no features.
  }];
  let parameters = (ins StringRefParameter<"the --arch name">:$chip,
                        "int64_t":$warp_size, "int64_t":$shared_memory,
                        "int64_t":$registers,
                        "::tilec::tile::TargetFeature":$features);
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// Whether the code may use `feature`.
    bool has(::tilec::tile::TargetFeature feature) const {
      return ::tilec::tile::bitEnumContainsAll(getFeatures(), feature);
    }
    /// The name of the module attribute that holds the target.
    static constexpr ::llvm::StringLiteral kAttrName = "tile.target";
    /// The target of the module around `op`, or the generic target.
    static TargetAttr lookup(::mlir::Operation *op);
    /// The matrix instructions (MatrixInstructionAttrInterface) a gemm may
    /// run on here, the preferred first.
    ::llvm::SmallVector<::mlir::Attribute> getMatrixInstructions() const;
  }];
}

//===----------------------------------------------------------------------===//
// Matrix instructions
//===----------------------------------------------------------------------===//

class Tile_MatrixInstructionAttr<string name, string attrMnemonic>
    : Tile_Attr<name, attrMnemonic> {
  let summary = "The matrix instruction a tile.gemm runs on";
}

def Tile_MmaSyncAttr : Tile_MatrixInstructionAttr<"MmaSync", "mma_sync"> {
  let description = [{
    NVIDIA's warp-wide `mma.sync` (sm_80 on): each warp of 32 lanes
    computes whole m16n8 tiles of the accumulator, reading A and B from
    shared memory with `ldmatrix`, or A from registers.
  }];
}

def Tile_WgmmaAttr : Tile_MatrixInstructionAttr<"Wgmma", "wgmma"> {
  let description = [{
    NVIDIA's warpgroup MMA (`wgmma.mma_async`, sm_90a): each warpgroup of
    128 threads computes whole m64 bands of the accumulator from operand
    descriptors of shared memory in its panelled layouts, or A from
    registers.
  }];
}

def Tile_MfmaAttr : Tile_MatrixInstructionAttr<"Mfma", "mfma"> {
  let description = [{
    AMD's matrix cores (MFMA, gfx90a and gfx942): each wave computes whole
    16x16 tiles of the accumulator, with FNUZ 8-bit floats where the target
    has `mfma_fp8_fnuz`.
  }];
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

def Tile_SwizzleAttr : Tile_Attr<"Swizzle", "swizzle"> {
  let summary = "XOR swizzle of shared-memory offsets";
  let description = [{
    Permutes element offsets so that threads reading a column of a tile hit
    different shared-memory banks: the `bits` bits of the offset starting at
    bit `base + shift` are XORed into the bits starting at bit `base`.

    ```
    swizzle(o) = o ^ ((o >> shift) & (((1 << bits) - 1) << base))
    ```

    This is CuTe's `Swizzle<bits, base, shift>`; on 16-bit elements,
    `<bits = 3, base = 3, shift = 3>` is the 128-byte swizzle of TMA and
    wgmma. It is a bijection on any range of `2^(base + shift + bits)`
    offsets.
  }];
  let parameters = (ins "unsigned":$bits, "unsigned":$base, "unsigned":$shift);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Applies the swizzle to an element offset.
    int64_t apply(int64_t offset) const;
  }];
}

def Tile_SharedLayoutAttr : Tile_Attr<"SharedLayout", "shared_layout"> {
  let summary = "Maps a logical index of a shared buffer to an offset";
  let description = [{
    The layout of a `#tile.shared` buffer of shape `shape`: `map` takes the
    logical index (one dimension per buffer dimension) to an element offset,
    and the optional `swizzle` then permutes that offset.

    ```mlir
    // A 64x64 fp16 tile, rows of 128 bytes, with the 128-byte swizzle.
    #tile.shared_layout<[64, 64], (d0, d1) -> (d0 * 64 + d1),
                        swizzle = <bits = 3, base = 3, shift = 3>>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "logical shape">:$shape,
    "::mlir::AffineMap":$map,
    OptionalParameter<"SwizzleAttr">:$swizzle
  );
  let assemblyFormat =
      "`<` `[` $shape `]` `,` $map (`,` `swizzle` `=` $swizzle^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The element offset of `index`, swizzle included; std::nullopt if the
    /// map cannot be evaluated there (division by zero, overflow).
    std::optional<int64_t> apply(::llvm::ArrayRef<int64_t> index) const;
  }];
}

def Tile_FragmentLayoutAttr : Tile_Attr<"FragmentLayout", "fragment_layout"> {
  let summary = "Maps a logical index of a fragment to a thread and a register";
  let description = [{
    The layout of a `#tile.fragment` buffer of shape `shape`, distributed
    over `threads` threads that each hold `slots` elements in registers.
    `map` has one dimension per buffer dimension, plus a last dimension for
    the replica when `replicate` is greater than 1, and two results: the
    thread that holds the element and the register slot it occupies there.
    A replicated layout keeps `replicate` copies of each element, as the
    result of a reduction does when every thread of a row needs it.

    The optional `inverse` maps (thread, slot) back to the logical index
    (and the replica); it is what a loop partitioned by the layout runs.
    Pairs outside the shape are unused slots.

    ```mlir
    // 128 rows over 128 threads, one row of 64 elements per thread.
    #tile.fragment_layout<[128, 64], threads = 128, slots = 64,
                          (d0, d1) -> (d0, d1),
                          inverse = (d0, d1) -> (d0, d1)>
    ```
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "logical shape">:$shape,
    "int64_t":$threads,
    "int64_t":$slots,
    DefaultValuedParameter<"int64_t", "1">:$replicate,
    "::mlir::AffineMap":$map,
    OptionalParameter<"::mlir::AffineMap">:$inverse
  );
  let assemblyFormat = [{
    `<` `[` $shape `]` `,` `threads` `=` $threads `,` `slots` `=` $slots `,`
    (`replicate` `=` $replicate^ `,`)? $map (`,` `inverse` `=` $inverse^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The (thread, slot) that holds replica `replica` of `index`;
    /// std::nullopt if the map cannot be evaluated there.
    std::optional<std::pair<int64_t, int64_t>>
    apply(::llvm::ArrayRef<int64_t> index, int64_t replica = 0) const;
    /// The logical index (and replica, last, when replicated) held in
    /// `slot` of `thread`, from the inverse map; std::nullopt without an
    /// inverse or when the pair is outside the shape.
    std::optional<::llvm::SmallVector<int64_t>>
    applyInverse(int64_t thread, int64_t slot) const;
    /// The number of elements of the shape.
    int64_t getNumElements() const;
  }];
}

#endif // TILEC_DIALECT_TILE_IR_TILEATTRS_TD
