#include "iotap/report/attribution_check.h"

#include <cmath>
#include <unordered_map>

#include "iotap/report.h"
#include "iotap/util/error.h"

namespace iotap::report {
namespace {

enum class Type {
  kString,
  kStringOrNull,
  kCount,
  kInteger,
  kNumber,
  kNumberOrNull,
  kObject,
  kArray
};

std::string expected(Type type) {
  switch (type) {
    case Type::kString:
      return "a string";
    case Type::kStringOrNull:
      return "a string or null";
    case Type::kCount:
      return "a whole number, 0 or more";
    case Type::kInteger:
      return "a whole number";
    case Type::kNumber:
      return "a number";
    case Type::kNumberOrNull:
      return "a number or null";
    case Type::kObject:
      return "an object";
    case Type::kArray:
      return "an array";
  }
  return "";
}

bool finite_number(const Json& value) {
  return value.is_number() && (!value.is_number_float() || std::isfinite(value.get<double>()));
}

bool has_type(const Json& value, Type type) {
  switch (type) {
    case Type::kString:
      return value.is_string();
    case Type::kStringOrNull:
      return value.is_string() || value.is_null();
    case Type::kCount:
      return value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0);
    case Type::kInteger:
      return value.is_number_integer();
    case Type::kNumber:
      return finite_number(value);
    case Type::kNumberOrNull:
      return finite_number(value) || value.is_null();
    case Type::kObject:
      return value.is_object();
    case Type::kArray:
      return value.is_array();
  }
  return false;
}

// What a value is, for "found ...": a number, true and false as written, the rest by kind.
std::string found(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::string:
      return "a string";
    case Json::value_t::object:
      return "an object";
    case Json::value_t::array:
      return "an array";
    default:
      return value.dump();
  }
}

class Checker {
 public:
  explicit Checker(const std::string& file) : file_(file) {}

  [[noreturn]] void fail(const std::string& at, const std::string& what) const {
    throw UserError(file_ + ": " + at + ": " + what);
  }

  // `object`'s member `key` (`at` is the object's path), checked to be a `type`: nullptr when
  // it is absent and may be.
  const Json* field(const Json& object, const std::string& at, const char* key, Type type,
                    bool required = false) const {
    const std::string path = at.empty() ? key : at + "." + key;
    const auto it = object.find(key);
    if (it == object.end()) {
      if (required) fail(path, "missing (expected " + expected(type) + ")");
      return nullptr;
    }
    if (!has_type(*it, type)) fail(path, "expected " + expected(type) + ", found " + found(*it));
    return &*it;
  }

  // The fields of `object` that are all of one type.
  void fields(const Json& object, const std::string& at, std::initializer_list<const char*> keys,
              Type type) const {
    for (const char* key : keys) field(object, at, key, type);
  }

  // An array member whose every element is an object, each checked by `each(element, path)`.
  template <typename Each>
  void objects(const Json& object, const std::string& at, const char* key, Each each) const {
    const Json* list = field(object, at, key, Type::kArray);
    if (list == nullptr) return;
    const std::string path = at.empty() ? key : at + "." + key;
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string item = path + "[" + std::to_string(i) + "]";
      const Json& element = (*list)[i];
      if (!element.is_object()) fail(item, "expected an object, found " + found(element));
      each(element, item);
    }
  }

  // An object member, checked by `each(member, path)` when present.
  template <typename Each>
  void object(const Json& parent, const std::string& at, const char* key, Each each) const {
    if (const Json* member = field(parent, at, key, Type::kObject))
      each(*member, at.empty() ? key : at + "." + key);
  }

  // latency_us: the statistics and the histogram over powers of two.
  void latency(const Json& parent, const std::string& at) const {
    object(parent, at, "latency_us", [this](const Json& l, const std::string& path) {
      fields(l, path, {"mean", "p50", "p95", "p99", "max"}, Type::kNumber);
      objects(l, path, "histogram", [this](const Json& bucket, const std::string& item) {
        const Json* from = field(bucket, item, "from_us", Type::kCount);
        const Json* to = field(bucket, item, "to_us", Type::kCount);
        field(bucket, item, "count", Type::kCount);
        for (const Json* bound : {from, to}) {
          if (bound != nullptr && bound->get<uint64_t>() > kMaxHistogramBoundUs)
            fail(item + (bound == from ? ".from_us" : ".to_us"),
                 "expected at most 2^62 microseconds, found " + bound->dump());
        }
        if (from != nullptr && to != nullptr && from->get<uint64_t>() >= to->get<uint64_t>())
          fail(item + ".to_us",
               "expected more than from_us (" + from->dump() + "), found " + to->dump());
      });
    });
  }

 private:
  const std::string& file_;
};

void check_requests(const Checker& c, const Json& doc) {
  c.field(doc, "", "requests", Type::kObject, /*required=*/true);
  c.object(doc, "", "requests", [&c](const Json& r, const std::string& at) {
    c.field(r, at, "source", Type::kString);
    c.fields(r, at, {"count", "errors", "without_block_io"}, Type::kCount);
    c.latency(r, at);
    c.objects(r, at, "kinds", [&c](const Json& kind, const std::string& item) {
      c.field(kind, item, "op", Type::kString, /*required=*/true);
      c.fields(kind, item, {"count", "errors", "without_block_io"}, Type::kCount);
      c.latency(kind, item);
    });
  });
  c.object(doc, "", "unrequested", [&c](const Json& u, const std::string& at) {
    c.fields(u, at, {"reads", "writes", "flushes", "others", "bytes"}, Type::kCount);
  });
}

void check_devices(const Checker& c, const Json& doc) {
  c.objects(doc, "", "layers", [&c](const Json& layer, const std::string& item) {
    c.field(layer, item, "name", Type::kString, /*required=*/true);
    c.fields(layer, item, {"mean_us", "share"}, Type::kNumber);
  });
  // Rows are matched and the stack is drawn by name: two devices of one name would be one.
  std::unordered_map<std::string, size_t> seen;
  c.objects(doc, "", "devices", [&](const Json& d, const std::string& item) {
    const auto& name = c.field(d, item, "name", Type::kString, true)->get_ref<const std::string&>();
    if (const auto [first, added] = seen.emplace(name, seen.size()); !added)
      c.fail(item + ".name", "'" + name + "' again (devices[" + std::to_string(first->second) +
                                 "] has it): each device is named once");
    c.field(d, item, "dev", Type::kString);
    c.fields(d, item, {"spec", "parent"}, Type::kStringOrNull);
    c.fields(d, item, {"ios", "bytes", "errors"}, Type::kCount);
    c.latency(d, item);
    c.object(d, item, "exclusive_us",
             [&c](const Json& e, const std::string& at) { c.field(e, at, "mean", Type::kNumber); });
    c.object(d, item, "service_us", [&c](const Json& s, const std::string& at) {
      c.field(s, at, "requests", Type::kCount);
      c.fields(s, at, {"mean", "p50", "p95", "p99", "max"}, Type::kNumber);
    });
    c.object(d, item, "kernel_stats", [&c](const Json& k, const std::string& at) {
      c.field(k, at, "read_mean_us", Type::kNumberOrNull);
    });
  });
}

void check_verdict(const Checker& c, const Json& doc) {
  c.object(doc, "", "verdict", [&c](const Json& v, const std::string& at) {
    c.field(v, at, "status", Type::kString);
    c.field(v, at, "reason", Type::kStringOrNull);
    c.objects(v, at, "slow_members", [&c](const Json& s, const std::string& item) {
      c.field(s, item, "name", Type::kString, /*required=*/true);
      c.fields(s, item, {"spec", "parent"}, Type::kStringOrNull);
      c.fields(s, item, {"member", "array"}, Type::kString);
      c.object(s, item, "evidence", [&c](const Json& e, const std::string& path) {
        c.fields(e, path, {"mean_us", "siblings_mean_us", "share_of_slowest", "slowest_fraction"},
                 Type::kNumber);
        c.fields(e, path, {"siblings", "slowest_requests"}, Type::kCount);
        c.field(e, path, "slowest_of", Type::kString);
      });
    });
    c.objects(v, at, "failing_members", [&c](const Json& f, const std::string& item) {
      c.field(f, item, "name", Type::kString, /*required=*/true);
      c.fields(f, item, {"spec", "parent"}, Type::kStringOrNull);
      c.fields(f, item, {"ios", "errors"}, Type::kCount);
    });
  });
}

// A provider's levels (schema 3): each with its name, counts, latency and time split.
void check_levels(const Checker& c, const Json& doc) {
  if (const auto it = doc.find("slowest_time"); it != doc.end() && !it->is_null())
    c.object(doc, "", "slowest_time", [&c](const Json& t, const std::string& at) {
      c.field(t, at, "requests", Type::kCount);
      c.fields(t, at, {"reads_share", "stack_share"}, Type::kNumber);
    });
  c.objects(doc, "", "levels", [&c](const Json& level, const std::string& item) {
    c.field(level, item, "name", Type::kString, /*required=*/true);
    c.field(level, item, "plural", Type::kString);
    c.fields(level, item, {"count", "errors", "unfinished"}, Type::kCount);
    c.latency(level, item);
    c.object(level, item, "time_us", [&c](const Json& t, const std::string& at) {
      c.fields(t, at, {"reads_stack", "reads_cache", "writes", "other"}, Type::kNumber);
    });
  });
}

// A waterfall's stages, each its layer and times (and its device's name, where it has one).
void check_stages(const Checker& c, const Json& w, const std::string& item) {
  c.field(w, item, "stages", Type::kArray, /*required=*/true);
  c.objects(w, item, "stages", [&c](const Json& s, const std::string& stage) {
    c.field(s, stage, "layer", Type::kString, /*required=*/true);
    c.field(s, stage, "device", Type::kString);
    c.field(s, stage, "start_us", Type::kNumber, /*required=*/true);
    c.field(s, stage, "dwell_us", Type::kNumber, /*required=*/true);
    c.field(s, stage, "bios", Type::kCount);
  });
}

// A waterfall needs its request, its latency and its stages.
void check_waterfall(const Checker& c, const Json& w, const std::string& item) {
  c.field(w, item, "request", Type::kCount, /*required=*/true);
  c.field(w, item, "call", Type::kString);
  c.fields(w, item, {"thread", "offset", "result"}, Type::kInteger);
  c.field(w, item, "size", Type::kNumber);
  c.field(w, item, "latency_us", Type::kNumber, /*required=*/true);
  check_stages(c, w, item);
  c.field(w, item, "level", Type::kString);
  c.field(w, item, "text", Type::kString);
  // A query's I/O: waterfalls of their own (they hold no inner ones: a query's are its leaves),
  // drawn as the query's are: their stages are checked as its are.
  c.objects(w, item, "inner", [&c](const Json& io, const std::string& at) {
    c.field(io, at, "request", Type::kCount, /*required=*/true);
    c.field(io, at, "call", Type::kString);
    c.field(io, at, "latency_us", Type::kNumber, /*required=*/true);
    c.field(io, at, "start_us", Type::kNumber);
    check_stages(c, io, at);
  });
}

void check_slowest(const Checker& c, const Json& doc) {
  c.objects(doc, "", "slowest",
            [&c](const Json& w, const std::string& item) { check_waterfall(c, w, item); });
}

void check_the_rest(const Checker& c, const Json& doc) {
  c.fields(doc, "", {"loss", "stream", "program"}, Type::kObject);
  c.object(doc, "", "remap_check", [&c](const Json& r, const std::string& at) {
    c.fields(r, at, {"checked", "mismatches"}, Type::kCount);
  });
  c.object(doc, "", "overhead", [&c](const Json& o, const std::string& at) {
    c.fields(o, at, {"probe_hits", "skipped_probes"}, Type::kCount);
    c.fields(o, at, {"ns_per_hit", "seconds", "share"}, Type::kNumberOrNull);
  });
  // compare takes a document with "recording" for a recording's requests (compare.h).
  c.object(doc, "", "recording", [&c](const Json& r, const std::string& at) {
    c.field(r, at, "stack", Type::kStringOrNull);
  });
  c.field(doc, "", "stack", Type::kArray);
}

}  // namespace

void check_attribution(const Json& doc, const std::string& file, std::string_view or_else) {
  const auto schema = doc.is_object() ? doc.find("schema") : doc.end();
  if (!doc.is_object() || schema == doc.end() ||
      (*schema != kSchema && *schema != kSchemaWithoutLevels))
    throw UserError(file + " is not an iotap attribution (the --json of iotap attribute, " +
                    "diagnose or replay, schema " + kSchema + " or " + kSchemaWithoutLevels + ")" +
                    std::string(or_else));
  const Checker c(file);
  check_requests(c, doc);
  check_devices(c, doc);
  check_verdict(c, doc);
  check_levels(c, doc);
  check_slowest(c, doc);
  check_the_rest(c, doc);
}

}  // namespace iotap::report
