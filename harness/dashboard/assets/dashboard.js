// opcert dashboard: draws each page's plots from the JSON it carries (#opcert-data) with Chart.js,
// then says on the page what it drew (#render-status, and data-charts, data-points,
// data-regressions, data-markers and data-errors on <html>; each canvas's y axis as Chart.js laid it
// out in data-y-type, data-y-min and data-y-max), so a reader and a test see the same count of
// plotted points, runs marked as regressions, axes and script errors.
(function () {
  "use strict";
  const root = document.documentElement;
  const errors = [];
  const noteError = (text) => {
    errors.push(String(text));
    root.dataset.errors = String(errors.length);
  };
  window.addEventListener("error", (e) => noteError(e.message || ("cannot load " + ((e.target && e.target.src) || "a resource"))), true);
  window.addEventListener("unhandledrejection", (e) => noteError(e.reason));
  const consoleError = console.error.bind(console);
  console.error = (...args) => { noteError(args.join(" ")); consoleError(...args); };

  const colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];
  const charts = [];
  let points = 0;
  let markers = 0;
  const regressedRuns = new Set();

  function count(chart) {
    chart.data.datasets.forEach((ds, i) => {
      const drawn = chart.getDatasetMeta(i).data.length;
      if (ds.opcertRole === "points") points += drawn;
      if (ds.opcertRole === "regression")
        ds.data.forEach((v, j) => { if (v !== null) { markers += 1; regressedRuns.add(ds.opcertRuns[j]); } });
    });
  }

  function draw(id, config) {
    const canvas = document.getElementById(id);
    if (!canvas) return;
    config.options = Object.assign({ animation: false, responsive: true, maintainAspectRatio: false }, config.options || {});
    const chart = new Chart(canvas, config);
    charts.push(chart);
    count(chart);
    canvas.dataset.yType = chart.scales.y.type;
    canvas.dataset.yMin = String(chart.scales.y.min);
    canvas.dataset.yMax = String(chart.scales.y.max);
  }

  // An error axis (RMSE, error ratios): errors are never negative, so it starts at 0 and scales to
  // the data's largest value (a constant series is not centred on a made-up range); logarithmic
  // where the values span more than two decades. A zero cannot be drawn on a log axis, so a series
  // with an exact zero stays linear.
  function errorScale(values) {
    const known = values.filter((v) => v !== null);
    const largest = Math.max(...known);
    const smallest = Math.min(...known);
    if (smallest > 0 && largest / smallest > 100) return { type: "logarithmic" };
    return { type: "linear", min: 0, beginAtZero: true };
  }

  // `errorAxis`: the values are errors, drawn on errorScale's axis.
  function seriesChart(id, title, yTitle, data, valueOf, band, errorAxis) {
    const labels = data.points.map((p) => p.label);
    const values = data.points.map(valueOf);
    if (values.every((v) => v === null)) {
      const figure = document.getElementById(id).parentElement;
      figure.classList.add("empty");
      figure.textContent = title + ": not measured in these runs";
      return;
    }
    const datasets = [];
    if (band) {
      datasets.push({ label: "slowest repetition", data: data.points.map((p) => p.max), borderWidth: 0, pointRadius: 0,
                      backgroundColor: "rgba(31,119,180,0.18)", fill: "+1" });
      datasets.push({ label: "fastest repetition", data: data.points.map((p) => p.min), borderWidth: 0, pointRadius: 0,
                      backgroundColor: "rgba(31,119,180,0.18)", fill: false });
    }
    datasets.push({ label: title, data: values, borderColor: colors[0], backgroundColor: colors[0], pointRadius: 3,
                    spanGaps: true, opcertRole: "points" });
    datasets.push({ label: "regression", data: data.points.map((p, i) => (p.regressions.length ? values[i] : null)),
                    showLine: false, pointStyle: "triangle", pointRadius: 9, borderColor: "#d62728",
                    backgroundColor: "#d62728", opcertRole: "regression", opcertRuns: data.points.map((p) => p.run) });
    draw(id, {
      type: "line",
      data: { labels, datasets },
      options: {
        plugins: {
          title: { display: true, text: title },
          tooltip: { callbacks: { afterBody: (items) => {
            const p = data.points[items[0].dataIndex];
            return p.regressions.concat(p.status ? ["status " + p.status] : []);
          } } },
        },
        scales: { y: Object.assign(errorAxis ? errorScale(values) : { type: "linear" }, { title: { display: true, text: yTitle } }) },
      },
    });
  }

  function seriesPage(data) {
    seriesChart("chart-time", "Time per launch", "seconds", data, (p) => p.seconds, true, false);
    seriesChart("chart-throughput", "Throughput", data.unit || "", data, (p) => p.throughput, false, false);
    seriesChart("chart-speedup", data.peer ? "Speed against the peer (the peer itself)" : "Speedup over the peer",
                "peer time / time", data, (p) => p.speedup, false, false);
    seriesChart("chart-alignment", "Alignment (RMSE over the peer's)", "ratio", data, (p) => p.alignment, false, true);
    seriesChart("chart-rmse", "Error of the primary output (RMSE against the reference)", "RMSE", data, (p) => p.rmse, false, true);
  }

  function rooflinePage(data) {
    data.groups.forEach((g, gi) => (g.kind === "bandwidth" ? bandwidthChart : intensityChart)("roofline-" + gi, g));
  }

  function pointsByBackend(g, place) {
    const backends = [...new Set(g.points.map((p) => p.backend))];
    return backends.map((b, i) => ({
      label: b, data: g.points.filter((p) => p.backend === b).map((p) => Object.assign(place(p), { name: p.label })),
      backgroundColor: colors[i % colors.length], pointRadius: 4, opcertRole: "points" }));
  }

  // Achieved TFLOP/s by arithmetic intensity, under each compute roof bent down by the memory roof.
  function intensityChart(id, g) {
    const ais = g.points.map((p) => p.ai);
    const lo = Math.min(...ais) / 4, hi = Math.max(...ais) * 4;
    const datasets = pointsByBackend(g, (p) => ({ x: p.ai, y: p.tflops }));
    const memory = g.roofs.filter((r) => r.memory_gbps);
    g.roofs.filter((r) => r.tflops).forEach((r, i) => {
      const xs = [lo];
      if (memory.length) xs.push(r.tflops * 1000 / memory[0].memory_gbps);
      xs.push(hi);
      const roof = (x) => Math.min(r.tflops, memory.length ? x * memory[0].memory_gbps / 1000 : Infinity);
      datasets.push({ label: r.label, type: "line", data: xs.filter((x) => x >= lo && x <= hi).map((x) => ({ x, y: roof(x) })),
                      borderColor: "#888", borderDash: [4 + i, 3], borderWidth: 1, pointRadius: 0, fill: false });
    });
    if (!g.roofs.some((r) => r.tflops))
      memory.forEach((r, i) => datasets.push({ label: r.label, type: "line", borderColor: "#888", borderDash: [4 + i, 3],
                                               borderWidth: 1, pointRadius: 0, fill: false,
                                               data: [lo, hi].map((x) => ({ x, y: x * r.memory_gbps / 1000 })) }));
    draw(id, {
      type: "scatter",
      data: { datasets },
      options: {
        plugins: { tooltip: { callbacks: { label: (c) => (c.raw.name || c.dataset.label) + ": " + c.raw.y.toPrecision(3) + " TFLOP/s" } } },
        scales: { x: { type: "logarithmic", title: { display: true, text: "arithmetic intensity (FLOP/byte)" } },
                  y: { type: "logarithmic", title: { display: true, text: "achieved TFLOP/s" } } },
      },
    });
  }

  // A byte count in decimal units, for the labels Chart.js's log axis would give a number.
  function bytesTick(value, index, ticks) {
    if (Chart.Ticks.formatters.logarithmic.call(this, value, index, ticks) === "") return "";
    const units = [[1e9, "GB"], [1e6, "MB"], [1e3, "kB"]];
    const [scale, unit] = units.find(([u]) => value >= u) || [1, "B"];
    return Number((value / scale).toPrecision(3)) + " " + unit;
  }

  // Ops with no FLOPs: achieved GB/s by bytes moved per launch, under the memory roof (log-log, as
  // the roofline is: points far under the roof stay visible).
  function bandwidthChart(id, g) {
    const sizes = g.points.map((p) => p.bytes);
    const lo = Math.min(...sizes) / 2, hi = Math.max(...sizes) * 2;
    const datasets = pointsByBackend(g, (p) => ({ x: p.bytes, y: p.gbps }));
    g.roofs.filter((r) => r.memory_gbps).forEach((r, i) => datasets.push({
      label: r.label, type: "line", data: [{ x: lo, y: r.memory_gbps }, { x: hi, y: r.memory_gbps }],
      borderColor: "#888", borderDash: [4 + i, 3], borderWidth: 1, pointRadius: 0, fill: false }));
    draw(id, {
      type: "scatter",
      data: { datasets },
      options: {
        plugins: { tooltip: { callbacks: { label: (c) => (c.raw.name || c.dataset.label) + ": " + c.raw.y.toPrecision(3) + " GB/s" } } },
        scales: { x: { type: "logarithmic", min: lo, max: hi, ticks: { callback: bytesTick },
                       title: { display: true, text: "bytes moved per launch" } },
                  y: { type: "logarithmic", title: { display: true, text: "achieved GB/s" } } },
      },
    });
  }

  function collectivesPage(data) {
    data.groups.forEach((g, gi) => {
      const datasets = g.curves.map((c, i) => ({
        label: c.label, data: c.points.map((p) => ({ x: p.bytes, y: p.busbw })), showLine: true,
        borderColor: colors[i % colors.length], backgroundColor: colors[i % colors.length], pointRadius: 3,
        opcertRole: "points" }));
      draw("busbw-" + gi, {
        type: "scatter",
        data: { datasets },
        options: { scales: { x: { type: "logarithmic", title: { display: true, text: "message size (bytes)" } },
                             y: { title: { display: true, text: "bus bandwidth (GB/s)" } } } },
      });
    });
  }

  function render() {
    const element = document.getElementById("opcert-data");
    if (!element) return;
    const data = JSON.parse(element.textContent);
    if (typeof Chart === "undefined") {
      noteError("the chart library did not load (assets/chart.min.js)");
    } else if (data.page === "series") {
      seriesPage(data);
    } else if (data.page === "roofline") {
      rooflinePage(data);
    } else if (data.page === "collectives") {
      collectivesPage(data);
    }
    root.dataset.charts = String(charts.length);
    root.dataset.points = String(points);
    root.dataset.regressions = String(regressedRuns.size);
    root.dataset.markers = String(markers);
    root.dataset.errors = String(errors.length);
    const status = document.getElementById("render-status");
    if (status)
      status.textContent = charts.length + " plots, " + points + " points, " + regressedRuns.size + (regressedRuns.size === 1 ? " run" : " runs") + " marked as regressions" +
        (errors.length ? "; errors: " + errors.join("; ") : "");
  }

  try {
    render();
  } catch (e) {
    noteError(e && e.stack ? e.stack : e);
    const status = document.getElementById("render-status");
    if (status) status.textContent = "errors: " + errors.join("; ");
  }
})();
