#!/bin/bash
# Issues 10 and 13 on the GPU machine (Ubuntu 24.04, nsys and ncu installed, torch), with the
# release tarball alone (scripts/release.sh built it; at .carry/kscope-*.tar.gz), as a new user
# would install it: nothing beside the binary, KSCOPE_VEGA_DIR unset.
#   release: unpack, record what the binary links, `kscope doctor`; then the zoo's gpt2_infer
#            through zoo/run_zoo.sh with that binary, `kscope report` of it into $OUT, the page
#            checked (complete, every Vega module built in, its JSON equal to report.json);
#            then the zoo's resnet_train.
#   compile: the zoo's gpt2_compile_train (torch.compile: its own call, it compiles twice).
# Each model is packed into $OUT as soon as it ends (a call stopped at its limit returns only
# what is under $OUT), each under its own `timeout` so the call ends inside the device's limit.
# nsys on this machine lacks libdw1/libelf1 (docs/gpu/issue4_profile.sh): .carry/debs/*.deb are
# unpacked and put on LD_LIBRARY_PATH for the profiles only (kscope itself needs none of them).
#   resnet: the zoo's resnet_train again, alone (250 s in the release call did not suffice).
# Usage: docs/gpu/issue10_13.sh release|resnet|compile   (results under $OUT, at most 8 files)
set -u
part=$1
OUT=${OUT:?set OUT to the results folder}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
REPO=$PWD
T=/tmp/kscope-release
W=$T/w
Z=$T/zoo
mkdir -p "$W" "$Z"
export PYTHONUNBUFFERED=1
log() { echo "== $*" | tee -a "$W/steps.txt"; }
unset KSCOPE_VEGA_DIR LD_LIBRARY_PATH
tar -xzf .carry/kscope-*.tar.gz -C "$T"
K=$(ls "$T"/kscope-*/bin/kscope)
log "$part: tarball $(ls .carry/kscope-*.tar.gz), binary $K ($(stat -c %s "$K") bytes)"
pack() {  # pack NAME DIR...: $OUT/NAME.tar.xz of the folders under $T (split above 15 MiB)
  local name=$1; shift
  tar -C "$T" -cf - "$@" | xz -T0 -6 >"$OUT/$name.tar.xz"
  if [ "$(stat -c %s "$OUT/$name.tar.xz")" -gt 15728640 ]; then
    split -b 15M -d "$OUT/$name.tar.xz" "$OUT/$name.tar.xz." && rm "$OUT/$name.tar.xz"
  fi
}
zoo() {  # zoo MODEL SECONDS: one model through run_zoo.sh, then its results packed
  local m=$1 limit=$2 t0=$EPOCHREALTIME
  log "zoo $m (limit $limit s)"
  env LD_LIBRARY_PATH="$T/debs/usr/lib/x86_64-linux-gnu" timeout -s INT "$limit" \
    bash zoo/run_zoo.sh "$K" "$Z" "$m" >>"$W/zoo_$part.txt" 2>&1
  log "zoo $m: exit $? after $(python3 -c "print(round($EPOCHREALTIME - $t0, 1))") s"
  tail -6 "$W/zoo_$part.txt"
  # The run's logs (not its reports: the ncu report is kept by run_zoo.sh, compressed).
  local run
  run=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM run WHERE label = ?", (sys.argv[2],)).fetchone()[0])' \
    "$Z/zoo.db" "$m" 2>/dev/null)
  mkdir -p "$Z/$m" && cp -r "$Z/runs/$run/logs" "$Z/$m/run_logs" 2>/dev/null
  cp "$Z/times.tsv" "$Z/$m.profile.log" "$Z/$m.report.txt" "$Z/$m/" 2>/dev/null
  pack "zoo_$m" "zoo/$m"
}
mkdir -p "$T/debs" && for f in .carry/debs/*.deb; do dpkg -x "$f" "$T/debs"; done
if [ "$part" = release ]; then
  { uname -a; head -4 /etc/os-release; ldd --version | head -1
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
    echo "-- ldd"; ldd "$K"
    echo "-- readelf -d (NEEDED)"; readelf -d "$K" | grep NEEDED
    echo "-- highest GLIBC_ version asked for"
    objdump -T "$K" | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -1
  } >"$W/binary.txt" 2>&1
  cat "$W/binary.txt"
  log "kscope doctor"
  "$K" --db "$T/doctor.db" doctor >"$W/doctor.txt" 2>&1; echo "exit $?" >>"$W/doctor.txt"
  cat "$W/doctor.txt"
  zoo gpt2_infer 260
  log "kscope report of gpt2_infer into \$OUT/report (the page kept this time)"
  run=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT max(id) FROM run WHERE label = ?", ("gpt2_infer",)).fetchone()[0])' "$Z/zoo.db")
  "$K" --db "$Z/zoo.db" --config zoo/models/gpt2_infer.yaml report "$run" --out "$W/report" >"$W/report.txt" 2>&1
  echo "exit $?" >>"$W/report.txt"
  cat "$W/report.txt"
  ls -la "$W/report" | tee -a "$W/steps.txt"
  python3 - "$W/report" cmake/VegaModules.cmake <<'PY' 2>&1 | tee "$W/html_check.txt"
import json, re, sys
folder, modules_file = sys.argv[1], sys.argv[2]
page = open(f"{folder}/report.html", encoding="utf-8").read()
modules = re.search(r"set\(KSCOPE_VEGA_MODULES(.*?)\)", open(modules_file).read(), re.S).group(1).split()
print("bytes:", len(page.encode()))
print("complete (ends with </html>):", page.endswith("</html>\n"))
missing = [m for m in modules if f"kscopeVegaModule('{m}', function" not in page]
print(f"Vega modules built in: {len(modules) - len(missing)} of {len(modules)}", "missing: " + " ".join(missing) if missing else "")
data = re.search(r'<script type="application/json" id="kscope-report">(.*?)</script>', page, re.S).group(1)
print("embedded JSON equals report.json:", json.loads(data) == json.load(open(f"{folder}/report.json")))
PY
  cp "$Z/zoo.db" "$W/zoo_after_gpt2_infer.db"
  pack release w
  zoo resnet_train 250
elif [ "$part" = resnet ]; then
  zoo resnet_train 480  # its deep pass alone takes 3.5 minutes (275 launches x 15 passes)
else
  zoo gpt2_compile_train 540
fi
cp "$Z/zoo.db" "$W/zoo_$part.db"
pack "w_$part" w/steps.txt "w/zoo_$part.txt" "w/zoo_$part.db"
ls -la "$OUT"
