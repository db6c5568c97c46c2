// Chart 2: the roofline, log-log: arithmetic intensity (FLOP per DRAM byte) against achieved
// FLOP/s. Every profiled kernel as a point in its precision's colour, and the roof of each
// precision that has points (the memory slope up to the ridge, then the compute peak); the
// page's table lists every roof. Points without DRAM traffic or without work of that
// precision cannot sit on log axes and are left out.
kscopeCharts.roofline = (report) => {
  const roofline = report.roofline || {};
  const points = (roofline.points || [])
    .filter((p) => p.intensity > 0 && p.achieved_flops > 0)
    .map((p) => ({
      precision: p.precision || '?', x: p.intensity, y: p.achieved_flops,
      tooltip: {
        kernel: p.short_name || p.kernel, 'full name': p.kernel, launches: p.launches ?? 'n/a', precision: p.precision,
        'FLOP/byte': p.intensity.toPrecision(3),
        achieved: kscopeCharts.si(p.achieved_flops, 'FLOP/s'), '% of roof': kscopeCharts.percent(p.pct_of_roof),
        bottleneck: kscopeCharts.bottleneck(p.bottleneck),
      },
    }));
  const precisions = new Set(points.map((p) => p.precision));
  const roofs = (roofline.roofs || [])
    .filter((r) => precisions.has(r.precision) && r.peak_flops > 0 && r.peak_dram_bytes_per_s > 0);
  const xs = points.map((p) => p.x).concat(roofs.map((r) => r.peak_flops / r.peak_dram_bytes_per_s));
  const decade = (v, up) => 10 ** (up ? Math.ceil(Math.log10(v)) : Math.floor(Math.log10(v)));
  const decades = (from, to) => {
    const ticks = [];
    for (let v = from; v <= to * 1.0001; v *= 10) ticks.push(v);
    return ticks;
  };
  const xMin = decade(Math.min(...xs) / 10, false);
  const xMax = decade(Math.max(...xs) * 10, true);
  const lines = [];
  for (const r of roofs) {
    const ridge = r.peak_flops / r.peak_dram_bytes_per_s;
    for (const x of [xMin, ridge, xMax]) {
      lines.push({precision: r.precision, x, y: Math.min(r.peak_flops, x * r.peak_dram_bytes_per_s)});
    }
  }
  const ys = points.map((p) => p.y).concat(lines.map((l) => l.y));
  const yMin = decade(Math.min(...ys), false);
  const yMax = decade(Math.max(...ys) * 3, true);  // room for the roof labels above the peaks
  const labels = roofs.map((r) => ({
    precision: r.precision, x: xMax, y: r.peak_flops,
    text: `${r.precision} ${kscopeCharts.si(r.peak_flops, 'FLOP/s')}`,
  }));
  return {
    $schema: 'https://vega.github.io/schema/vega/v5.json',
    width: 620,
    height: 380,
    padding: 5,
    data: [{name: 'points', values: points}, {name: 'roofs', values: lines}, {name: 'labels', values: labels}],
    scales: [
      {name: 'x', type: 'log', domain: [xMin, xMax], range: 'width'},
      {name: 'y', type: 'log', domain: [yMin, yMax], range: 'height'},
      {name: 'precision', type: 'ordinal', range: 'category',
       domain: [...new Set(lines.map((l) => l.precision).concat(points.map((p) => p.precision)))]},
    ],
    axes: [
      {orient: 'bottom', scale: 'x', title: 'Arithmetic intensity (FLOP per byte of DRAM traffic)', grid: true,
       values: decades(xMin, xMax), format: '~g'},
      {orient: 'left', scale: 'y', title: 'FLOP/s', grid: true, values: decades(yMin, yMax), format: '~s'},
    ],
    legends: [{fill: 'precision', stroke: 'precision', title: 'Precision', orient: 'right'}],
    marks: [
      {
        type: 'group',
        from: {facet: {name: 'roof', data: 'roofs', groupby: 'precision'}},
        marks: [{
          type: 'line',
          from: {data: 'roof'},
          encode: {enter: {
            x: {scale: 'x', field: 'x'}, y: {scale: 'y', field: 'y'},
            stroke: {scale: 'precision', field: 'precision'}, strokeWidth: {value: 2},
          }},
        }],
      },
      {
        type: 'text',
        from: {data: 'labels'},
        encode: {enter: {
          x: {scale: 'x', field: 'x'}, y: {scale: 'y', field: 'y'}, dy: {value: -4},
          align: {value: 'right'}, text: {field: 'text'}, fill: {scale: 'precision', field: 'precision'},
        }},
      },
      {
        type: 'symbol',
        from: {data: 'points'},
        encode: {enter: {
          x: {scale: 'x', field: 'x'}, y: {scale: 'y', field: 'y'}, size: {value: 70},
          fill: {scale: 'precision', field: 'precision'}, stroke: {value: '#ffffff'}, strokeWidth: {value: 1},
          tooltip: {field: 'tooltip'},
        }},
      },
    ],
  };
};
