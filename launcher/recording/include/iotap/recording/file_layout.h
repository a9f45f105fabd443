#pragma once
// A program's requests on files of its own (a database's relations), laid out on one device for
// replay. io_replayer replays offsets on one device or file, so each of the program's files gets
// a region of it: the files in the order of their numbers, each from a page boundary, as long as
// the furthest byte the recording touched in it. docs/recording-format.md, "A database's files".
#include <cstdint>
#include <vector>

#include "iotap/recording/recording.h"

namespace iotap::recording {

// Where each file's region starts: a page, the file system's block and what O_DIRECT needs.
inline constexpr uint64_t kFileAlignment = 4096;

// One request on one of the program's files.
struct FileRequest {
  uint64_t file = 0;  // the program's number for the file (PostgreSQL's relfilenode)
  Request request;    // its offset is the offset in the file
};

// One file's region on the replay's device.
struct PlacedFile {
  uint64_t file = 0;
  uint64_t offset = 0;  // where its region starts on the device
  uint64_t bytes = 0;   // the furthest byte a request reached in it
};

// The files the requests name, by number, each region right after the previous one's (rounded
// up to kFileAlignment).
std::vector<PlacedFile> lay_out_files(const std::vector<FileRequest>& requests);

// The requests, in the same order, with their offsets on the device: their file's region's start
// plus their offset in the file. `files` must be lay_out_files(requests).
std::vector<Request> placed_requests(const std::vector<FileRequest>& requests,
                                     const std::vector<PlacedFile>& files);

// The header's "files": [{"file": N, "offset": BYTES, "bytes": BYTES}, ...].
Json files_json(const std::vector<PlacedFile>& files);

}  // namespace iotap::recording
