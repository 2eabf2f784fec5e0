// Exports of a trace: the text summary and Chrome trace-event JSON (Perfetto, chrome://tracing).
// `synclab-trace summary` and `synclab-trace export --chrome` are thin wrappers around these.
#pragma once

#include <synclab/trace_analysis.h>
#include <synclab/trace_reader.h>

#include <ostream>
#include <string>

namespace synclab::trace {

// The text summary: program, backend, device, model, scheduler, seed; per launch its kernel,
// shape, events per kind, barrier releases, atomics, derived intervals; regions; reports with
// titles and lines; whether the file is complete.
void write_summary(const Trace& t, std::ostream& out);

// Chrome trace-event JSON: a process per launch, a thread track per warp ("block B warp W"),
// "X" slices for barrier waits, spins and critical sections, "i" instants for Report events.
// Simulator time: 1 warp-step = 1 us; GPU time: ns since the trace's first event, written in us.
// Returns false with a message when the stream fails.
bool write_chrome_json(const Trace& t, std::ostream& out, std::string* error, const AnalysisOptions& opt = {});

// The warp's track name: "block B warp W" (or "warp W" when warps_per_block is unknown).
std::string warp_track_name(const Trace& t, int launch, uint32_t warp);

}  // namespace synclab::trace
