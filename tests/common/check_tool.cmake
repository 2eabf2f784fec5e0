# Runs synclab-trace on the sample trace and checks its output.
#   cmake -DTOOL=... -DTRACE=... -DCUT=... -DOUT=... -DWORK=... -P check_tool.cmake
function(run_tool expect_rc out_var)
  execute_process(COMMAND ${TOOL} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect_rc)
    message(FATAL_ERROR "synclab-trace ${ARGN}: exit ${rc}, expected ${expect_rc}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
  set(${out_var} "${out}${err}" PARENT_SCOPE)
endfunction()

function(expect text)
  foreach(re IN LISTS ARGN)
    if(NOT text MATCHES "${re}")
      message(FATAL_ERROR "output does not match '${re}':\n${text}")
    endif()
  endforeach()
endfunction()

# summary of the complete sample
run_tool(0 out summary ${TRACE})
expect("${out}"
  "program: lock-demo\n"
  "backend: sim\n"
  "device: teaching\n"
  "model: its\n"
  "scheduler: rr\n"
  "seed: 3\n"
  "launch 0: lock_kernel grid \\(2,1,1\\) block \\(64,1,1\\)\n"
  "  by kind: step [0-9]+, mem 20, atomic 16, barrier-arrive 2, barrier-release 1, region 5, kernel-begin 1, kernel-end 1, report 1\n"
  "  barrier releases: 1\n"
  "  atomics: 16 \\(4 changed memory\\)\n"
  "  barrier waits: 2\n"
  "  spins: 2\n"
  "    spin at line 20: 3 iterations\n"
  "launch 1: stuck grid \\(1,1,1\\) block \\(64,1,1\\)\n"
  "  barrier waits: 1 \\(1 still open at the end\\)\n"
  "  status: deadlock\n"
  "region 0: locks lock-bits 32x32 at 0x3000, 128 bytes\n"
  "region 1: data array 16 at 0x4000, 64 bytes\n"
  "report 0 \\(race, error\\): data race on x\n"
  "lines: lock.cu:33\n"
  "synclab-trace interleaving FILE --report N"
  "complete: yes")

# a file cut short: a partial summary and a warning, exit 0
run_tool(0 out summary ${CUT})
expect("${out}" "complete: no \\(cut short after [0-9]+ events\\)" "warning: .*cut short")

# a bad file: a clear error, exit 1
file(WRITE ${WORK}/not-a-trace.bin "hello, this is not a trace file at all")
run_tool(1 out summary ${WORK}/not-a-trace.bin)
expect("${out}" "synclab-trace: .*not-a-trace.bin: byte 0: not a SyncLab trace")
run_tool(1 out summary ${WORK}/does-not-exist.trace)
expect("${out}" "does-not-exist.trace: cannot open")

# interleaving: the sample's race names no access in its events (line 33 has none) and no
# address: a message and exit 1; with an address, the accesses to it (warp 0's three loads of the
# flag merged into one line, then warp 3's lanes 0-1), the barrier of block 0 before them
run_tool(1 out interleaving ${TRACE})
expect("${out}" "report 0 \\(race: data race on x\\) names no memory address" "--address A")
run_tool(0 out interleaving ${TRACE} --address 0x2000)
expect("${out}" "location: global 0x2000, 4 bytes\n"
  "block 0 +\\| barrier 0 released \\(64 threads\\)\n"
  "block 0 thread 0 \\(warp 0 lane 0\\) +load 0 \\(3 times, the last at event [0-9]+\\) +line 40\n"
  "block 1 threads 32-33 \\(warp 1 lanes 0-1\\) +load 0 \\(5 times, the last at event [0-9]+\\) +line 20\n")
run_tool(1 out interleaving ${TRACE} --address 0x5000)
expect("${out}" "address 0x5000 is outside every region and every range the trace's accesses touch; known: "
  "region \"locks\" 0x3000 \\(\\+128 bytes\\)")
run_tool(1 out interleaving ${TRACE} --report 3)
expect("${out}" "there is no report 3: the trace's reports are 0")
run_tool(1 out interleaving ${CUT})
expect("${out}" "warning: .*cut short" "interleaving: .*cut.trace: the trace has no reports")
run_tool(1 out interleaving ${WORK}/not-a-trace.bin)
expect("${out}" "synclab-trace: .*not-a-trace.bin: byte 0: not a SyncLab trace")

# the Chrome export parses as JSON and has the warp tracks and the slices
run_tool(0 out export --chrome ${TRACE} ${OUT})
file(READ ${OUT} json)
string(JSON n ERROR_VARIABLE jerr LENGTH "${json}" traceEvents)
if(jerr)
  message(FATAL_ERROR "export is not valid JSON: ${jerr}")
endif()
if(n LESS 10)
  message(FATAL_ERROR "export has only ${n} trace events")
endif()
expect("${json}" "\"block 1 warp 0\"" "\"spin at line 20\"" "\"critical section locks\\[5\\]\""
       "\"barrier wait\"" "\"data race on x\"")
message(STATUS "synclab-trace checks passed")
