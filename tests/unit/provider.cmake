# Provider files (launcher/provider/): the reader, the check against a binary's probes, the
# generated script, and `iotap providers` and --requests usdt:... end to end.
set(provider_dir ${CMAKE_SOURCE_DIR}/tests/unit/provider)
# A program of a user's own with its own probes, and its provider file (docs/providers.md);
# ProviderTest (tests/vm) traces it in the guest.
add_executable(usdt_requests ${provider_dir}/usdt_requests.c)
target_compile_options(usdt_requests PRIVATE -O2
  $<$<C_COMPILER_ID:Clang>:-Wno-gnu-zero-variadic-macro-arguments>)
iotap_not_sanitized(usdt_requests)
set(usdt_requests_provider ${provider_dir}/usdt_requests.provider)

iotap_unit_test(provider_test
  SOURCES ${provider_dir}/expression_test.cpp ${provider_dir}/provider_file_test.cpp
          ${provider_dir}/probe_check_test.cpp ${provider_dir}/script_generator_test.cpp
  LIBS iotap_provider)
target_compile_definitions(provider_test PRIVATE
  PROVIDERS_DIR="${CMAKE_SOURCE_DIR}/providers"
  USDT_REQUESTS="$<TARGET_FILE:usdt_requests>"
  USDT_REQUESTS_PROVIDER="${usdt_requests_provider}"
  BLOCK_HASHER_PATH="${CMAKE_BINARY_DIR}/workloads/block_hasher/block_hasher"
  IO_REPLAYER_PATH="${CMAKE_BINARY_DIR}/workloads/io_replayer/io_replayer")
add_dependencies(provider_test usdt_requests block_hasher io_replayer)

# The command line: the providers listed and checked, a script printed, and each refusal one
# line before anything is compiled or booted (docs/reliability.md).
iotap_cli_test(cli_providers_list 0
  "postgresql  PostgreSQL 15[^\n]*\n  levels: query, buffer_read, smgr_read, smgr_write\n  program: /usr/lib/postgresql/15/bin/postgres; events: generated \\(PB/PT/PE\\)\n.*3 providers in "
  providers)
iotap_cli_test(cli_providers_check_own_file 0
  "usdt_requests: [^\n]*\n  batch \\(batches\\): batch_start/2 \\.\\. batch_done/2, paired by thread\n  read \\(reads\\): request_start/3 \\.\\. request_done/2, paired by \\$arg1, op R\n[^\n]*usdt_requests has every probe, with the declared argument counts"
  providers ${usdt_requests_provider} --program $<TARGET_FILE:usdt_requests>)
iotap_cli_test(cli_providers_script_for_run 0
  "probe process\\(\"__EXE__\"\\)\\.mark\\(\"request_start\"\\)\n{\n\t__iotap_begin_tid\\[1, \\(\\$arg1\\)\\] = tid\\(\\)"
  providers ${usdt_requests_provider} --script)
iotap_cli_test(cli_providers_other_version 2
  "iotap: [^\n]*usdt_requests has usdt_requests:request_done with 2 arguments; [^\n]*usdt_requests_other_version.provider:6 expects 3 \\(a provider file is written for one version of its program\\)"
  providers ${provider_dir}/usdt_requests_other_version.provider --program $<TARGET_FILE:usdt_requests>)
iotap_cli_test(cli_attribute_provider_unknown_name 2
  "iotap: --requests usdt:postgres: no provider of that name \\(iotap has block_hasher, io_replayer, postgresql; 'iotap providers' lists them\\)"
  attribute --target vm --stack "raid0(ram*2)" --requests usdt:postgres -c "psql -c 'select 1'")
iotap_cli_test(cli_attribute_provider_other_version 2
  "iotap: --requests usdt:[^\n]*usdt_requests_other_version.provider: [^\n]*usdt_requests has usdt_requests:request_done with 2 arguments; [^\n]*:6 expects 3"
  attribute --target vm --stack "raid0(ram*2)"
  --requests usdt:${provider_dir}/usdt_requests_other_version.provider
  -c "$<TARGET_FILE:usdt_requests> __DEV__ 4 4096")
iotap_cli_test(cli_attribute_provider_file_typo 2
  "iotap: provider file [^\n]*misspelt.provider:8: unknown word 'ofset' in level read \\(expected begin, end, pair, op, file, offset, size, result or text\\)"
  attribute --target vm --stack "raid0(ram*2)" --requests usdt:${provider_dir}/misspelt.provider
  -c "$<TARGET_FILE:usdt_requests> __DEV__ 4 4096")
iotap_cli_test(cli_attribute_provider_program_lacks_probes 2
  "iotap: --requests usdt:[^\n]*usdt_requests.provider: /[^\n]*/dd has no usdt_requests probes: trace a program that has them"
  attribute --target vm --stack "raid0(ram*2)" --requests usdt:${usdt_requests_provider}
  -c "dd if=__DEV__ of=/dev/null count=1")
iotap_cli_test(cli_probes_names_the_provider 0
  "8 probes in [^\n]*block_hasher\nprovider block_hasher: every probe it needs is here \\(attribute follows them; --requests usdt:block_hasher\\)"
  probes ${CMAKE_BINARY_DIR}/workloads/block_hasher/block_hasher)
