# cmake -DTOOL=iolens "-DOBJS=a.o|b.o|..." -P check_tool_links.cmake
# The design's rule "the tools read logs and never link the runtime", checked on
# the built binary: fails if TOOL defines any global symbol that one of the
# runtime's objects OBJS defines.  The settings the tools share with the runtime
# live in libiolens-config (src/config/), which is not a runtime object.
cmake_policy(VERSION 3.20)
include(${CMAKE_CURRENT_LIST_DIR}/nm_symbols.cmake)

string(REPLACE "|" ";" objs "${OBJS}")
iol_defined_symbols(runtime_syms "BDRTV" ${objs})
iol_defined_symbols(tool_syms "BDRTV" ${TOOL})
list(LENGTH runtime_syms n_rt)
# Guards against a check that passes because it saw nothing: the runtime objects
# define the core's functions, and the tool (not stripped) shows the settings code.
if(n_rt LESS 50 OR NOT "iol_core_shutdown" IN_LIST runtime_syms)
  message(FATAL_ERROR "only ${n_rt} runtime symbols found: the check cannot see the runtime")
endif()
if(NOT "iol_config_load" IN_LIST tool_syms)
  message(FATAL_ERROR "${TOOL} has no iol_config_load: stripped, or settings not linked")
endif()
set(shared "")
foreach(s ${runtime_syms})
  if(s IN_LIST tool_syms)
    list(APPEND shared ${s})
  endif()
endforeach()
if(shared)
  message(FATAL_ERROR "${TOOL} links runtime code (symbols of src/runtime objects): ${shared}")
endif()
message(STATUS "${TOOL} shares none of the ${n_rt} runtime symbols")
