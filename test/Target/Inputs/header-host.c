/* HeaderHost.h.in compiled on its own: its placeholders as macros that stand
   for what tilec fills in, its flags given with -D. Included twice: the
   include guard. */

#if TILEC_HAS_BOOL
#define TILEC_KERNELS                                                          \
  void tilec_host_k_(void *, bool);                                            \
  static inline int k_run(void *x, bool flag) {                                \
    if (x == NULL)                                                             \
      return TILEC_HOST_INVALID_VALUE;                                         \
    tilec_host_k_(x, flag);                                                    \
    return TILEC_HOST_SUCCESS;                                                 \
  }
#else
#define TILEC_KERNELS
#endif

#include "HeaderHost.h.in"
/* Again: the include guard keeps the second copy out. */
#include "HeaderHost.h.in"
