#===- TilecFunctions.cmake - Kernel libraries from .tile files -----------===#
#
# tilec_add_kernel_library(<target>
#   SOURCES a.tile [b.tile ...]
#   ARCHS sm_80 sm_90a [...]          (one runtime: NVIDIA or AMD targets,
#                                      or host alone: the CPU)
#   [DEFINES NAME=VALUE ...]          (tilec -D)
#   [KERNELS name ...]                (only these kernels)
#   [OPTIONS --fast-math -O2 ...]     (more tilec flags)
#   [HEADER_VAR <variable>])          (set to the generated headers' paths)
#
# Compiles each .tile file with Tilec::tilec into <stem>.h, a header that
# embeds a binary for every target in ARCHS and loads the one that suits the
# device (docs/abi.md). <target> is an INTERFACE library: linking it puts the
# headers on the include path and links the runtime (the CUDA driver or
# HIP) and the threads library the headers' lock uses. The headers are
# rebuilt when a .tile file, a DEFINE, an option or tilec itself changes.
# With ARCHS host, each file becomes <stem>.o and <stem>.h for the host
# target (docs/host.md) and <target> is a static library of the objects
# that also links libm.
#
#===----------------------------------------------------------------------===#

include_guard(GLOBAL)

function(tilec_add_kernel_library target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG
    "" "HEADER_VAR" "SOURCES;ARCHS;DEFINES;KERNELS;OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR
      "tilec_add_kernel_library(${target}): unknown arguments "
      "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR
      "tilec_add_kernel_library(${target}): give the .tile files with SOURCES")
  endif()
  if(NOT ARG_ARCHS)
    message(FATAL_ERROR
      "tilec_add_kernel_library(${target}): give the targets with ARCHS, "
      "e.g. ARCHS sm_80 sm_90a")
  endif()
  if(NOT TARGET Tilec::tilec)
    message(FATAL_ERROR
      "tilec_add_kernel_library(${target}): no Tilec::tilec; "
      "find_package(Tilec) first")
  endif()

  # One runtime per library: the headers of NVIDIA and AMD targets differ.
  set(amd OFF)
  set(nvidia OFF)
  set(host OFF)
  foreach(arch IN LISTS ARG_ARCHS)
    if(arch STREQUAL "host")
      set(host ON)
    elseif(arch MATCHES "^gfx[0-9a-f]+$")
      set(amd ON)
    elseif(arch MATCHES "^sm_[0-9]+a?$")
      set(nvidia ON)
    else()
      message(FATAL_ERROR
        "tilec_add_kernel_library(${target}): '${arch}' in ARCHS is not a "
        "target (sm_80, sm_90a, gfx942, host, ...; tilec --help lists the "
        "GPUs)")
    endif()
  endforeach()
  if(amd AND nvidia)
    message(FATAL_ERROR
      "tilec_add_kernel_library(${target}): ARCHS mixes NVIDIA and AMD "
      "targets; make one library for each")
  endif()
  if(host AND (amd OR nvidia))
    message(FATAL_ERROR
      "tilec_add_kernel_library(${target}): ARCHS mixes host with GPU "
      "targets; make one library for each")
  endif()

  list(JOIN ARG_ARCHS "," arch_list)
  if(host)
    set(flags --target host)
  else()
    set(flags --arch "${arch_list}")
  endif()
  foreach(define IN LISTS ARG_DEFINES)
    list(APPEND flags -D "${define}")
  endforeach()
  if(ARG_KERNELS)
    list(JOIN ARG_KERNELS "," kernel_list)
    list(APPEND flags --kernel "${kernel_list}")
  endif()
  list(APPEND flags ${ARG_OPTIONS})

  set(include_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}/include")
  set(headers)
  set(objects)
  foreach(source IN LISTS ARG_SOURCES)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}"
               OUTPUT_VARIABLE source_path)
    cmake_path(GET source_path STEM stem)
    set(header "${include_dir}/${stem}.h")
    if(host)
      set(object "${CMAKE_CURRENT_BINARY_DIR}/${target}/${stem}.o")
      add_custom_command(
        OUTPUT "${object}" "${header}"
        COMMAND Tilec::tilec "${source_path}" ${flags} -o "${object}"
                --header "${header}" --depfile "${object}.d"
        DEPENDS "${source_path}" Tilec::tilec "$<TARGET_FILE:Tilec::tilec>"
        DEPFILE "${object}.d"
        COMMENT "Compiling ${source} for the host CPU with tilec"
        VERBATIM)
      list(APPEND objects "${object}")
      list(APPEND headers "${header}")
      continue()
    endif()
    add_custom_command(
      OUTPUT "${header}"
      COMMAND Tilec::tilec "${source_path}" ${flags} --emit=header
              -o "${header}" --depfile "${header}.d"
      DEPENDS "${source_path}" Tilec::tilec "$<TARGET_FILE:Tilec::tilec>"
      DEPFILE "${header}.d"
      COMMENT "Compiling ${source} for ${arch_list} with tilec"
      VERBATIM)
    list(APPEND headers "${header}")
  endforeach()

  if(host)
    # The objects are the library; the headers come with them.
    add_library(${target} STATIC ${objects} ${headers})
    set_target_properties(${target} PROPERTIES LINKER_LANGUAGE C)
    target_include_directories(${target} PUBLIC "${include_dir}")
    find_library(TILEC_LIBM m)
    if(TILEC_LIBM)
      target_link_libraries(${target} PUBLIC "${TILEC_LIBM}")
    endif()
    if(ARG_HEADER_VAR)
      set(${ARG_HEADER_VAR} "${headers}" PARENT_SCOPE)
    endif()
    return()
  endif()

  add_custom_target(${target}_tilec DEPENDS ${headers})
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_tilec)
  target_include_directories(${target} INTERFACE "${include_dir}")
  find_package(Threads REQUIRED)
  if(nvidia)
    find_package(CUDAToolkit REQUIRED)
    target_link_libraries(${target} INTERFACE CUDA::cuda_driver
                                              Threads::Threads)
  else()
    find_package(hip CONFIG QUIET)
    if(TARGET hip::host)
      target_link_libraries(${target} INTERFACE hip::host Threads::Threads)
    else()
      target_compile_definitions(${target} INTERFACE __HIP_PLATFORM_AMD__)
      target_link_libraries(${target} INTERFACE amdhip64 Threads::Threads)
    endif()
  endif()
  if(ARG_HEADER_VAR)
    set(${ARG_HEADER_VAR} "${headers}" PARENT_SCOPE)
  endif()
endfunction()
