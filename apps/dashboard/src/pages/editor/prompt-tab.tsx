import { useEffect, useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';

/** The system prompt the platform builds from the saved agent, read-only. */
export function PromptTab({ agentId, refreshKey }: { agentId: string; refreshKey: number }) {
  const { t } = useI18n();
  const [prompt, setPrompt] = useState<string>();
  const [error, setError] = useState<unknown>();
  // biome-ignore lint/correctness/useExhaustiveDependencies: refreshKey is how the editor asks for a reload after a save
  useEffect(() => {
    let live = true;
    setError(undefined);
    agentsApi
      .prompt(agentId)
      .then((r) => live && setPrompt(r.prompt))
      .catch((e) => live && setError(e));
    return () => {
      live = false;
    };
  }, [agentId, refreshKey]);
  return (
    <div className="stack">
      <p className="help">{t('prompt.help')}</p>
      <ErrorBanner error={error} />
      {prompt === undefined && !error ? <p role="status">{t('common.loading')}</p> : null}
      {prompt !== undefined ? (
        <pre className="prompt" title={t('prompt.title')}>
          {prompt}
        </pre>
      ) : null}
    </div>
  );
}
