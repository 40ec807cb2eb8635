#!/usr/bin/env bash
# What the generated crate (marketplace-client) costs to compile, and how that grows with the
# spec. With its dependencies already built, for the workspace's spec (1x) and for the spec
# grown to twice and four times its items (2x, 4x: `xtask/examples/grow_spec.rs` adds copies of
# every enum, type and method under new names), in the debug and release profiles:
#
#   clean         `cargo clean -p marketplace-client`, then `cargo build -p marketplace-client`
#   doc edit      one field's doc edited in spec/pay.yaml (Invoice.lineItemCount), then
#                 `xtask codegen` and `cargo build -p marketplace-client` (debug: incremental)
#   type edit     the same field's type changed (integer <-> count, i64 <-> u64)
#   no-op         `cargo build -p marketplace-client` with nothing to do (cargo's own overhead,
#                 part of every figure above)
#   downstream    what decoding costs the build of a crate that uses the client: an example
#                 written into the scratch copy that decodes every data method's response with
#                 `marketplace_client::decode` (the generated decoders instantiated, as an
#                 app's calls instantiate them), rebuilt alone (touched) once the crate is built
#
# and `xtask codegen` itself after an edit. Each figure is the median of REPEATS runs (default
# 3), in wall time and in CPU time (user + sys of cargo and the compiler, from /usr/bin/time):
# on a machine shared with other builds the CPU time is the figure to compare, wall time moves
# with the load (the load average is printed before and after).
#
#   tests/benches/build_cost.sh [REPEATS] [SIZES...]     # SIZES: 1 2 4 by default
#
# Everything happens under cargo's target directory (`cargo metadata`'s target_directory), in
# `build-cost/`: scratch copies of the workspace (`ws-1x`, ...; the working tree's files as
# git sees them, uncommitted changes included) and their own CARGO_TARGET_DIR
# (`build-cost/target`, shared by the copies so that dependencies are built once; the first
# run builds them, in both profiles, which takes minutes). Nothing in the workspace itself is
# touched but the plot, docs/benchmarks/build_cost.svg. The table goes to stdout and to
# build-cost/build-cost.md, the figures of the plot to build-cost/build-cost.tsv.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

repeats=${1:-3}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 2 4)

target=$(cargo metadata --format-version 1 --no-deps | jq -r .target_directory 2>/dev/null ||
  cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
[ -n "$target" ] || { echo "build_cost.sh: no target directory from cargo metadata" >&2; exit 2; }
work="$target/build-cost"
export CARGO_TARGET_DIR="$work/target"
mkdir -p "$work"
timefile=$(mktemp)
trap 'rm -f "$timefile"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "build_cost.sh: $(nproc) cores, load average $(load) at the start; scratch in $work" >&2

# A scratch copy of the workspace: the files git knows and the untracked ones it does not
# ignore (not the fuzz corpus: tests/fuzz is outside the workspace).
copy_workspace() {
  local dest=$1
  rm -rf "$dest"
  mkdir -p "$dest"
  (cd "$root" && git ls-files -z --cached --others --exclude-standard |
    grep -zv '^tests/fuzz/corpus/' |
    while IFS= read -r -d '' file; do [ -e "$file" ] && printf '%s\0' "$file"; done |
    tar --null -T - -cf -) | tar -xf - -C "$dest"
}

# Runs a command quietly, timed: appends "wall cpu" (seconds) to the named array.
timed() {
  local into=$1
  shift
  /usr/bin/time -f '%e %U %S' -o "$timefile" "$@" >/dev/null 2>"$timefile.err" || {
    cat "$timefile.err" >&2
    echo "build_cost.sh: failed: $*" >&2
    exit 1
  }
  local wall user sys
  read -r wall user sys <"$timefile"
  eval "$into+=(\"$wall $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')\")"
}

# The median of "wall cpu" pairs, each column on its own: "wall cpu".
median() {
  local walls cpus n
  walls=$(printf '%s\n' "$@" | cut -d' ' -f1 | sort -g)
  cpus=$(printf '%s\n' "$@" | cut -d' ' -f2 | sort -g)
  n=$(( ($# + 1) / 2 ))
  echo "$(echo "$walls" | sed -n "${n}p") $(echo "$cpus" | sed -n "${n}p")"
}

# Edits Invoice.lineItemCount in spec/pay.yaml: its doc (to say `$2`), or its type (to `$2`).
edit_field() {
  local spec=$1/spec/pay.yaml what=$2 value=$3
  awk -v what="$what" -v value="$value" '
    /^  Invoice:$/ { invoice = 1 } /^  [A-Za-z]+:$/ && !/^  Invoice:$/ { invoice = 0 }
    invoice && /^      lineItemCount:$/ { field = 1; print; next }
    field && /^      [A-Za-z]+:$/ { field = 0 }
    field && what == "doc" && /^        doc: / { print "        doc: Number of line items (" value ")."; next }
    field && what == "type" && /^        type: / { print "        type: " value; next }
    { print }' "$spec" >"$spec.new"
  mv "$spec.new" "$spec"
}

declare -A result
rows=()
for size in "${sizes[@]}"; do
  ws="$work/ws-${size}x"
  echo "== ${size}x: preparing $ws" >&2
  copy_workspace "$ws"
  cd "$ws"
  if [ "$size" -gt 1 ]; then
    cargo run -q -p xtask --example grow_spec -- spec $((size - 1)) >&2
  fi
  cargo xtask codegen >&2
  lines=$(cat generated-client/src/generated/*.rs | wc -l)
  # The downstream crate: every response type the generated methods name.
  mkdir -p generated-client/examples
  example=generated-client/examples/decode_every_response.rs
  {
    echo "//! Build-cost benchmark (tests/benches/build_cost.sh): decodes every data method's response."
    echo "fn main() {"
    echo "    let body = std::env::args().nth(1).unwrap_or_default();"
    grep -ho 'type Response = [A-Za-z0-9_]*;' generated-client/src/generated/*.rs |
      sed 's/type Response = \(.*\);/\1/' | sort -u |
      while read -r response; do
        echo "    println!(\"{}\", marketplace_client::decode::<marketplace_client::Envelope<marketplace_client::$response>>(body.as_bytes()).is_ok());"
      done
    echo "}"
  } >"$example"
  responses=$(grep -c "decode::<" "$example")
  spec_lines=$(cat spec/*.yaml | wc -l)
  # Dependencies (and the crate) built in both profiles, untimed.
  cargo build -q -p marketplace-client --example decode_every_response
  cargo build -q --release -p marketplace-client --example decode_every_response
  # The generator, built once from this copy and kept beside it: the target directory's
  # debug/xtask is every copy's. Spec edits do not change it, so it is not rebuilt (which
  # would compile the client again, with xtask's features).
  cargo build -q -p xtask
  xtask="$ws/xtask-codegen"
  cp "$CARGO_TARGET_DIR/debug/xtask" "$xtask"
  gen=()

  for profile in debug release; do
    flag=()
    [ "$profile" = release ] && flag=(--release)
    clean=() noop=() doc=() type=() downstream=()
    for ((i = 1; i <= repeats; i++)); do
      echo "   ${size}x $profile, run $i of $repeats (load $(load))" >&2
      cargo clean -q -p marketplace-client "${flag[@]}"
      timed clean cargo build -p marketplace-client "${flag[@]}"
      timed noop cargo build -p marketplace-client "${flag[@]}"
      touch "$example"
      timed downstream cargo build -p marketplace-client --example decode_every_response "${flag[@]}"
      edit_field "$ws" doc "$profile $i"
      timed gen "$xtask" codegen
      timed doc cargo build -p marketplace-client "${flag[@]}"
      if ((i % 2)); then edit_field "$ws" type count; else edit_field "$ws" type integer; fi
      timed gen "$xtask" codegen
      timed type cargo build -p marketplace-client "${flag[@]}"
    done
    # Back to the spec as copied, for the next profile.
    edit_field "$ws" type integer
    edit_field "$ws" doc "line items"
    "$xtask" codegen >/dev/null
    for what in clean doc type noop downstream; do
      eval "result[\$size,\$profile,\$what]=\$(median \"\${${what}[@]}\")"
    done
  done
  result[$size,codegen]=$(median "${gen[@]}")
  result[$size,lines]=$lines
  result[$size,spec]=$spec_lines
  result[$size,responses]=$responses
  cd "$root"
done

# The table: each figure with its growth over 1x (CPU time) when 1x was measured.
out="$work/build-cost.md"
{
  echo "Build cost of marketplace-client ($(nproc) cores, load average $(load) at the end; median of $repeats runs; wall / CPU = user + sys, seconds)"
  echo
  header="| measure | profile |"
  rule="|---|---|"
  for size in "${sizes[@]}"; do
    header+=" ${size}x: ${result[$size,spec]} spec lines, ${result[$size,lines]} generated, ${result[$size,responses]} responses |"
    rule+="---|"
    [ "$size" != 1 ] && [ -n "${result[1,lines]:-}" ] && header+=" CPU / 1x |" && rule+="---|"
  done
  echo "$header"
  echo "$rule"
  for what in clean doc type noop downstream; do
    for profile in debug release; do
      line="| $what | $profile |"
      for size in "${sizes[@]}"; do
        read -r wall cpu <<<"${result[$size,$profile,$what]}"
        line+=" $wall / $cpu |"
        if [ "$size" != 1 ] && [ -n "${result[1,lines]:-}" ]; then
          read -r _ base <<<"${result[1,$profile,$what]}"
          line+=" $(awk -v a="$cpu" -v b="$base" 'BEGIN { printf "%.2f", a / b }') |"
        fi
      done
      echo "$line"
    done
  done
  line="| xtask codegen after an edit | debug build of xtask |"
  for size in "${sizes[@]}"; do
    read -r wall cpu <<<"${result[$size,codegen]}"
    line+=" $wall / $cpu |"
    if [ "$size" != 1 ] && [ -n "${result[1,lines]:-}" ]; then
      read -r _ base <<<"${result[1,codegen]}"
      line+=" $(awk -v a="$cpu" -v b="$base" 'BEGIN { printf "%.2f", a / b }') |"
    fi
  done
  echo "$line"
} | tee "$out"
echo "build_cost.sh: load average $(load) at the end; table in $out" >&2

# The plot BENCHMARKS.md shows (docs/benchmarks/build_cost.svg): CPU seconds against spec
# lines, drawn by tests/examples/build_cost_plot.rs from these figures, built in the usual
# target directory (not the scratch one).
tsv="$work/build-cost.tsv"
{
  echo "# $(date -u +%F), $(nproc) cores, load average $(load), median of $repeats runs"
  for size in "${sizes[@]}"; do
    for what in clean doc type; do
      for profile in debug release; do
        read -r _ cpu <<<"${result[$size,$profile,$what]}"
        printf '%s\t%s\t%s\t%s\n' "$what" "$profile" "${result[$size,spec]}" "$cpu"
      done
    done
  done
} >"$tsv"
CARGO_TARGET_DIR="$target" cargo run -q -p marketplace-tests --example build_cost_plot -- "$tsv"
