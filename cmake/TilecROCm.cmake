#===- TilecROCm.cmake - The ROCm toolkit layout MLIR's serializer wants -===#
#
# MLIR compiles AMD kernels with <toolkit>/amdgcn/bitcode (the ROCm device
# libraries) and <toolkit>/llvm/bin/ld.lld. Debian installs the two in other
# places; this makes a toolkit directory of links to them at
# lib/tilec/rocm, beside the tilec binary, where tilec looks by default.
#
#===----------------------------------------------------------------------===#

find_path(TILEC_ROCM_BITCODE_DIR ocml.bc
  PATHS /usr/lib/x86_64-linux-gnu/amdgcn/bitcode
        /usr/lib/aarch64-linux-gnu/amdgcn/bitcode
        /opt/rocm/amdgcn/bitcode
  DOC "The ROCm device libraries (ocml.bc, ockl.bc, ...)")

set(TILEC_ROCM_TOOLKIT_DIR ${CMAKE_BINARY_DIR}/lib/tilec/rocm)
if(TILEC_ROCM_BITCODE_DIR AND TILEC_LLD_EXECUTABLE)
  file(MAKE_DIRECTORY ${TILEC_ROCM_TOOLKIT_DIR}/amdgcn
                      ${TILEC_ROCM_TOOLKIT_DIR}/llvm/bin)
  file(CREATE_LINK ${TILEC_ROCM_BITCODE_DIR}
       ${TILEC_ROCM_TOOLKIT_DIR}/amdgcn/bitcode SYMBOLIC)
  file(CREATE_LINK ${TILEC_LLD_EXECUTABLE}
       ${TILEC_ROCM_TOOLKIT_DIR}/llvm/bin/ld.lld SYMBOLIC)
  set(TILEC_HAS_ROCM ON)
  message(STATUS "AMD targets: device libraries in ${TILEC_ROCM_BITCODE_DIR}")
else()
  set(TILEC_HAS_ROCM OFF)
  message(STATUS "AMD targets: no ROCm device libraries found "
                 "(Debian: rocm-device-libs); hsaco output is disabled")
endif()
