import { useCallback, useEffect, useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import type { AgentVersion, ConfigChange } from '../../api/types.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import type { AgentConfig } from '../../config/agent-config.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { DiffTable } from './diff-table.tsx';

interface VersionsPanelProps {
  agentId: string;
  /** Bumped by the editor after a save, so the list reloads. */
  refreshKey: number;
  onPublished: () => void;
  onLoad: (config: AgentConfig, version: number) => void;
}

/** History, publish / roll back in one click, and a side-by-side diff of any two versions. */
export function VersionsPanel({ agentId, refreshKey, onPublished, onLoad }: VersionsPanelProps) {
  const { t, lang } = useI18n();
  const [versions, setVersions] = useState<AgentVersion[]>();
  const [error, setError] = useState<unknown>();
  const [pair, setPair] = useState<{ a: number; b: number }>();
  const [diff, setDiff] = useState<ConfigChange[]>();
  const [busy, setBusy] = useState<number>();

  const reload = useCallback(async () => {
    try {
      const list = [...(await agentsApi.versions(agentId))].sort((x, y) => y.version - x.version);
      setVersions(list);
      setError(undefined);
      const [newest, previous] = list;
      if (newest && previous) setPair((p) => p ?? { a: previous.version, b: newest.version });
    } catch (e) {
      setError(e);
    }
  }, [agentId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is how the editor asks for a reload after a save
  useEffect(() => {
    reload();
  }, [reload, refreshKey]);

  useEffect(() => {
    if (!pair) return;
    let live = true;
    setDiff(undefined);
    agentsApi
      .diff(agentId, pair.a, pair.b)
      .then((r) => live && setDiff(r.changes))
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [agentId, pair]);

  const published = versions?.find((v) => v.published)?.version;
  const publish = async (version: number) => {
    setBusy(version);
    try {
      await agentsApi.publish(agentId, version);
      await reload();
      onPublished();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(undefined);
    }
  };
  const load = async (version: number) => {
    try {
      const full = await agentsApi.version(agentId, version);
      if (full.config) onLoad(full.config, version);
    } catch (e) {
      setError(e);
    }
  };
  const date = new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en', { dateStyle: 'medium', timeStyle: 'short' });
  return (
    <div className="stack">
      <ErrorBanner error={error} />
      {versions === undefined && !error ? <p role="status">{t('common.loading')}</p> : null}
      {versions ? (
        <table className="list" id="versions-table">
          <thead>
            <tr>
              <th scope="col">{t('versions.version')}</th>
              <th scope="col">{t('versions.status')}</th>
              <th scope="col">{t('versions.hash')}</th>
              <th scope="col">{t('versions.created')}</th>
              <th scope="col">
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {versions.map((v) => (
              <tr key={v.version} data-version={v.version}>
                <td>v{v.version}</td>
                <td>
                  {v.published ? (
                    <span className="badge badge-ok">{t('versions.published')}</span>
                  ) : (
                    <span className="badge">{t('versions.draft')}</span>
                  )}
                </td>
                <td>
                  <code title={v.content_hash}>{v.content_hash.slice(0, 12)}</code>
                </td>
                <td>{date.format(new Date(v.created_at))}</td>
                <td>
                  <div className="inline">
                    {v.published ? null : (
                      <button
                        type="button"
                        className="small"
                        id={`publish-v${v.version}`}
                        disabled={busy !== undefined}
                        onClick={() => publish(v.version)}
                      >
                        {published !== undefined && v.version < published
                          ? t('versions.rollback')
                          : t('versions.publish')}
                      </button>
                    )}
                    <button type="button" className="secondary small" onClick={() => load(v.version)}>
                      {t('versions.load')}
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {versions && versions.length > 1 ? (
        <section className="card">
          <h2>{t('versions.compare')}</h2>
          <div className="inline">
            {(['a', 'b'] as const).map((side) => (
              <label key={side}>
                {side === 'a' ? t('versions.from') : t('versions.to')}{' '}
                <select
                  id={`diff-${side}`}
                  value={pair?.[side] ?? ''}
                  onChange={(e) => setPair({ a: pair?.a ?? 1, b: pair?.b ?? 1, [side]: Number(e.target.value) })}
                >
                  {versions.map((v) => (
                    <option key={v.version} value={v.version}>
                      v{v.version}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </div>
          {pair && diff ? <DiffTable changes={diff} a={pair.a} b={pair.b} /> : null}
        </section>
      ) : null}
    </div>
  );
}
