import { useId } from 'react';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { niceMax } from './usage-series.ts';

export interface Series {
  label: string;
  /** A CSS colour; series stack bottom-up in the given order. */
  color: string;
  values: number[];
}

interface ChartProps {
  title: string;
  /** One label per column (days). */
  labels: string[];
  series: Series[];
  /** `line` draws each series as a line (gaps where the value is null), `bars` stacks them. */
  kind?: 'bars' | 'line';
  format?: (value: number) => string;
  /** Column values that are not data (a day without runs for a rate). */
  gaps?: boolean[];
  id?: string;
}

const W = 640;
const H = 180;
const PAD = { top: 10, right: 8, bottom: 22, left: 44 };

/**
 * A small hand-drawn SVG chart (stacked bars or lines) with a title, a legend and, for screen
 * readers and exact numbers, the same data as a table behind a disclosure.
 */
export function Chart({ title, labels, series, kind = 'bars', format = String, gaps, id }: ChartProps) {
  const { t } = useI18n();
  const titleId = useId();
  const n = labels.length;
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max =
    kind === 'bars' ? niceMax(Math.max(0, ...totals)) : niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (plotW * (i + 0.5)) / Math.max(n, 1);
  const y = (v: number) => PAD.top + plotH - (plotH * v) / max;
  const barW = Math.max(2, (plotW / Math.max(n, 1)) * 0.7);
  const tickEvery = Math.max(1, Math.ceil(n / 8));
  const summary = series.map((s) => `${s.label}: ${format(s.values.reduce((a, b) => a + b, 0))}`).join(', ');
  return (
    <figure className="chart card" {...(id ? { id } : {})}>
      <figcaption id={titleId}>
        <h3>{title}</h3>
        <ul className="legend" aria-hidden="true">
          {series.map((s) => (
            <li key={s.label}>
              <span className="legend-swatch" style={{ background: s.color }} />
              {s.label}
            </li>
          ))}
        </ul>
      </figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-labelledby={`${titleId}-title`}
        aria-describedby={`${titleId}-sum`}
      >
        <title id={`${titleId}-title`}>{title}</title>
        <desc id={`${titleId}-sum`}>
          {t('usage.chartSummary', { from: labels[0] ?? '', to: labels.at(-1) ?? '', summary })}
        </desc>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line className="grid-line" x1={PAD.left} x2={W - PAD.right} y1={y(max * f)} y2={y(max * f)} />
            <text className="axis" x={PAD.left - 6} y={y(max * f) + 4} textAnchor="end">
              {format(max * f)}
            </text>
          </g>
        ))}
        {labels.map((label, i) =>
          i % tickEvery === 0 ? (
            <text key={label} className="axis" x={x(i)} y={H - 6} textAnchor="middle">
              {label.slice(5)}
            </text>
          ) : null,
        )}
        {kind === 'bars'
          ? labels.map((label, i) => {
              let base = 0;
              return (
                <g key={label}>
                  {series.map((s) => {
                    const v = s.values[i] ?? 0;
                    const top = base + v;
                    const rect = (
                      <rect
                        key={s.label}
                        x={x(i) - barW / 2}
                        width={barW}
                        y={y(top)}
                        height={Math.max(0, y(base) - y(top))}
                        fill={s.color}
                      >
                        <title>{`${label} ${s.label}: ${format(v)}`}</title>
                      </rect>
                    );
                    base = top;
                    return v > 0 ? rect : null;
                  })}
                </g>
              );
            })
          : series.map((s) => {
              const points = s.values.map((v, i) => (gaps?.[i] ? null : `${x(i)},${y(v)}`));
              const segments: string[][] = [[]];
              for (const p of points) {
                if (p) segments.at(-1)?.push(p);
                else segments.push([]);
              }
              return (
                <g key={s.label}>
                  {segments
                    .filter((seg) => seg.length > 0)
                    .map((seg) => (
                      <polyline key={seg[0]} points={seg.join(' ')} fill="none" stroke={s.color} strokeWidth={2} />
                    ))}
                  {s.values.map((v, i) =>
                    gaps?.[i] ? null : (
                      // biome-ignore lint/suspicious/noArrayIndexKey: one point per day
                      <circle key={i} cx={x(i)} cy={y(v)} r={3} fill={s.color}>
                        <title>{`${labels[i]} ${s.label}: ${format(v)}`}</title>
                      </circle>
                    ),
                  )}
                </g>
              );
            })}
      </svg>
      <details className="chart-table">
        <summary>{t('usage.showTable')}</summary>
        <table className="list">
          <thead>
            <tr>
              <th scope="col">{t('usage.day')}</th>
              {series.map((s) => (
                <th key={s.label} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, i) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {series.map((s) => (
                  <td key={s.label}>{gaps?.[i] ? '—' : format(s.values[i] ?? 0)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
