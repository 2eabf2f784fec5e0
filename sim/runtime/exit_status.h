// The program's exit status under the simulator, as compute-sanitizer's --error-exitcode: a
// program that exits 0 although its kernels produced error-severity reports (a race, a fault, a
// hang, ...) exits with SYNCLAB_ERROR_EXITCODE instead (default 1; 0 turns this off). Warnings
// never change the status, and a non-zero status is the program's own and stays.
//
// A program that reads or steers the reports itself through the control API (report_count,
// report, report_kind, clear_reports, set_checks) decides its own exit status: lab harnesses and
// tests run broken kernels on purpose and judge the reports themselves.
#pragma once

#include "sim/exec/config.h"
#include "sim/exec/simulator.h"

namespace synclab::rt {

// At device start: the settings the exit check uses (error_exitcode, quiet).
void exit_status_configure(const sim::Config& cfg);

// After each launch (device thread): counts its error-severity reports.
void exit_status_count(const sim::LaunchResult& result);

// The program used the control API's report functions: its exit status is its own.
void exit_status_program_decides();

}  // namespace synclab::rt
