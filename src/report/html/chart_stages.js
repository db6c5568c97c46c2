// Chart 3: the NVTX stages by GPU busy time, each labelled with its model FLOPs utilization
// (MFU) and memory bandwidth utilization (MBU) where kscope could compute them.
kscopeCharts.stages = (report) => {
  const name = (s) => s.display_name || s.text || s.name || '?';  // 'decode', not nsys's ':decode'
  const names = new Map();
  for (const s of report.stages || []) names.set(name(s), (names.get(name(s)) || 0) + 1);
  const values = (report.stages || []).map((s) => {
    const mfu = s.mfu || {};
    const unique = names.get(name(s)) > 1 ? `${name(s)} (#${s.id})` : name(s);
    return {
      label: `${'\u00b7 '.repeat(s.depth || 0)}${kscopeCharts.shortName(unique, 40)}`,
      ms: (s.gpu_busy_ns || 0) / 1e6,
      text: `MFU ${kscopeCharts.percent(mfu.mfu_pct)}, MBU ${kscopeCharts.percent(mfu.mbu_pct)}`,
      measured: mfu.mfu_pct !== null && mfu.mfu_pct !== undefined ? 'MFU known' : 'no MFU',
      tooltip: {
        stage: name(s), 'GPU busy': kscopeCharts.duration(s.gpu_busy_ns), 'busy share': kscopeCharts.percent(s.gpu_busy_pct),
        'range time': kscopeCharts.duration(s.range_ns), MFU: kscopeCharts.percent(mfu.mfu_pct),
        MBU: kscopeCharts.percent(mfu.mbu_pct), precision: (mfu.peak && mfu.peak.precision) || 'n/a', 'FLOPs from': mfu.mfu_source || 'n/a',
        'FLOP coverage (of compute kernel time)': kscopeCharts.percent(mfu.coverage_pct), 'other threads': String((s.other_threads && s.other_threads.ops) || 0) + ' ops',
      },
    };
  });
  return {
    $schema: 'https://vega.github.io/schema/vega/v5.json',
    width: 420,
    height: Math.max(50, 28 * values.length),
    padding: {left: 5, top: 5, bottom: 5, right: 200},
    data: [{name: 'stages', values}],
    scales: [
      {name: 'y', type: 'band', domain: {data: 'stages', field: 'label'}, range: 'height', padding: 0.2},
      {name: 'x', type: 'linear', domain: {data: 'stages', field: 'ms'}, range: 'width', nice: true, zero: true},
      {name: 'measured', type: 'ordinal', domain: ['MFU known', 'no MFU'], range: ['#2ca02c', '#b0b0b0']},
    ],
    axes: [
      {orient: 'bottom', scale: 'x', title: 'GPU busy time (ms)', grid: true},
      {orient: 'left', scale: 'y', labelLimit: 260},
    ],
    marks: [
      {
        type: 'rect',
        from: {data: 'stages'},
        encode: {enter: {
          y: {scale: 'y', field: 'label'}, height: {scale: 'y', band: 1},
          x: {scale: 'x', value: 0}, x2: {scale: 'x', field: 'ms'},
          fill: {scale: 'measured', field: 'measured'}, tooltip: {field: 'tooltip'},
        }},
      },
      {
        type: 'text',
        from: {data: 'stages'},
        encode: {enter: {
          y: {scale: 'y', field: 'label', band: 0.5}, x: {scale: 'x', field: 'ms'}, dx: {value: 6},
          baseline: {value: 'middle'}, text: {field: 'text'}, fill: {value: '#333333'},
        }},
      },
    ],
  };
};
