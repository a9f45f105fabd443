// vm tests: latency (issue 4).
#include <gtest/gtest.h>
