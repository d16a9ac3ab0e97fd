import type { AgentConfigDocument, ProblemError } from '@agentry/contract';
import type { AgentVersion, ConfigChange } from '@agentry/contract/schemas';
import { useEffect, useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { ListTable } from '../../components/list-table.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useLoad } from '../../components/use-load.ts';
import type { Translate } from '../../config/plain-issues.ts';
import { formatDate } from '../../i18n/format-date.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { GateBadge, isTestsFailed, PublishRefusal, RequireTestsToggle } from '../tests/publish-gate.tsx';
import { DiffTable } from './diff-table.tsx';

interface VersionsPanelProps {
  agentId: string;
  /** Bumped by the editor after a save, so the list reloads. */
  refreshKey: number;
  /** The editor holds changes a roll back would replace (the confirmation says so). */
  dirty: boolean;
  /** The agent's `require_passing_tests`: each draft's publish button shows its tests' state. */
  requireTests: boolean;
  onRequireTestsChange: (value: boolean) => void;
  /** `version` went live; the editor reloads it (it is what chats now use). */
  onPublished: (version: number) => void;
  onLoad: (config: AgentConfigDocument, version: number) => void;
}

/** History, publish / roll back in one click, and a side-by-side diff of any two versions. */
export function VersionsPanel(props: VersionsPanelProps) {
  const { agentId, refreshKey, dirty, requireTests, onRequireTestsChange, onPublished, onLoad } = props;
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
  const [refusal, setRefusal] = useState<{ version: number; error: ProblemError }>();

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
  /** Publishes `version`; with `force` an owner publishes past its tests (a failure then goes to the refusal's form). */
  const publish = async (version: number, force?: { reason: string }) => {
    setBusy(version);
    try {
      setError(undefined);
      await agentsApi.publish(agentId, version, force);
      setRefusal(undefined);
      await loaded.reload();
      onPublished(version);
    } catch (e) {
      if (force) throw e;
      if (isTestsFailed(e)) setRefusal({ version, error: e });
      else setError(e);
    } finally {
      setBusy(undefined);
    }
  };
  const load = async (version: number) => {
    if (dirty && !window.confirm(t('editor.replaceConfirm', { version }))) return;
    try {
      const full = await agentsApi.version(agentId, version);
      if (full.config) onLoad(full.config, version);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div className="stack">
      <RequireTestsToggle agentId={agentId} value={requireTests} onChange={onRequireTestsChange} />
      {refusal ? (
        <PublishRefusal
          agentId={agentId}
          error={refusal.error}
          onForce={(reason) => publish(refusal.version, { reason })}
          onClose={() => setRefusal(undefined)}
        />
      ) : null}
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
                  <VersionStatus version={v} />
                </td>
                <td>
                  <code title={v.content_hash}>{v.content_hash.slice(0, 12)}</code>
                </td>
                <td>{formatDate(lang, v.created_at)}</td>
                <td>
                  <div className="inline">
                    {v.published ? null : (
                      <ConfirmButton
                        id={`publish-v${v.version}`}
                        label={
                          published !== undefined && v.version < published
                            ? t('versions.rollback')
                            : t('versions.publish')
                        }
                        question={makeLiveQuestion(t, v.version, published, dirty)}
                        confirmLabel={t('versions.makeLiveYes')}
                        tone="normal"
                        disabled={busy !== undefined}
                        onConfirm={() => publish(v.version)}
                      />
                    )}
                    {requireTests && !v.published ? (
                      <GateBadge agentId={agentId} version={v.version} refresh={refreshKey} />
                    ) : null}
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

/** "Make version 3 live? …", naming what it replaces and, with unsaved edits, that they go. */
function makeLiveQuestion(t: Translate, version: number, live: number | undefined, dirty: boolean): string {
  const question =
    live === undefined ? t('versions.makeLiveFirst', { version }) : t('versions.makeLive', { version, live });
  return dirty ? `${question} ${t('versions.makeLiveUnsaved', { version })}` : question;
}

/** Live, once live (published before, then replaced), or a draft that never went live. */
function VersionStatus({ version }: { version: AgentVersion }) {
  const { t } = useI18n();
  if (version.published) return <span className="badge badge-ok">{t('versions.live')}</span>;
  if (version.published_at) return <span className="badge badge-previous">{t('versions.previous')}</span>;
  return <span className="badge">{t('versions.draft')}</span>;
}
