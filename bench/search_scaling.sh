#!/usr/bin/env bash
# Search latency against memory size, and the plot of it in docs/benchmarks.md.
#
#   bench/search_scaling.sh [--entries 10000,100000,1000000] [other search_bench flags]
#
# Runs build/bench/search_bench over the sizes (fts, vector, hybrid, sentence queries,
# prepare_context; disk per entry; `powercontext serve` start-up and resident memory), writes its
# figures to build/search.json and plots them to docs/search-latency.svg (bench/plot_search.py).
# The 1,000,000-entry size takes ~25 minutes on 2 cores (most of it the vector graph build).
set -euo pipefail
cd "$(dirname "$0")/.."
entries=10000,100000,1000000
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --entries) entries="$2"; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
build/bench/search_bench --entries "$entries" --json build/search.json "${args[@]}"
python3 bench/plot_search.py build/search.json docs/search-latency.svg
echo "wrote build/search.json and docs/search-latency.svg"
