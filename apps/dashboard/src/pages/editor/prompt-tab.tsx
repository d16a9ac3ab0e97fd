import { agentsApi } from '../../api/agents-api.ts';
import { Loaded } from '../../components/loaded.tsx';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

interface PromptTabProps {
  agentId: string;
  /** The saved version the editor's draft is based on: the prompt shown is built from it. */
  version: number;
  /** The draft has changes not in `version`, which the prompt therefore does not show. */
  dirty: boolean;
}

/** The system prompt the platform builds from the version the editor holds, read-only. */
export function PromptTab({ agentId, version, dirty }: PromptTabProps) {
  const { t } = useI18n();
  // Keyed by the version: a save or a roll back that changes what the editor holds reloads it.
  const prompt = useLoad(async () => (await agentsApi.prompt(agentId, version)).prompt, {
    key: `${agentId}:${version}`,
  });
  return (
    <div className="stack">
      <p className="help" id="prompt-source">
        {t('prompt.help', { version })}
        {dirty ? ` ${t('prompt.unsaved')}` : ''}
      </p>
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
