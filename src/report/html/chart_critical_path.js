// Chart 6: the critical path of one step (report.critical_path.drawing) over the threads and
// streams it ran on, each piece coloured by what it is (a kernel, launch overhead, the host's
// own work, a synchronization...): where the step's time goes, lane by lane.
kscopeCharts['critical-path'] = (report) => {
  const drawing = (report.critical_path || {}).drawing || {};
  const start = drawing.start_ns || 0;
  const lanes = (drawing.lanes || []).map((l) => l.name);
  const parts = ['kernels', 'communication', 'copies and sets', 'launch overhead', 'host work outside CUDA',
    'other CUDA calls', 'synchronization', 'stream gaps', 'waits on other streams'];
  const colors = ['#d62728', '#9467bd', '#17becf', '#ff7f0e', '#1f77b4', '#8c564b', '#e377c2', '#b0b0b0', '#7f7f7f'];
  const pieces = (drawing.pieces || []).map((p) => ({
    lane: lanes[p.lane] || '?', x: (p.start_ns - start) / 1e6, x2: (p.end_ns - start) / 1e6, part: p.part,
    tooltip: {part: p.part, what: p.what, duration: kscopeCharts.duration(p.end_ns - p.start_ns),
              from: `+${kscopeCharts.duration(p.start_ns - start)}`, lane: lanes[p.lane] || '?'},
  }));
  for (const p of pieces) {
    if (!parts.includes(p.part)) {
      parts.push(p.part);
      colors.push('#7f7f7f');
    }
  }
  // The legend names the parts this path runs through, each in its colour on every page.
  const present = new Set(pieces.map((p) => p.part));
  const shown = parts.map((part, i) => [part, colors[i]]).filter(([part]) => present.has(part));
  return {
    $schema: 'https://vega.github.io/schema/vega/v5.json',
    width: 620,
    height: Math.max(40, 26 * lanes.length),
    padding: 5,
    data: [{name: 'pieces', values: pieces}],
    scales: [
      {name: 'y', type: 'band', domain: lanes, range: 'height', padding: 0.2},
      {name: 'x', type: 'linear', domain: [0, ((drawing.end_ns || start) - start) / 1e6 || 1], range: 'width',
       zero: true},
      {name: 'part', type: 'ordinal', domain: shown.map(([part]) => part), range: shown.map(([, color]) => color)},
    ],
    axes: [
      {orient: 'bottom', scale: 'x', title: 'Time from the step\'s start (ms)', grid: true},
      {orient: 'left', scale: 'y', labelLimit: 200},
    ],
    legends: [{fill: 'part', title: 'The path runs through', orient: 'right'}],
    marks: [{
      type: 'rect',
      from: {data: 'pieces'},
      encode: {enter: {
        y: {scale: 'y', field: 'lane'}, height: {scale: 'y', band: 1},
        x: {scale: 'x', field: 'x'}, x2: {scale: 'x', field: 'x2'},
        fill: {scale: 'part', field: 'part'}, tooltip: {field: 'tooltip'},
      }},
    }],
  };
};
