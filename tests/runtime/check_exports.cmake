# cmake -DLIB=libiolens.so -DLIST=intercept.def [-DLIST2=hdf5.def] [-DLIST3=intercept_modules.def]
#       [-DLIST4=daos_fns.def] -P check_exports.cmake
# Fails unless the dynamic symbols defined by LIB are exactly the names in LIST.
# LIST3 (optional): the module files' lines (<build>/src/runtime/generated/
# intercept_modules.def); both are read as the build reads them (modules.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/../../src/runtime/modules.cmake)
iol_intercept_names(want ${LIST} ${LIST3})
# LIST2, LIST4 (optional): wrappers/hdf5.def and wrappers/daos_fns.def, whose
# IOL_H5_FN and IOL_DAOS_FN lines are exported too.
if(LIST2)
  iol_library_wrapper_names(h5 ${LIST2} IOL_H5_FN)
  list(APPEND want ${h5})
endif()
if(LIST4)
  iol_library_wrapper_names(daos ${LIST4} IOL_DAOS_FN)
  list(APPEND want ${daos})
endif()
include(${CMAKE_CURRENT_LIST_DIR}/nm_symbols.cmake)
iol_defined_symbols(have "A-Za-z" -D -- ${LIB})
list(SORT want)
if(NOT want STREQUAL have)
  message(FATAL_ERROR "exports differ from intercept.def:\n want: ${want}\n have: ${have}")
endif()
list(LENGTH want n)
message(STATUS "${n} exported wrappers match intercept.def")
