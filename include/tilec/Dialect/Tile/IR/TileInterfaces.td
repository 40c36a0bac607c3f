//===- TileInterfaces.td - Interfaces of the tile dialect --*- tablegen -*-===//
//
// Part of tilec. The matrix-instruction interface: what layout inference and
// distribution ask of a tensor-core instruction, implemented for each vendor
// under lib/Target. The indexed-access interface: how the verifiers and the
// passes that re-lay out shared memory see the accesses of ops beyond
// upstream's loads and stores.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_DIALECT_TILE_IR_TILEINTERFACES_TD
#define TILEC_DIALECT_TILE_IR_TILEINTERFACES_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/Interfaces.td"

def Tile_MatrixInstructionAttrInterface
    : AttrInterface<"MatrixInstructionAttrInterface"> {
  let cppNamespace = "::tilec::tile";
  let description = [{
    A matrix instruction a `tile.gemm` can run on: NVIDIA's mma.sync and
    wgmma, AMD's MFMA. `tile-infer-layouts` asks each instruction the target
    has, in order, whether it runs the gemm, records the first that does as
    the gemm's `instruction`, and seeds the layouts it gives; `tile-distribute`
    has it emit the gemm. The generic passes never name an instruction: the
    implementations, and the vendor ops they create, live in
    lib/Target/NVIDIA and lib/Target/AMD, attached to the attributes as
    external models when the dialects are registered.

    The methods take the `tile.gemm` as an operation, as the ops' own
    declarations need the interface first. How the gemm's tile is split over the block's warps follows from the
    gemm (its shapes, types and `policy`) and the block's threads, so the
    attributes carry no parameters: asking again gives the same split.
  }];
  let methods = [
    InterfaceMethod<[{
        Whether `gemm` runs on this instruction. When it does not for a
        reason the user should hear (it would, but for the warp split or
        the chip's formats), `warning` says why.
      }], "bool", "runsGemm",
      (ins "::mlir::Operation *":$gemm, "std::string &":$warning)>,
    InterfaceMethod<[{
        The layout of `gemm`'s accumulator, for a gemm that runs here.
      }], "::tilec::tile::FragmentLayoutAttr", "getAccumulatorLayout",
      (ins "::mlir::Operation *":$gemm)>,
    InterfaceMethod<[{
        The layout `gemm`'s A operand needs when it is in registers, or a
        null attribute if this instruction does not take A from registers.
      }], "::tilec::tile::FragmentLayoutAttr", "getOperandALayout",
      (ins "::mlir::Operation *":$gemm)>,
    InterfaceMethod<[{
        Gives the shared buffers `gemm` reads that have no layout yet the
        one this instruction reads best (an annotated buffer keeps its own).
      }], "void", "chooseSharedLayouts",
      (ins "::mlir::Operation *":$gemm)>,
    InterfaceMethod<[{
        Emits `gemm` at `builder` for the thread `threadId`, whose registers
        of the accumulator and (when A is in registers) of A are the
        vectors `cRegisters` and `aRegisters`; fails with an error on the
        gemm when its operands are not as this instruction reads them.
      }], "::mlir::LogicalResult", "emitGemm",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::Operation *":$gemm,
           "::mlir::Value":$threadId, "::mlir::Value":$cRegisters,
           "::mlir::Value":$aRegisters)>,
  ];
}

def Tile_IndexedAccessOpInterface : OpInterface<"IndexedAccessOpInterface"> {
  let cppNamespace = "::tilec::tile";
  let description = [{
    An op that reads or writes memrefs at indices, other than upstream's
    memref and vector loads and stores: the asynchronous copies to shared
    memory (`tile.async_copy`) and the matrix loads of a vendor's tensor
    cores (nvgpu.ldmatrix, whose model lives in lib/Target/NVIDIA). The
    bounds, race and alignment verifiers, the swizzling of shared memory
    and the insertion of barriers see these ops only through this
    interface, in one model of an access (`tilec::tile::IndexedAccess`).
  }];
  let methods = [
    InterfaceMethod<[{
        The op's accesses, each a run of elements along the last dimension
        of a memref from its indices.
      }], "::llvm::SmallVector<::tilec::tile::IndexedAccess, 2>",
      "getIndexedAccesses">,
    InterfaceMethod<[{
        Makes access `access` (a position in `getIndexedAccesses()`, one
        marked `guardable`) touch no memory where `inBounds` (an i1) is
        false, with ops built at `builder`.
      }], "void", "guardAccess",
      (ins "::mlir::OpBuilder &":$builder, "unsigned":$access,
           "::mlir::Value":$inBounds),
      /*methodBody=*/"", /*defaultImplementation=*/[{
        llvm_unreachable("the op has no guardable access");
      }]>,
  ];
}

def Tile_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::tilec::tile";
  let description = [{
    An op the threads of a block run together, each taking its share of the
    work (a copy, a gemm, a reduction, a `T.Parallel` loop): every thread
    must reach it, so it may not sit under control that differs between
    threads (`tile-verify-collectives`).
  }];
  let methods = [
    InterfaceMethod<[{
        Whether this instance is spread over the threads; an op whose
        scalar form each thread runs on its own answers false for that
        form.
      }], "bool", "isCollective", (ins), /*methodBody=*/"",
      /*defaultImplementation=*/"return true;">,
  ];
}

#endif // TILEC_DIALECT_TILE_IR_TILEINTERFACES_TD
