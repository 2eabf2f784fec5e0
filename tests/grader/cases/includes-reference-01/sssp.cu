#include "../../solutions/01-data-races/sssp.cu"
