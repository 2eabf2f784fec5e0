# Building a lab: its harness program, its graded tests against the skeletons and the solutions,
# and the plausible wrong solutions the grader must reject. docs/labs-authoring.md explains the
# layout; this file is the mechanics.
#
#   synclab_lab(<NN-topic>
#       PROGRAM <name>              harness program, e.g. lab01 (bin/sim/lab01, bin/gpu/lab01)
#       STUDENT <file.cu...>        student files: labs/<NN-topic>/<f> or solutions/<NN-topic>/<f>
#       HARNESS <file.cu...>        provided files in labs/<NN-topic>/ (linked into program and tests)
#       MAIN <file.cu>              provided: the harness program's main (sub-commands)
#       [TESTS <file.cpp...>]       Catch2 graded tests (tests/labs/...), host C++ only
#       [WRONG_DIR <dir>])          plausible wrong solutions (each .cu there replaces one student file)
#
# Every translation unit is compiled once per backend and the executables are linked from the
# objects, so a lab costs one compile per file however many variants link it:
#   <PROGRAM>                 harness program from ${SYNCLAB_LAB_SOURCES}/<NN-topic> (what students run)
#   <PROGRAM>_solutions       harness program from solutions/ (scenarios, demos)
#   <PROGRAM>_tests_labs      graded tests linked with the skeletons (must all fail)
#   <PROGRAM>_tests_solutions graded tests linked with the solutions (must all pass)
#   <PROGRAM>_tests_wrong_<w> graded tests linked with solutions/ except one file replaced by wrong/<w>.cu
# Simulator executables go to bin/sim/, GPU ones (SYNCLAB_BUILD_GPU=ON) to bin/gpu/.
#
# CTests (tests/labs/check_graded.sh runs each graded case in its own process, as the grader does):
#   labs.<NN-topic>.solutions_pass       label sim: every graded case passes on solutions/
#   labs.<NN-topic>.skeleton_fails       label sim: every graded case fails on the untouched skeletons
#   labs.<NN-topic>.wrong.<w>            label sim: the case named in wrong/<w>.cu fails with its message
#   labs.<NN-topic>.harness              label sim: the solutions' harness program checks itself
#   labs.<NN-topic>.solutions_pass.gpu / .skeleton_fails.gpu   label gpu
#
# A wrong solution declares what it replaces and how the grader must reject it, in its header:
#   // WRONG-REPLACES: histogram.cu
#   // WRONG-FAILS: <exact name of the graded test case that must fail>
#   // WRONG-MESSAGE: <extended regex the failing case's output must match>   (repeatable)
include_guard(GLOBAL)
include(SynclabCuda)  # SYNCLAB_GPU_NVCC_FLAGS

set(SYNCLAB_LAB_CATCH_MAIN ${CMAKE_SOURCE_DIR}/tests/labs/catch_main.cpp)
set(SYNCLAB_LAB_CHECK_GRADED ${CMAKE_SOURCE_DIR}/tests/labs/check_graded.sh)

# _synclab_lab_object(<out-var> <backend sim|gpu> <source> <objdir> <include dirs...>)
function(_synclab_lab_object out backend src objdir)
  set(incs ${ARGN})
  set(flags)
  set(deps)
  foreach(dir IN LISTS incs)
    list(APPEND flags -I${dir})
    file(GLOB found CONFIGURE_DEPENDS ${dir}/*.h ${dir}/*.cuh)
    list(APPEND deps ${found})
  endforeach()
  file(GLOB_RECURSE common_headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/common/include/synclab/*.h)
  list(APPEND deps ${common_headers})
  # Catch2 3.x installs its headers where the compiler may not look by itself.
  if(src MATCHES "\\.cpp$" AND TARGET Catch2::Catch2)
    get_target_property(catch_incs Catch2::Catch2 INTERFACE_INCLUDE_DIRECTORIES)
    foreach(dir IN LISTS catch_incs)
      if(dir AND NOT dir MATCHES "^\\$<")
        list(APPEND flags -I${dir})
      endif()
    endforeach()
  endif()
  cmake_path(GET src FILENAME name)
  file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${src})
  string(REPLACE "/" "_" tag "${rel}")
  set(obj ${objdir}/${backend}/${tag}.o)
  if(backend STREQUAL "sim")
    set(compiler ${CMAKE_BINARY_DIR}/bin/synclab-nvcc)
    set(cflags -std=c++17 -lineinfo)
    foreach(tool IN ITEMS synclab_nvcc_tool simcudart)
      if(TARGET ${tool})
        list(APPEND deps ${tool})
      endif()
    endforeach()
    set(what "synclab-nvcc")
  else()
    set(compiler ${SYNCLAB_CUDA_HOME}/bin/nvcc)
    find_program(SYNCLAB_CCACHE ccache)
    if(SYNCLAB_CCACHE)
      set(compiler ${SYNCLAB_CCACHE} ${compiler})
    endif()
    set(cflags ${SYNCLAB_GPU_NVCC_FLAGS})
    set(what "nvcc (GPU)")
  endif()
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${compiler} ${cflags} ${flags} -I${CMAKE_SOURCE_DIR}/common/include -c ${src} -o ${obj}
    DEPENDS ${src} ${deps}
    COMMENT "${what}: compiling ${rel}"
    VERBATIM)
  set(${out} ${obj} PARENT_SCOPE)
endfunction()

# _synclab_lab_link(<backend> <exe name> <objects...>): bin/<backend>/<name>, custom target
# <name> (sim) or <name>_gpu (gpu), in ALL.
function(_synclab_lab_link backend name)
  set(objs ${ARGN})
  set(libs)
  if(DEFINED Catch2_VERSION AND Catch2_VERSION VERSION_GREATER_EQUAL 3 AND name MATCHES "_tests_")
    set(libs $<TARGET_FILE:Catch2::Catch2>)
  endif()
  # Graded tests may read traces of their own runs (synclab/trace_reader.h).
  set(lib_targets)
  if(name MATCHES "_tests_" AND TARGET synclab_trace)
    list(APPEND libs $<TARGET_FILE:synclab_trace>)
    list(APPEND lib_targets synclab_trace)
    if(TARGET fmt::fmt)
      get_target_property(fmt_type fmt::fmt TYPE)
      if(NOT fmt_type STREQUAL "INTERFACE_LIBRARY")
        list(APPEND libs -L$<TARGET_LINKER_FILE_DIR:fmt::fmt> -lfmt)  # nvcc takes no .so.N inputs
      endif()
    endif()
  endif()
  set(exe ${CMAKE_BINARY_DIR}/bin/${backend}/${name})
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/bin/${backend})
  if(backend STREQUAL "sim")
    set(linker ${CMAKE_BINARY_DIR}/bin/synclab-nvcc)
    set(lflags -std=c++17)
    set(target ${name})
  else()
    set(linker ${SYNCLAB_CUDA_HOME}/bin/nvcc)
    set(lflags ${SYNCLAB_GPU_NVCC_FLAGS})
    set(target ${name}_gpu)
  endif()
  add_custom_command(
    OUTPUT ${exe}
    COMMAND ${linker} ${lflags} ${objs} ${libs} -o ${exe}
    DEPENDS ${objs} ${lib_targets}
    COMMENT "linking ${backend}/${name}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${exe})
endfunction()

function(synclab_lab lab)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "PROGRAM;MAIN;WRONG_DIR" "STUDENT;HARNESS;TESTS")
  if(ARG_UNPARSED_ARGUMENTS OR NOT ARG_PROGRAM OR NOT ARG_STUDENT OR NOT ARG_MAIN)
    message(FATAL_ERROR "synclab_lab(${lab}): needs PROGRAM, STUDENT and MAIN (got: ${ARGN})")
  endif()
  set(lab_dir ${CMAKE_SOURCE_DIR}/labs/${lab})
  set(sol_dir ${CMAKE_SOURCE_DIR}/solutions/${lab})
  set(objdir ${CMAKE_CURRENT_BINARY_DIR}/${lab}.dir)
  set(prog ${ARG_PROGRAM})
  if(NOT SYNCLAB_LAB_SOURCES MATCHES "^(labs|solutions)$")
    message(FATAL_ERROR "SYNCLAB_LAB_SOURCES must be 'labs' or 'solutions', not '${SYNCLAB_LAB_SOURCES}'")
  endif()
  foreach(f IN LISTS ARG_STUDENT)
    foreach(d IN ITEMS ${lab_dir} ${sol_dir})
      if(NOT EXISTS ${d}/${f})
        message(FATAL_ERROR "synclab_lab(${lab}): student file ${d}/${f} does not exist")
      endif()
    endforeach()
  endforeach()
  # Provided headers live beside the harness in labs/<lab>/; student files from solutions/ find
  # them through this include directory.
  set(incs ${lab_dir} ${CMAKE_SOURCE_DIR}/labs/common)

  set(backends sim)
  if(SYNCLAB_BUILD_GPU)
    list(APPEND backends gpu)
  endif()
  set(build_tests OFF)
  if(SYNCLAB_BUILD_TESTS AND ARG_TESTS)
    set(build_tests ON)
  endif()

  # Wrong solutions: <name> -> replaced file, case, messages.
  set(wrong_names)
  if(build_tests AND ARG_WRONG_DIR AND IS_DIRECTORY ${ARG_WRONG_DIR})
    file(GLOB wrong_files CONFIGURE_DEPENDS ${ARG_WRONG_DIR}/*.cu)
    list(SORT wrong_files)
    foreach(w IN LISTS wrong_files)
      cmake_path(GET w STEM wname)
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${w})
      file(STRINGS ${w} replaces REGEX "^// WRONG-REPLACES: ")
      file(STRINGS ${w} fails REGEX "^// WRONG-FAILS: ")
      file(STRINGS ${w} messages REGEX "^// WRONG-MESSAGE: ")
      list(LENGTH replaces nr)
      list(LENGTH fails nf)
      if(NOT nr EQUAL 1 OR NOT nf EQUAL 1 OR NOT messages)
        message(FATAL_ERROR "${w}: needs one '// WRONG-REPLACES: file', one '// WRONG-FAILS: test case' "
                            "and at least one '// WRONG-MESSAGE: regex' line")
      endif()
      string(REPLACE "// WRONG-REPLACES: " "" replaces "${replaces}")
      string(STRIP "${replaces}" replaces)
      if(NOT replaces IN_LIST ARG_STUDENT)
        message(FATAL_ERROR "${w}: WRONG-REPLACES names '${replaces}', which is not a student file of ${lab}")
      endif()
      string(REPLACE "// WRONG-FAILS: " "" fails "${fails}")
      string(STRIP "${fails}" fails)
      set(msg_args)
      foreach(m IN LISTS messages)
        string(REPLACE "// WRONG-MESSAGE: " "" m "${m}")
        string(STRIP "${m}" m)
        list(APPEND msg_args --message "${m}")
      endforeach()
      set(wrong_${wname}_file ${w})
      set(wrong_${wname}_replaces ${replaces})
      set(wrong_${wname}_fails ${fails})
      set(wrong_${wname}_msgs ${msg_args})
      list(APPEND wrong_names ${wname})
    endforeach()
  endif()

  foreach(backend IN LISTS backends)
    # Objects, each compiled once.
    set(harness_objs)
    foreach(f IN LISTS ARG_HARNESS)
      _synclab_lab_object(o ${backend} ${lab_dir}/${f} ${objdir} ${incs})
      list(APPEND harness_objs ${o})
    endforeach()
    _synclab_lab_object(main_obj ${backend} ${lab_dir}/${ARG_MAIN} ${objdir} ${incs})
    foreach(src IN ITEMS labs solutions)
      set(${src}_objs)
      foreach(f IN LISTS ARG_STUDENT)
        _synclab_lab_object(o ${backend} ${CMAKE_SOURCE_DIR}/${src}/${lab}/${f} ${objdir} ${incs})
        list(APPEND ${src}_objs ${o})
        set(${src}_obj_${f} ${o})
      endforeach()
    endforeach()

    _synclab_lab_link(${backend} ${prog} ${main_obj} ${harness_objs} ${${SYNCLAB_LAB_SOURCES}_objs})
    _synclab_lab_link(${backend} ${prog}_solutions ${main_obj} ${harness_objs} ${solutions_objs})

    if(build_tests)
      set(test_objs)
      foreach(t IN LISTS ARG_TESTS SYNCLAB_LAB_CATCH_MAIN)
        cmake_path(ABSOLUTE_PATH t BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
        _synclab_lab_object(o ${backend} ${t} ${objdir} ${incs})
        list(APPEND test_objs ${o})
      endforeach()
      foreach(src IN ITEMS labs solutions)
        _synclab_lab_link(${backend} ${prog}_tests_${src} ${test_objs} ${harness_objs} ${${src}_objs})
      endforeach()
      if(backend STREQUAL "sim")
        foreach(wname IN LISTS wrong_names)
          _synclab_lab_object(wobj ${backend} ${wrong_${wname}_file} ${objdir} ${incs})
          set(objs)
          foreach(f IN LISTS ARG_STUDENT)
            if(f STREQUAL wrong_${wname}_replaces)
              list(APPEND objs ${wobj})
            else()
              list(APPEND objs ${solutions_obj_${f}})
            endif()
          endforeach()
          _synclab_lab_link(sim ${prog}_tests_wrong_${wname} ${test_objs} ${harness_objs} ${objs})
        endforeach()
      endif()
    endif()
  endforeach()

  # ---- tests --------------------------------------------------------------------------------
  if(build_tests)
    set(sim ${CMAKE_BINARY_DIR}/bin/sim)
    add_test(NAME labs.${lab}.solutions_pass
             COMMAND ${SYNCLAB_LAB_CHECK_GRADED} --expect pass -- ${sim}/${prog}_tests_solutions)
    add_test(NAME labs.${lab}.skeleton_fails
             COMMAND ${SYNCLAB_LAB_CHECK_GRADED} --expect fail -- ${sim}/${prog}_tests_labs)
    set(names labs.${lab}.solutions_pass labs.${lab}.skeleton_fails)
    foreach(wname IN LISTS wrong_names)
      add_test(NAME labs.${lab}.wrong.${wname}
               COMMAND ${SYNCLAB_LAB_CHECK_GRADED} --expect-reject "${wrong_${wname}_fails}"
                       ${wrong_${wname}_msgs} -- ${sim}/${prog}_tests_wrong_${wname})
      list(APPEND names labs.${lab}.wrong.${wname})
    endforeach()
    add_test(NAME labs.${lab}.harness COMMAND ${sim}/${prog}_solutions all)
    list(APPEND names labs.${lab}.harness)
    set_tests_properties(${names} PROPERTIES LABELS "sim;labs" TIMEOUT 600 ENVIRONMENT SYNCLAB_QUIET=1)
    if(SYNCLAB_BUILD_GPU)
      set(gpu ${CMAKE_BINARY_DIR}/bin/gpu)
      add_test(NAME labs.${lab}.solutions_pass.gpu
               COMMAND ${SYNCLAB_LAB_CHECK_GRADED} --expect pass -- ${gpu}/${prog}_tests_solutions)
      add_test(NAME labs.${lab}.skeleton_fails.gpu
               COMMAND ${SYNCLAB_LAB_CHECK_GRADED} --expect fail -- ${gpu}/${prog}_tests_labs)
      set_tests_properties(labs.${lab}.solutions_pass.gpu labs.${lab}.skeleton_fails.gpu
                           PROPERTIES LABELS "gpu;labs" TIMEOUT 600)
    endif()
  endif()
endfunction()
