//===- SanitizerDefaults.cpp - Options for sanitizer builds of the tools --===//
//
// Part of tilec. Linked into each executable of a TILEC_SANITIZE build.
//
//===----------------------------------------------------------------------===//

/// LLVM's headers poison the unused part of each BumpPtrAllocator slab when
/// compiled with AddressSanitizer, but the prebuilt LLVM and MLIR libraries
/// that allocate from those slabs do not unpoison it: ignore manual
/// poisoning so that only real errors are reported.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
