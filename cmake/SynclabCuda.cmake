# Building CUDA programs for the simulator (and, optionally, for a real GPU).
#
#   synclab_add_cuda_program(<name>
#       SOURCES <file.cu...>
#       [INCLUDE_DIRS <dir...>] [DEFINES <NAME[=value]...>] [NVCC_FLAGS <flag...>]
#       [DEPENDS <file...>] [NO_GPU])
#
# Simulator build: every source is compiled with ${CMAKE_BINARY_DIR}/bin/synclab-nvcc -c, then the
# objects are linked against simcudart into ${CMAKE_BINARY_DIR}/bin/sim/<name> (by the host compiler,
# or by synclab-nvcc for -rdc programs and flags that may be link options).
# Custom target <name> (in ALL) builds it.
# GPU build (SYNCLAB_BUILD_GPU=ON, unless NO_GPU): the same sources with the real nvcc and cudart
# into ${CMAKE_BINARY_DIR}/bin/gpu/<name>; custom target <name>_gpu (in ALL).
#
# Results, for add_test: variables <name>_SIM_EXE and <name>_GPU_EXE (empty when not built) in the
# caller's scope, and the same paths as target properties SYNCLAB_SIM_EXE / SYNCLAB_GPU_EXE on
# target <name>.
#
# Compiling per source and linking separately lets ninja rebuild only what changed. Header
# dependencies are approximated by a glob of the headers in the include directories and beside
# the sources (a new header is seen at the next configure); DEPENDS names other files the sources
# include (e.g. .cu files included by a source that gathers them).
include_guard(GLOBAL)

set(SYNCLAB_GPU_NVCC_FLAGS -std=c++17 -lineinfo
    -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80
    CACHE STRING "nvcc flags for the GPU builds of CUDA programs")
mark_as_advanced(SYNCLAB_GPU_NVCC_FLAGS)

# _synclab_sim_link(<out-linker> <out-after>): a simulator program linked by the host compiler with
# what synclab-nvcc's link step adds (its -dryrun: libsimcudart with an rpath to its directory,
# -lpthread, and the sanitizer runtimes of a SYNCLAB_SANITIZE build): about 0.4 s of CPU a link
# instead of 1.1 s through the script (nm over every input for -rdc registration glue, and nvcc's
# driver), with the tree's linker (SYNCLAB_LINK_FLAGS, CMakeLists.txt). For programs without
# relocatable device code only: LINKER objects... AFTER -o exe. The labs' programs and the
# grader's link of a submission (cmake/SynclabLab.cmake) use it too.
function(_synclab_sim_link out_linker out_after)
  set(after -L${CMAKE_BINARY_DIR}/lib -lsimcudart -Wl,-rpath,${CMAKE_BINARY_DIR}/lib -lpthread -Wl,--end-group)
  if(SYNCLAB_SANITIZE)
    list(APPEND after -fsanitize=address -fsanitize=undefined)
  endif()
  set(${out_linker} ${CMAKE_CXX_COMPILER} ${SYNCLAB_LINK_FLAGS} -Wl,--start-group PARENT_SCOPE)
  set(${out_after} ${after} PARENT_SCOPE)
endfunction()

function(synclab_add_cuda_program name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "NO_GPU" "" "SOURCES;INCLUDE_DIRS;DEFINES;NVCC_FLAGS;DEPENDS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "synclab_add_cuda_program(${name}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "synclab_add_cuda_program(${name}): no SOURCES given")
  endif()

  # Absolute paths for sources and include directories (relative ones are taken from the
  # calling CMakeLists.txt's directory).
  set(sources)
  set(header_dirs)
  foreach(src IN LISTS ARG_SOURCES)
    cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
    if(NOT EXISTS ${src})
      message(FATAL_ERROR "synclab_add_cuda_program(${name}): source ${src} does not exist")
    endif()
    list(APPEND sources ${src})
    cmake_path(GET src PARENT_PATH src_dir)
    list(APPEND header_dirs ${src_dir})
  endforeach()
  set(include_flags)
  set(default_includes)
  if(IS_DIRECTORY ${CMAKE_SOURCE_DIR}/common/include)
    set(default_includes ${CMAKE_SOURCE_DIR}/common/include)  # labs and tests use common/ headers
  endif()
  foreach(dir IN LISTS ARG_INCLUDE_DIRS default_includes)
    cmake_path(ABSOLUTE_PATH dir BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
    list(APPEND include_flags -I${dir})
    list(APPEND header_dirs ${dir})
  endforeach()
  list(REMOVE_DUPLICATES header_dirs)
  set(headers)
  foreach(dir IN LISTS header_dirs)
    file(GLOB_RECURSE found CONFIGURE_DEPENDS ${dir}/*.h ${dir}/*.cuh ${dir}/*.hpp ${dir}/*.inl)
    list(APPEND headers ${found})
  endforeach()
  set(define_flags)
  foreach(def IN LISTS ARG_DEFINES)
    list(APPEND define_flags -D${def})
  endforeach()
  set(common_flags ${define_flags} ${include_flags} ${ARG_NVCC_FLAGS})

  # ---- simulator build ------------------------------------------------------------------------
  set(sim_nvcc ${CMAKE_BINARY_DIR}/bin/synclab-nvcc)
  set(tool_deps)
  foreach(tool IN ITEMS synclab_nvcc_tool simcudart)
    if(TARGET ${tool})
      list(APPEND tool_deps ${tool})
    endif()
  endforeach()
  if(NOT TARGET synclab_nvcc_tool AND NOT EXISTS ${sim_nvcc})
    get_property(warned GLOBAL PROPERTY _SYNCLAB_NVCC_WARNED)
    if(NOT warned)
      message(WARNING "No target synclab_nvcc_tool produces ${sim_nvcc} (sim/tools is not built?): "
                      "CUDA programs for the simulator will fail to build")
      set_property(GLOBAL PROPERTY _SYNCLAB_NVCC_WARNED TRUE)
    endif()
  endif()
  # The objects depend on the compiler driver's source, the link on the driver and the runtime
  # (tool_deps): a change to the simulator relinks the programs without compiling every .cu again
  # (the link's target-level dependency on the tools also orders the compiles after them).
  set(nvcc_script)
  if(EXISTS ${CMAKE_SOURCE_DIR}/sim/tools/synclab-nvcc)
    set(nvcc_script ${CMAKE_SOURCE_DIR}/sim/tools/synclab-nvcc
                    ${CMAKE_SOURCE_DIR}/sim/tools/synclab-nvcc-include/cuda/atomic)
  endif()
  set(sim_exe ${CMAKE_BINARY_DIR}/bin/sim/${name})
  # Linked by the host compiler (_synclab_sim_link) when the flags are all compile flags (no -rdc,
  # no link options); else by synclab-nvcc, which adds the -rdc registration glue.
  set(direct_link TRUE)
  foreach(f IN LISTS ARG_NVCC_FLAGS)
    if(NOT f MATCHES "^(-D.+|-I.+|-lineinfo|-std=.+|-arch=(sm|compute)_[0-9]+a?|-gencode|arch=compute_[0-9]+a?,code=[a-z_0-9,]+|-O[0-3])$")
      set(direct_link FALSE)
    endif()
  endforeach()
  set(link_args)
  if(direct_link)
    _synclab_sim_link(linker after)
    set(link_args LINKER ${linker} LINK_AFTER ${after})
  endif()
  _synclab_compile_and_link(
    OUT ${sim_exe} OBJDIR ${CMAKE_CURRENT_BINARY_DIR}/${name}.sim.dir
    COMPILER ${sim_nvcc}
    FLAGS -std=c++17 -lineinfo ${common_flags}
    SOURCES ${sources} DEPENDS ${headers} ${ARG_DEPENDS} ${nvcc_script} LINK_DEPENDS ${tool_deps}
    ${link_args}
    WHAT "synclab-nvcc")
  add_custom_target(${name} ALL DEPENDS ${sim_exe})
  set_target_properties(${name} PROPERTIES SYNCLAB_SIM_EXE ${sim_exe})
  set(${name}_SIM_EXE ${sim_exe} PARENT_SCOPE)

  # ---- GPU build ------------------------------------------------------------------------------
  set(gpu_exe "")
  if(SYNCLAB_BUILD_GPU AND NOT ARG_NO_GPU)
    set(gpu_nvcc ${SYNCLAB_CUDA_HOME}/bin/nvcc)
    if(NOT EXISTS ${gpu_nvcc})
      message(FATAL_ERROR "SYNCLAB_BUILD_GPU is ON but ${gpu_nvcc} does not exist; set SYNCLAB_CUDA_HOME")
    endif()
    set(launcher)
    find_program(SYNCLAB_CCACHE ccache)
    if(SYNCLAB_CCACHE)
      set(launcher ${SYNCLAB_CCACHE})  # ccache understands nvcc
    endif()
    set(gpu_exe ${CMAKE_BINARY_DIR}/bin/gpu/${name})
    _synclab_compile_and_link(
      OUT ${gpu_exe} OBJDIR ${CMAKE_CURRENT_BINARY_DIR}/${name}.gpu.dir
      COMPILER ${launcher} ${gpu_nvcc}
      FLAGS ${SYNCLAB_GPU_NVCC_FLAGS} ${common_flags}
      SOURCES ${sources} DEPENDS ${headers} ${ARG_DEPENDS}
      WHAT "nvcc (GPU)")
    add_custom_target(${name}_gpu ALL DEPENDS ${gpu_exe})
    set_target_properties(${name} PROPERTIES SYNCLAB_GPU_EXE ${gpu_exe})
  endif()
  set(${name}_GPU_EXE "${gpu_exe}" PARENT_SCOPE)
endfunction()

# One object per source (named after its position and file name, so equal names in different
# folders do not collide), then one link step.
function(_synclab_compile_and_link)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "OUT;OBJDIR;WHAT" "COMPILER;FLAGS;SOURCES;DEPENDS;LINK_DEPENDS;LINKER;LINK_AFTER")
  cmake_path(GET ARG_OUT PARENT_PATH out_dir)
  cmake_path(GET ARG_OUT FILENAME out_name)
  file(MAKE_DIRECTORY ${ARG_OBJDIR} ${out_dir})
  set(objects)
  set(index 0)
  foreach(src IN LISTS ARG_SOURCES)
    cmake_path(GET src FILENAME src_name)
    set(obj ${ARG_OBJDIR}/${index}_${src_name}.o)
    file(RELATIVE_PATH src_rel ${CMAKE_SOURCE_DIR} ${src})
    add_custom_command(
      OUTPUT ${obj}
      COMMAND ${ARG_COMPILER} ${ARG_FLAGS} -c ${src} -o ${obj}
      DEPENDS ${src} ${ARG_DEPENDS}
      COMMENT "${ARG_WHAT}: compiling ${src_rel}"
      VERBATIM)
    list(APPEND objects ${obj})
    math(EXPR index "${index} + 1")
  endforeach()
  # The link step runs the bare compiler (no ccache launcher: linking is not cached), or LINKER
  # (objects, then LINK_AFTER; no compile flags).
  if(ARG_LINKER)
    set(link_command ${ARG_LINKER} ${objects} ${ARG_LINK_AFTER})
  else()
    list(GET ARG_COMPILER -1 linker)
    set(link_command ${linker} ${ARG_FLAGS} ${objects})
  endif()
  add_custom_command(
    OUTPUT ${ARG_OUT}
    COMMAND ${link_command} -o ${ARG_OUT}
    DEPENDS ${objects} ${ARG_DEPENDS} ${ARG_LINK_DEPENDS}
    COMMENT "${ARG_WHAT}: linking ${out_name}"
    VERBATIM)
endfunction()
