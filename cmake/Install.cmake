# `cmake --install build --prefix PREFIX`: PREFIX/bin/iotap finds everything it reads at run time
# under PREFIX/share/iotap and PREFIX/libexec/iotap (launcher/util/data_paths.h), and caches in
# $XDG_CACHE_HOME/iotap.
set(IOTAP_DATA_DESTINATION share/iotap)
install(TARGETS iotap RUNTIME DESTINATION bin)
install(TARGETS block_hasher RUNTIME DESTINATION libexec/iotap/block_hasher)
install(TARGETS io_replayer RUNTIME DESTINATION libexec/iotap/io_replayer)
install(TARGETS stapio_drain LIBRARY DESTINATION libexec/iotap)
install(DIRECTORY tapsets/ DESTINATION ${IOTAP_DATA_DESTINATION}/tapsets
        FILES_MATCHING PATTERN "*.stp" PATTERN "*.stpm")
install(DIRECTORY examples/ DESTINATION ${IOTAP_DATA_DESTINATION}/examples)
install(DIRECTORY providers/ DESTINATION ${IOTAP_DATA_DESTINATION}/providers
        FILES_MATCHING PATTERN "*.provider")
install(FILES launcher/guest/init.sh launcher/guest/stack_build.sh launcher/guest/postgres.sh
        DESTINATION ${IOTAP_DATA_DESTINATION}/guest)
install(FILES launcher/remote/agent.sh DESTINATION ${IOTAP_DATA_DESTINATION}/ssh)
install(FILES launcher/runner/device_lines.sh launcher/runner/staprun.sh
        DESTINATION ${IOTAP_DATA_DESTINATION}/runner)
# Man pages (made from --help at build time, launcher/CMakeLists.txt) and bash completion.
install(DIRECTORY "${IOTAP_MAN_DIR}/" DESTINATION share/man/man1 FILES_MATCHING PATTERN "*.1")
install(FILES completions/iotap.bash DESTINATION share/bash-completion/completions RENAME iotap)
# The documents a user reads without the source tree: the README and docs/ (with its images).
install(FILES README.md DESTINATION share/doc/iotap)
install(DIRECTORY docs/ DESTINATION share/doc/iotap/docs)
