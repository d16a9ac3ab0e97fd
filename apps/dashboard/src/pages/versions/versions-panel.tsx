import type { AgentConfigDocument } from '@agentry/contract';
import type { ConfigChange } from '@agentry/contract/schemas';
import { useEffect, useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import { ListTable } from '../../components/list-table.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useLoad } from '../../components/use-load.ts';
import { formatDate } from '../../i18n/format-date.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { DiffTable } from './diff-table.tsx';

interface VersionsPanelProps {
  agentId: string;
  /** Bumped by the editor after a save, so the list reloads. */
  refreshKey: number;
  onPublished: () => void;
  onLoad: (config: AgentConfigDocument, version: number) => void;
}

/** History, publish / roll back in one click, and a side-by-side diff of any two versions. */
export function VersionsPanel({ agentId, refreshKey, onPublished, onLoad }: VersionsPanelProps) {
  const { t, lang } = useI18n();
  // refreshKey is how the editor asks for a reload after a save.
  const loaded = useLoad(async () => [...(await agentsApi.versions(agentId))].sort((x, y) => y.version - x.version), {
    key: agentId,
    refresh: refreshKey,
  });
  const versions = loaded.data;
  const [error, setError] = useState<unknown>();
  const [pair, setPair] = useState<{ a: number; b: number }>();
  const [diff, setDiff] = useState<ConfigChange[]>();
  const [busy, setBusy] = useState<number>();

  useEffect(() => {
    const [newest, previous] = versions ?? [];
    if (newest && previous) setPair((p) => p ?? { a: previous.version, b: newest.version });
  }, [versions]);

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
      setError(undefined);
      await agentsApi.publish(agentId, version);
      await loaded.reload();
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
  return (
    <div className="stack">
      <Loaded data={versions} error={error ?? loaded.error}>
        {(list) => (
          <ListTable
            id="versions-table"
            headers={[t('versions.version'), t('versions.status'), t('versions.hash'), t('versions.created')]}
            actions
          >
            {list.map((v) => (
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
                <td>{formatDate(lang, v.created_at)}</td>
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
          </ListTable>
        )}
      </Loaded>
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
