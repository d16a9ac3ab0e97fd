import { ProblemError, type Role } from '@agentry/contract';
import type { TestGate } from '@agentry/contract/schemas';
import { useState } from 'react';
import { agentTestsApi } from '../../api/agent-tests-api.ts';
import { agentsApi } from '../../api/agents-api.ts';
import { currentRole, useAuth } from '../../auth/session.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useCanWrite } from '../../components/use-can-write.ts';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { navigate } from '../../router/use-route.ts';

/** The gate's states, as the badge on a publish button shows them. */
const GATE_CLASS: Record<TestGate['state'], string> = {
  passing: 'badge badge-ok',
  failing: 'badge badge-error',
  missing: 'badge',
  running: 'badge badge-running',
};

/**
 * Whether `version` may be published under the agent's `require_passing_tests`, as a badge for its
 * publish button (nothing when the agent does not require tests). `refresh` reloads it (after a
 * test run or a publish).
 *
 * @example
 * <GateBadge agentId={agentId} version={3} refresh={refreshKey} /> // id gate-v3
 */
export function GateBadge(props: { agentId: string; version: number; refresh?: unknown; id?: string }) {
  const { agentId, version, refresh, id = `gate-v${version}` } = props;
  const { t } = useI18n();
  const gate = useLoad(() => agentTestsApi.gate(agentId, version), { key: `${agentId}:${version}`, refresh });
  if (!gate.data?.required) return null;
  const { state, failing_cases: failing } = gate.data;
  return (
    <span
      className={GATE_CLASS[state]}
      id={id}
      data-state={state}
      title={failing.length ? t('gate.failingCases', { cases: failing.join(', ') }) : t(`gate.help.${state}`)}
    >
      {t(`gate.state.${state}`)}
    </span>
  );
}

/** A new version is never tested yet: what the editor's "Save & publish" shows under the gate. */
export function NewVersionGateBadge() {
  const { t } = useI18n();
  return (
    <span className="badge" id="save-publish-gate" data-state="missing" title={t('gate.help.new')}>
      {t('gate.state.missing')}
    </span>
  );
}

/** Owners may publish past the tests (with a reason); a key sign-in has no role, and the API decides. */
export function mayForcePublish(role: Role | undefined): boolean {
  return role === undefined || role === 'owner';
}

/** Whether `error` is the API refusing a publish because of the tests (409 `tests_failed`). */
export function isTestsFailed(error: unknown): error is ProblemError {
  return error instanceof ProblemError && error.code === 'tests_failed';
}

interface PublishRefusalProps {
  agentId: string;
  /** The 409 `tests_failed` the publish got. */
  error: ProblemError;
  /** Publishes anyway with the reason (`{force: true, reason}`); the refusal closes when it worked. */
  onForce: (reason: string) => Promise<void>;
  onClose: () => void;
}

/**
 * A publish the tests refused: the API's message, the failing cases, a way to the test run, and
 * for owners "Publish anyway", which asks why (the audit log keeps the reason).
 */
export function PublishRefusal({ agentId, error, onForce, onClose }: PublishRefusalProps) {
  const { t } = useI18n();
  const auth = useAuth();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const force = useAction();
  const details = error.problem.details ?? {};
  const failing = Array.isArray(details.failing_cases) ? details.failing_cases.map(String) : [];
  const runId = typeof details.test_run_id === 'string' ? details.test_run_id : undefined;
  return (
    <section className="banner banner-error publish-refusal" role="alert" id="publish-refusal">
      <p>
        <strong>{t('gate.refused')}</strong> {error.message}
      </p>
      {failing.length > 0 ? (
        <>
          <p>{t('gate.failingTitle')}</p>
          <ul id="publish-refusal-cases">
            {failing.map((name) => (
              <li key={name}>{name}</li>
            ))}
          </ul>
        </>
      ) : null}
      <div className="inline">
        {runId ? (
          <button
            type="button"
            className="secondary small"
            id="publish-refusal-run"
            onClick={() => navigate({ name: 'agent', id: agentId, tab: 'tests', testRunId: runId }, true)}
          >
            {t('gate.openRun')}
          </button>
        ) : (
          <button
            type="button"
            className="secondary small"
            onClick={() => navigate({ name: 'agent', id: agentId, tab: 'tests' }, true)}
          >
            {t('gate.openTests')}
          </button>
        )}
        {mayForcePublish(currentRole(auth)) && !asking ? (
          <button type="button" className="secondary small danger" id="publish-anyway" onClick={() => setAsking(true)}>
            {t('gate.publishAnyway')}
          </button>
        ) : null}
        <button type="button" className="secondary small" onClick={onClose}>
          {t('common.close')}
        </button>
      </div>
      {asking ? (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void force.run(() => onForce(reason.trim()));
          }}
        >
          <LabelledField id="publish-anyway-reason" label={t('gate.reason')} help={t('gate.reasonHelp')}>
            {(control) => (
              <textarea {...control} rows={2} required value={reason} onChange={(e) => setReason(e.target.value)} />
            )}
          </LabelledField>
          <div className="inline">
            <button
              type="submit"
              className="danger-solid"
              id="publish-anyway-confirm"
              disabled={force.busy || !reason.trim()}
            >
              {t('gate.publishAnywayConfirm')}
            </button>
            <button type="button" className="secondary" onClick={() => setAsking(false)}>
              {t('common.cancel')}
            </button>
          </div>
          <ErrorBanner error={force.error} />
        </form>
      ) : null}
    </section>
  );
}

interface RequireTestsToggleProps {
  agentId: string;
  value: boolean;
  onChange: (value: boolean) => void;
}

/** The agent's `require_passing_tests`: a checkbox saved at once (`PATCH /v1/agents/{id}`). */
export function RequireTestsToggle({ agentId, value, onChange }: RequireTestsToggleProps) {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const save = useAction();
  // The click shows at once; a refused change goes back to what the agent holds.
  const [pending, setPending] = useState<boolean>();
  return (
    <div className="require-tests">
      <label className="checkbox-line">
        <input
          type="checkbox"
          id="require-passing-tests"
          checked={pending ?? value}
          disabled={!canWrite || save.busy}
          onChange={(e) => {
            const next = e.target.checked;
            setPending(next);
            void save
              .run(async () => {
                const agent = await agentsApi.updateSettings(agentId, { require_passing_tests: next });
                onChange(agent.require_passing_tests);
              })
              .finally(() => setPending(undefined));
          }}
        />{' '}
        {t('gate.require')}
      </label>
      <p className="help">{t('gate.requireHelp')}</p>
      <ErrorBanner error={save.error} />
    </div>
  );
}
