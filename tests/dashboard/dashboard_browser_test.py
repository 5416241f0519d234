#!/usr/bin/env python3
"""`opcert dashboard` as a person sees it: a real store of real runs, rendered, opened in headless
Chromium (Debian's chromium package).

    dashboard_browser_test.py OPCERT PACED_PLUGIN PACED_SUITE WORK_DIR

The store holds two conformance runs of the CPU backend (with the torch peer where this build has
it), a bench of the CPU backend's fp32 GEMM (for the roofline), a one-rank all_reduce sweep of the
CPU backend (for the busbw curves), and three benches of the paced test plugin (tests/plugins/test_paced.cpp), added as they finish
with --history; the third bench runs with one injected regression (OPCERT_TEST_PACED_SLOWER_ROWS:
the case rows20 20% slower). In the browser: no script or console error on any page; the overview
names the regression; the regressed series plots one point per run on each measured plot and marks
exactly the third run; an unchanged series marks none; the roofline plots every benchmark of the
latest bench (GEMMs by arithmetic intensity, the paced softmax, which counts no FLOPs, by bytes under
the memory roof), and the busbw page every size of the sweep. A second store holding only a CPU
softmax bench (memory-bound) gets a roofline with every point plotted. Error axes (read back from
Chart.js's scales): a constant RMSE, the CPU's real one and 0.0017, is drawn from 0 to about that
value; values three decades apart get a logarithmic axis. Screenshots of the overview and the regressed series are left in WORK_DIR. The page
counts come from the page itself (dashboard.js writes what Chart.js drew into data-* attributes of
<html>), read back from the DOM Chromium dumps after the scripts ran. Exit 77 (skipped) with the
reason when chromium or the chart library is not installed.
"""
import glob
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import time

SKIP = 77


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(args, env=None, check=True):
    p = subprocess.run(args, capture_output=True, text=True, env=env)
    if check and p.returncode != 0:
        fail(f"{' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browser_args(browser):
    # --no-sandbox: the test may run as root, where Chromium's sandbox refuses to start.
    return [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            "--allow-file-access-from-files", "--virtual-time-budget=5000", "--window-size=1400,1100"]


class HtmlAttributes(html.parser.HTMLParser):
    """The attributes of <html> and of each <canvas> (by id), and the text of #render-status, from a
    dumped DOM."""

    def __init__(self):
        super().__init__()
        self.root, self.canvases, self.status, self._in_status = {}, {}, "", False

    def handle_starttag(self, tag, attrs):
        if tag == "html":
            self.root = dict(attrs)
        if tag == "canvas":
            self.canvases[dict(attrs).get("id")] = dict(attrs)
        self._in_status = dict(attrs).get("id") == "render-status"

    def handle_data(self, data):
        if self._in_status:
            self.status += data

    def handle_endtag(self, tag):
        self._in_status = False


def parse_dom(browser, path, screenshot=None):
    """The page's DOM as the browser left it after its scripts ran, parsed; and the DOM's text."""
    url = "file://" + os.path.abspath(path)
    dom = run(browser_args(browser) + ["--dump-dom", url]).stdout
    parsed = HtmlAttributes()
    parsed.feed(dom)
    if screenshot:
        run(browser_args(browser) + [f"--screenshot={screenshot}", url])
        if not os.path.getsize(screenshot):
            fail(f"no screenshot of {path}")
    return parsed, dom


def open_page(browser, path, screenshot=None):
    """The page's render counts, after its scripts ran in the browser."""
    parsed, dom = parse_dom(browser, path, screenshot)
    counts = {k[5:]: int(v) for k, v in parsed.root.items() if k.startswith("data-")}
    return counts, parsed.status.strip(), dom


def y_axis(browser, path, canvas, screenshot=None):
    """The y axis Chart.js laid out on a canvas of the page (dashboard.js writes its scale's type,
    min and max on the canvas): (type, min, max)."""
    parsed, _ = parse_dom(browser, path, screenshot)
    errors = parsed.root.get("data-errors")
    if errors != "0":
        fail(f"{path}: {errors} script errors: {parsed.status}")
    attrs = parsed.canvases.get(canvas, {})
    if "data-y-type" not in attrs:
        fail(f"{path}: no axis was drawn on #{canvas}: {attrs} ({parsed.status})")
    return attrs["data-y-type"], float(attrs["data-y-min"]), float(attrs["data-y-max"])


def with_data(page, data, out):
    """A copy of a generated page beside it, carrying other data (the page's script draws what it
    carries): for values a real run cannot be made to give on demand."""
    with open(page) as f:
        text = f.read()
    text = re.sub(r'(<script id="opcert-data" type="application/json">).*?(</script>)',
                  lambda m: m.group(1) + json.dumps(data) + m.group(2), text, count=1, flags=re.S)
    with open(out, "w") as f:
        f.write(text)
    return out


def page_data(path):
    with open(path) as f:
        text = f.read()
    m = re.search(r'<script id="opcert-data" type="application/json">(.*?)</script>', text, re.S)
    return json.loads(m.group(1)) if m else None


def measured_points(data):
    """Points the series page must plot: per plot with any value, one per run that has it."""
    metrics = ["seconds", "throughput", "speedup", "alignment", "rmse"]
    plots = [[p[m] for p in data["points"] if p[m] is not None] for m in metrics]
    return sum(len(v) for v in plots), sum(1 for v in plots if v)


def main():
    opcert, plugin, suite, work = sys.argv[1:5]
    browser = chromium()
    if browser is None:
        print("SKIP: chromium is not installed (apt-get install chromium)")
        return SKIP
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    db = os.path.join(work, "history.db")
    env = dict(os.environ)

    for i in range(2):
        run([opcert, "run", "--backend", "cpu", "--suite", "smoke", "--filter", "^softmax\\.", "--progress", "plain",
             "--out", os.path.join(work, f"run{i}"), "--history", db, "--project-commit", f"c0ffee{i}"])
        time.sleep(1.1)
    for i in range(3):
        bench_env = dict(env, OPCERT_TEST_PACED_SLOWER_ROWS="20") if i == 2 else env
        run([opcert, "bench", "--plugin", plugin, "--backend", "paced", "--no-peer", "--suite", suite, "--impl",
             "paced.softmax.steady", "--benchmark_min_time=0.02", "--benchmark_repetitions=5",
             "--out", os.path.join(work, f"bench{i}"), "--history", db, "--project-commit", f"be4c4{i}"], env=bench_env)
        time.sleep(1.1)

    # A real CPU bench with a work model of flops and bytes, for the roofline (the paced softmax has no
    # flops), added afterwards with peaks for the cpu platform (its shipped config has none), so that
    # roofs are drawn.
    cpu_bench = os.path.join(work, "cpu-bench")
    # One repetition: the site is tested here, not the gate (bench's default of five is slower).
    run([opcert, "bench", "--backend", "cpu", "--no-peer", "--filter", "^gemm\\.fp32\\.m1024", "--benchmark_min_time=0.01",
         "--benchmark_repetitions=1", "--max-time", "0.2", "--out", cpu_bench])
    peaks = os.path.join(work, "cpu-peaks.json")
    with open(peaks, "w") as f:
        json.dump({"name": "cpu", "backend": "cpu", "peaks": {"tflops": {"fp32": 1.5}, "memory_gbps": 40}}, f)
    run([opcert, "history", "add", cpu_bench, "--db", db, "--platform-config", peaks])

    # A collective sweep of the CPU backend on one rank, for the busbw page.
    run([opcert, "bench", "--backend", "cpu", "--suite", "bench/collectives", "--filter", "all_reduce", "--max-bytes", "64K",
         "--iters", "5", "--warmup", "1", "--out", os.path.join(work, "cpu-sweep"), "--history", db])

    chart = "/usr/share/javascript/chart.js/chart.min.js"
    missing = run([opcert, "dashboard", "--db", db, "--out", os.path.join(work, "nochart")],
                  env=dict(env, OPCERT_CHARTJS="/nonexistent/chart.min.js"), check=False)
    if missing.returncode != 2 or "libjs-chart.js" not in missing.stderr:
        fail(f"a missing chart library: exit {missing.returncode}, {missing.stderr}")
    if not os.path.exists(os.environ.get("OPCERT_CHARTJS", chart)):
        print("SKIP: the chart library is not installed (apt-get install libjs-chart.js)")
        return SKIP

    site = os.path.join(work, "site")
    out = run([opcert, "dashboard", "--db", db, "--out", site]).stdout
    if "(1 regressed in their latest run)" not in out:
        fail(f"the dashboard should find exactly the injected regression: {out}")

    # The overview: tables only, no error, the regression named with a link to its series.
    counts, _, dom = open_page(browser, os.path.join(site, "index.html"), os.path.join(work, "overview.png"))
    if counts.get("errors", 0):
        fail(f"the overview has script errors: {counts}")
    regressed = re.findall(r'<li class="regression"><a href="series/([^"]+)\.html">', dom)
    if len(regressed) != 1 or "rows20" not in regressed[0]:
        fail(f"the overview should list the rows20 regression alone: {regressed}")
    if dom.count('class="st-pass"') < 2:
        fail("the overview's matrix has no passing cell")

    # The regressed series: one point per run on each measured plot, the third run marked.
    page = os.path.join(site, "series", regressed[0] + ".html")
    data = page_data(page)
    points, plots = measured_points(data)
    counts, status, _ = open_page(browser, page, os.path.join(work, "regressed-series.png"))
    if counts.get("errors") != 0:
        fail(f"{page}: script errors: {status}")
    if counts.get("charts") != plots or counts.get("points") != points or points < 6:
        fail(f"{page}: drew {counts}; the data holds {plots} plots with {points} points")
    if counts.get("regressions") != 1:
        fail(f"{page}: {counts.get('regressions')} runs marked as regressions; the injected one alone should be")
    marked = [p["run"] for p in data["points"] if p["regressions"]]
    if marked != [data["points"][-1]["run"]] or not data["points"][-1]["regressions"][0].startswith("perf"):
        fail(f"{page}: the regression is marked on runs {marked}: {data['points'][-1]['regressions']}")

    # A series that did not change: plotted, nothing marked.
    steady = os.path.join(site, "series", regressed[0].replace("rows20", "rows10") + ".html")
    counts, status, _ = open_page(browser, steady)
    if counts.get("errors") != 0 or counts.get("regressions") != 0 or counts.get("points") != measured_points(page_data(steady))[0]:
        fail(f"{steady}: {counts} ({status})")

    # The roofline: every benchmark of the latest bench that has a work model, one point each: the
    # GEMMs by arithmetic intensity, the paced softmax (its work model counts no FLOPs) by bytes.
    roofline = os.path.join(site, "roofline.html")
    groups = page_data(roofline)["groups"]
    expected = sum(len(g["points"]) for g in groups)
    roofs = [r["label"] for g in groups for r in g["roofs"]]
    if roofs != ["cpu fp32 peak", "cpu memory"]:
        fail(f"roofline: the cpu platform's peaks kept with the run should give its roofs: {roofs}")
    if sorted(g["kind"] for g in groups) != ["bandwidth", "intensity"]:
        fail(f"roofline: the GEMM bench by intensity and the paced softmax by bandwidth: {[g['kind'] for g in groups]}")
    counts, status, _ = open_page(browser, roofline)
    if counts.get("errors") != 0 or counts.get("points") != expected or counts.get("charts") != 2 or expected < 4:
        fail(f"roofline: {counts}, expected {expected} points on 2 plots ({status})")

    # The busbw curves: every size of the sweep, one point each.
    collectives = os.path.join(site, "collectives.html")
    expected = sum(len(c["points"]) for g in page_data(collectives)["groups"] for c in g["curves"])
    counts, status, _ = open_page(browser, collectives)
    if counts.get("errors") != 0 or counts.get("points") != expected or expected < 7:
        fail(f"collectives: {counts}, expected {expected} points ({status})")

    # A conformance series of the CPU backend: its alignment and error plotted where the peer ran.
    for name in ("series/index.html",) + tuple(
            os.path.relpath(p, site) for p in sorted(glob.glob(os.path.join(site, "series", "L1-*cpu*.html")))[:1]):
        counts, status, _ = open_page(browser, os.path.join(site, name))
        if counts.get("errors", 0):
            fail(f"{name}: script errors: {status}")

    # Error axes start at 0 and reach the data's largest value. A real series first: the CPU
    # backend's conformance runs (one seed) give a constant RMSE.
    conformance = sorted(glob.glob(os.path.join(site, "series", "L1-*cpu*.html")))[0]
    data = page_data(conformance)
    rmses = {p["rmse"] for p in data["points"]}
    if len(rmses) != 1 or None in rmses or 0 in rmses or len(data["points"]) < 2:
        fail(f"{conformance}: expected one positive RMSE over its runs: {rmses}")
    rmse = rmses.pop()
    axis = y_axis(browser, conformance, "chart-rmse")
    if axis[0] != "linear" or axis[1] != 0 or not rmse <= axis[2] <= rmse * 1.25:
        fail(f"{conformance}: a constant RMSE of {rmse} drawn on the axis {axis}")
    # Then the values, in the same page (its script draws what the page carries): a constant
    # RMSE of 0.0017 on 0 .. about 0.0017, not a flat line at 0 on -1 .. 1.5; RMSE and alignment
    # spanning decades on logarithmic axes.
    for p in data["points"]:
        p["rmse"] = 0.0017
    constant = with_data(conformance, data, os.path.join(site, "series", "constant-rmse.html"))
    axis = y_axis(browser, constant, "chart-rmse", os.path.join(work, "constant-rmse.png"))
    if axis[0] != "linear" or axis[1] != 0 or not 0.0017 <= axis[2] <= 0.0017 * 1.25:
        fail(f"{constant}: a constant RMSE of 0.0017 drawn on the axis {axis}, not on 0 .. about 0.0017")
    for i, p in enumerate(data["points"]):
        p["rmse"] = 2e-6 * 1000 ** i
        p["alignment"] = 0.5 * 1000 ** i
    decades = with_data(conformance, data, os.path.join(site, "series", "decades-rmse.html"))
    for canvas in ("chart-rmse", "chart-alignment"):
        axis = y_axis(browser, decades, canvas, os.path.join(work, "decades-rmse.png"))
        if axis[0] != "logarithmic":
            fail(f"{decades}: values three decades apart drawn on a {axis[0]} axis ({canvas}: {axis})")

    # A store whose bench measured memory-bound ops alone (softmax: no FLOPs in its work model): its
    # roofline plots each of them, by bytes moved, under the cpu platform's memory roof.
    memory_db = os.path.join(work, "memory-bound.db")
    softmax_bench = os.path.join(work, "cpu-softmax-bench")
    run([opcert, "bench", "--backend", "cpu", "--no-peer", "--filter", "^softmax\\.", "--benchmark_min_time=0.01",
         "--benchmark_repetitions=1", "--max-time", "0.2", "--out", softmax_bench])
    run([opcert, "history", "add", softmax_bench, "--db", memory_db, "--platform-config", peaks])
    memory_site = os.path.join(work, "memory-bound-site")
    run([opcert, "dashboard", "--db", memory_db, "--out", memory_site])
    roofline = os.path.join(memory_site, "roofline.html")
    groups = page_data(roofline)["groups"]
    expected = sum(len(g["points"]) for g in groups)
    if [g["kind"] for g in groups] != ["bandwidth"] or [r["label"] for g in groups for r in g["roofs"]] != ["cpu memory"]:
        fail(f"{roofline}: one plot by bandwidth under the cpu memory roof, not {groups}")
    counts, status, _ = open_page(browser, roofline, os.path.join(work, "roofline-memory-bound.png"))
    if counts.get("errors") != 0 or counts.get("charts") != 1 or counts.get("points") != expected or expected < 1:
        fail(f"{roofline}: {counts}, expected {expected} points on one plot ({status})")

    # The check can fail: without the chart library beside the pages, the page says so.
    os.remove(os.path.join(site, "assets", "chart.min.js"))
    counts, status, _ = open_page(browser, page)
    if not counts.get("errors"):
        fail(f"{page} without its chart library reported no error: {counts}")
    print(f"dashboard: {points} points on {plots} plots, the injected regression marked alone; screenshots in {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
