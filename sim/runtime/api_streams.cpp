// Streams, events and host callbacks (stream_table.h and device_thread.h explain the model).
#include <fmt/format.h>

#include "sim/runtime/api_common.h"
#include "sim/runtime/device_thread.h"
#include "sim/runtime/stream_table.h"

using namespace synclab::rt;

namespace {

cudaError_t bad_stream(const char* api, cudaStream_t s) {
  return fail(api, cudaErrorInvalidResourceHandle,
              fmt::format("stream {} is not a live stream (destroyed, or never created with "
                          "cudaStreamCreate)",
                          static_cast<const void*>(s)));
}

cudaError_t bad_event(const char* api, cudaEvent_t e) {
  return fail(api, cudaErrorInvalidResourceHandle,
              fmt::format("event {} is not a live event (destroyed, or never created with "
                          "cudaEventCreate)",
                          static_cast<const void*>(e)));
}

cudaError_t create_stream(const char* api, cudaStream_t* pStream, unsigned flags, int priority) {
  if (!pStream) return fail(api, cudaErrorInvalidValue, "pStream is null");
  if (flags & ~unsigned(cudaStreamNonBlocking))
    return fail(api, cudaErrorInvalidValue,
                fmt::format("flags 0x{:x}: use cudaStreamDefault or cudaStreamNonBlocking", flags));
  SIMCUDART_PREAMBLE();
  *pStream = StreamTable::instance().create_stream(flags, priority);
  return cudaSuccess;
}

}  // namespace

// ---- streams ---------------------------------------------------------------------------------

SIMCUDART_API cudaError_t cudaStreamCreate(cudaStream_t* pStream) {
  return create_stream("cudaStreamCreate", pStream, cudaStreamDefault, 0);
}

SIMCUDART_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  return create_stream("cudaStreamCreateWithFlags", pStream, flags, 0);
}

SIMCUDART_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t* pStream, unsigned int flags, int priority) {
  // Priorities run from 0 (least) to -5 (greatest); out-of-range values are clamped, as on CUDA.
  priority = std::min(0, std::max(-5, priority));
  return create_stream("cudaStreamCreateWithPriority", pStream, flags, priority);
}

SIMCUDART_API cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  SIMCUDART_PREAMBLE();
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread)
    return fail("cudaStreamDestroy", cudaErrorInvalidResourceHandle, "the default stream cannot be destroyed");
  if (!StreamTable::instance().destroy_stream(stream)) return bad_stream("cudaStreamDestroy", stream);
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  SIMCUDART_PREAMBLE();
  if (!StreamTable::instance().valid_stream(stream)) return bad_stream("cudaStreamSynchronize", stream);
  StreamTable::instance().synchronize(stream);
  return sync_status();
}

SIMCUDART_API cudaError_t cudaStreamQuery(cudaStream_t stream) {
  SIMCUDART_PREAMBLE();
  if (!StreamTable::instance().valid_stream(stream)) return bad_stream("cudaStreamQuery", stream);
  // cudaErrorNotReady is an answer, not an error: it does not become the last error.
  return StreamTable::instance().query(stream) ? cudaSuccess : cudaErrorNotReady;
}

SIMCUDART_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  SIMCUDART_PREAMBLE();
  if (!StreamTable::instance().valid_stream(stream)) return bad_stream("cudaStreamWaitEvent", stream);
  if (!StreamTable::instance().valid_event(event)) return bad_event("cudaStreamWaitEvent", event);
  if (flags & ~unsigned(cudaEventWaitExternal))
    return fail("cudaStreamWaitEvent", cudaErrorInvalidValue, fmt::format("unknown flags 0x{:x}", flags));
  if (!StreamTable::instance().wait_event(stream, event)) return bad_event("cudaStreamWaitEvent", event);
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int* flags) {
  if (!flags) return fail("cudaStreamGetFlags", cudaErrorInvalidValue, "flags is null");
  if (!StreamTable::instance().stream_flags(hStream, flags, nullptr)) return bad_stream("cudaStreamGetFlags", hStream);
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int* priority) {
  if (!priority) return fail("cudaStreamGetPriority", cudaErrorInvalidValue, "priority is null");
  if (!StreamTable::instance().stream_flags(hStream, nullptr, priority))
    return bad_stream("cudaStreamGetPriority", hStream);
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* userData) {
  SIMCUDART_PREAMBLE();
  if (!fn) return fail("cudaLaunchHostFunc", cudaErrorInvalidValue, "fn is null");
  if (!StreamTable::instance().valid_stream(stream)) return bad_stream("cudaLaunchHostFunc", stream);
  StreamTable::instance().submit(stream, [fn, userData] {
    if (sticky_error() != cudaSuccess) return;  // the stream is broken: later work does not run
    fn(userData);
  });
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData,
                                                unsigned int flags) {
  SIMCUDART_PREAMBLE();
  if (!callback) return fail("cudaStreamAddCallback", cudaErrorInvalidValue, "callback is null");
  if (flags != 0) return fail("cudaStreamAddCallback", cudaErrorInvalidValue, "flags must be 0");
  if (!StreamTable::instance().valid_stream(stream)) return bad_stream("cudaStreamAddCallback", stream);
  StreamTable::instance().submit(stream, [stream, callback, userData] {
    // Unlike host functions, callbacks run after an error too, and are told about it.
    callback(stream, sticky_error(), userData);
  });
  return cudaSuccess;
}

// ---- events ----------------------------------------------------------------------------------

SIMCUDART_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  if (!event) return fail("cudaEventCreateWithFlags", cudaErrorInvalidValue, "event is null");
  constexpr unsigned kKnown = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
  if (flags & ~kKnown)
    return fail("cudaEventCreateWithFlags", cudaErrorInvalidValue,
                fmt::format("unknown flags 0x{:x}", flags & ~kKnown));
  if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
    return fail("cudaEventCreateWithFlags", cudaErrorInvalidValue,
                "cudaEventInterprocess needs cudaEventDisableTiming as well");
  SIMCUDART_PREAMBLE();
  *event = StreamTable::instance().create_event(flags);
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaEventCreate(cudaEvent_t* event) {
  if (!event) return fail("cudaEventCreate", cudaErrorInvalidValue, "event is null");
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

SIMCUDART_API cudaError_t cudaEventDestroy(cudaEvent_t event) {
  SIMCUDART_PREAMBLE();
  if (!StreamTable::instance().destroy_event(event)) return bad_event("cudaEventDestroy", event);
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  SIMCUDART_PREAMBLE();
  if (!StreamTable::instance().valid_stream(stream)) return bad_stream("cudaEventRecord", stream);
  if (!StreamTable::instance().record_event(event, stream)) return bad_event("cudaEventRecord", event);
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  if (flags & ~unsigned(cudaEventRecordExternal))
    return fail("cudaEventRecordWithFlags", cudaErrorInvalidValue, fmt::format("unknown flags 0x{:x}", flags));
  return cudaEventRecord(event, stream);
}

SIMCUDART_API cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  SIMCUDART_PREAMBLE();
  auto st = StreamTable::instance().event_state(event);
  if (!st.valid) return bad_event("cudaEventSynchronize", event);
  if (st.recorded) DeviceThread::instance().wait(st.ticket, st.known);
  return sync_status();
}

SIMCUDART_API cudaError_t cudaEventQuery(cudaEvent_t event) {
  SIMCUDART_PREAMBLE();
  auto st = StreamTable::instance().event_state(event);
  if (!st.valid) return bad_event("cudaEventQuery", event);
  return st.finished ? cudaSuccess : cudaErrorNotReady;
}

SIMCUDART_API cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms) return fail("cudaEventElapsedTime", cudaErrorInvalidValue, "ms is null");
  SIMCUDART_PREAMBLE();
  auto a = StreamTable::instance().event_state(start);
  auto b = StreamTable::instance().event_state(end);
  if (!a.valid) return bad_event("cudaEventElapsedTime", start);
  if (!b.valid) return bad_event("cudaEventElapsedTime", end);
  if (!a.timing || !b.timing)
    return fail("cudaEventElapsedTime", cudaErrorInvalidResourceHandle,
                "an event was created with cudaEventDisableTiming");
  if (!a.recorded || !b.recorded)
    return fail("cudaEventElapsedTime", cudaErrorInvalidResourceHandle,
                "both events must have been recorded (cudaEventRecord) first");
  if (!a.finished || !b.finished) return set_error(cudaErrorNotReady);
  // Simulated time: what the kernels between the two records would take on the profile's
  // device, not the host time the simulation took.
  *ms = float(b.time_ms - a.time_ms);
  return cudaSuccess;
}

SIMCUDART_ALIAS(cudaError_t, cudaStreamSynchronize_ptsz, cudaStreamSynchronize, (cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaStreamQuery_ptsz, cudaStreamQuery, (cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaStreamWaitEvent_ptsz, cudaStreamWaitEvent, (cudaStream_t, cudaEvent_t, unsigned int))
SIMCUDART_ALIAS(cudaError_t, cudaStreamGetFlags_ptsz, cudaStreamGetFlags, (cudaStream_t, unsigned int*))
SIMCUDART_ALIAS(cudaError_t, cudaStreamGetPriority_ptsz, cudaStreamGetPriority, (cudaStream_t, int*))
SIMCUDART_ALIAS(cudaError_t, cudaLaunchHostFunc_ptsz, cudaLaunchHostFunc, (cudaStream_t, cudaHostFn_t, void*))
SIMCUDART_ALIAS(cudaError_t, cudaStreamAddCallback_ptsz, cudaStreamAddCallback,
                (cudaStream_t, cudaStreamCallback_t, void*, unsigned int))
SIMCUDART_ALIAS(cudaError_t, cudaEventRecord_ptsz, cudaEventRecord, (cudaEvent_t, cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaEventRecordWithFlags_ptsz, cudaEventRecordWithFlags,
                (cudaEvent_t, cudaStream_t, unsigned int))
