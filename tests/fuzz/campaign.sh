#!/usr/bin/env bash
# The fuzzing campaign behind BENCHMARKS.md's robustness section: every target alone, one after
# the other, for SECONDS each (default 600), starting from the committed corpus. Then the
# committed corpus is minimized by tests/fuzz/minimize.sh: the named inputs stay, and of
# everything else (earlier campaigns' inputs and this one's) only a smallest set covering every
# edge is kept (libFuzzer's -set_cover_merge on edge coverage; the files are named by their SHA-1).
# Writes fuzz-campaign/robustness.md in the target directory (`target/` unless CARGO_TARGET_DIR or
# a cargo config's build.target-dir says otherwise) with executions, exec/s and findings per target.
#
#   tests/fuzz/campaign.sh            # 6 targets x 10 minutes
#   tests/fuzz/campaign.sh 60 spec_loader
#
# Run it on an otherwise idle machine: the rate is only meaningful when the target has a core to
# itself. Needs cargo-fuzz (`cargo install cargo-fuzz`); `-s none` works on a stable toolchain.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(callback_url decode_response error_body scrubber spec_loader wire_decoders)
fi
out="$(cargo xtask target-dir)/fuzz-campaign"
mkdir -p "$out"
cargo fuzz build -s none --fuzz-dir tests/fuzz >/dev/null
# cargo fuzz builds the fuzz workspace (tests/fuzz/target by default; CARGO_TARGET_DIR moves it)
# for the host, in release.
host=$(rustc -vV | sed -n 's/^host: //p')
bin_dir="$(cargo xtask target-dir --manifest-path tests/fuzz/Cargo.toml)/$host/release"
report="$out/robustness.md"
{
  echo "| target | seconds | executions | exec/s | seed → merged corpus | findings |"
  echo "|---|---:|---:|---:|---|---|"
} >"$report"
for t in "${targets[@]}"; do
  work="$out/$t"
  rm -rf "$work" && mkdir -p "$work/corpus" "$work/artifacts"
  cp tests/fuzz/corpus/"$t"/* "$work/corpus/"
  seeds=$(ls tests/fuzz/corpus/"$t" | wc -l)
  status=0
  "$bin_dir/$t" "$work/corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" >"$work/log" 2>&1 || status=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$work/log" | grep -o '[0-9]*$' || echo 0)
  ran=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$work/log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo "$seconds")
  if [ "$status" -eq 0 ]; then
    findings=none
  else
    findings="exit $status: $(ls "$work/artifacts" | tr '\n' ' ')"
  fi
  # Keep what the run learned, minimized: the named inputs, then a set cover of the edges.
  FUZZ_MORE_INPUTS="$work/corpus" tests/fuzz/minimize.sh "$t" >"$work/minimize.md"
  merged=$(ls tests/fuzz/corpus/"$t" | wc -l)
  echo "| \`$t\` | $ran | $execs | $rate | $seeds → $merged | $findings |" >>"$report"
  echo "$t: $execs executions at $rate/s, findings: $findings" >&2
done
cat "$report"
