# Prints why each failed test failed, from ctest's LastTest.log: gtest's failure messages (the
# "file:line: Failure" line and what follows it), the runtime cases' FAILED lines and SystemTap's
# overhead line (its skipped probe hits explain many a missing event). test.sh prints this after a
# failing run, last, so that a log kept only in its head and tail still says why.
#   awk -f tests/why_failed/why_failed.awk build/Testing/Temporary/LastTest.log
function flush(failed) {
  if (failed && kept != "") printf "--- %s\n%s", name, kept
  kept = ""; lines = 0; follow = 0; split("", seen)
}
function keep(line) {
  if (!(line in seen) && lines++ < 40) kept = kept line "\n"
  seen[line] = 1
}
/^[0-9]+\/[0-9]+ Testing: / { flush(0); name = $0; sub(/^[0-9]+\/[0-9]+ Testing: /, "", name); next }
/^Test Failed\./ { flush(1); next }
/^Test Passed\./ { flush(0); next }
follow > 0 {
  if ($0 == "" || $0 ~ /^\[/) follow = 0
  else { keep($0); follow--; next }
}
/: Failure$/ { keep($0); follow = 8; next }
/^FAILED / || /overhead: .* skipped/ { keep($0) }
