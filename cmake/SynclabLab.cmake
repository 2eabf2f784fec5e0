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
#       [WRONG_DIR <dir>]           plausible wrong solutions (each .cu there replaces one student file)
#       [DESIGN_DIR <dir>]          other right designs of an open-design task (each .cu there
#                                   replaces one student file and must pass that task's cases)
#       [GPU_SKELETON_MAY_PASS <regex>])  graded cases (names matching the regex) that the skeletons
#                                   may pass on a GPU: a missing fence caught only when the hardware
#                                   shows the reordering (skeleton_fails.gpu; check_graded.sh --may-pass)
#
# Every translation unit is compiled once per backend and the executables are linked from the
# objects, so a lab costs one compile per file however many variants link it:
#   <PROGRAM>                 harness program from ${SYNCLAB_LAB_SOURCES}/<NN-topic> (what students run)
#   <PROGRAM>_solutions       harness program from solutions/ (scenarios, demos)
#   <PROGRAM>_tests_labs      graded tests linked with the skeletons (must all fail)
#   <PROGRAM>_tests_solutions graded tests linked with the solutions (must all pass)
#   <PROGRAM>_tests_wrong_<w> graded tests linked with solutions/ except one file replaced by wrong/<w>.cu
#   <PROGRAM>_tests_design_<d> the same with one file replaced by a design of DESIGN_DIR
# Simulator executables go to bin/sim/, GPU ones (SYNCLAB_BUILD_GPU=ON) to bin/gpu/.
#
# CTests (tests/labs/check_graded.sh runs each graded case in its own process, as the grader does):
#   labs.<NN-topic>.solutions_pass       label sim: every graded case passes on solutions/
#   labs.<NN-topic>.skeleton_fails       label sim: every graded case fails on the untouched skeletons
#   labs.<NN-topic>.wrong.<w>            label sim: the case named in wrong/<w>.cu fails with its message
#   labs.<NN-topic>.wrong.<w>.fixed      label sim: with its WRONG-FIX edits applied, that case passes, silent
#   labs.<NN-topic>.design.<d>.<k>       label sim: the design's k-th DESIGN-PASSES case passes, silent
#   labs.<NN-topic>.harness              label sim: the solutions' harness program checks itself
#   labs.<NN-topic>.skeleton_program     label sim: the students' program runs every check on the skeletons
#   labs.<NN-topic>.findbug_pool         label sim: the find-the-bug pool's files; one program is
#                                        caught as handed out, its fix passes (all: bench/findbug_pools.sh)
#   labs.<NN-topic>.solutions_pass.gpu / .skeleton_fails.gpu   label gpu
#
# A wrong solution declares what it replaces and how the grader must reject it, in its header:
#   // WRONG-REPLACES: histogram.cu
#   // WRONG-FAILS: <exact name of the graded test case that must fail>
#   // WRONG-MESSAGE: <extended regex the failing case's output must match>   (repeatable)
#   // WRONG-FIX: <text in the file> => <its replacement>   (optional, repeatable; "\n" is a line break)
# With WRONG-FIX lines, the message's advice applied as an edit makes the fixed twin
# (build/labs/wrong-fixed/<lab>/<w>.cu), linked as <PROGRAM>_tests_fixed_<w>; the CTest
# labs.<NN-topic>.wrong.<w>.fixed asserts that the named case passes on it with nothing reported.
# Each edit's text must occur exactly once in the file (the WRONG- lines left out).
#
# A design of an open-design task (a second way to meet the task's contract, beside the reference
# solution's) declares the file it replaces and the graded cases it must pass:
#   // DESIGN-REPLACES: own_barrier.cu
#   // DESIGN-PASSES: <exact name of a graded test case>   (repeatable)
include_guard(GLOBAL)
include(SynclabCuda)  # SYNCLAB_GPU_NVCC_FLAGS

set(SYNCLAB_LAB_CATCH_MAIN ${CMAKE_SOURCE_DIR}/tests/labs/catch_main.cpp)
# The shared lab helpers' definitions (labs/common/synclab_lab.h), compiled once per backend and
# linked into every lab program and graded test program (with the harness objects, so the grader
# links them too). Every lab source is compiled with -DSYNCLAB_LAB_SEPARATE, so it parses only the
# declarations: about 2 s less for each harness and harness program's nvcc compile.
set(SYNCLAB_LAB_COMMON_SRC ${CMAKE_SOURCE_DIR}/labs/common/synclab_lab.cpp)
# No lab uses half-precision types, so every lab source (and each program that compiles lab
# sources into it, e.g. bench/lab07_barriers) is compiled without libcu++'s support for them
# (CCCL's documented configuration macros): <cuda/atomic> and cooperative groups then skip
# cuda_fp16.h, cuda_bf16.h and the 8-, 6- and 4-bit float headers, about 2 s of each 5-10 s
# compile of a lab file that includes them (labs 02, 07-10). CCCL asks for the same setting in
# every translation unit of a program, which this gives.
set(SYNCLAB_LAB_CCCL_DEFINES CCCL_DISABLE_FP16_SUPPORT CCCL_DISABLE_BF16_SUPPORT)
set(SYNCLAB_LAB_CHECK_GRADED ${CMAKE_SOURCE_DIR}/tests/labs/check_graded.sh)

# _synclab_lab_compiler(<out-compiler> <out-flags> <backend sim|gpu> <is-cpp> <include dirs...>):
# the compiler command and its flags for one lab source (the grader compiles submissions with
# the same, from the lab's manifest).
function(_synclab_lab_compiler out_compiler out_flags backend is_cpp)
  set(flags)
  foreach(dir IN LISTS ARGN)
    list(APPEND flags -I${dir})
  endforeach()
  # Catch2 3.x installs its headers where the compiler may not look by itself.
  if(is_cpp AND TARGET Catch2::Catch2)
    get_target_property(catch_incs Catch2::Catch2 INTERFACE_INCLUDE_DIRECTORIES)
    foreach(dir IN LISTS catch_incs)
      if(dir AND NOT dir MATCHES "^\\$<")
        list(APPEND flags -I${dir})
      endif()
    endforeach()
  endif()
  list(APPEND flags -I${CMAKE_SOURCE_DIR}/common/include)
  if(EXISTS ${SYNCLAB_LAB_COMMON_SRC})
    list(APPEND flags -DSYNCLAB_LAB_SEPARATE)  # synclab_lab.h's definitions: _synclab_lab_common
  endif()
  foreach(def IN LISTS SYNCLAB_LAB_CCCL_DEFINES)
    list(APPEND flags -D${def})
  endforeach()
  if(backend STREQUAL "sim")
    set(compiler ${CMAKE_BINARY_DIR}/bin/synclab-nvcc)
    set(flags -std=c++17 -lineinfo ${flags})
  else()
    set(compiler ${SYNCLAB_CUDA_HOME}/bin/nvcc)
    find_program(SYNCLAB_CCACHE ccache)
    if(SYNCLAB_CCACHE)
      set(compiler ${SYNCLAB_CCACHE} ${compiler})
    endif()
    set(flags ${SYNCLAB_GPU_NVCC_FLAGS} ${flags})
  endif()
  set(${out_compiler} ${compiler} PARENT_SCOPE)
  set(${out_flags} ${flags} PARENT_SCOPE)
endfunction()

# _synclab_lab_object(<out-var> <backend sim|gpu> <source> <objdir> <include dirs...>)
function(_synclab_lab_object out backend src objdir)
  set(incs ${ARGN})
  set(deps)
  foreach(dir IN LISTS incs)
    file(GLOB found CONFIGURE_DEPENDS ${dir}/*.h ${dir}/*.cuh)
    list(APPEND deps ${found})
  endforeach()
  file(GLOB_RECURSE common_headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/common/include/synclab/*.h)
  list(APPEND deps ${common_headers})
  set(is_cpp OFF)
  if(src MATCHES "\\.cpp$")
    set(is_cpp ON)
  endif()
  _synclab_lab_compiler(compiler flags ${backend} ${is_cpp} ${incs})
  list(APPEND flags ${_synclab_lab_bench_defines})  # set by synclab_lab_bench only
  file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR} ${src})
  string(REPLACE "/" "_" tag "${rel}")
  set(obj ${objdir}/${backend}/${tag}.o)
  if(backend STREQUAL "sim" AND is_cpp)
    # A C++ file (the graded tests, Catch2's main) has no device code, so no path in its object
    # that a report quotes: keyed on tree-relative paths (SYNCLAB_CCACHE_TREE_ENV, the top
    # CMakeLists.txt), a second copy of the tree reuses it. Not for .cu files (see ./synclab).
    set(compiler ${SYNCLAB_CCACHE_TREE_ENV} ${compiler})
  endif()
  if(backend STREQUAL "sim")
    # The object depends on the compiler driver, not on the runtime it links against: a change to
    # the simulator relinks the programs (_synclab_lab_link) without compiling every .cu again.
    if(EXISTS ${CMAKE_SOURCE_DIR}/sim/tools/synclab-nvcc)
      list(APPEND deps ${CMAKE_SOURCE_DIR}/sim/tools/synclab-nvcc)
      list(APPEND deps ${CMAKE_SOURCE_DIR}/sim/tools/synclab-nvcc-include/cuda/atomic)
    endif()
    set(what "synclab-nvcc")
  else()
    set(what "nvcc (GPU)")
  endif()
  # Compiled from the source root with the root-relative path, so that __FILE__ (in Catch2's
  # reports and the harness's messages, which the grader's approved results quote) reads
  # "tests/labs/lab01.test.cpp" whatever the checkout's location and whether ccache (which makes
  # paths relative) is installed.
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${compiler} ${flags} -c ${rel} -o ${obj}
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    DEPENDS ${src} ${deps}
    COMMENT "${what}: compiling ${rel}"
    VERBATIM)
  set(${out} ${obj} PARENT_SCOPE)
endfunction()

# _synclab_lab_catch_main(<out-var> <backend sim|gpu>): Catch2's main for every lab's graded test
# programs, compiled once per backend (it includes nothing of a lab; compiled per lab, with each
# lab's include directories on its command line, it cost about 25 s of compiling for each lab).
function(_synclab_lab_catch_main out backend)
  get_property(obj GLOBAL PROPERTY SYNCLAB_LAB_CATCH_MAIN_OBJ_${backend})
  if(NOT obj)
    _synclab_lab_object(obj ${backend} ${SYNCLAB_LAB_CATCH_MAIN} ${CMAKE_BINARY_DIR}/labs/common.dir)
    set_property(GLOBAL PROPERTY SYNCLAB_LAB_CATCH_MAIN_OBJ_${backend} ${obj})
  endif()
  set(${out} ${obj} PARENT_SCOPE)
endfunction()

# _synclab_lab_common(<out-var> <backend sim|gpu>): the object of labs/common/synclab_lab.cpp for
# this backend, compiled once for every lab (empty in a tree without it).
function(_synclab_lab_common out backend)
  set(obj)
  if(EXISTS ${SYNCLAB_LAB_COMMON_SRC})
    get_property(obj GLOBAL PROPERTY SYNCLAB_LAB_COMMON_OBJ_${backend})
    if(NOT obj)
      _synclab_lab_object(obj ${backend} ${SYNCLAB_LAB_COMMON_SRC} ${CMAKE_BINARY_DIR}/labs/common.dir
                          ${CMAKE_SOURCE_DIR}/labs/common)
      set_property(GLOBAL PROPERTY SYNCLAB_LAB_COMMON_OBJ_${backend} ${obj})
    endif()
  endif()
  set(${out} ${obj} PARENT_SCOPE)
endfunction()

# _synclab_lab_libs(<out-libs> <out-lib-targets>): what a graded test program links besides its
# objects.
function(_synclab_lab_libs out_libs out_targets)
  set(libs)
  if(DEFINED Catch2_VERSION AND Catch2_VERSION VERSION_GREATER_EQUAL 3)
    set(libs $<TARGET_FILE:Catch2::Catch2>)
  endif()
  # Graded tests may read traces of their own runs (synclab/trace_reader.h).
  set(lib_targets)
  if(TARGET synclab_trace)
    list(APPEND libs $<TARGET_FILE:synclab_trace>)
    list(APPEND lib_targets synclab_trace)
    if(TARGET fmt::fmt)
      get_target_property(fmt_type fmt::fmt TYPE)
      if(NOT fmt_type STREQUAL "INTERFACE_LIBRARY")
        list(APPEND libs -L$<TARGET_LINKER_FILE_DIR:fmt::fmt> -lfmt)  # nvcc takes no .so.N inputs
      endif()
    endif()
  endif()
  set(${out_libs} ${libs} PARENT_SCOPE)
  set(${out_targets} ${lib_targets} PARENT_SCOPE)
endfunction()

# _synclab_json_list(<out> <items...>): a JSON array of strings.
function(_synclab_json_list out)
  set(items)
  foreach(x IN LISTS ARGN)
    string(REPLACE "\\" "\\\\" x "${x}")
    string(REPLACE "\"" "\\\"" x "${x}")
    list(APPEND items "\"${x}\"")
  endforeach()
  list(JOIN items ", " joined)
  set(${out} "[${joined}]" PARENT_SCOPE)
endfunction()

# _synclab_lab_link(<backend> <exe name> <objects...>): bin/<backend>/<name>, custom target
# <name> (sim) or <name>_gpu (gpu), in ALL.
function(_synclab_lab_link backend name)
  set(objs ${ARGN})
  set(libs)
  set(lib_targets)
  if(name MATCHES "_tests_")
    _synclab_lab_libs(libs lib_targets)
  endif()
  list(APPEND libs ${_synclab_lab_bench_libs})  # set by synclab_lab_bench only
  list(APPEND lib_targets ${_synclab_lab_bench_lib_targets})
  set(exe ${CMAKE_BINARY_DIR}/bin/${backend}/${name})
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/bin/${backend})
  set(post)
  if(backend STREQUAL "sim")
    _synclab_sim_link(linker post)  # cmake/SynclabCuda.cmake
    set(lflags)
    set(target ${name})
    # The driver and the runtime: before the target's compiles (a target-level dependency orders
    # every command of the target after them), and a relink when the runtime changes.
    foreach(tool IN ITEMS synclab_nvcc_tool simcudart)
      if(TARGET ${tool})
        list(APPEND lib_targets ${tool})
      endif()
    endforeach()
  else()
    set(linker ${SYNCLAB_CUDA_HOME}/bin/nvcc)
    set(lflags ${SYNCLAB_GPU_NVCC_FLAGS})
    set(target ${name}_gpu)
  endif()
  add_custom_command(
    OUTPUT ${exe}
    COMMAND ${linker} ${lflags} ${objs} ${libs} ${post} -o ${exe}
    DEPENDS ${objs} ${lib_targets}
    COMMENT "linking ${backend}/${name}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS ${exe})
endfunction()

# _synclab_lab_objs_replacing(<out> <student file> <object>), inside synclab_lab(): the solutions'
# objects of the lab's student files (ARG_STUDENT, solutions_obj_<f>), with the one of <student
# file> replaced by <object> (a wrong solution's or another design's).
macro(_synclab_lab_objs_replacing out replaced obj)
  set(${out})
  foreach(f IN LISTS ARG_STUDENT)
    if(f STREQUAL ${replaced})
      list(APPEND ${out} ${obj})
    else()
      list(APPEND ${out} ${solutions_obj_${f}})
    endif()
  endforeach()
endmacro()

# _synclab_lab_wrong_fix(<out-file> <wrong .cu> <lab>): writes the fixed twin of a wrong solution
# (its WRONG-FIX edits applied, in order) and sets <out-file> to its path, or to "" when the file has
# no WRONG-FIX line. The lines are read with string(FIND) rather than as a CMake list, which would
# split them at the ';' that C++ statements end with.
function(_synclab_lab_wrong_fix out w lab)
  file(READ ${w} text)
  string(FIND "${text}" "\n// WRONG-FIX: " any)
  if(any EQUAL -1)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  set(body "")
  set(edits 0)
  set(rest "${text}")
  while(NOT rest STREQUAL "")
    string(FIND "${rest}" "\n" nl)
    if(nl EQUAL -1)
      set(line "${rest}")
      set(rest "")
    else()
      string(SUBSTRING "${rest}" 0 ${nl} line)
      math(EXPR after "${nl} + 1")
      string(SUBSTRING "${rest}" ${after} -1 rest)
    endif()
    string(FIND "${line}" "// WRONG-" header)
    if(NOT header EQUAL 0)
      string(APPEND body "${line}\n")
      continue()
    endif()
    string(FIND "${line}" "// WRONG-FIX: " fix)
    if(fix EQUAL 0)
      string(SUBSTRING "${line}" 14 -1 edit)
      string(FIND "${edit}" " => " arrow)
      if(arrow EQUAL -1)
        message(FATAL_ERROR "${w}: a WRONG-FIX line needs '<text> => <replacement>'")
      endif()
      string(SUBSTRING "${edit}" 0 ${arrow} from)
      math(EXPR to_at "${arrow} + 4")
      string(SUBSTRING "${edit}" ${to_at} -1 to)
      string(REPLACE "\\n" "\n" from "${from}")
      string(REPLACE "\\n" "\n" to "${to}")
      math(EXPR edits "${edits} + 1")
      set(edit_${edits}_from "${from}")
      set(edit_${edits}_to "${to}")
    endif()
    string(APPEND body "//\n")  # the header's lines keep their numbers
  endwhile()
  if(edits EQUAL 0)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  foreach(i RANGE 1 ${edits})
    string(FIND "${body}" "${edit_${i}_from}" first)
    string(FIND "${body}" "${edit_${i}_from}" last REVERSE)
    if(first EQUAL -1 OR NOT first EQUAL last)
      message(FATAL_ERROR "${w}: the text of WRONG-FIX ${i} ('${edit_${i}_from}') must occur exactly once in the "
                          "file, after the edits before it")
    endif()
    string(REPLACE "${edit_${i}_from}" "${edit_${i}_to}" body "${body}")
  endforeach()
  cmake_path(GET w STEM wname)
  set(twin ${CMAKE_BINARY_DIR}/labs/wrong-fixed/${lab}/${wname}.cu)
  set(old "")
  if(EXISTS ${twin})
    file(READ ${twin} old)
  endif()
  if(NOT old STREQUAL body)
    file(WRITE ${twin} "${body}")
  endif()
  set(${out} ${twin} PARENT_SCOPE)
endfunction()

function(synclab_lab lab)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "PROGRAM;MAIN;WRONG_DIR;DESIGN_DIR;GPU_SKELETON_MAY_PASS"
                        "STUDENT;HARNESS;TESTS")
  if(ARG_UNPARSED_ARGUMENTS OR NOT ARG_PROGRAM OR NOT ARG_STUDENT OR NOT ARG_MAIN)
    message(FATAL_ERROR "synclab_lab(${lab}): needs PROGRAM, STUDENT and MAIN (got: ${ARGN})")
  endif()
  set(lab_dir ${CMAKE_SOURCE_DIR}/labs/${lab})
  if(NOT IS_DIRECTORY ${lab_dir})
    # A student release of some labs only (./synclab export-student OUT --labs ...).
    return()
  endif()
  set(sol_dir ${CMAKE_SOURCE_DIR}/solutions/${lab})
  set(objdir ${CMAKE_CURRENT_BINARY_DIR}/${lab}.dir)
  set(prog ${ARG_PROGRAM})
  if(NOT SYNCLAB_LAB_SOURCES MATCHES "^(labs|solutions)$")
    message(FATAL_ERROR "SYNCLAB_LAB_SOURCES must be 'labs' or 'solutions', not '${SYNCLAB_LAB_SOURCES}'")
  endif()
  # A student release (./synclab export-student) has no solutions/, and a Gradescope package has
  # only its own lab's: then only the lab as handed out builds, with its graded tests (for
  # `./synclab grade`), and none of the checks below.
  set(has_solutions OFF)
  if(IS_DIRECTORY ${sol_dir})
    set(has_solutions ON)
  elseif(SYNCLAB_LAB_SOURCES STREQUAL "solutions" AND NOT IS_DIRECTORY ${CMAKE_SOURCE_DIR}/solutions)
    message(FATAL_ERROR "SYNCLAB_LAB_SOURCES is 'solutions', but this tree has no solutions/ (a student release)")
  endif()
  set(sources labs)
  set(check_dirs ${lab_dir})
  if(has_solutions)
    list(APPEND sources solutions)
    list(APPEND check_dirs ${sol_dir})
  endif()
  foreach(f IN LISTS ARG_STUDENT)
    foreach(d IN LISTS check_dirs)
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
  set(manifest_backends)
  set(grade_main_objs)
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
      _synclab_lab_wrong_fix(wrong_${wname}_fixed ${w} ${lab})
      list(APPEND wrong_names ${wname})
    endforeach()
  endif()

  # Other designs of open-design tasks: <name> -> replaced file, cases.
  set(design_names)
  if(build_tests AND ARG_DESIGN_DIR AND IS_DIRECTORY ${ARG_DESIGN_DIR})
    file(GLOB design_files CONFIGURE_DEPENDS ${ARG_DESIGN_DIR}/*.cu)
    list(SORT design_files)
    foreach(d IN LISTS design_files)
      cmake_path(GET d STEM dname)
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${d})
      file(STRINGS ${d} replaces REGEX "^// DESIGN-REPLACES: ")
      file(STRINGS ${d} passes REGEX "^// DESIGN-PASSES: ")
      list(LENGTH replaces nr)
      if(NOT nr EQUAL 1 OR NOT passes)
        message(FATAL_ERROR "${d}: needs one '// DESIGN-REPLACES: file' and at least one '// DESIGN-PASSES: test case' line")
      endif()
      string(REPLACE "// DESIGN-REPLACES: " "" replaces "${replaces}")
      string(STRIP "${replaces}" replaces)
      if(NOT replaces IN_LIST ARG_STUDENT)
        message(FATAL_ERROR "${d}: DESIGN-REPLACES names '${replaces}', which is not a student file of ${lab}")
      endif()
      set(design_${dname}_file ${d})
      set(design_${dname}_replaces ${replaces})
      set(design_${dname}_cases)
      foreach(c IN LISTS passes)
        string(REPLACE "// DESIGN-PASSES: " "" c "${c}")
        string(STRIP "${c}" c)
        list(APPEND design_${dname}_cases "${c}")
      endforeach()
      list(APPEND design_names ${dname})
    endforeach()
  endif()

  foreach(backend IN LISTS backends)
    # Objects, each compiled once.
    set(harness_objs)
    foreach(f IN LISTS ARG_HARNESS)
      _synclab_lab_object(o ${backend} ${lab_dir}/${f} ${objdir} ${incs})
      list(APPEND harness_objs ${o})
    endforeach()
    _synclab_lab_common(o ${backend})
    list(APPEND harness_objs ${o})
    _synclab_lab_object(main_obj ${backend} ${lab_dir}/${ARG_MAIN} ${objdir} ${incs})
    foreach(src IN LISTS sources)
      set(${src}_objs)
      foreach(f IN LISTS ARG_STUDENT)
        _synclab_lab_object(o ${backend} ${CMAKE_SOURCE_DIR}/${src}/${lab}/${f} ${objdir} ${incs})
        list(APPEND ${src}_objs ${o})
        set(${src}_obj_${f} ${o})
        set_property(GLOBAL PROPERTY SYNCLAB_LAB_OBJ_${lab}_${backend}_${src}_${f} ${o})  # synclab_lab_bench
      endforeach()
    endforeach()

    _synclab_lab_link(${backend} ${prog} ${main_obj} ${harness_objs} ${${SYNCLAB_LAB_SOURCES}_objs})
    if(has_solutions)
      _synclab_lab_link(${backend} ${prog}_solutions ${main_obj} ${harness_objs} ${solutions_objs})
    endif()

    if(build_tests)
      set(test_objs)
      foreach(t IN LISTS ARG_TESTS)
        cmake_path(ABSOLUTE_PATH t BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
        _synclab_lab_object(o ${backend} ${t} ${objdir} ${incs})
        list(APPEND test_objs ${o})
      endforeach()
      _synclab_lab_catch_main(o ${backend})
      list(APPEND test_objs ${o})
      foreach(src IN LISTS sources)
        _synclab_lab_link(${backend} ${prog}_tests_${src} ${test_objs} ${harness_objs} ${${src}_objs})
      endforeach()
      # The grader's view of this backend: how to compile a submission's student files and a
      # hidden test file, and what to link them with (grader/README.md).
      _synclab_lab_compiler(cc cu_flags ${backend} OFF ${incs})
      _synclab_lab_compiler(cc cpp_flags ${backend} ON ${incs})
      _synclab_lab_libs(libs lib_targets)
      if(backend STREQUAL "sim")
        _synclab_sim_link(linker after)  # cmake/SynclabCuda.cmake
        list(APPEND libs ${after})  # the grader links: linker, objects, libs, -o
      else()
        set(linker ${SYNCLAB_CUDA_HOME}/bin/nvcc ${SYNCLAB_GPU_NVCC_FLAGS})
      endif()
      set(sol_pairs)
      set(reference ${CMAKE_BINARY_DIR}/bin/${backend}/${prog}_tests_solutions)
      if(has_solutions)
        foreach(f IN LISTS ARG_STUDENT)
          list(APPEND sol_pairs "\"${f}\": \"${solutions_obj_${f}}\"")
        endforeach()
      else()
        set(reference ${CMAKE_BINARY_DIR}/bin/${backend}/${prog}_tests_labs)  # lists the cases only
      endif()
      list(JOIN sol_pairs ", " sol_json)
      foreach(v IN ITEMS cc cu_flags cpp_flags linker libs test_objs harness_objs main_obj)
        _synclab_json_list(j_${v} ${${v}})
      endforeach()
      # main_objects: the harness program's main, which the grader links with the harness and a
      # submission's files into that submission's own harness program (replay lines run it).
      list(APPEND manifest_backends "    \"${backend}\": {\n      \"compiler\": ${j_cc},\n      \"cu_flags\": ${j_cu_flags},\n      \"cpp_flags\": ${j_cpp_flags},\n      \"linker\": ${j_linker},\n      \"libs\": ${j_libs},\n      \"test_objects\": ${j_test_objs},\n      \"harness_objects\": ${j_harness_objs},\n      \"main_objects\": ${j_main_obj},\n      \"solution_objects\": {${sol_json}},\n      \"reference_tests\": \"${reference}\"\n    }")
      list(APPEND grade_main_objs ${main_obj})
      if(backend STREQUAL "sim" AND has_solutions)
        foreach(wname IN LISTS wrong_names)
          _synclab_lab_object(wobj ${backend} ${wrong_${wname}_file} ${objdir} ${incs})
          _synclab_lab_objs_replacing(objs ${wrong_${wname}_replaces} ${wobj})
          _synclab_lab_link(sim ${prog}_tests_wrong_${wname} ${test_objs} ${harness_objs} ${objs})
          if(wrong_${wname}_fixed)
            _synclab_lab_object(fobj ${backend} ${wrong_${wname}_fixed} ${objdir} ${incs})
            list(TRANSFORM objs REPLACE "^${wobj}$" "${fobj}")
            _synclab_lab_link(sim ${prog}_tests_fixed_${wname} ${test_objs} ${harness_objs} ${objs})
          endif()
        endforeach()
        foreach(dname IN LISTS design_names)
          _synclab_lab_object(dobj ${backend} ${design_${dname}_file} ${objdir} ${incs})
          _synclab_lab_objs_replacing(objs ${design_${dname}_replaces} ${dobj})
          _synclab_lab_link(sim ${prog}_tests_design_${dname} ${test_objs} ${harness_objs} ${objs})
        endforeach()
      endif()
    endif()
  endforeach()

  # ---- what `./synclab grade --lab NN` builds: synclab_grade_NN ---------------------------------
  # The grader and this lab's graded tests under each backend (which build every object the
  # manifest names), not the whole test suite.
  if(build_tests)
    string(SUBSTRING ${lab} 0 2 nn)
    set(reference_program ${prog}_tests_labs)
    if(has_solutions)
      set(reference_program ${prog}_tests_solutions)
    endif()
    add_custom_target(synclab_grade_${nn})
    add_dependencies(synclab_grade_${nn} synclab-grade ${reference_program})
    # The harness's main, for the submission's own harness program (not the tree's labs/ build).
    add_custom_target(${prog}_main_objects DEPENDS ${grade_main_objs})
    foreach(tool IN ITEMS synclab_nvcc_tool simcudart)
      if(TARGET ${tool})
        add_dependencies(${prog}_main_objects ${tool})
      endif()
    endforeach()
    add_dependencies(synclab_grade_${nn} ${prog}_main_objects)
    if(SYNCLAB_BUILD_GPU)
      add_dependencies(synclab_grade_${nn} ${reference_program}_gpu)
    endif()
  endif()

  # ---- the grader's manifest: build/grade/<lab>.json -------------------------------------------
  if(build_tests)
    _synclab_json_list(j_student ${ARG_STUDENT})
    set(has_solutions_json false)
    if(has_solutions)
      set(has_solutions_json true)
    endif()
    _synclab_json_list(j_tests ${ARG_TESTS})
    list(JOIN manifest_backends ",\n" backends_json)
    file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/grade/${lab}.json CONTENT
"{
  \"lab\": \"${lab}\",
  \"program\": \"${prog}\",
  \"lab_dir\": \"${lab_dir}\",
  \"solutions_dir\": \"${sol_dir}\",
  \"has_reference\": ${has_solutions_json},
  \"student_files\": ${j_student},
  \"tests\": ${j_tests},
  \"backends\": {
${backends_json}
  }
}
")
  endif()

  # ---- tests --------------------------------------------------------------------------------
  if(build_tests AND has_solutions)
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
      if(wrong_${wname}_fixed)
        add_test(NAME labs.${lab}.wrong.${wname}.fixed
                 COMMAND ${SYNCLAB_LAB_CHECK_GRADED} --expect-pass-case "${wrong_${wname}_fails}"
                         -- ${sim}/${prog}_tests_fixed_${wname})
        list(APPEND names labs.${lab}.wrong.${wname}.fixed)
      endif()
    endforeach()
    foreach(dname IN LISTS design_names)
      set(k 0)
      foreach(c IN LISTS design_${dname}_cases)
        math(EXPR k "${k} + 1")
        add_test(NAME labs.${lab}.design.${dname}.${k}
                 COMMAND ${SYNCLAB_LAB_CHECK_GRADED} --expect-pass-case "${c}" -- ${sim}/${prog}_tests_design_${dname})
        list(APPEND names labs.${lab}.design.${dname}.${k})
      endforeach()
    endforeach()
    add_test(NAME labs.${lab}.harness COMMAND ${sim}/${prog}_solutions all)
    list(APPEND names labs.${lab}.harness)
    # The students' program on the untouched skeletons: every task's check runs and reports, none
    # crashes (a crash or a usage error prints no summary).
    add_test(NAME labs.${lab}.skeleton_program COMMAND ${sim}/${prog} all --sched rr --model its)
    set_tests_properties(labs.${lab}.skeleton_program PROPERTIES
                         PASS_REGULAR_EXPRESSION "of the checks did not pass")
    list(APPEND names labs.${lab}.skeleton_program)
    # Find the bug (docs/findbug.md): every program of the pool has its files checked (its fix
    # applies, is small and touches an accepted line); one program per lab, a different position
    # of the pool in each lab, is built and fails the grader's exploration as handed out (until its
    # first failing run) and passes it with its reference fix. bench/findbug_pools.sh builds all 50.
    if(IS_DIRECTORY ${lab_dir}/findbug AND EXISTS ${CMAKE_SOURCE_DIR}/tests/labs/findbug/check_pool.sh)
      string(SUBSTRING ${lab} 0 2 fb_nn)
      add_test(NAME labs.${lab}.findbug_pool
               COMMAND ${CMAKE_SOURCE_DIR}/tests/labs/findbug/check_pool.sh --lab ${fb_nn} --first --sample 1
                       --bin ${CMAKE_BINARY_DIR}/bin --work ${CMAKE_BINARY_DIR}/findbug-pool/${fb_nn})
      list(APPEND names labs.${lab}.findbug_pool)
    endif()
    set_tests_properties(${names} PROPERTIES LABELS "sim;labs" TIMEOUT 600 ENVIRONMENT SYNCLAB_QUIET=1)
    if(SYNCLAB_BUILD_GPU)
      set(gpu ${CMAKE_BINARY_DIR}/bin/gpu)
      add_test(NAME labs.${lab}.solutions_pass.gpu
               COMMAND ${SYNCLAB_LAB_CHECK_GRADED} --expect pass -- ${gpu}/${prog}_tests_solutions)
      set(may_pass)
      if(ARG_GPU_SKELETON_MAY_PASS)
        set(may_pass --may-pass ${ARG_GPU_SKELETON_MAY_PASS})
        # tests/labs/run_gpu.sh reads it here, beside the program.
        file(WRITE ${gpu}/${prog}_tests_labs.may-pass "${ARG_GPU_SKELETON_MAY_PASS}\n")
      endif()
      add_test(NAME labs.${lab}.skeleton_fails.gpu
               COMMAND ${SYNCLAB_LAB_CHECK_GRADED} --expect fail ${may_pass} -- ${gpu}/${prog}_tests_labs)
      set_tests_properties(labs.${lab}.solutions_pass.gpu labs.${lab}.skeleton_fails.gpu
                           PROPERTIES LABELS "gpu;labs" TIMEOUT 600)
    endif()
  endif()
endfunction()

# synclab_lab_bench(<name> LAB <NN-topic> SOURCES <file.cu...> [SOLUTION_FILES <student file...>]
#                   [DEFINES <NAME[=value]...>] [TRACE])
# A lab's benchmark program (bench/labNN_*): its own SOURCES compiled as the lab's files are (the
# lab's include directories and compiler flags, per backend), linked with the objects the lab's
# build already made of the reference solutions' SOLUTION_FILES (solutions/<lab>/<f>), instead of
# compiling those a second time with the same flags. TRACE: the program records traces
# (synclab/trace.cuh): the simulator build links the synclab_trace library (and fmt), the GPU
# build compiles common/src/trace_writer.cpp with fmt header-only (the GPU machines have no
# libfmt). Like synclab_add_cuda_program: bin/sim/<name> (target <name>), bin/gpu/<name> (target
# <name>_gpu, SYNCLAB_BUILD_GPU), and <name>_SIM_EXE / <name>_GPU_EXE for add_test. Call it after
# synclab_lab(<lab>), in the same directory.
function(synclab_lab_bench name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "TRACE" "LAB" "SOURCES;SOLUTION_FILES;DEFINES")
  if(ARG_UNPARSED_ARGUMENTS OR NOT ARG_LAB OR NOT ARG_SOURCES)
    message(FATAL_ERROR "synclab_lab_bench(${name}): needs LAB and SOURCES (got: ${ARGN})")
  endif()
  set(lab_dir ${CMAKE_SOURCE_DIR}/labs/${ARG_LAB})
  set(objdir ${CMAKE_CURRENT_BINARY_DIR}/${name}.dir)
  set(_synclab_lab_bench_defines)
  foreach(def IN LISTS ARG_DEFINES)
    list(APPEND _synclab_lab_bench_defines -D${def})
  endforeach()
  set(backends sim)
  if(SYNCLAB_BUILD_GPU)
    list(APPEND backends gpu)
  endif()
  foreach(backend IN LISTS backends)
    set(objs)
    foreach(src IN LISTS ARG_SOURCES)
      cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
      if(NOT EXISTS ${src})
        message(FATAL_ERROR "synclab_lab_bench(${name}): source ${src} does not exist")
      endif()
      cmake_path(GET src PARENT_PATH src_dir)  # its headers are dependencies too
      _synclab_lab_object(o ${backend} ${src} ${objdir} ${lab_dir} ${CMAKE_SOURCE_DIR}/labs/common ${src_dir})
      list(APPEND objs ${o})
    endforeach()
    foreach(f IN LISTS ARG_SOLUTION_FILES)
      get_property(o GLOBAL PROPERTY SYNCLAB_LAB_OBJ_${ARG_LAB}_${backend}_solutions_${f})
      if(NOT o)
        message(FATAL_ERROR "synclab_lab_bench(${name}): lab ${ARG_LAB} builds no solutions/${ARG_LAB}/${f} "
                            "(call it after synclab_lab(${ARG_LAB}), which must name ${f} among its STUDENT files)")
      endif()
      list(APPEND objs ${o})
    endforeach()
    set(_synclab_lab_bench_libs)
    set(_synclab_lab_bench_lib_targets)
    if(ARG_TRACE)
      if(backend STREQUAL "sim" AND TARGET synclab_trace)
        set(_synclab_lab_bench_libs $<TARGET_FILE:synclab_trace>)
        set(_synclab_lab_bench_lib_targets synclab_trace)
        if(TARGET fmt::fmt)
          get_target_property(fmt_type fmt::fmt TYPE)
          if(NOT fmt_type STREQUAL "INTERFACE_LIBRARY")
            list(APPEND _synclab_lab_bench_libs -L$<TARGET_LINKER_FILE_DIR:fmt::fmt> -lfmt)
          endif()
        endif()
      else()
        set(saved ${_synclab_lab_bench_defines})
        list(APPEND _synclab_lab_bench_defines -DFMT_HEADER_ONLY)
        _synclab_lab_object(o ${backend} ${CMAKE_SOURCE_DIR}/common/src/trace_writer.cpp ${objdir}
                            ${CMAKE_SOURCE_DIR}/common/include)
        set(_synclab_lab_bench_defines ${saved})
        list(APPEND objs ${o})
      endif()
    endif()
    _synclab_lab_link(${backend} ${name} ${objs})
  endforeach()
  set(${name}_SIM_EXE ${CMAKE_BINARY_DIR}/bin/sim/${name} PARENT_SCOPE)
  set(gpu_exe "")
  if(SYNCLAB_BUILD_GPU)
    set(gpu_exe ${CMAKE_BINARY_DIR}/bin/gpu/${name})
  endif()
  set(${name}_GPU_EXE "${gpu_exe}" PARENT_SCOPE)
endfunction()
