#===- TilecSanitizers.cmake - Sanitizer and fuzzer builds -----------------===#
#
# TILEC_SANITIZE=address;undefined instruments tilec's own code (LLVM and
# MLIR come prebuilt) so that the lit suite catches memory errors and
# undefined behaviour; any finding fails the run. TILEC_BUILD_FUZZER adds
# libFuzzer's coverage instrumentation and builds tilec-fuzz; it needs
# Clang (clang-22 from Debian).
#
#===----------------------------------------------------------------------===#

set(TILEC_SANITIZE "" CACHE STRING
  "Sanitizers to build tilec with, e.g. 'address;undefined' (Clang or GCC)")
option(TILEC_BUILD_FUZZER "Build the tilec-fuzz libFuzzer harness (Clang)" OFF)

if(TILEC_BUILD_FUZZER AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "TILEC_BUILD_FUZZER needs Clang (e.g. "
    "-DCMAKE_CXX_COMPILER=clang++-22 -DCMAKE_C_COMPILER=clang-22)")
endif()

if(TILEC_SANITIZE)
  list(JOIN TILEC_SANITIZE "," _tilec_sanitizers)
  # Reports must fail the run, and need frames and line numbers to be read.
  set(_tilec_sanitize_flags -fsanitize=${_tilec_sanitizers}
    -fno-sanitize-recover=all -fno-omit-frame-pointer -gline-tables-only)
  if("undefined" IN_LIST TILEC_SANITIZE AND
     CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    # LLVM is built without RTTI, which the vptr check needs.
    list(APPEND _tilec_sanitize_flags -fno-sanitize=vptr)
  endif()
  add_compile_options(${_tilec_sanitize_flags})
  add_link_options(-fsanitize=${_tilec_sanitizers})
  add_compile_definitions(TILEC_SANITIZER_BUILD=1)
  message(STATUS "Sanitizers: ${_tilec_sanitizers}")
endif()

# Gives an executable the sanitizers' default options for tilec.
function(tilec_add_sanitizer_defaults target)
  if(TILEC_SANITIZE)
    target_sources(${target} PRIVATE
      ${PROJECT_SOURCE_DIR}/tools/common/SanitizerDefaults.cpp)
  endif()
endfunction()

if(TILEC_BUILD_FUZZER)
  # Coverage for every library; only tilec-fuzz links libFuzzer's main.
  add_compile_options(-fsanitize=fuzzer-no-link)
  message(STATUS "Building the libFuzzer harness tilec-fuzz")
endif()
