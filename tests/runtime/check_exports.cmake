# cmake -DLIB=libiolens.so -DLIST=intercept.def [-DLIST2=hdf5.def] [-DLIST3=intercept_modules.def]
#       [-DLIST4=daos_fns.def] -P check_exports.cmake
# Fails unless the dynamic symbols defined by LIB are exactly the names in LIST.
# LIST3 (optional): the module files' lines (<build>/src/runtime/generated/
# intercept_modules.def); both are read as the build reads them (modules.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/../../src/runtime/modules.cmake)
iol_intercept_names(want ${LIST} ${LIST3})
# LIST2 (optional): wrappers/hdf5.def, whose IOL_H5_FN lines are exported too.
if(LIST2)
  file(STRINGS ${LIST2} lines2 REGEX "^IOL_H5_FN\\(")
  foreach(line ${lines2})
    string(REGEX REPLACE "^IOL_H5_FN\\([^,]+, *([A-Za-z0-9_]+),.*" "\\1" fn "${line}")
    list(APPEND want ${fn})
  endforeach()
endif()
# LIST4 (optional): wrappers/daos_fns.def, whose IOL_DAOS_FN lines are exported too.
if(LIST4)
  file(STRINGS ${LIST4} lines4 REGEX "^IOL_DAOS_FN\\(")
  foreach(line ${lines4})
    string(REGEX REPLACE "^IOL_DAOS_FN\\([^,]+, *([A-Za-z0-9_]+),.*" "\\1" fn "${line}")
    list(APPEND want ${fn})
  endforeach()
endif()
include(${CMAKE_CURRENT_LIST_DIR}/nm_symbols.cmake)
iol_defined_symbols(have "A-Za-z" -D -- ${LIB})
list(SORT want)
if(NOT want STREQUAL have)
  message(FATAL_ERROR "exports differ from intercept.def:\n want: ${want}\n have: ${have}")
endif()
list(LENGTH want n)
message(STATUS "${n} exported wrappers match intercept.def")
