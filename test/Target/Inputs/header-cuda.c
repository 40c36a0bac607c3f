/* HeaderCUDA.h.in compiled on its own: its placeholders as macros that stand
   for what tilec fills in, its flags given with -D. Included twice: the
   include guard. */

#define TILEC_ARCH_LITERAL "sm_80,sm_90a"
#define TILEC_KERNEL_COUNT 1
#define TILEC_IMAGES_WITH_MAPS index == 1

#if TILEC_MULTI_IMAGE
#define TILEC_BINARIES                                                         \
  static TILEC_PREFIX_ALIGNED_ const unsigned char                             \
      tilec_prefix_binary_0_sm_80[] = {0x00};                                  \
  static TILEC_PREFIX_ALIGNED_ const unsigned char                             \
      tilec_prefix_binary_1_sm_90a[] = {0x00};
#define TILEC_IMAGE_CANDIDATES                                                 \
  if (major == 9 && minor == 0) {                                              \
    *image = tilec_prefix_binary_1_sm_90a;                                     \
    *index = 1;                                                                \
    return CUDA_SUCCESS;                                                       \
  }                                                                            \
  if (major == 8 && minor >= 0) {                                              \
    *image = tilec_prefix_binary_0_sm_80;                                      \
    *index = 0;                                                                \
    return CUDA_SUCCESS;                                                       \
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
  err = cuModuleGetFunction(&entry->functions[0], module, "k");                \
  if (err == CUDA_SUCCESS)                                                     \
    err = cuFuncSetAttribute(entry->functions[0],                              \
                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,  \
                             65536);
#define TILEC_KERNELS                                                          \
  static inline CUresult k_launch(CUstream stream) {                           \
    CUfunction function;                                                       \
    unsigned image;                                                            \
    CUresult err = tilec_prefix_function_(0, &function TILEC_IMAGE_ARG);       \
    (void)image;                                                               \
    if (err != CUDA_SUCCESS)                                                   \
      return err;                                                              \
    return cuLaunchKernel(function, 1, 1, 1, 32, 1, 1, 0, stream, NULL, NULL); \
  }
#else
#define TILEC_GET_FUNCTIONS
#define TILEC_KERNELS
#endif

#include "HeaderCUDA.h.in"
/* Again: the include guard keeps the second copy out. */
#include "HeaderCUDA.h.in"
