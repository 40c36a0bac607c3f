//===- LdsBanks.h - A model of AMD LDS bank conflicts -----------*- C++ -*-===//
//
// Part of tilec. How many cycles CDNA's local data share (LDS) takes to
// serve a wave's access, and the swizzle of an MFMA operand tile that
// minimizes them for the reads of the MFMA fragments and the stores that
// fill the tile.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_ANALYSIS_LDSBANKS_H
#define TILEC_ANALYSIS_LDSBANKS_H

#include "tilec/Dialect/Tile/IR/TileAttrs.h"

#include "mlir/Support/LLVM.h"

namespace tilec {

/// The banks of CDNA's LDS (gfx90a, gfx942), each 4 bytes wide.
inline constexpr int64_t kLdsBanks = 32;

/// The cycles the LDS takes to serve one access of a wave in which lane `l`
/// accesses `bytesPerLane` bytes (1, 2, 4, 8 or 16, aligned) at byte
/// address `addresses[l]`. As AMD describes the hardware, the lanes go
/// through in phases of consecutive lanes that access 128 bytes together
/// (8 lanes of 16 bytes, 16 of 8, 32 of 4 or less); a phase takes as many
/// cycles as the most distinct 4-byte words it touches in any one bank
/// (lanes that touch the same word share it).
int64_t countLdsCycles(llvm::ArrayRef<int64_t> addresses, int64_t bytesPerLane);

/// The cycles of such an access without conflicts: one per phase.
int64_t countConflictFreeLdsCycles(int64_t lanes, int64_t bytesPerLane);

/// A tile of an MFMA operand in LDS: `rows` x `cols` elements of
/// `elementBytes` bytes, row-major before the swizzle; K is its columns
/// (`kFastest`: A untransposed, B transposed) or its rows. Each wave reads
/// its fragments as getMfmaOperandElement says for `kPack`.
struct MfmaOperandTile {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t elementBytes = 2;
  bool kFastest = true;
  int64_t kPack = 1;

  /// The extent of K and of M (or N) in the tile.
  int64_t kExtent() const { return kFastest ? cols : rows; }
  int64_t mnExtent() const { return kFastest ? rows : cols; }
};

/// Whether the lanes read their `4 * kPack` consecutive K of `tile` as one
/// vector under `swizzle` (null for none): K is the tile's fastest
/// dimension and the swizzle moves runs of at least that many elements.
bool isMfmaReadAsVector(const MfmaOperandTile &tile, tile::SwizzleAttr swizzle);

/// The LDS cycles one wave takes to read every MFMA fragment of `tile`
/// (each 16 rows or columns of M or N, each step of K) laid out with
/// `swizzle`: one vector per lane and step where isMfmaReadAsVector, else
/// one read per element.
int64_t countMfmaReadCycles(const MfmaOperandTile &tile,
                            tile::SwizzleAttr swizzle);

/// The same reads without conflicts.
int64_t countConflictFreeMfmaReadCycles(const MfmaOperandTile &tile,
                                        tile::SwizzleAttr swizzle);

/// The LDS cycles of filling `tile` with 16-byte stores, consecutive lanes
/// storing consecutive 16 bytes of the row-major tile (the grid layout of
/// the copies into it).
int64_t countTileFillCycles(const MfmaOperandTile &tile,
                            tile::SwizzleAttr swizzle);

/// The swizzle tilec gives an MFMA operand tile: among no swizzle and the
/// XOR swizzles of 16-byte chunks (which keep the fills' 16-byte stores and
/// the packed 16-byte reads whole) that the tile is a whole number of
/// periods of, the one with the fewest modelled cycles for the fragment
/// reads and the fill together. Ties go to chooseSharedSwizzle's choice,
/// then to no swizzle, then to fewer bits. Null for no swizzle.
tile::SwizzleAttr chooseMfmaSharedSwizzle(mlir::MLIRContext *context,
                                          const MfmaOperandTile &tile);

} // namespace tilec

#endif // TILEC_ANALYSIS_LDSBANKS_H
