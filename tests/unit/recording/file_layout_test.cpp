// A database's files laid out on one device for replay (recording/file_layout.h): each file a
// region of its own, by file number, from a page boundary, as long as its furthest byte read;
// each request moved into its file's region, in the order given.
#include "iotap/recording/file_layout.h"

#include <gtest/gtest.h>

namespace iotap::recording {
namespace {

FileRequest on(uint64_t file, uint64_t offset, uint64_t size = 8192) {
  FileRequest r{.file = file, .request = {}};
  r.request.offset = offset;
  r.request.size = size;
  r.request.result = 8192;
  r.request.call = "smgr_read";
  return r;
}

TEST(FileLayout, FilesAreLaidOutByNumberEachAsLongAsItsFurthestByte) {
  // As a recording holds them: in the order they ended, files in no order.
  const std::vector<FileRequest> requests = {on(16390, 8192), on(1259, 0), on(16390, 0),
                                             on(16390, 5 * 8192), on(2608, 3 * 8192, 100)};
  const std::vector<PlacedFile> files = lay_out_files(requests);
  ASSERT_EQ(files.size(), 3U);
  EXPECT_EQ(files[0].file, 1259U);
  EXPECT_EQ(files[0].offset, 0U);
  EXPECT_EQ(files[0].bytes, 8192U);
  EXPECT_EQ(files[1].file, 2608U);
  EXPECT_EQ(files[1].offset, 8192U);
  EXPECT_EQ(files[1].bytes, 3 * 8192U + 100);  // not a whole page: the next file's region ...
  EXPECT_EQ(files[2].file, 16390U);
  EXPECT_EQ(files[2].offset, 8192U + 7 * kFileAlignment);  // ... starts at the next 4 KiB
  EXPECT_EQ(files[2].bytes, 6 * 8192U);

  const std::vector<Request> placed = placed_requests(requests, files);
  ASSERT_EQ(placed.size(), 5U);
  const uint64_t table = files[2].offset;
  EXPECT_EQ(placed[0].offset, table + 8192);
  EXPECT_EQ(placed[1].offset, 0U);
  EXPECT_EQ(placed[2].offset, table);
  EXPECT_EQ(placed[3].offset, table + 5 * 8192);
  EXPECT_EQ(placed[4].offset, 8192U + 3 * 8192);
  EXPECT_EQ(placed[4].size, 100U);
  EXPECT_EQ(placed[3].call, "smgr_read");

  EXPECT_EQ(files_json(files).dump(),
            R"([{"file":1259,"offset":0,"bytes":8192},{"file":2608,"offset":8192,"bytes":24676},)"
            R"({"file":16390,"offset":36864,"bytes":49152}])");
}

TEST(FileLayout, NoRequestsNoFiles) {
  EXPECT_TRUE(lay_out_files({}).empty());
  EXPECT_EQ(files_json({}).dump(), "[]");
}

}  // namespace
}  // namespace iotap::recording
