import type { AGENT_TEST_LIMITS, TestRun } from '@agentry/contract/schemas';
import { useEffect, useState } from 'react';
import { agentTestsApi } from '../../api/agent-tests-api.ts';
import { agentsApi } from '../../api/agents-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

interface RunTestsFormProps {
  agentId: string;
  /** Changes when the editor saved a version, so the version list reloads. */
  refreshKey: unknown;
  /** Nothing to run yet. */
  disabled: boolean;
  onStarted: (run: TestRun) => void;
}

const MODELS = ['agent', 'demo'] as const;
/** The contract's bound (types only come from it in the browser; this fails to compile if it changes). */
const MAX_REPETITIONS: (typeof AGENT_TEST_LIMITS)['repetitions'] = 10;

/**
 * "Run all tests" against a version (the newest by default: the draft being worked on) with the
 * agent's own model or the demo model, N repetitions and the share of them a case must pass.
 */
export function RunTestsForm({ agentId, refreshKey, disabled, onStarted }: RunTestsFormProps) {
  const { t } = useI18n();
  const versions = useLoad(() => agentsApi.versions(agentId), { key: agentId, refresh: refreshKey });
  const newest = versions.data?.reduce((n, v) => Math.max(n, v.version), 0);
  const [version, setVersion] = useState<number>();
  const [model, setModel] = useState<(typeof MODELS)[number]>('agent');
  const [repetitions, setRepetitions] = useState(1);
  const [threshold, setThreshold] = useState(100);
  const start = useAction();
  // A newer version saved meanwhile is what the person is working on: it becomes the default.
  useEffect(() => {
    if (newest) setVersion(newest);
  }, [newest]);
  const sorted = [...(versions.data ?? [])].sort((a, b) => b.version - a.version);
  return (
    <section className="card" aria-labelledby="run-tests-title">
      <h2 id="run-tests-title">{t('tests.run.title')}</h2>
      <form
        className="run-tests-form"
        onSubmit={(e) => {
          e.preventDefault();
          void start.run(async () => {
            const run = await agentTestsApi.startRun(agentId, {
              ...(version ? { version } : {}),
              model,
              repetitions,
              threshold: threshold / 100,
            });
            onStarted(run);
          });
        }}
      >
        <div className="grid-3">
          <LabelledField id="run-version" label={t('tests.run.version')}>
            {(control) => (
              <select {...control} value={version ?? ''} onChange={(e) => setVersion(Number(e.target.value))}>
                {sorted.map((v) => (
                  <option key={v.version} value={v.version}>
                    {t(v.published ? 'tests.run.versionLive' : 'tests.run.versionDraft', { version: v.version })}
                  </option>
                ))}
              </select>
            )}
          </LabelledField>
          <LabelledField id="run-model" label={t('tests.run.model')} help={t(`tests.run.modelHelp.${model}`)}>
            {(control) => (
              <select {...control} value={model} onChange={(e) => setModel(e.target.value as typeof model)}>
                {MODELS.map((m) => (
                  <option key={m} value={m}>
                    {t(`tests.run.model.${m}`)}
                  </option>
                ))}
              </select>
            )}
          </LabelledField>
          <LabelledField id="run-repetitions" label={t('tests.run.repetitions')} help={t('tests.run.repetitionsHelp')}>
            {(control) => (
              <input
                {...control}
                type="number"
                min={1}
                max={MAX_REPETITIONS}
                value={repetitions}
                onChange={(e) => setRepetitions(clamp(Number(e.target.value), 1, MAX_REPETITIONS))}
              />
            )}
          </LabelledField>
          <LabelledField id="run-threshold" label={t('tests.run.threshold')} help={t('tests.run.thresholdHelp')}>
            {(control) => (
              <input
                {...control}
                type="number"
                min={1}
                max={100}
                step={1}
                value={threshold}
                onChange={(e) => setThreshold(clamp(Number(e.target.value), 1, 100))}
              />
            )}
          </LabelledField>
        </div>
        <button type="submit" id="run-tests" disabled={disabled || start.busy || !version}>
          {t('tests.run.start')}
        </button>
        <ErrorBanner error={start.error ?? versions.error} />
      </form>
    </section>
  );
}

function clamp(value: number, min: number, max: number): number {
  return Number.isFinite(value) ? Math.min(max, Math.max(min, Math.round(value))) : min;
}
