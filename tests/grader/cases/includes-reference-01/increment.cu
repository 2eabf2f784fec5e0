#include "../../solutions/01-data-races/increment.cu"
