// Chart 1: the kernels that take the most GPU time, as horizontal bars coloured by their
// bottleneck class; the axis shows a shortened name, the tooltip the whole one.
kscopeCharts['top-kernels'] = (report) => {
  const values = (report.top_kernels || []).map((k, i) => ({
    label: `${k.rank ?? i + 1}. ${k.short_name || kscopeCharts.shortName(k.base || k.name)}`,
    ms: (k.total_ns || 0) / 1e6,
    bottleneck: kscopeCharts.bottleneck(k.bottleneck),
    tooltip: {
      kernel: k.name, 'GPU time': kscopeCharts.duration(k.total_ns), launches: k.launches,
      share: kscopeCharts.percent(k.share_pct), bottleneck: kscopeCharts.bottleneck(k.bottleneck),
    },
  }));
  return {
    $schema: 'https://vega.github.io/schema/vega/v5.json',
    width: 520,
    height: Math.max(60, 22 * values.length),
    padding: 5,
    data: [{name: 'kernels', values}],
    scales: [
      {name: 'y', type: 'band', domain: {data: 'kernels', field: 'label'}, range: 'height', padding: 0.15},
      {name: 'x', type: 'linear', domain: {data: 'kernels', field: 'ms'}, range: 'width', nice: true, zero: true},
      kscopeCharts.bottleneckColors(values.map((v) => v.bottleneck)),
    ],
    axes: [
      {orient: 'bottom', scale: 'x', title: 'GPU time (ms)', grid: true},
      {orient: 'left', scale: 'y', labelLimit: 320},
    ],
    legends: [{
      fill: 'bottleneck', title: 'Bottleneck', orient: 'bottom', direction: 'horizontal',
      values: [...new Set(values.map((v) => v.bottleneck))],
    }],
    marks: [{
      type: 'rect',
      from: {data: 'kernels'},
      encode: {enter: {
        y: {scale: 'y', field: 'label'}, height: {scale: 'y', band: 1},
        x: {scale: 'x', value: 0}, x2: {scale: 'x', field: 'ms'},
        fill: {scale: 'bottleneck', field: 'bottleneck'}, tooltip: {field: 'tooltip'},
      }},
    }],
  };
};
