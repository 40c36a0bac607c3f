#===- TilecToolchain.cmake - Linker and compiler cache selection ---------===#
#
# MLIR tools link hundreds of static libraries; GNU ld needs minutes for
# that, lld needs seconds. ccache makes rebuilds of a clean tree cheap.
#
#===----------------------------------------------------------------------===#

option(TILEC_USE_LLD "Link with lld when it is available" ON)
option(TILEC_USE_CCACHE "Compile through ccache when it is available" ON)

if(TILEC_USE_LLD)
  find_program(TILEC_LLD_EXECUTABLE NAMES ld.lld-22 ld.lld
    HINTS /usr/lib/llvm-22/bin)
  if(TILEC_LLD_EXECUTABLE)
    get_filename_component(_tilec_lld_dir "${TILEC_LLD_EXECUTABLE}" DIRECTORY)
    # -fuse-ld=lld looks the linker up by name; give GCC the directory too.
    set(_tilec_lld_flags "-fuse-ld=lld -B${_tilec_lld_dir}")
    string(APPEND CMAKE_EXE_LINKER_FLAGS " ${_tilec_lld_flags}")
    string(APPEND CMAKE_SHARED_LINKER_FLAGS " ${_tilec_lld_flags}")
    string(APPEND CMAKE_MODULE_LINKER_FLAGS " ${_tilec_lld_flags}")
    message(STATUS "Linking with ${TILEC_LLD_EXECUTABLE}")
  endif()
endif()

if(TILEC_USE_CCACHE)
  find_program(TILEC_CCACHE_EXECUTABLE ccache)
  if(TILEC_CCACHE_EXECUTABLE)
    set(CMAKE_C_COMPILER_LAUNCHER ${TILEC_CCACHE_EXECUTABLE})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${TILEC_CCACHE_EXECUTABLE})
    message(STATUS "Compiling through ${TILEC_CCACHE_EXECUTABLE}")
  endif()
endif()
