# The correlation engine's unit tests (launcher/engine, launcher/report): one file per stage.
iotap_unit_test(engine_test
  SOURCES engine/tokenizer_test.cpp engine/sorter_test.cpp engine/histogram_test.cpp
          engine/bio_tracker_test.cpp engine/attribution_test.cpp engine/verdict_test.cpp
          engine/remap_check_test.cpp engine/report_test.cpp engine/robustness_test.cpp
          engine/verdict_status_test.cpp engine/syscall_requests_test.cpp
          engine/finished_requests_test.cpp engine/overhead_test.cpp
          engine/level_tokens_test.cpp engine/levels_test.cpp engine/level_verdict_test.cpp
          engine/level_report_test.cpp engine/level_perfetto_test.cpp engine/record_test.cpp
          engine/flat_map_test.cpp
          engine/in_flight_test.cpp
  LIBS iotap_engine_internals iotap_report iotap_perfetto_timeline)
# record_test.cpp holds the tapsets' records to the engine's reading of them.
target_compile_definitions(engine_test PRIVATE SOURCE_DIR="${PROJECT_SOURCE_DIR}")
