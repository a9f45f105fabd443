// vm tests: iotime_top (issue 4).
#include <gtest/gtest.h>
