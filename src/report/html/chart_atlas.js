// atlas.html's charts: the family x model matrix of GPU-time shares, the bottleneck-class mix
// of each family's profiled launches, and each family's performance per bin of waves per SM.
// Families are limited to the largest ones so that the charts stay readable; the tables
// below them hold every row.

// The popularity rows as (family, model, share) cells, for the 30 families with most GPU time.
kscopeCharts['atlas-popularity'] = (atlas) => {
  const rows = (atlas.popularity || []).slice(0, 30);
  const key = (r) => (atlas.grouping === 'kernel' ? r.kernel : r.family);
  // Ranked labels of kernels' short names (unique in the atlas), families as they are.
  const label = (r, i) => `${i + 1}. ${r.short_name || kscopeCharts.shortName(key(r))}`;
  const values = [];
  for (const [i, r] of rows.entries()) {
    for (const [model, share] of Object.entries(r.share || {})) {
      values.push({
        label: label(r, i), model, share,
        tooltip: {family: r.family, kernel: r.kernel, model, share: kscopeCharts.percent(share),
                  'GPU time (all models)': kscopeCharts.duration(r.gpu_time_ns)},
      });
    }
  }
  return {
    $schema: 'https://vega.github.io/schema/vega/v5.json',
    width: Math.max(120, 70 * (atlas.models || []).length),
    height: Math.max(60, 20 * rows.length),
    padding: 5,
    data: [{name: 'cells', values}],
    scales: [
      {name: 'x', type: 'band', domain: atlas.models || [], range: 'width', padding: 0.05},
      {name: 'y', type: 'band', domain: rows.map(label), range: 'height', padding: 0.05},
      {name: 'color', type: 'linear', domain: [0, 100], range: {scheme: 'blues'}, zero: true},
    ],
    axes: [
      {orient: 'top', scale: 'x', labelAngle: -30, labelAlign: 'left'},
      {orient: 'left', scale: 'y', labelLimit: 320},
    ],
    legends: [{fill: 'color', title: '% of the model\'s GPU time', orient: 'right'}],
    marks: [{
      type: 'rect',
      from: {data: 'cells'},
      encode: {enter: {
        x: {scale: 'x', field: 'model'}, width: {scale: 'x', band: 1},
        y: {scale: 'y', field: 'label'}, height: {scale: 'y', band: 1},
        fill: {scale: 'color', field: 'share'}, tooltip: {field: 'tooltip'},
      }},
    }],
  };
};

// Profiled launches per class, stacked, for the 30 families with most profiled launches.
kscopeCharts['atlas-classes'] = (atlas) => {
  const rows = (atlas.performance || []).slice(0, 30);
  const key = (r) => (atlas.grouping === 'kernel' ? r.kernel : r.family);
  const label = (r, i) => `${i + 1}. ${r.short_name || kscopeCharts.shortName(key(r))}`;
  const values = [];
  for (const [i, r] of rows.entries()) {
    for (const [cls, launches] of Object.entries(r.classes || {})) {
      values.push({label: label(r, i), bottleneck: cls, launches,
                   tooltip: {family: r.family, kernel: r.kernel, class: cls, launches}});
    }
  }
  return {
    $schema: 'https://vega.github.io/schema/vega/v5.json',
    width: 520,
    height: Math.max(60, 20 * rows.length),
    padding: 5,
    data: [{name: 'mix', values,
            transform: [{type: 'stack', groupby: ['label'], field: 'launches', sort: {field: 'bottleneck'}}]}],
    scales: [
      {name: 'y', type: 'band', domain: rows.map(label), range: 'height', padding: 0.15},
      {name: 'x', type: 'linear', domain: {data: 'mix', field: 'y1'}, range: 'width', nice: true, zero: true},
      kscopeCharts.bottleneckColors(values.map((v) => v.bottleneck)),
    ],
    axes: [
      {orient: 'bottom', scale: 'x', title: 'profiled launches', grid: true},
      {orient: 'left', scale: 'y', labelLimit: 320},
    ],
    legends: [{fill: 'bottleneck', title: 'Bottleneck', orient: 'bottom', direction: 'horizontal',
               values: [...new Set(values.map((v) => v.bottleneck))]}],
    marks: [{
      type: 'rect',
      from: {data: 'mix'},
      encode: {enter: {
        y: {scale: 'y', field: 'label'}, height: {scale: 'y', band: 1},
        x: {scale: 'x', field: 'y0'}, x2: {scale: 'x', field: 'y1'},
        fill: {scale: 'bottleneck', field: 'bottleneck'}, tooltip: {field: 'tooltip'},
      }},
    }],
  };
};

// Median figure per bin of waves per SM, one line per family (the 8 with most launches).
kscopeCharts['atlas-correlates'] = (atlas) => {
  const key = (r) => (atlas.grouping === 'kernel' ? r.kernel : r.family);
  const rows = (atlas.correlates || []).filter((r) => (r.bins || []).some((b) => b.parameter === 'waves per SM'))
    .slice(0, 8);
  const values = [];
  const bins = new Map();
  for (const r of rows) {
    for (const b of r.bins || []) {
      if (b.parameter !== 'waves per SM') continue;
      bins.set(b.bin, b.lower);
      values.push({family: r.short_name || kscopeCharts.shortName(key(r), 40), bin: b.bin, lower: b.lower, median: b.median,
                   tooltip: {family: key(r), figure: r.figure, 'waves per SM': b.bin, launches: b.launches,
                             median: b.median.toPrecision(3)}});
    }
  }
  const domain = [...bins.entries()].sort((a, b) => a[1] - b[1]).map(([bin]) => bin);
  return {
    $schema: 'https://vega.github.io/schema/vega/v5.json',
    width: 520,
    height: 280,
    padding: 5,
    data: [{name: 'points', values}],
    scales: [
      {name: 'x', type: 'point', domain, range: 'width', padding: 0.5},
      {name: 'y', type: 'linear', domain: {data: 'points', field: 'median'}, range: 'height', nice: true,
       zero: true},
      {name: 'color', type: 'ordinal', domain: {data: 'points', field: 'family'}, range: 'category'},
    ],
    axes: [
      {orient: 'bottom', scale: 'x', title: 'waves per SM'},
      {orient: 'left', scale: 'y', title: 'median figure (% of roof, else SM %)', grid: true},
    ],
    legends: [{stroke: 'color', title: 'Family', orient: 'right', labelLimit: 300}],
    marks: [{
      type: 'group',
      from: {facet: {name: 'line', data: 'points', groupby: 'family'}},
      marks: [
        {type: 'line', from: {data: 'line'}, sort: {field: 'datum.lower'},
         encode: {enter: {x: {scale: 'x', field: 'bin'}, y: {scale: 'y', field: 'median'},
                          stroke: {scale: 'color', field: 'family'}, strokeWidth: {value: 2}}}},
        {type: 'symbol', from: {data: 'line'},
         encode: {enter: {x: {scale: 'x', field: 'bin'}, y: {scale: 'y', field: 'median'},
                          fill: {scale: 'color', field: 'family'}, size: {value: 40},
                          tooltip: {field: 'tooltip'}}}},
      ],
    }],
  };
};
