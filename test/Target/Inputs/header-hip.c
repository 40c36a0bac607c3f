/* HeaderHIP.h.in compiled on its own: its placeholders as macros that stand
   for what tilec fills in, its flags given with -D. Included twice: the
   include guard. */

#define TILEC_ARCH_LITERAL "gfx90a,gfx942"
#define TILEC_KERNEL_COUNT 1

#if TILEC_MULTI_IMAGE
#define TILEC_BINARIES                                                         \
  static TILEC_PREFIX_ALIGNED_ const unsigned char                             \
      tilec_prefix_binary_0_gfx90a[] = {0x00};                                 \
  static TILEC_PREFIX_ALIGNED_ const unsigned char                             \
      tilec_prefix_binary_1_gfx942[] = {0x00};
#define TILEC_IMAGE_CANDIDATES                                                 \
  if (strncmp(properties.gcnArchName, "gfx90a", 6) == 0 &&                     \
      (properties.gcnArchName[6] == '\0' ||                                    \
       properties.gcnArchName[6] == ':')) {                                    \
    *image = tilec_prefix_binary_0_gfx90a;                                     \
    *index = 0;                                                                \
    return hipSuccess;                                                         \
  }                                                                            \
  if (strncmp(properties.gcnArchName, "gfx942", 6) == 0 &&                     \
      (properties.gcnArchName[6] == '\0' ||                                    \
       properties.gcnArchName[6] == ':')) {                                    \
    *image = tilec_prefix_binary_1_gfx942;                                     \
    *index = 1;                                                                \
    return hipSuccess;                                                         \
  }
#define TILEC_IMAGE_ARG , &image
#else
#define TILEC_BINARIES                                                         \
  static TILEC_PREFIX_ALIGNED_ const unsigned char tilec_prefix_binary[] = {   \
      0x00};
#define TILEC_IMAGE_ARG
#endif

#if TILEC_HAS_KERNELS
#define TILEC_GET_FUNCTIONS                                                    \
  err = hipModuleGetFunction(&entry->functions[0], module, "k");
#define TILEC_KERNELS                                                          \
  static inline hipError_t k_launch(hipStream_t stream) {                      \
    hipFunction_t function;                                                    \
    unsigned image;                                                            \
    hipError_t err = tilec_prefix_function_(0, &function TILEC_IMAGE_ARG);     \
    (void)image;                                                               \
    if (err != hipSuccess)                                                     \
      return err;                                                              \
    return hipModuleLaunchKernel(function, 1, 1, 1, 64, 1, 1, 0, stream, NULL, \
                                 NULL);                                        \
  }
#else
#define TILEC_GET_FUNCTIONS
#define TILEC_KERNELS
#endif

#include "HeaderHIP.h.in"
/* Again: the include guard keeps the second copy out. */
#include "HeaderHIP.h.in"
