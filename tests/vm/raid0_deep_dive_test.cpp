// vm tests: raid0_deep_dive (issue 4).
#include <gtest/gtest.h>
