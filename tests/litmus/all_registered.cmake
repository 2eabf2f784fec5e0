# litmus.all_registered: `litmus_all --list` names one test for every test's file of this folder
# (file 2p2w.cu holds test 2+2w), so that a test generate.py writes cannot be left out of all.cu.
#   cmake -DEXE=<litmus_all> -DFILES=<a.cu;b.cu;...> -P all_registered.cmake
execute_process(COMMAND ${EXE} --list OUTPUT_VARIABLE listed RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --list exited with status ${rc}")
endif()
string(REPLACE "+" "p" listed "${listed}")
string(REGEX REPLACE "\n$" "" listed "${listed}")
string(REPLACE "\n" ";" listed "${listed}")
set(files)
foreach(f IN LISTS FILES)
  get_filename_component(name ${f} NAME_WE)
  list(APPEND files ${name})
endforeach()
list(SORT listed)
list(SORT files)
if(NOT listed STREQUAL files)
  message(FATAL_ERROR "tests/litmus: the files hold the tests [${files}] but litmus_all registers [${listed}]: "
                      "run tests/litmus/generate.py, which writes all.cu")
endif()
list(LENGTH files n)
message("PASS: litmus_all registers the ${n} tests of tests/litmus/")
