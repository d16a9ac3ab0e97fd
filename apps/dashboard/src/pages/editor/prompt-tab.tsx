import { agentsApi } from '../../api/agents-api.ts';
import { Loaded } from '../../components/loaded.tsx';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

/** The system prompt the platform builds from the saved agent, read-only. */
export function PromptTab({ agentId, refreshKey }: { agentId: string; refreshKey: number }) {
  const { t } = useI18n();
  // refreshKey is how the editor asks for a reload after a save.
  const prompt = useLoad(async () => (await agentsApi.prompt(agentId)).prompt, { key: agentId, refresh: refreshKey });
  return (
    <div className="stack">
      <p className="help">{t('prompt.help')}</p>
      <Loaded data={prompt.data} error={prompt.error}>
        {(text) => (
          <pre className="prompt" title={t('prompt.title')}>
            {text}
          </pre>
        )}
      </Loaded>
    </div>
  );
}
