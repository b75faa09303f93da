// Small charts as inline SVG for the HTML export: no script, prints as
// vectors, and needs nothing but the file itself. Pure.

export interface BarSeries {
  readonly name: string;
  readonly colour: string;
  readonly values: readonly (number | null)[];
}

export interface BarChart {
  readonly title: string;
  readonly labels: readonly string[];
  readonly series: readonly BarSeries[];
  /** Shown under the axis, e.g. "seconds (log scale)". */
  readonly axis: string;
  readonly log?: boolean;
  /** Bars in this label's row are drawn in this colour instead (the limiting layer). */
  readonly highlight?: { readonly label: string; readonly colour: string };
  readonly format: (value: number) => string;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const LABEL_WIDTH = 250;
const PLOT_WIDTH = 420;
const VALUE_WIDTH = 90;
const BAR_HEIGHT = 12;
const ROW_GAP = 10;

/** A horizontal grouped bar chart. */
export function barChartSvg(chart: BarChart): string {
  const values = chart.series.flatMap((series) => series.values).filter((value): value is number => value !== null && Number.isFinite(value) && value > 0);
  const max = Math.max(...values, 1e-9);
  const min = Math.min(...values, max);
  const scale = (value: number) => {
    if (!chart.log) return (value / max) * PLOT_WIDTH;
    const low = Math.log10(min) - 0.3;
    return ((Math.log10(value) - low) / (Math.log10(max) - low)) * PLOT_WIDTH;
  };
  const rowHeight = chart.series.length * BAR_HEIGHT + ROW_GAP;
  const top = 28;
  const height = top + chart.labels.length * rowHeight + 40;
  const width = LABEL_WIDTH + PLOT_WIDTH + VALUE_WIDTH;
  const rows = chart.labels.map((label, row) => {
    const y = top + row * rowHeight;
    const bars = chart.series.map((series, index) => {
      const value = series.values[row];
      if (value === null || value === undefined || !Number.isFinite(value) || value <= 0) return '';
      const colour = chart.highlight?.label === label ? chart.highlight.colour : series.colour;
      const barY = y + index * BAR_HEIGHT;
      const barWidth = Math.max(1, scale(value));
      return `<rect x="${LABEL_WIDTH}" y="${barY}" width="${barWidth.toFixed(1)}" height="${BAR_HEIGHT - 2}" fill="${colour}"><title>${escapeXml(`${series.name}: ${chart.format(value)}`)}</title></rect><text x="${(LABEL_WIDTH + barWidth + 4).toFixed(1)}" y="${barY + BAR_HEIGHT - 3}" class="v">${escapeXml(chart.format(value))}</text>`;
    });
    return `<text x="${LABEL_WIDTH - 6}" y="${y + (chart.series.length * BAR_HEIGHT) / 2 + 4}" text-anchor="end" class="l">${escapeXml(label)}</text>${bars.join('')}`;
  });
  const legend = chart.series.map(
    (series, index) =>
      `<rect x="${LABEL_WIDTH + index * 140}" y="${height - 18}" width="10" height="10" fill="${series.colour}"/><text x="${LABEL_WIDTH + index * 140 + 14}" y="${height - 9}" class="l">${escapeXml(series.name)}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="${escapeXml(chart.title)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" data-bars="${values.length}">
<style>.l{font:11px sans-serif;fill:#333}.v{font:10px sans-serif;fill:#555}</style>
<text x="0" y="14" class="l" font-weight="bold">${escapeXml(chart.title)}</text>
<line x1="${LABEL_WIDTH}" y1="${top - 4}" x2="${LABEL_WIDTH}" y2="${height - 34}" stroke="#999"/>
${rows.join('\n')}
<text x="${LABEL_WIDTH}" y="${height - 26}" class="v">${escapeXml(chart.axis)}</text>
${legend.join('')}
</svg>`;
}
