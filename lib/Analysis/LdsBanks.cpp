//===- LdsBanks.cpp - A model of AMD LDS bank conflicts -------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Analysis/LdsBanks.h"
#include "tilec/Analysis/FragmentLayouts.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cassert>

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

/// The lanes that go through the LDS together: those that access 128 bytes.
static int64_t lanesPerPhase(int64_t bytesPerLane) {
  return kLdsBanks * 4 / std::max<int64_t>(bytesPerLane, 4);
}

int64_t tilec::countLdsCycles(ArrayRef<int64_t> addresses,
                              int64_t bytesPerLane) {
  assert(llvm::isPowerOf2_64(bytesPerLane) && bytesPerLane <= 16 &&
         "LDS accesses are 1 to 16 bytes");
  int64_t phaseLanes = lanesPerPhase(bytesPerLane);
  int64_t cycles = 0;
  SmallVector<int64_t, 128> words;
  for (size_t first = 0; first < addresses.size(); first += phaseLanes) {
    words.clear();
    size_t end = std::min(addresses.size(), first + phaseLanes);
    for (size_t lane = first; lane < end; ++lane) {
      int64_t firstWord = addresses[lane] / 4;
      int64_t lastWord = (addresses[lane] + bytesPerLane - 1) / 4;
      for (int64_t word = firstWord; word <= lastWord; ++word)
        words.push_back(word);
    }
    // Lanes that touch the same word share it.
    llvm::sort(words);
    words.erase(std::unique(words.begin(), words.end()), words.end());
    int64_t wordsOfBank[kLdsBanks] = {};
    int64_t most = 1;
    for (int64_t word : words)
      most = std::max(most, ++wordsOfBank[word % kLdsBanks]);
    cycles += most;
  }
  return cycles;
}

int64_t tilec::countConflictFreeLdsCycles(int64_t lanes, int64_t bytesPerLane) {
  return llvm::divideCeil(lanes, lanesPerPhase(bytesPerLane));
}

bool tilec::isMfmaReadAsVector(const MfmaOperandTile &tile,
                               SwizzleAttr swizzle) {
  return tile.kFastest &&
         (!swizzle || (int64_t(1) << swizzle.getBase()) >= 4 * tile.kPack);
}

/// Calls `access(addresses, bytesPerLane)` for every read one wave makes of
/// `tile`'s MFMA fragments.
static void
forEachMfmaRead(const MfmaOperandTile &tile, SwizzleAttr swizzle,
                function_ref<void(ArrayRef<int64_t>, int64_t)> access) {
  auto address = [&](int64_t mn, int64_t k) {
    int64_t offset = tile.kFastest ? mn * tile.cols + k : k * tile.cols + mn;
    return (swizzle ? swizzle.apply(offset) : offset) * tile.elementBytes;
  };
  bool vector = isMfmaReadAsVector(tile, swizzle);
  int64_t stepK = 16 * tile.kPack;
  SmallVector<int64_t> addresses(kWaveLanes);
  for (int64_t mn0 = 0; mn0 + 16 <= tile.mnExtent(); mn0 += 16)
    for (int64_t k0 = 0; k0 + stepK <= tile.kExtent(); k0 += stepK) {
      if (vector) {
        // One run of 4 * kPack elements per lane: step 0's first.
        for (int64_t lane = 0; lane < kWaveLanes; ++lane) {
          auto [mn, k] = getMfmaOperandElement(lane, 0, tile.kPack, 0);
          addresses[lane] = address(mn0 + mn, k0 + k);
        }
        access(addresses, 4 * tile.kPack * tile.elementBytes);
        continue;
      }
      for (int64_t step = 0; step < tile.kPack; ++step)
        for (int64_t v = 0; v < 4; ++v) {
          for (int64_t lane = 0; lane < kWaveLanes; ++lane) {
            auto [mn, k] = getMfmaOperandElement(lane, v, tile.kPack, step);
            addresses[lane] = address(mn0 + mn, k0 + k);
          }
          access(addresses, tile.elementBytes);
        }
    }
}

int64_t tilec::countMfmaReadCycles(const MfmaOperandTile &tile,
                                   SwizzleAttr swizzle) {
  int64_t cycles = 0;
  forEachMfmaRead(tile, swizzle,
                  [&](ArrayRef<int64_t> addresses, int64_t bytes) {
                    cycles += countLdsCycles(addresses, bytes);
                  });
  return cycles;
}

int64_t tilec::countConflictFreeMfmaReadCycles(const MfmaOperandTile &tile,
                                               SwizzleAttr swizzle) {
  int64_t cycles = 0;
  forEachMfmaRead(
      tile, swizzle, [&](ArrayRef<int64_t> addresses, int64_t bytes) {
        cycles += countConflictFreeLdsCycles(addresses.size(), bytes);
      });
  return cycles;
}

int64_t tilec::countTileFillCycles(const MfmaOperandTile &tile,
                                   SwizzleAttr swizzle) {
  int64_t chunkElements = 16 / tile.elementBytes;
  int64_t chunks = tile.rows * tile.cols / chunkElements;
  int64_t cycles = 0;
  SmallVector<int64_t> addresses;
  for (int64_t first = 0; first < chunks; first += kWaveLanes) {
    addresses.clear();
    for (int64_t chunk = first; chunk < std::min(chunks, first + kWaveLanes);
         ++chunk) {
      int64_t offset = chunk * chunkElements;
      addresses.push_back((swizzle ? swizzle.apply(offset) : offset) *
                          tile.elementBytes);
    }
    cycles += countLdsCycles(addresses, 16);
  }
  return cycles;
}

SwizzleAttr tilec::chooseMfmaSharedSwizzle(MLIRContext *context,
                                           const MfmaOperandTile &tile) {
  int64_t elements = tile.rows * tile.cols;
  if (tile.elementBytes <= 0 || 16 % tile.elementBytes != 0 || elements <= 0 ||
      tile.rows % 16 != 0 || tile.cols % 16 != 0)
    return {};
  unsigned base = llvm::Log2_64(16 / tile.elementBytes);
  // The tile must be a whole number of periods, and each row of chunks.
  auto fits = [&](SwizzleAttr swizzle) {
    int64_t period = int64_t(1) << (swizzle.getBase() + swizzle.getShift() +
                                    swizzle.getBits());
    return elements % period == 0 &&
           tile.cols % (int64_t(1) << swizzle.getBase()) == 0;
  };
  SmallVector<SwizzleAttr> candidates;
  if (SwizzleAttr preferred =
          chooseSharedSwizzle(context, tile.cols, tile.elementBytes))
    if (fits(preferred))
      candidates.push_back(preferred);
  candidates.push_back(SwizzleAttr());
  // These fit: their period divides the tile's elements, and 16 the
  // columns.
  unsigned offsetBits = llvm::countr_zero(uint64_t(elements));
  for (unsigned bits = 1; bits <= 3; ++bits)
    for (unsigned shift = bits; base + shift + bits <= offsetBits; ++shift)
      candidates.push_back(SwizzleAttr::get(context, bits, base, shift));

  SwizzleAttr best;
  int64_t bestCycles = INT64_MAX;
  for (SwizzleAttr swizzle : candidates) {
    int64_t cycles =
        countMfmaReadCycles(tile, swizzle) + countTileFillCycles(tile, swizzle);
    if (cycles < bestCycles) {
      best = swizzle;
      bestCycles = cycles;
    }
  }
  return best;
}
