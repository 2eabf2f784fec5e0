// Parts of the CUDA runtime the simulator does not model, answered with cudaErrorNotSupported
// and a message (rather than an undefined symbol at link time), and the trivial answers that
// are exact for a one-device simulator that never captures streams.
#include <fmt/format.h>

#include "sim/runtime/api_common.h"
#include "sim/runtime/stream_table.h"

using namespace synclab::rt;

namespace {

cudaError_t unsupported(const char* api, const char* what) {
  return fail(api, cudaErrorNotSupported, fmt::format("{} not supported by the simulator; {}", api, what));
}

}  // namespace

SIMCUDART_API cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* pCaptureStatus) {
  if (!pCaptureStatus) return fail("cudaStreamIsCapturing", cudaErrorInvalidValue, "pCaptureStatus is null");
  if (!StreamTable::instance().valid_stream(stream))
    return fail("cudaStreamIsCapturing", cudaErrorInvalidResourceHandle, "the stream is not a live stream");
  *pCaptureStatus = cudaStreamCaptureStatusNone;  // nothing is ever captured
  return cudaSuccess;
}

SIMCUDART_API cudaError_t cudaStreamBeginCapture(cudaStream_t, cudaStreamCaptureMode) {
  return unsupported("cudaStreamBeginCapture", "CUDA graphs are not modelled: launch the work directly");
}

SIMCUDART_API cudaError_t cudaStreamEndCapture(cudaStream_t, cudaGraph_t* pGraph) {
  if (pGraph) *pGraph = nullptr;
  return unsupported("cudaStreamEndCapture", "CUDA graphs are not modelled: launch the work directly");
}

SIMCUDART_API cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t, unsigned long long) {
  if (pGraphExec) *pGraphExec = nullptr;
  return unsupported("cudaGraphInstantiate", "CUDA graphs are not modelled: launch the work directly");
}

SIMCUDART_API cudaError_t cudaGraphLaunch(cudaGraphExec_t, cudaStream_t) {
  return unsupported("cudaGraphLaunch", "CUDA graphs are not modelled: launch the work directly");
}

SIMCUDART_API cudaError_t cudaGraphExecDestroy(cudaGraphExec_t) {
  return unsupported("cudaGraphExecDestroy", "CUDA graphs are not modelled");
}

SIMCUDART_API cudaError_t cudaGraphDestroy(cudaGraph_t) {
  return unsupported("cudaGraphDestroy", "CUDA graphs are not modelled");
}

SIMCUDART_API cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms*) {
  return unsupported("cudaMemcpy3D", "use cudaMemcpy2D per slice, or cudaMemcpy");
}

SIMCUDART_API cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int) {
  return fail("cudaDeviceEnablePeerAccess", cudaErrorInvalidDevice,
              fmt::format("device {}: the simulator has one device, so there is no peer", peerDevice));
}

SIMCUDART_API cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
  return fail("cudaDeviceDisablePeerAccess", cudaErrorInvalidDevice,
              fmt::format("device {}: the simulator has one device, so there is no peer", peerDevice));
}

SIMCUDART_ALIAS(cudaError_t, cudaStreamIsCapturing_ptsz, cudaStreamIsCapturing,
                (cudaStream_t, cudaStreamCaptureStatus*))
SIMCUDART_ALIAS(cudaError_t, cudaStreamBeginCapture_ptsz, cudaStreamBeginCapture, (cudaStream_t, cudaStreamCaptureMode))
SIMCUDART_ALIAS(cudaError_t, cudaStreamEndCapture_ptsz, cudaStreamEndCapture, (cudaStream_t, cudaGraph_t*))
SIMCUDART_ALIAS(cudaError_t, cudaGraphLaunch_ptsz, cudaGraphLaunch, (cudaGraphExec_t, cudaStream_t))
SIMCUDART_ALIAS(cudaError_t, cudaMemcpy3D_ptds, cudaMemcpy3D, (const cudaMemcpy3DParms*))
