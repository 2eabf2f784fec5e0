#include "../../solutions/01-data-races/histogram.cu"
