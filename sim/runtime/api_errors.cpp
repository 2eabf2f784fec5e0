// cudaGetLastError and friends (error_state.h keeps the state).
#include "sim/runtime/api_common.h"

using namespace synclab::rt;

SIMCUDART_API cudaError_t cudaGetLastError(void) { return last_error(true); }

SIMCUDART_API cudaError_t cudaPeekAtLastError(void) { return last_error(false); }

SIMCUDART_API const char* cudaGetErrorName(cudaError_t error) {
  const char* n = error_name(int(error));
  return n ? n : "unrecognized error code";
}

SIMCUDART_API const char* cudaGetErrorString(cudaError_t error) {
  const char* s = error_string(int(error));
  return s ? s : "unrecognized error code";
}
