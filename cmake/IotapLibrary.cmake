# iotap_library(NAME SOURCES... [PUBLIC libs...] [PRIVATE libs...]): one static library per
# folder of launcher/. Its public headers are include/iotap/<folder>/ (what other folders may
# include); its other headers are private to it, reachable by tests through <NAME>_internals.
function(iotap_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}/include"
                                     PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${name} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE})
  add_library(${name}_internals INTERFACE)
  target_include_directories(${name}_internals INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}")
  target_link_libraries(${name}_internals INTERFACE ${name})
endfunction()
