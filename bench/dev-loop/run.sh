#!/usr/bin/env bash
# One edit of a plugin under `warden plugin dev`: on a state root that has run once (so the
# built-in plugins are compiled), the wall time of `plugin dev PROJECT --once`, then of the
# first `warden run` that loads the build, then of a second run.
# usage: bench/dev-loop/run.sh WARDEN PROJECT_DIR_OR_WASM LABEL
set -u
W=$(realpath "$1"); P=$(realpath "$2"); L=$3
T=$(mktemp -d)
mkdir -p $T/ws $T/cfg/warden $T/home
export HOME=$T/home XDG_CONFIG_HOME=$T/cfg WARDEN_HOME=$T/state WARDEN_MANAGED_CONFIG=$T/none.toml
git init -q $T/ws
printf '[model]\nprovider = "echo"\n' > $T/cfg/warden/config.toml
cd $T/ws
timeout 300 $W run "warm up" >/dev/null 2>&1
s=$(date +%s.%N); timeout 300 $W plugin dev "$P" --once --config word=deploy --config "context=Deploys go through CI." >$T/dev.out 2>&1; rc1=$?; e=$(date +%s.%N)
d1=$(echo "$e - $s" | bc)
s=$(date +%s.%N); timeout 300 $W run "how do I deploy?" >$T/run.out 2>&1; rc2=$?; e=$(date +%s.%N)
d2=$(echo "$e - $s" | bc)
s=$(date +%s.%N); timeout 300 $W run "how do I deploy?" >$T/run2.out 2>&1; rc3=$?; e=$(date +%s.%N)
d3=$(echo "$e - $s" | bc)
echo "$L dev=${d1}s(rc $rc1) first-run=${d2}s(rc $rc2) second-run=${d3}s(rc $rc3) name=$(head -1 $T/dev.out | cut -c1-60)"
rm -rf $T
