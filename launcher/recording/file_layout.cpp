#include "iotap/recording/file_layout.h"

#include <algorithm>
#include <map>

namespace iotap::recording {

std::vector<PlacedFile> lay_out_files(const std::vector<FileRequest>& requests) {
  std::map<uint64_t, uint64_t> extents;  // by file number: the order the regions are laid in
  for (const FileRequest& r : requests) {
    uint64_t& extent = extents[r.file];
    extent = std::max(extent, r.request.offset + r.request.size);
  }
  std::vector<PlacedFile> files;
  files.reserve(extents.size());
  uint64_t next = 0;
  for (const auto& [file, bytes] : extents) {
    files.push_back({.file = file, .offset = next, .bytes = bytes});
    next += (bytes + kFileAlignment - 1) / kFileAlignment * kFileAlignment;
  }
  return files;
}

std::vector<Request> placed_requests(const std::vector<FileRequest>& requests,
                                     const std::vector<PlacedFile>& files) {
  std::map<uint64_t, uint64_t> start;
  for (const PlacedFile& f : files) start.emplace(f.file, f.offset);
  std::vector<Request> placed;
  placed.reserve(requests.size());
  for (const FileRequest& r : requests) {
    placed.push_back(r.request);
    placed.back().offset += start.at(r.file);
  }
  return placed;
}

Json files_json(const std::vector<PlacedFile>& files) {
  Json list = Json::array();
  for (const PlacedFile& f : files)
    list.push_back({{"file", f.file}, {"offset", f.offset}, {"bytes", f.bytes}});
  return list;
}

}  // namespace iotap::recording
