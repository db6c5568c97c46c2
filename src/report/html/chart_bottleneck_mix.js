// Chart 4: GPU kernel time by bottleneck class, as shares of all kernel time.
kscopeCharts['bottleneck-mix'] = (report) => {
  const values = (report.bottleneck_mix || []).map((b) => ({
    bottleneck: kscopeCharts.bottleneck(b.bottleneck),
    pct: b.share_pct || 0,
    tooltip: {
      bottleneck: kscopeCharts.bottleneck(b.bottleneck), 'GPU time': kscopeCharts.duration(b.total_ns),
      share: kscopeCharts.percent(b.share_pct), kernels: b.kernels,
    },
  }));
  return {
    $schema: 'https://vega.github.io/schema/vega/v5.json',
    width: 420,
    height: Math.max(50, 28 * values.length),
    padding: 5,
    data: [{name: 'mix', values}],
    scales: [
      {name: 'y', type: 'band', domain: {data: 'mix', field: 'bottleneck'}, range: 'height', padding: 0.2},
      {name: 'x', type: 'linear', domain: [0, 100], range: 'width'},
      kscopeCharts.bottleneckColors(values.map((v) => v.bottleneck)),
    ],
    axes: [
      {orient: 'bottom', scale: 'x', title: 'Share of kernel time (%)', grid: true},
      {orient: 'left', scale: 'y', labelLimit: 200},
    ],
    marks: [{
      type: 'rect',
      from: {data: 'mix'},
      encode: {enter: {
        y: {scale: 'y', field: 'bottleneck'}, height: {scale: 'y', band: 1},
        x: {scale: 'x', value: 0}, x2: {scale: 'x', field: 'pct'},
        fill: {scale: 'bottleneck', field: 'bottleneck'}, tooltip: {field: 'tooltip'},
      }},
    }],
  };
};
