# Embeds text files in tilec: tilec_embed_text(<target> <name> <file>...)
# adds a target that, at build time, turns each <file> (relative to the
# current source directory) into <file>.inc in the current binary directory:
# `static const char <Var>[]`, the file's bytes and a NUL, where <Var> is
# the file's name up to its first dot, e.g. HeaderCUDA.h.in gives
# headerCUDA. A char array rather than a string literal: compilers limit
# the length of a literal (MSVC to 16 KiB a piece), not of an array.
#
# Run as a script (cmake -DINPUT=... -DOUTPUT=... -DVAR=... -P this file), it
# writes one such header.

if(CMAKE_SCRIPT_MODE_FILE)
  file(READ "${INPUT}" hex HEX)
  # '\x2f', ... twelve to a line.
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1', " bytes "${hex}")
  string(REPEAT "'[^']*', " 12 twelve)
  string(REGEX REPLACE "(${twelve})" "\\1\n  " bytes "${bytes}")
  string(REGEX REPLACE " +\n" "\n" bytes "${bytes}")
  get_filename_component(source "${INPUT}" NAME)
  file(WRITE "${OUTPUT}"
    "// Generated from ${source} by TilecEmbedText.cmake; do not edit.\n"
    "static const char ${VAR}[] = {\n  ${bytes}'\\0'};\n")
  return()
endif()

set(TILEC_EMBED_TEXT_SCRIPT ${CMAKE_CURRENT_LIST_FILE})

function(tilec_embed_text target)
  set(outputs)
  foreach(file ${ARGN})
    get_filename_component(name ${file} NAME)
    string(REGEX REPLACE "\\..*" "" var ${name})
    # HeaderCUDA -> headerCUDA: a variable's name.
    string(SUBSTRING ${var} 0 1 first)
    string(SUBSTRING ${var} 1 -1 rest)
    string(TOLOWER ${first} first)
    set(output ${CMAKE_CURRENT_BINARY_DIR}/${name}.inc)
    add_custom_command(OUTPUT ${output}
      COMMAND ${CMAKE_COMMAND} -DINPUT=${CMAKE_CURRENT_SOURCE_DIR}/${file}
              -DOUTPUT=${output} -DVAR=${first}${rest}
              -P ${TILEC_EMBED_TEXT_SCRIPT}
      DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${file} ${TILEC_EMBED_TEXT_SCRIPT}
      COMMENT "Embedding ${file}"
      VERBATIM)
    list(APPEND outputs ${output})
  endforeach()
  add_custom_target(${target} DEPENDS ${outputs})
endfunction()
