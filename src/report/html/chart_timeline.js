// Chart 5: the idle/busy strip of the timeline: one cell per time bin, grey when the GPU was
// idle, darker blue the more of it the GPU was busy; the largest idle gaps lie below it.
kscopeCharts.timeline = (report) => {
  const timeline = report.timeline || {};
  const start = timeline.start_ns || 0;
  const bins = (timeline.bins || []).map((b) => ({
    x: (b.start_ns - start) / 1e9, x2: (b.end_ns - start) / 1e9, busy: b.busy_pct || 0,
    tooltip: {from: `+${kscopeCharts.duration(b.start_ns - start)}`, to: `+${kscopeCharts.duration(b.end_ns - start)}`,
              'GPU busy': kscopeCharts.percent(b.busy_pct)},
  }));
  const gaps = (timeline.largest_gaps || []).map((g) => ({
    x: (g.start_ns - start) / 1e9, x2: (g.end_ns - start) / 1e9,
    tooltip: {'idle gap': kscopeCharts.duration(g.duration_ns), from: `+${kscopeCharts.duration(g.start_ns - start)}`,
              'host CUDA calls': (g.host || []).map((h) => `${h.api} x${h.calls}`).join(', ') || 'none'},
  }));
  return {
    $schema: 'https://vega.github.io/schema/vega/v5.json',
    width: 760,
    height: 64,
    padding: 5,
    data: [{name: 'bins', values: bins}, {name: 'gaps', values: gaps}],
    scales: [
      {name: 'x', type: 'linear', domain: [0, ((timeline.end_ns || start) - start) / 1e9 || 1], range: 'width',
       zero: false},
      {name: 'busy', type: 'linear', domain: [0, 100], range: ['#e6e6e6', '#08519c'], zero: true},
    ],
    axes: [{orient: 'bottom', scale: 'x', title: 'Time from the start (s)', offset: 4}],
    legends: [{fill: 'busy', title: 'GPU busy (%)', orient: 'right', type: 'gradient', gradientLength: 60}],
    marks: [
      {
        type: 'rect',
        from: {data: 'bins'},
        encode: {enter: {
          x: {scale: 'x', field: 'x'}, x2: {scale: 'x', field: 'x2'}, y: {value: 0}, height: {value: 40},
          fill: {scale: 'busy', field: 'busy'}, tooltip: {field: 'tooltip'},
        }},
      },
      {
        type: 'rect',
        from: {data: 'gaps'},
        encode: {enter: {
          x: {scale: 'x', field: 'x'}, x2: {scale: 'x', field: 'x2'}, y: {value: 46}, height: {value: 14},
          fill: {value: '#fdd0a2'}, stroke: {value: '#d94801'}, tooltip: {field: 'tooltip'},
        }},
      },
    ],
  };
};
