//===- FragmentLayouts.h - Building and deriving layouts --------*- C++ -*-===//
//
// Part of tilec. The layouts tilec chooses for fragments and for the loops
// that run over them, and the layouts derived from them (a row's result of
// a reduction, the rows a broadcast reads).
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_FRAGMENTLAYOUTS_H
#define TILEC_ANALYSIS_FRAGMENTLAYOUTS_H

#include "tilec/Dialect/Tile/IR/TileAttrs.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace tilec {

/// The grid layout: the tile is seen as rows (all dimensions but the last,
/// flattened) of `N` elements. Threads form a `threadRows` x `threadCols`
/// grid; thread (r, c) holds rows r, r + threadRows, ... and, in each, runs
/// of `vector` consecutive elements starting at columns
/// (c + k * threadCols) * vector. Consecutive threads thus read consecutive
/// 16-byte pieces of a row: coalesced, vectorizable accesses, and a row held
/// by `threadCols` neighbouring threads for reductions.
struct GridLayoutParams {
  int64_t rows = 1;
  int64_t cols = 1;
  int64_t threadRows = 1;
  int64_t threadCols = 1;
  int64_t vector = 1;

  /// Runs of `vector` elements each thread holds per row.
  int64_t colGroups() const;
  /// Rows each thread holds.
  int64_t rowsPerThread() const;
  /// Elements (with padding) each thread holds.
  int64_t slots() const;
  /// Threads of the grid; those of the block past them hold nothing.
  int64_t usedThreads() const { return threadRows * threadCols; }
};

/// The grid parameters tilec picks for `shape` over `threads` threads:
/// the widest power-of-two vector up to `maxVector` elements that divides
/// the last extent, and as many threads per row as there are runs, up to
/// the largest power of two dividing `threads`, or a wider power of two
/// that leaves the block's last threads out of the grid when that gives
/// each thread fewer elements (blocks of 100 or 325 threads). When that
/// leaves threads without rows, narrower vectors (down to `maxVector / 4`)
/// spread each row over more threads.
GridLayoutParams chooseGridLayout(llvm::ArrayRef<int64_t> shape,
                                  int64_t threads, int64_t maxVector);

/// The grid layout of `shape` over `threads` threads, with its inverse.
tile::FragmentLayoutAttr makeGridLayout(mlir::MLIRContext *context,
                                        llvm::ArrayRef<int64_t> shape,
                                        int64_t threads,
                                        const GridLayoutParams &params);

/// The grid parameters of `layout` if it is a grid layout, else nullopt.
std::optional<GridLayoutParams>
matchGridLayout(tile::FragmentLayoutAttr layout);

/// The layout of a tile with the last dimension of `layout`'s shape
/// removed (a rank-1 shape becomes [1]), where each remaining element is
/// held by every thread that holds a part of its row in `layout`. This is
/// the layout of the result of a reduction over the last dimension, and of
/// a buffer read as `b[i]` in a loop over `(i, j)`. Fails for layouts that
/// are neither grid layouts nor mma.sync, wgmma or MFMA accumulator layouts.
mlir::FailureOr<tile::FragmentLayoutAttr>
dropLastDimension(tile::FragmentLayoutAttr layout);

/// The layout where every thread holds every element, in row-major slots:
/// that of a loop every thread runs in full (one that fills a thread's own
/// local buffer).
tile::FragmentLayoutAttr makeReplicatedLayout(mlir::MLIRContext *context,
                                              llvm::ArrayRef<int64_t> shape,
                                              int64_t threads);

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

/// The row-major offset map of `shape`: (d0, ..., dn) -> d0 * s0 + ... + dn.
mlir::AffineMap getRowMajorMap(mlir::MLIRContext *context,
                               llvm::ArrayRef<int64_t> shape);

/// The XOR swizzle tilec gives a shared tile whose rows are `rowLength`
/// elements of `elementBytes` bytes, or null when the rows are not a power
/// of two of at least 32 bytes. It permutes 16-byte chunks within each row
/// so that 8 consecutive rows read at one column (an ldmatrix, or a warp's
/// 16-byte accesses) touch 8 different bank groups: rows of 128 bytes or
/// more XOR their chunk index with the row index, shorter rows with the
/// index of their 128-byte line. It permutes each group of 8 rows.
tile::SwizzleAttr chooseSharedSwizzle(mlir::MLIRContext *context,
                                      int64_t rowLength, int64_t elementBytes);

//===----------------------------------------------------------------------===//
// Tensor-core (mma.sync) layouts
//===----------------------------------------------------------------------===//

/// How a gemm's MxN tile is split over warps: `warpM` x `warpN` warps, warp
/// `w` taking rows `(w / warpN) * M / warpM` and columns
/// `(w % warpN) * N / warpN` of it.
struct WarpPartition {
  int64_t warpM = 1;
  int64_t warpN = 1;
};

/// The partition of an MxN tile over `numWarps` warps that `policy` asks
/// for, with each warp's part a whole number of `atomM` x `atomN` mma
/// tiles: full_row puts every warp on its own rows, full_col on its own
/// columns, square picks the split whose warp tiles are closest to square.
/// Fails when no split fits; the message says why, calling warps `unit`
/// ("wave" for AMD's).
mlir::FailureOr<WarpPartition>
computeWarpPartition(int64_t m, int64_t n, int64_t numWarps,
                     tile::GemmWarpPolicy policy, int64_t atomM, int64_t atomN,
                     std::string &message, llvm::StringRef unit = "warp");

/// The layout of an mma.sync accumulator (m16n8, 4 registers per thread
/// per tile) over a [M, N] tile split as `partition` says. Thread
/// `warp * 32 + lane` of warp `(wi, wj)` holds, for each 16x8 tile
/// `(mi, ni)` of its part, rows `lane / 4` and `lane / 4 + 8` at columns
/// `2 * (lane % 4)` and the next, in slots `(mi * nt + ni) * 4 + 0..3`.
tile::FragmentLayoutAttr makeMmaAccumulatorLayout(mlir::MLIRContext *context,
                                                  int64_t m, int64_t n,
                                                  WarpPartition partition);

/// The layout of a 16-bit mma.sync A operand (m16k16, 8 halves per thread
/// per tile) over an [M, K] tile: split over the warps' rows as
/// `partition` says and replicated over the warps that share them. With
/// one warp per row of warps it is the accumulator layout of an [M, K]
/// tile, which lets a gemm's result feed the next gemm from registers.
tile::FragmentLayoutAttr makeMmaOperandALayout(mlir::MLIRContext *context,
                                               int64_t m, int64_t k,
                                               WarpPartition partition);

/// If `layout` is an accumulator layout (as makeMmaAccumulatorLayout builds
/// it) or an A operand layout, its partition.
std::optional<WarpPartition>
matchMmaAccumulatorLayout(tile::FragmentLayoutAttr layout);
std::optional<WarpPartition>
matchMmaOperandALayout(tile::FragmentLayoutAttr layout);

//===----------------------------------------------------------------------===//
// AMD matrix-core (MFMA) layouts
//===----------------------------------------------------------------------===//

/// The lanes of a CDNA wavefront (gfx90a, gfx942).
inline constexpr int64_t kWaveLanes = 64;

/// The layout of the accumulator of v_mfma_f32_16x16x16 (f16 or bf16),
/// issued with the operands swapped (C^T = B^T A^T, as TileLang does), over
/// a [M, N] tile split over waves of 64 lanes as `partition` says: lane `l`
/// of wave `(wi, wj)` holds, for each 16x16 tile `(mi, ni)` of its part,
/// row `l % 16` at the four columns from `4 * (l / 16)`, in slots
/// `(mi * nt + ni) * 4 + 0..3`. A row is thus spread over the four lanes
/// `l % 16 + 16 q`, each with four consecutive columns.
tile::FragmentLayoutAttr makeMfmaAccumulatorLayout(mlir::MLIRContext *context,
                                                   int64_t m, int64_t n,
                                                   WarpPartition partition);

/// The layout of the (swapped) MFMA's register A operand over an [M, K]
/// tile: lane `l` holds row `l % 16` at four consecutive K from
/// `4 * (l / 16)` for each 16x16 piece, split over the waves' rows as
/// `partition` says and replicated over the waves that share them. With
/// one wave per row of waves it is the accumulator layout of an [M, K]
/// tile, so a gemm's result feeds the next gemm from registers.
tile::FragmentLayoutAttr makeMfmaOperandALayout(mlir::MLIRContext *context,
                                                int64_t m, int64_t k,
                                                WarpPartition partition);

/// The element of a 16-row operand tile that lane `lane` of a wave passes
/// as element `v` (0..3) of its vector to the swapped 16x16x16 MFMA: row
/// `lane % 16` of A (or column of B), at K index `4 * (lane / 16) + v`.
/// With `kPack` 2 or 4, the steps of 16 in a block of `16 * kPack` along
/// K take their K indices in another order, the same for A and B, so that
/// each lane's `4 * kPack` are consecutive: step `step` of the block reads
/// K index `4 * kPack * (lane / 16) + 4 * step + v` of it. Each K index of
/// the block is read once, at the same step and lane in A and B, so the
/// sum is the product's. gfx942's fp8 MFMA, of K 32, takes two steps at
/// once. Returned as (row or column, K).
std::pair<int64_t, int64_t> getMfmaOperandElement(int64_t lane, int64_t v,
                                                  int64_t kPack = 1,
                                                  int64_t step = 0);

/// If `layout` is an MFMA accumulator (or A operand) layout, its partition.
std::optional<WarpPartition>
matchMfmaAccumulatorLayout(tile::FragmentLayoutAttr layout);
std::optional<WarpPartition>
matchMfmaOperandALayout(tile::FragmentLayoutAttr layout);

//===----------------------------------------------------------------------===//
// Hopper (TMA and wgmma) layouts
//===----------------------------------------------------------------------===//

/// The shared layout the bulk tensor copy engine (TMA) writes and wgmma
/// reads: the tile's columns are cut into panels of `panelCols` columns
/// (`swizzleBytes` bytes: 128, 64 or 32), each panel stored as `rows` rows
/// of `swizzleBytes` bytes, panel after panel, and swizzled with TMA's
/// swizzle of that width (CuTe's Swizzle<log2(swizzleBytes / 16), 4, 3> on
/// byte offsets). A tile whose rows are one panel wide is row-major.
struct PanelledTile {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t elementBytes = 0;
  int64_t swizzleBytes = 0;

  int64_t panelCols() const { return swizzleBytes / elementBytes; }
  int64_t numPanels() const { return cols / panelCols(); }
  /// Bytes from one panel to the next.
  int64_t panelBytes() const { return rows * swizzleBytes; }
  /// The byte offset of element (row, col), before the swizzle.
  int64_t byteOffset(int64_t row, int64_t col) const;
};

/// The panelled layout of a `rows` x `cols` tile of `elementBytes`-byte
/// elements: the widest swizzle (128, 64 or 32 bytes) that divides a row's
/// bytes. Nullopt when rows are not a multiple of 32 bytes, or the rows of
/// a panel not a multiple of 8 (the swizzle's period).
std::optional<PanelledTile> choosePanelledTile(int64_t rows, int64_t cols,
                                               int64_t elementBytes);

/// The shared layout of a buffer of `shape` whose last two dimensions are
/// `tile` (leading dimensions, pipeline stages, are row-major around it).
tile::SharedLayoutAttr makePanelledLayout(mlir::MLIRContext *context,
                                          llvm::ArrayRef<int64_t> shape,
                                          const PanelledTile &tile);

/// The panelled tile `layout` is, as makePanelledLayout builds it for a
/// buffer of `elementBytes`-byte elements, if it is one.
std::optional<PanelledTile> matchPanelledLayout(tile::SharedLayoutAttr layout,
                                                int64_t elementBytes);

/// How a gemm's MxN tile is split over warpgroups for wgmma: `m` x `n`
/// warpgroups, warpgroup `g` taking rows `(g / n) * M / m` and columns
/// `(g % n) * N / n`.
struct WarpgroupPartition {
  int64_t m = 1;
  int64_t n = 1;
};

/// The N extent of one wgmma over a warpgroup's `tileN` columns: all of
/// them up to 256, else 256 (then `tileN` must be a multiple of 256).
int64_t getWgmmaInstructionN(int64_t tileN);

/// The partition of an MxN tile over `numWarpgroups` warpgroups that
/// `policy` asks for, each warpgroup's part a whole number of m64 rows and
/// of `atomN` columns that wgmma instructions cover. Fails with a message
/// when no split fits.
mlir::FailureOr<WarpgroupPartition>
computeWarpgroupPartition(int64_t m, int64_t n, int64_t numWarpgroups,
                          tile::GemmWarpPolicy policy, int64_t atomN,
                          std::string &message);

/// The layout of wgmma accumulators over an [M, N] tile split as
/// `partition` says. Thread `128 g + 32 w + l` of warpgroup `g` holds, in
/// the registers of each m64nN instruction `(mi, nj)` of its part, rows
/// `64 mi + 16 w + l / 4 + 8 ((r >> 1) & 1)` at columns
/// `N nj + 8 (r >> 2) + 2 (l % 4) + (r & 1)` of register `r`. Where each
/// warp holds a single band of 16 rows (64-row warpgroup parts, one
/// warpgroup per row) this is the mma.sync accumulator layout of warps
/// split by rows, which reductions and register A operands understand.
tile::FragmentLayoutAttr
makeWgmmaAccumulatorLayout(mlir::MLIRContext *context, int64_t m, int64_t n,
                           WarpgroupPartition partition);

/// The partition of `layout` if it places elements as a wgmma accumulator
/// layout does.
std::optional<WarpgroupPartition>
matchWgmmaAccumulatorLayout(tile::FragmentLayoutAttr layout);

/// Whether two layouts of one shape place every element (and replica) on
/// the same thread and slot, whatever their maps look like.
bool areEquivalentLayouts(tile::FragmentLayoutAttr a,
                          tile::FragmentLayoutAttr b);

} // namespace tilec

#endif // TILEC_ANALYSIS_FRAGMENTLAYOUTS_H
