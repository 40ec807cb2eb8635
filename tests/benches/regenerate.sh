#!/usr/bin/env bash
# Runs every bench of the workspace once (`cargo bench --workspace`) and keeps what
# BENCHMARKS.md is written from: the tables the benches print after criterion's output, with
# their titles, the traces and the interleaved ratios. valgrind (callgrind) must be on the PATH
# for the instruction counts; without it those cells say "no valgrind".
#
#   tests/benches/regenerate.sh [tables-file]    # default: benchmarks.md in the target directory
#
# The full output is kept beside the tables (`<tables-file>.log`). Takes about 7 minutes once built.
set -euo pipefail
cd "$(dirname "$0")/../.."

# The target directory as cargo finds it (CARGO_TARGET_DIR, build.target-dir), not `target/`.
tables=${1:-$(cargo xtask target-dir)/benchmarks.md}
mkdir -p "$(dirname "$tables")"
command -v valgrind >/dev/null || echo "valgrind not found: no instruction counts" >&2

{ uname -srm; nproc; rustc --version; uptime; } > "$tables.log"
cargo bench --workspace 2>&1 | tee -a "$tables.log"

# A table is a run of lines starting with '|'; the line before it is its title.
awk '/^\|/ { if (!in_table && previous != "") print "\n" previous; in_table = 1; print; next }
     { in_table = 0; previous = $0 }
     /^(trace, [0-9]+ pages:|interleaved|the stub.s own|generated code|recorder.s writer)/ { print }' \
  "$tables.log" > "$tables"
echo "tables: $tables (machine and load at the top of $tables.log)"
