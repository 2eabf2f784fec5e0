// synclab_lab.h's functions compiled once (not inline), for the labs' programs and graded tests,
// which include the header with SYNCLAB_LAB_SEPARATE defined (cmake/SynclabLab.cmake).
#define SYNCLAB_LAB_INLINE
#include "synclab_lab_impl.h"
