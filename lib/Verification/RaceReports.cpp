//===- RaceReports.cpp - What the race verifier says of a race ------------===//
//
// Part of tilec. The race verifier's errors: the two threads, their blocks
// and the element both write, named as the kernel's source names them.
//
//===----------------------------------------------------------------------===//

#include "RaceVerifier.h"
#include "tilec/Dialect/Tile/Transforms/Utils.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace tilec;
using namespace tilec::tile;

namespace tilec::tile::races {

std::string RaceVerifier::bufferName(const Write &write) {
  if (!write.shared)
    return "'" +
           kernel.argName(cast<BlockArgument>(write.buffer).getArgNumber()) +
           "'";
  if (Operation *def = write.buffer.getDefiningOp())
    if (auto loc = dyn_cast<NameLoc>(def->getLoc()))
      return ("shared buffer '" + loc.getName().getValue() + "'").str();
  return "a shared buffer";
}

std::string RaceVerifier::describeBlock(ArrayRef<int64_t> values) {
  static const char *const axes[] = {"bx", "by", "bz"};
  SmallVector<std::string> parts;
  for (auto [axis, value] : llvm::enumerate(values))
    parts.push_back(
        llvm::formatv("{0} = {1}", axis < 3 ? axes[axis] : "b", value).str());
  std::string joined = llvm::join(parts, ", ");
  return parts.size() == 1 ? "block " + joined : "block (" + joined + ")";
}

std::string RaceVerifier::describeElement(const Write &write,
                                          ArrayRef<int64_t> indices) {
  SmallVector<std::string> parts;
  for (int64_t index : indices)
    parts.push_back(std::to_string(index));
  // A swizzled tile's element, where the swizzle puts it.
  if (write.swizzle && !indices.empty()) {
    int64_t swizzled = write.swizzle.apply(indices.back());
    parts.back() = std::to_string(swizzled / write.tileCols);
    parts.push_back(std::to_string(swizzled % write.tileCols));
  }
  return "[" + llvm::join(parts, ", ") + "]";
}

bool RaceVerifier::reportRace(const Write &first, const Write &second,
                              const Concurrency &concurrency) {
  IndexFormulas &f = formulas;
  CounterExample example;
  SmallVector<Formula> evaluate;
  if (ask(first, second, concurrency, /*withPaths=*/true, &example,
          &evaluate) != Proof::Refuted)
    return false;
  VariableCopies &copies = copiesFor(concurrency);
  bool self = &first == &second;
  // Pairs of values, the first execution's and the second's. For a write
  // and itself, the threads are named in the order of their blocks, then
  // of their indices.
  ArrayRef<int64_t> values = example.values;
  unsigned numAxes = kernel.blockIndices().size();
  auto pairAt = [&](unsigned i) {
    return std::make_pair(values[2 * i], values[2 * i + 1]);
  };
  SmallVector<int64_t> firstBlock, secondBlock;
  for (unsigned axis = 0; axis < numAxes; ++axis) {
    firstBlock.push_back(pairAt(1 + axis).first);
    secondBlock.push_back(pairAt(1 + axis).second);
  }
  auto [firstThread, secondThread] = pairAt(0);
  bool swapped = self && std::tie(secondBlock, secondThread) <
                             std::tie(firstBlock, firstThread);
  if (swapped) {
    std::swap(firstThread, secondThread);
    std::swap(firstBlock, secondBlock);
  }
  // The element both write: for vectors, the first element the two share.
  SmallVector<int64_t> element;
  for (unsigned dim = 0; dim < first.indices.size(); ++dim) {
    auto [a, b] = pairAt(1 + numAxes + dim);
    element.push_back(std::max(a, b));
  }
  std::string who;
  if (self)
    who = firstBlock == secondBlock
              ? llvm::formatv("threads {0} and {1} of {2}", firstThread,
                              secondThread, describeBlock(firstBlock))
                    .str()
              : llvm::formatv("thread {0} of {1} and thread {2} of {3}",
                              firstThread, describeBlock(firstBlock),
                              secondThread, describeBlock(secondBlock))
                    .str();
  else
    who = firstBlock == secondBlock
              ? llvm::formatv("thread {0} here and thread {1} there, of {2},",
                              firstThread, secondThread,
                              describeBlock(firstBlock))
                    .str()
              : llvm::formatv("thread {0} of {1} here and thread {2} of {3} "
                              "there",
                              firstThread, describeBlock(firstBlock),
                              secondThread, describeBlock(secondBlock))
                    .str();
  // The rest of the execution: run-time dimensions and loop indices, each
  // with the second execution's value where it differs.
  DenseMap<unsigned, unsigned> original;
  for (auto [from, to] : copies)
    if (from != to)
      original[to] = from;
  DenseMap<unsigned, int64_t> valueOf;
  for (auto [index, value] : example.variables)
    valueOf[index] = value;
  SmallVector<std::string> context;
  for (auto [index, value] : example.variables) {
    const Variable &var = f.variables()[index];
    if (original.count(index) || (var.kind != VariableKind::Dimension &&
                                  var.kind != VariableKind::LoopIndex))
      continue;
    int64_t firstValue = value;
    auto copy = copies.find(index);
    if (copy == copies.end() || copy->second == index ||
        !valueOf.count(copy->second) || valueOf[copy->second] == value) {
      context.push_back(llvm::formatv("{0} = {1}", var.name, value).str());
      continue;
    }
    int64_t secondValue = valueOf[copy->second];
    if (swapped)
      std::swap(firstValue, secondValue);
    context.push_back(
        llvm::formatv("{0} = {1} and {2}", var.name, firstValue, secondValue)
            .str());
  }
  std::string name = bufferName(first);
  InFlightDiagnostic diag = first.op->emitError();
  diag << "this write to " << name << " races";
  if (!self) {
    unsigned line = 0;
    if (auto loc = dyn_cast<FileLineColLoc>(second.op->getLoc()))
      line = loc.getLine();
    diag << " with the one "
         << (line ? llvm::formatv("at line {0}", line).str()
                  : std::string("noted"));
  }
  diag << ": " << who << " both write element "
       << describeElement(first, element);
  if (!context.empty())
    diag << ", when " << llvm::join(context, ", ");
  diag << "; give each element one writer"
       << (first.shared ? ", or separate the writes with a barrier"
           : self       ? ", or make the write atomic (T.atomic_add)"
                        : ", or make the writes atomic (T.atomic_add)");
  if (!self)
    diag.attachNote(second.op->getLoc()) << "the other write";
  failed = true;
  return true;
}

} // namespace tilec::tile::races
