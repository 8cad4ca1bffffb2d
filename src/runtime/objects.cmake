# Which runtime sources a definition or a header reaches, read from the sources'
# text at configure time (src/runtime/CMakeLists.txt uses it to compile each source
# once per set of definitions that changes it; docs/install.md, "One build").
#
# A source "reaches" a pattern when a line of the source, or of a project header it
# includes (#include "..."; transitively), matches the pattern.  System headers are
# not followed: a pattern for one (e.g. "#include *<mpi\\.h>") matches the project
# file that includes it.  The result is exact for the two uses here: real.h reads
# IOL_STATIC_WRAP in both branches of its #ifdef, so every file reaching it
# preprocesses differently under the definition; and every file reaching <mpi.h>
# depends on which MPI's header it is.  The ctest build_compiles_once checks the
# first claim on the built tree: a file compiled with IOL_STATIC_WRAP that read
# nothing naming it would be a duplicate of its plain object.

# iol_sources_matching(OUT regex "incdir;..." source...): the sources (as given)
# whose own text or included project headers have a line matching regex.
function(iol_sources_matching out regex incdirs)
  set(found "")
  foreach(src ${ARGN})
    if(IS_ABSOLUTE ${src})
      set(path ${src})
    else()
      set(path ${CMAKE_CURRENT_SOURCE_DIR}/${src})
    endif()
    _iol_reaches(hit "${regex}" "${incdirs}" ${path})
    if(hit)
      list(APPEND found ${src})
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# _iol_reaches(OUT regex incdirs file): TRUE when file or a project header it
# includes matches regex (breadth first; each file read once per call).
function(_iol_reaches out regex incdirs file)
  set(todo ${file})
  set(seen "")
  while(todo)
    list(POP_FRONT todo f)
    if(f IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${f})
    file(STRINGS ${f} hits REGEX "${regex}")
    if(hits)
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
    get_filename_component(dir ${f} DIRECTORY)
    file(STRINGS ${f} incs REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
    foreach(inc ${incs})
      string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*" "\\1" name "${inc}")
      foreach(d ${dir} ${incdirs})
        if(EXISTS ${d}/${name})
          get_filename_component(next ${d}/${name} ABSOLUTE)
          list(APPEND todo ${next})
          break()
        endif()
      endforeach()
    endforeach()
  endwhile()
  set(${out} FALSE PARENT_SCOPE)
endfunction()
