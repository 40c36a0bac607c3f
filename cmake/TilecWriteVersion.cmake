# Writes OUTPUT, a C++ fragment naming tilec's version and the commit it is
# built from, when either changed: run at every build, so the commit stays
# current without reconfiguring, and rewrites nothing otherwise.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -DVERSION=... -P TilecWriteVersion.cmake
execute_process(
  COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE failed ERROR_QUIET)
if(failed OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(
    COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
    OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT changes STREQUAL "")
    string(APPEND commit ", with local changes")
  endif()
endif()
set(text "#define TILEC_VERSION_STRING \"${VERSION}\"\n#define TILEC_COMMIT_STRING \"${commit}\"\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUTPUT}" "${text}")
