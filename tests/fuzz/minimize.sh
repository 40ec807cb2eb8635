#!/usr/bin/env bash
# Minimizes the committed fuzz corpus (`tests/fuzz/corpus/<target>/`): every named input stays
# (the hand-written seeds, and every input that ever found a defect, kept under a name that says
# what it found), and of the inputs named by their SHA-1 (what campaigns learned) only a smallest
# set adding edge coverage beyond the named ones is kept (libFuzzer's -set_cover_merge on edges,
# counters off: a corpus to replay in every `cargo test`, not to resume a campaign from).
# Inputs in the directories of FUZZ_MORE_INPUTS (space-separated; campaign.sh passes its own
# corpus) are offered to the merge too. Prints files and bytes before and after per target.
#
#   tests/fuzz/minimize.sh                  # every target
#   tests/fuzz/minimize.sh decode_response  # one
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); `-s none` works on a stable toolchain.
set -euo pipefail
cd "$(dirname "$0")/../.."
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(callback_url decode_response error_body scrubber spec_loader wire_decoders)
fi
cargo fuzz build -s none --fuzz-dir tests/fuzz >/dev/null
host=$(rustc -vV | sed -n 's/^host: //p')
bin_dir="$(cargo xtask target-dir --manifest-path tests/fuzz/Cargo.toml)/$host/release"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "| target | files before → after | bytes before → after | named inputs kept |"
echo "|---|---:|---:|---:|"
for t in "${targets[@]}"; do
  corpus="tests/fuzz/corpus/$t"
  files_before=$(find "$corpus" -type f | wc -l)
  bytes_before=$(find "$corpus" -type f -exec cat {} + | wc -c)
  kept="$scratch/$t/kept" learned="$scratch/$t/learned"
  mkdir -p "$kept" "$learned"
  named=0
  for input in "$corpus"/*; do
    if [[ $(basename "$input") =~ ^[0-9a-f]{40}$ ]]; then
      cp "$input" "$learned/"
    else
      cp "$input" "$kept/"
      named=$((named + 1))
    fi
  done
  # shellcheck disable=SC2086 # FUZZ_MORE_INPUTS is a list of directories
  "$bin_dir/$t" -set_cover_merge=1 -use_counters=0 -artifact_prefix="$scratch/$t/" \
    "$kept" "$learned" ${FUZZ_MORE_INPUTS:-} >"$scratch/$t/merge.log" 2>&1 ||
    { cat "$scratch/$t/merge.log" >&2; exit 1; }
  rm -rf "$corpus"
  cp -r "$kept" "$corpus"
  files_after=$(find "$corpus" -type f | wc -l)
  bytes_after=$(find "$corpus" -type f -exec cat {} + | wc -c)
  echo "| \`$t\` | $files_before → $files_after | $bytes_before → $bytes_after | $named |"
done
