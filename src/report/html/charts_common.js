// What the five charts share: number formatting for tooltips, the colours of bottleneck
// classes (the same class has the same colour in every chart), short names for axes.
const kscopeCharts = {};

kscopeCharts.duration = (ns) => {
  if (ns === null || ns === undefined) return 'n/a';
  const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'us']];
  for (const [scale, unit] of units) {
    if (Math.abs(ns) >= scale) return `${(ns / scale).toFixed(2)} ${unit}`;
  }
  return `${Math.round(ns)} ns`;
};

kscopeCharts.si = (value, unit) => {
  if (value === null || value === undefined) return 'n/a';
  const prefixes = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  for (const [scale, prefix] of prefixes) {
    if (Math.abs(value) >= scale) return `${(value / scale).toPrecision(3)} ${prefix}${unit}`;
  }
  return `${value.toPrecision(3)} ${unit}`;
};

kscopeCharts.percent = (pct) => (pct === null || pct === undefined ? 'n/a' : `${pct.toPrecision(3)}%`);

kscopeCharts.shortName = (name, limit = 48) => {
  const text = String(name || '?');
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}\u2026`;
};

// Bottleneck classes as kscope names them (analysis/kernels/bottleneck.cc), then any others.
kscopeCharts.bottleneckColors = (values) => {
  const known = [
    ['compute', '#d62728'], ['mixed', '#e377c2'], ['memory (DRAM)', '#1f77b4'], ['memory (L1/L2)', '#17becf'],
    ['cache inefficiency', '#2ca02c'], ['latency/occupancy', '#ff7f0e'], ['launch', '#9467bd'],
    ['unknown', '#8c564b'],
    ['not profiled', '#b0b0b0'],
  ];
  const domain = known.map(([name]) => name);
  const range = known.map(([, color]) => color);
  for (const value of values) {
    if (!domain.includes(value)) {
      domain.push(value);
      range.push('#7f7f7f');
    }
  }
  return {name: 'bottleneck', type: 'ordinal', domain, range};
};

kscopeCharts.bottleneck = (value) => value || 'not profiled';
