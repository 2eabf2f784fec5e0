// The main() of every lab's graded test program (tests/labs/labNN.test.cpp holds the cases).
// Wide console lines, so that a failure message (a report's file:line, a replay line) is not
// wrapped in the middle (Catch2 2.x; 3.x takes the width from its build configuration).
#define CATCH_CONFIG_CONSOLE_WIDTH 300
#define SYNCLAB_CATCH_MAIN
#include <synclab/catch.h>
