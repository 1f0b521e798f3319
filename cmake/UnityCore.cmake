# MBARRIER_UNITY_CORE=ON (the default, and the install's build): the core is
# compiled as two translation units, every source of dialect/lib (the IR) in
# one and every source of passes/lib in the other, instead of one per library.
#
# Why: the C++ front end spends most of a library's compile parsing MLIR's
# NVVM, LLVM, GPU and SCF headers (about 40 s of GCC for them together, of
# which NVVMDialect.h alone is about 30 s). Eight libraries parse them eight
# times; a shared precompiled header parses them once but GCC spends about
# 55 s more writing it (1 GB), and every other compile waits for it. Two
# translation units parse them twice, in parallel on two cores. Measured on
# the same sources (bench/build/layout_cost.sh, BENCHMARKS.md "Build").
#
# The libraries stay what they are: each leaf's add_mlir_*_library target,
# with its sources and LINK_LIBS, is still defined and builds on its own
# (`ninja MBarrierSyncCheck`), it is only left out of the default build;
# MBARRIER_UNITY_CORE=OFF builds the core from them.
set(_unity_dialect)
set(_unity_passes)
foreach(_lib ${MBARRIER_LIBS})
  get_target_property(_srcs obj.${_lib} SOURCES)
  get_target_property(_dir obj.${_lib} SOURCE_DIR)
  foreach(_s ${_srcs})
    if(NOT _s MATCHES "\\.cpp$")
      continue()
    endif()
    if(NOT IS_ABSOLUTE "${_s}")
      set(_s "${_dir}/${_s}")
    endif()
    if(_s MATCHES "^${PROJECT_SOURCE_DIR}/dialect/")
      list(APPEND _unity_dialect "${_s}")
    else()
      list(APPEND _unity_passes "${_s}")
    endif()
  endforeach()
  set_target_properties(obj.${_lib} ${_lib} PROPERTIES EXCLUDE_FROM_ALL ON)
endforeach()
add_library(MBarrierUnityDialectObj OBJECT ${_unity_dialect})
add_library(MBarrierUnityPassesObj OBJECT ${_unity_passes})
foreach(_obj MBarrierUnityDialectObj MBarrierUnityPassesObj)
  add_dependencies(${_obj} ${MBARRIER_INCGEN} MBarrierInterfacesIncGen)
  set_target_properties(${_obj} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
  mbarrier_mlir_cxx(${_obj})
endforeach()
add_library(MBarrierCore STATIC $<TARGET_OBJECTS:MBarrierUnityDialectObj>
  $<TARGET_OBJECTS:MBarrierUnityPassesObj> $<TARGET_OBJECTS:MBarrierCAPIObj>)
