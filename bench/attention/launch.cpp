// A C entry point around one tilec FlashAttention kernel, for bench.py to
// call through ctypes with torch's tensors and stream, so that tilec and
// torch's SDPA backends are timed the same way in one process.
//
// Build as a shared library with -include the kernel's header.
#include <cuda.h>

#include <cstdint>

extern "C" int tilecFlashAttention(void *stream, uint64_t q, uint64_t k,
                                   uint64_t v, uint64_t o) {
  return flashattn_launch(static_cast<CUstream>(stream), q, k, v, o);
}
