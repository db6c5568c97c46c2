#!/bin/bash
# Issue 13 on the GPU machine (Ubuntu 24.04, nsys and ncu installed, torch; under 10 minutes):
# the release tarball alone, as a new user would install it. From a checkout with the tarball
# at .carry/kscope-*.tar.gz (scripts/release.sh built it); results under $OUT.
#   1. unpack it into an empty temporary folder; record what the binary links (ldd, readelf);
#   2. kscope doctor, with nothing else set up;
#   3. kscope profile on the zoo's gpt2_infer (as zoo/run_zoo.sh runs it), then kscope report,
#      both with KSCOPE_VEGA_DIR unset and no library of kscope's beside it;
#   4. check report.html: complete (ends with </html>), every Vega module built in, the report's
#      JSON parses and equals report.json; drawn in headless Chromium when one is installed.
# nsys on this machine lacked libdw1/libelf1 before (docs/gpu/issue4_profile.sh): when
# .carry/debs/*.deb exist they are unpacked for nsys's sake only (LD_LIBRARY_PATH is set for
# the profile step alone, and kscope's own links are recorded without it).
set -u
OUT=${OUT:?set OUT to the results folder}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
REPO=$PWD
T=$(mktemp -d /tmp/kscope-release.XXXXXX)
log() { echo "== $*" | tee -a "$OUT/steps.txt"; }
log "tarball: $(ls .carry/kscope-*.tar.gz)"
tar -xzf .carry/kscope-*.tar.gz -C "$T"
K=$(ls "$T"/kscope-*/bin/kscope)
log "unpacked: $K ($(stat -c %s "$K") bytes)"
{ uname -a; cat /etc/os-release | head -4; ldd --version | head -1
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
  echo "-- ldd"; env -u LD_LIBRARY_PATH ldd "$K"
  echo "-- readelf -d (NEEDED)"; readelf -d "$K" | grep NEEDED
  echo "-- highest GLIBC_ version asked for"
  objdump -T "$K" | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -1
} >"$OUT/binary.txt" 2>&1
cat "$OUT/binary.txt"
unset KSCOPE_VEGA_DIR LD_LIBRARY_PATH
export KSCOPE_DB=$T/kscope.db
log "kscope doctor"
"$K" doctor >"$OUT/doctor.txt" 2>&1; echo "exit $?" >>"$OUT/doctor.txt"
cat "$OUT/doctor.txt"
NSYS_LIBS=
if ls .carry/debs/*.deb >/dev/null 2>&1; then
  mkdir -p "$T/debs" && for f in .carry/debs/*.deb; do dpkg -x "$f" "$T/debs"; done
  NSYS_LIBS=$T/debs/usr/lib/x86_64-linux-gnu
  log "nsys's libraries unpacked for the profile step: $NSYS_LIBS"
fi
log "kscope profile (zoo gpt2_infer, defaults)"
cd "$REPO/zoo/models"
t0=$(date +%s.%N)
env ${NSYS_LIBS:+LD_LIBRARY_PATH=$NSYS_LIBS} timeout -s INT 420 "$K" profile --config gpt2_infer.yaml \
  "profile.runs_dir=$T/runs" --label gpt2_infer -- python3 gpt2_infer.py >"$OUT/profile.txt" 2>&1
rc=$?
log "kscope profile: exit $rc after $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"
tail -25 "$OUT/profile.txt"
"$K" runs >"$OUT/runs.txt" 2>&1; cat "$OUT/runs.txt"
log "kscope report 1"
"$K" --config gpt2_infer.yaml report 1 --out "$OUT/report" >"$OUT/report.txt" 2>&1
echo "exit $?" >>"$OUT/report.txt"
tail -5 "$OUT/report.txt"
cd "$REPO"
ls -la "$OUT/report" | tee -a "$OUT/steps.txt"
log "report.html checks"
python3 - "$OUT/report" cmake/VegaModules.cmake <<'PY' 2>&1 | tee "$OUT/html_check.txt"
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
print("charts:", re.findall(r'data-chart="([a-z-]+)" data-state="(\w+)"', page))
PY
if command -v chromium >/dev/null || command -v chromium-browser >/dev/null || command -v google-chrome >/dev/null; then
  B=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
  log "headless $B"
  python3 tests/html/check_report.py "$OUT/report/report.html" --json "$OUT/report/report.json" --chromium "$B" \
    --screenshot "$OUT/report.png" --browser-log "$OUT/chromium.log" 2>&1 | tee "$OUT/chromium_check.txt"
else
  log "no Chromium here: the page was checked as text only"
fi
cp "$T/runs/1/manifest.json" "$OUT/" 2>/dev/null
tar -C "$T" -cJf "$OUT/run.tar.xz" kscope.db runs/1/manifest.json runs/1/logs 2>/dev/null  # not the reports
ls -la "$OUT"
