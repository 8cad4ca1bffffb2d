# The MPI runtimes of one MPI (src/runtime/CMakeLists.txt, docs/mpi.md): which MPI
# a compiler wrapper is, and the three libraries built for it from the shared
# object libraries plus its own <mpi.h> objects.

# iol_mpi_flavour(OUT text): openmpi, mpich or mpi, from a text naming the MPI's
# library or version.
function(iol_mpi_flavour out text)
  if(text MATCHES "Open MPI|openmpi|-lmpi( |$)")
    set(${out} openmpi PARENT_SCOPE)
  elseif(text MATCHES "MPICH|mpich")
    set(${out} mpich PARENT_SCOPE)
  else()
    set(${out} mpi PARENT_SCOPE)
  endif()
endfunction()

# iol_mpi_target(OUT_TARGET OUT_FLAVOUR wrapper): an imported target iolens-mpi-<flavour>
# with the compile and link flags the MPI compiler wrapper (mpicc.mpich, mpicc.openmpi)
# shows, and the MPI's name; OUT_TARGET empty when the wrapper is not found or
# shows nothing.  MPICH's wrapper answers -show, Open MPI's -showme.
function(iol_mpi_target out_target out_flavour wrapper)
  set(${out_target} "" PARENT_SCOPE)
  find_program(IOL_MPI_WRAPPER_${wrapper} NAMES ${wrapper})
  if(NOT IOL_MPI_WRAPPER_${wrapper})
    return()
  endif()
  foreach(opt -show -showme)
    execute_process(COMMAND ${IOL_MPI_WRAPPER_${wrapper}} ${opt}
                    OUTPUT_VARIABLE shown OUTPUT_STRIP_TRAILING_WHITESPACE
                    RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND shown)
      break()
    endif()
    set(shown "")
  endforeach()
  if(NOT shown)
    return()
  endif()
  iol_mpi_flavour(flavour "${shown}")
  separate_arguments(words UNIX_COMMAND "${shown}")
  list(POP_FRONT words)                       # the compiler itself
  set(incs "")
  set(links "")
  foreach(w ${words})
    if(w MATCHES "^-I(.+)")
      list(APPEND incs ${CMAKE_MATCH_1})
    elseif(w MATCHES "^-(L|l|Wl,|pthread)")
      list(APPEND links ${w})
    endif()
  endforeach()
  set(target iolens-mpi-${flavour})
  if(NOT TARGET ${target})
    add_library(${target} INTERFACE IMPORTED)
    # SYSTEM: the MPI's headers are not ours to warn about (-Werror builds).
    set_target_properties(${target} PROPERTIES
      INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${incs}"
      INTERFACE_INCLUDE_DIRECTORIES "${incs}"
      INTERFACE_LINK_LIBRARIES "${links}")
  endif()
  set(${out_target} ${target} PARENT_SCOPE)
  set(${out_flavour} ${flavour} PARENT_SCOPE)
endfunction()

# iol_mpi_runtimes(flavour mpi_target suffix dir): for one MPI, the targets
#   iolens-runtime-mpi<suffix>         libiolens-mpi.so, preloadable
#   iolens-runtime-mpi-static<suffix>  libiolens-mpi.a, for static links
#   iolens-runtime-mpi-wrap<suffix>    libiolens-mpi-wrap.a, for GNU ld --wrap links
# in dir, plus the --wrap option file there.  Only the sources that include <mpi.h>
# are compiled for this MPI (iolens-rt-mpi-<flavour>); the rest are the shared
# object libraries'.  The tree's own MPI (suffix "") installs its shared runtime in
# <libdir>; every MPI installs its link files (and a further MPI its shared
# runtime) in <libdir>/iolens/<flavour>/, component iolens-mpi-link.
function(iol_mpi_runtimes flavour mpi_target suffix dir)
  set(link_dest ${CMAKE_INSTALL_LIBDIR}/iolens/${flavour})
  iol_runtime_objects(iolens-rt-mpi-${flavour} MPI ${mpi_target} SOURCES ${IOL_MPI_H_SOURCES_STATIC})
  iol_runtime_objects(iolens-rt-mpi-${flavour}-dyn NO_WRAP MPI ${mpi_target}
                      SOURCES ${IOL_MPI_H_SOURCES_DYN})
  set(shared iolens-runtime-mpi${suffix})
  set(static iolens-runtime-mpi-static${suffix})
  set(wrap iolens-runtime-mpi-wrap${suffix})

  add_library(${shared} SHARED ${iolens-rt_OBJECTS} ${iolens-rt-dyn_OBJECTS}
    ${iolens-rt-mpi_OBJECTS} ${iolens-rt-mpi-dyn_OBJECTS}
    ${iolens-rt-mpi-${flavour}_OBJECTS} ${iolens-rt-mpi-${flavour}-dyn_OBJECTS}
    ${iolens-rt-table-mpi_OBJECTS})
  set_target_properties(${shared} PROPERTIES OUTPUT_NAME iolens-mpi
    LIBRARY_OUTPUT_DIRECTORY ${dir} LINK_DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/iolens-mpi.map)
  target_link_libraries(${shared} PRIVATE iolens-config iolens-log ${mpi_target}
                        ${CMAKE_DL_LIBS} pthread m)
  target_link_options(${shared} PRIVATE
    -Wl,--version-script=${CMAKE_CURRENT_BINARY_DIR}/iolens-mpi.map -Wl,--exclude-libs,ALL)
  if(suffix STREQUAL "")
    install(TARGETS ${shared} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
    # A second MPI's runtime installed beside the first (cmake --install build-mpich
    # --component iolens-mpi-link) brings its preloadable library into its own
    # directory; a full install has it in <libdir> already.
    install(TARGETS ${shared} LIBRARY DESTINATION ${link_dest}
            COMPONENT iolens-mpi-link EXCLUDE_FROM_ALL)
  else()
    install(TARGETS ${shared} LIBRARY DESTINATION ${link_dest} COMPONENT iolens-mpi-link)
  endif()

  # libiolens-mpi.a: the same runtime (format library included) for static links:
  # `iolens config --pre-ld-flags` / `--post-ld-flags` give the link line.
  add_library(${static} STATIC ${iolens-rt_OBJECTS} ${iolens-rt-mpi_OBJECTS}
    ${iolens-rt-mpi-${flavour}_OBJECTS} ${iolens-rt-table-static_OBJECTS} ${IOL_FORMAT_OBJECTS})
  set_target_properties(${static} PROPERTIES OUTPUT_NAME iolens-mpi ARCHIVE_OUTPUT_DIRECTORY ${dir})
  install(TARGETS ${static} ARCHIVE DESTINATION ${link_dest} COMPONENT iolens-mpi-link)

  # libiolens-mpi-wrap.a: the same for a GNU ld --wrap link (docs/mpi.md, "Static
  # links"), with the IOL_STATIC_WRAP objects, its wrappers renamed __wrap_<fn>.
  if(IOL_OBJCOPY)
    add_library(${wrap} STATIC ${iolens-rt_WRAP_OBJECTS} ${iolens-rt-mpi_WRAP_OBJECTS}
      ${iolens-rt-mpi-${flavour}_WRAP_OBJECTS} ${iolens-rt-table-static_WRAP_OBJECTS}
      ${IOL_FORMAT_OBJECTS})
    set_target_properties(${wrap} PROPERTIES OUTPUT_NAME iolens-mpi-wrap ARCHIVE_OUTPUT_DIRECTORY ${dir})
    add_custom_command(TARGET ${wrap} POST_BUILD
      COMMAND ${IOL_OBJCOPY} --redefine-syms=${CMAKE_CURRENT_BINARY_DIR}/iolens-wrap-redefs
              $<TARGET_FILE:${wrap}>
      COMMAND ${CMAKE_RANLIB} $<TARGET_FILE:${wrap}>
      COMMENT "Renaming the wrappers to __wrap_<fn> in ${flavour}'s libiolens-mpi-wrap.a" VERBATIM)
    file(WRITE ${dir}/iolens-mpi-ld-opts "${IOL_WRAP_OPTS}")
    install(TARGETS ${wrap} ARCHIVE DESTINATION ${link_dest} COMPONENT iolens-mpi-link)
    install(FILES ${dir}/iolens-mpi-ld-opts DESTINATION ${link_dest} COMPONENT iolens-mpi-link)
  endif()
endfunction()
