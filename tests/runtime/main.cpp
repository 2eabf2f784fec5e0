#define SYNCLAB_CATCH_MAIN
#include <synclab/catch.h>
