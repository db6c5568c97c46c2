#!/usr/bin/env python3
"""Shows that check_report.py fails when it should: it must reject each of a few broken
copies of a good report.html, and for the reason the copy was broken for.

Each copy changes the page's text in one place (the change must be found, so this test
notices when the page changes shape): a Vega spec error, a missing Vega module, a kernel
name written without escaping, a tooltip without the whole name, a chart hidden from view,
and a request over the network.
"""

import argparse
import pathlib
import sys
import tempfile
import time

import check_report
from browser import Browser

BROKEN = [
    ("a Vega spec error (an unknown mark type)",
     "      type: 'rect',\n      from: {data: 'kernels'},", "      type: 'rectangle',\n      from: {data: 'kernels'},",
     ["console error: ERROR TypeError", "chart top-kernels: not rendered (state 'failed'"]),
    ("a Vega module left out (vega-scale)",
     "kscopeVegaModule('vega-scale',", "kscopeVegaModule('vega-scale-renamed',",
     ["uncaught exception: Error: Vega module vega-scenegraph needs vega-scale"]),
    ("a kernel name not escaped",
     "<code>void at::native::elementwise_kernel&lt;(int)128, (int)4, void at::native::gpu_kernel_impl_nocast&lt;",
     "<code>void at::native::elementwise_kernel<(int)128, (int)4, void at::native::gpu_kernel_impl_nocast<",
     ["elements the page does not write", "a kernel name cell whose text is no kernel name of the report"]),
    ("a tooltip with the short name only",
     "kernel: k.name, 'GPU time'", "kernel: k.base, 'GPU time'",
     ["hovering the first top kernel's bar does not show its whole name"]),
    ("a chart hidden from view",
     "</style>", "[data-chart=\"timeline\"] svg { visibility: hidden; }\n</style>",
     ["chart timeline: blank screenshot"]),
    ("a request over the network",
     "<main>\n", "<main>\n<img src=\"https://kscope.invalid/pixel.png\" alt=\"\">\n",
     ["network request (the page must be self-contained): https://kscope.invalid/pixel.png"]),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", help="a good report.html of the devset's Llama run")
    parser.add_argument("--chromium", default="chromium")
    args = parser.parse_args()
    good = pathlib.Path(args.page).read_text(encoding="utf-8")
    failures = 0
    browser = Browser(args.chromium, "/dev/null")
    try:
        with tempfile.TemporaryDirectory(prefix="kscope-broken-") as work:
            for i, (what, old, new, expected) in enumerate(BROKEN):
                if good.count(old) < 1:
                    print(f"broken_pages: the page no longer holds the text to break for {what}: {old[:80]!r}")
                    failures += 1
                    continue
                page = pathlib.Path(work) / f"broken_{i}.html"
                page.write_text(good.replace(old, new, 1), encoding="utf-8")
                started = time.monotonic()
                problems = check_report.check(argparse.Namespace(
                    page=str(page), json=None, charts=",".join(check_report.CHARTS), chromium=args.chromium,
                    screenshot=None, browser_log="/dev/null", timeout=60), browser)
                missing = [e for e in expected if not any(e in p for p in problems)]
                verdict = "rejected" if not missing else "NOT rejected as expected"
                print(f"broken_pages: {what}: {verdict} ({time.monotonic() - started:.1f} s)")
                for p in problems:
                    print(f"    {p[:200]}")
                for e in missing:
                    print(f"    expected a problem containing: {e}")
                failures += bool(missing)
    finally:
        browser.close()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
