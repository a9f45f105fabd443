// vm tests: callgraph (issue 4).
#include <gtest/gtest.h>
