import { agentTestsApi } from '../../api/agent-tests-api.ts';
import { conversationsApi } from '../../api/conversations-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useAction } from '../../components/use-action.ts';
import { useCanWrite } from '../../components/use-can-write.ts';
import { freeTestName } from '../../config/agent-tests.ts';
import { conversationToTest, testNameFrom } from '../../config/test-from-conversation.ts';
import { formatDate } from '../../i18n/format-date.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { navigate } from '../../router/use-route.ts';

interface SaveAsTestButtonProps {
  conversationId: string;
  /** Nothing to save yet (no message), or a run still going. */
  disabled?: boolean;
  /** Opening the test replaces the current screen's entry (within the agent editor) instead of adding one. */
  replace?: boolean;
}

/**
 * "Save as test" in one click: the conversation as it is stored becomes a case of its agent (its
 * user turns, a `tool_called` expectation and a fixture per tool that answered; see
 * `conversationToTest`), which then opens in the test editor.
 */
export function SaveAsTestButton({ conversationId, disabled, replace }: SaveAsTestButtonProps) {
  const { t, lang } = useI18n();
  const canWrite = useCanWrite();
  const save = useAction();
  if (!canWrite) return null;
  const saveAsTest = () =>
    save.run(async () => {
      const conversation = await conversationsApi.get(conversationId);
      const taken = (await agentTestsApi.list(conversation.agent_id)).map((test) => test.definition.name);
      const name = freeTestName(taken, testNameFrom(conversation.messages, t('tests.fromConversation.name')));
      const definition = conversationToTest(conversation, {
        name,
        description: t('tests.fromConversation.description', {
          id: conversationId,
          date: formatDate(lang, conversation.created_at),
        }),
      });
      if (definition.turns.length === 0) throw new Error(t('tests.fromConversation.empty'));
      const test = await agentTestsApi.create(conversation.agent_id, definition);
      navigate({ name: 'agent', id: conversation.agent_id, tab: 'tests', testId: test.id }, replace);
    });
  return (
    <>
      <button
        type="button"
        className="secondary"
        id="save-as-test"
        disabled={disabled || save.busy}
        title={t('tests.fromConversation.help')}
        onClick={() => void saveAsTest()}
      >
        {t('tests.fromConversation.button')}
      </button>
      <ErrorBanner error={save.error} />
    </>
  );
}
