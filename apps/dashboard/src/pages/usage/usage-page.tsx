import type { Usage } from '@agentry/contract/schemas';
import { usageApi } from '../../api/usage-api.ts';
import { AgentSelect } from '../../components/agent-select.tsx';
import { ListTable } from '../../components/list-table.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useAgents } from '../../components/use-agents.ts';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { navigate } from '../../router/use-route.ts';
import { Chart } from './bar-chart.tsx';
import { lastDays, perAgent, perDay, totalErrorRate } from './usage-series.ts';

const RANGES = [7, 30, 90];
const COLORS = { ok: '#2457d6', failed: '#c0362c', input: '#2457d6', tools: '#1b7f4b', toolErrors: '#d9822b' };

/** Usage per day and per agent: runs, tokens, tool calls and error rate (lazy-loaded chunk). */
export default function UsagePage({ agentId, days }: { agentId?: string; days: number }) {
  const { t, lang } = useI18n();
  const agents = useAgents();
  const range = Math.min(Math.max(days, 1), 92);
  const usage = useLoad(() => usageApi.get({ ...lastDays(range), ...(agentId ? { agentId } : {}) }), {
    key: `${agentId ?? ''}/${range}`,
  });
  const number = new Intl.NumberFormat(lang === 'zh' ? 'zh-CN' : 'en', { notation: 'compact' });
  const percent = new Intl.NumberFormat(lang === 'zh' ? 'zh-CN' : 'en', { style: 'percent', maximumFractionDigits: 1 });
  const fmt = (v: number) => number.format(v);
  const pct = (v: number) => percent.format(v);
  const names = new Map(agents.map((a) => [a.id, a.name]));
  const go = (patch: { agentId?: string | undefined; days?: number }) => {
    const next = { agentId, days: range, ...patch };
    navigate({ name: 'usage', ...(next.agentId ? { agentId: next.agentId } : {}), days: next.days }, true);
  };
  return (
    <div className="stack usage">
      <header className="page-header">
        <h1>{t('usage.title')}</h1>
        <div className="inline">
          <label className="inline">
            {t('usage.range')}
            <select id="usage-range" value={range} onChange={(e) => go({ days: Number(e.target.value) })}>
              {RANGES.map((d) => (
                <option key={d} value={d}>
                  {t('usage.lastDays', { n: d })}
                </option>
              ))}
            </select>
          </label>
          <label className="inline" htmlFor="usage-agent">
            {t('conversations.agent')}
            <AgentSelect id="usage-agent" agents={agents} value={agentId} all onChange={(id) => go({ agentId: id })} />
          </label>
        </div>
      </header>
      <Loaded data={usage.data} error={usage.error}>
        {(loaded) => <UsageView usage={loaded} names={names} fmt={fmt} pct={pct} days={range} />}
      </Loaded>
    </div>
  );
}

interface ViewProps {
  usage: Usage;
  names: Map<string, string>;
  fmt: (v: number) => string;
  pct: (v: number) => string;
  days: number;
}

/** The totals, the four charts and the per-agent table of a loaded period. */
function UsageView({ usage, names, fmt, pct, days }: ViewProps) {
  const { t } = useI18n();
  const points = perDay(usage.data, usage.from, usage.to);
  const labels = points.map((p) => p.date);
  const rate = totalErrorRate(usage.totals);
  const totals: Array<[string, string]> = [
    [t('usage.runs'), fmt(usage.totals.runs)],
    [t('usage.tokens'), fmt(usage.totals.input_tokens + usage.totals.output_tokens)],
    [t('usage.toolCalls'), fmt(usage.totals.tool_calls)],
    [t('usage.errorRate'), rate === null ? '—' : pct(rate)],
  ];
  return (
    <>
      <dl className="totals" id="usage-totals">
        {totals.map(([label, value]) => (
          <div key={label} className="card">
            <dt>{label}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {usage.totals.runs === 0 ? <p className="empty">{t('usage.empty')}</p> : null}
      <div className="charts">
        <Chart
          id="chart-runs"
          title={t('usage.runsPerDay')}
          labels={labels}
          format={fmt}
          series={[
            { label: t('usage.completed'), color: COLORS.ok, values: points.map((p) => p.runs - p.failed) },
            { label: t('usage.failed'), color: COLORS.failed, values: points.map((p) => p.failed) },
          ]}
        />
        <Chart
          id="chart-tokens"
          title={t('usage.tokensPerDay')}
          labels={labels}
          format={fmt}
          series={[{ label: t('usage.tokens'), color: COLORS.input, values: points.map((p) => p.tokens) }]}
        />
        <Chart
          id="chart-tools"
          title={t('usage.toolCallsPerDay')}
          labels={labels}
          format={fmt}
          series={[
            { label: t('usage.toolOk'), color: COLORS.tools, values: points.map((p) => p.toolCalls - p.toolErrors) },
            { label: t('usage.toolErrors'), color: COLORS.toolErrors, values: points.map((p) => p.toolErrors) },
          ]}
        />
        <Chart
          id="chart-errors"
          title={t('usage.errorRatePerDay')}
          labels={labels}
          kind="line"
          format={pct}
          gaps={points.map((p) => p.errorRate === null)}
          series={[{ label: t('usage.errorRate'), color: COLORS.failed, values: points.map((p) => p.errorRate ?? 0) }]}
        />
      </div>
      <AgentTable usage={usage} names={names} fmt={fmt} pct={pct} days={days} />
    </>
  );
}

function AgentTable({ usage, names, fmt, pct, days }: ViewProps) {
  const { t } = useI18n();
  const agents = perAgent(usage.data);
  if (agents.length === 0) return null;
  const most = Math.max(...agents.map((a) => a.runs), 1);
  return (
    <section className="card" aria-labelledby="per-agent-title">
      <h2 id="per-agent-title">{t('usage.perAgent')}</h2>
      <ListTable
        id="usage-agents"
        headers={[
          t('conversations.agent'),
          t('usage.runs'),
          t('usage.tokens'),
          t('usage.toolCalls'),
          t('usage.errorRate'),
        ]}
      >
        {agents.map((a) => (
          <tr key={a.agentId} data-agent={a.agentId}>
            <th scope="row">
              <a href={routeHref({ name: 'usage', agentId: a.agentId, days })}>
                {names.get(a.agentId) ?? a.agentId.slice(0, 8)}
              </a>
            </th>
            <td>
              <span className="meter">
                <span className="meter-bar" style={{ width: `${(a.runs / most) * 100}%` }} />
              </span>
              {fmt(a.runs)}
            </td>
            <td>{fmt(a.tokens)}</td>
            <td>{fmt(a.toolCalls)}</td>
            <td className={a.errorRate ? 'error-rate' : undefined}>{a.errorRate === null ? '—' : pct(a.errorRate)}</td>
          </tr>
        ))}
      </ListTable>
    </section>
  );
}
