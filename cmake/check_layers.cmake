# check_layers.cmake: fails when a source file includes a header from a layer its
# folder may not use, names a project header without its folder, or (in the
# headless layers) includes a UI or platform header. Run by ctest
# ("layers: includes point one way only") as: cmake -DROOT=<source dir> -P check_layers.cmake
#
# A folder may include itself and the folders listed after its colon.
set(RULES
  "src/base:"
  "src/attn:base"
  "src/data:base,attn"
  "src/train:base,attn,data"
  "src/course:base"
  "src/demos:base,attn,data,train,course"
  "src/experiments:base,attn,data,train,course,demos"
  "src/lab:base,attn,data,train,course,demos,experiments"
  "src/cli:base,attn,data,train"
  "src/ui:base,course"
  "src/platform:"
  "src/app:base,attn,data,train,course,demos,experiments,lab,ui,platform"
  "src/bench:base,attn,data,train"
  "tests/support:base"
  "tests/base:base,support"
  "tests/attn:base,attn,support"
  "tests/data:base,attn,data,support"
  "tests/train:base,attn,data,train,support"
  "tests/experiments:base,attn,data,train,course,demos,experiments,support"
  "tests/lab:base,attn,data,train,course,demos,experiments,lab,support"
  "tests/cli:base,attn,data,train,cli,support"
  "tests/fuzz:base,attn,data,train,course,demos,experiments,lab,cli")
set(LAYERS base attn data train course demos experiments lab cli ui platform app bench support fuzz)
# Headless layers never see a window, a GPU or the browser.
set(HEADLESS src/base src/attn src/data src/train src/course src/demos src/experiments src/lab src/cli)

if(NOT ROOT)
  message(FATAL_ERROR "usage: cmake -DROOT=<source dir> -P check_layers.cmake")
endif()
set(problems "")
set(checked 0)
# Every folder that holds C++ needs a rule, so a new folder cannot slip past.
set(ruled "")
foreach(rule ${RULES})
  string(REGEX REPLACE ":.*" "" folder "${rule}")
  list(APPEND ruled "${folder}")
endforeach()
file(GLOB_RECURSE all_sources RELATIVE "${ROOT}" "${ROOT}/src/*.h" "${ROOT}/src/*.cpp"
     "${ROOT}/tests/*.h" "${ROOT}/tests/*.cpp")
foreach(f ${all_sources})
  string(REGEX MATCH "^(src|tests)/[^/]+" folder "${f}")
  list(FIND ruled "${folder}" has_rule)
  if(has_rule LESS 0)
    string(APPEND problems "  ${f}: ${folder} has no rule in cmake/check_layers.cmake\n")
  endif()
endforeach()
foreach(rule ${RULES})
  string(REGEX REPLACE ":.*" "" folder "${rule}")
  string(REGEX REPLACE "^[^:]*:" "" allowed "${rule}")
  string(REPLACE "," ";" allowed "${allowed}")
  get_filename_component(self "${folder}" NAME)
  list(APPEND allowed "${self}")
  file(GLOB_RECURSE files RELATIVE "${ROOT}" "${ROOT}/${folder}/*.h" "${ROOT}/${folder}/*.cpp")
  foreach(f ${files})
    math(EXPR checked "${checked} + 1")
    file(STRINGS "${ROOT}/${f}" lines REGEX "^[ \t]*#[ \t]*include")
    foreach(line ${lines})
      if(line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
        set(inc "${CMAKE_MATCH_1}")
        if(NOT inc MATCHES "/")
          string(APPEND problems "  ${f}: \"${inc}\" does not name its folder\n")
          continue()
        endif()
        string(REGEX REPLACE "/.*" "" top "${inc}")
        list(FIND LAYERS "${top}" known)
        list(FIND allowed "${top}" ok)
        if(known LESS 0)
          string(APPEND problems "  ${f}: \"${inc}\" is not in a known folder\n")
        elseif(ok LESS 0)
          string(APPEND problems "  ${f}: \"${inc}\" is from ${top}, which ${folder} may not include\n")
        endif()
      elseif(line MATCHES "#[ \t]*include[ \t]*<((imgui|SDL|emscripten|GL|GLES)[^>]*)>")
        list(FIND HEADLESS "${folder}" headless)
        if(headless GREATER -1)
          string(APPEND problems "  ${f}: <${CMAKE_MATCH_1}> is UI or platform, and ${folder} is headless\n")
        endif()
      endif()
    endforeach()
  endforeach()
endforeach()
if(checked EQUAL 0)
  message(FATAL_ERROR "check_layers: no source files found under ${ROOT}")
endif()
if(problems)
  message(FATAL_ERROR "check_layers: includes that break the layering:\n${problems}")
endif()
message(STATUS "check_layers: ${checked} files, every include points down")
