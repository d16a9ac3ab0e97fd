import type { PendingInput, ToolAnswer } from '@agentry/contract/schemas';
import { useState } from 'react';
import { JsonBlock } from '../../components/json-block.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';

interface PendingCardsProps {
  pending: PendingInput[];
  /** Sends all answers of the step at once (the API wants every waiting call answered). */
  onAnswer: (answers: ToolAnswer[]) => Promise<void>;
}

/**
 * The calls a paused run waits for: approvals (Approve / Decline) and client tools (a JSON result
 * typed by the tester, or Decline). Once each has an answer they go to the API together.
 */
export function PendingCards({ pending, onAnswer }: PendingCardsProps) {
  const { t } = useI18n();
  const [answers, setAnswers] = useState<Record<string, ToolAnswer>>({});
  const [busy, setBusy] = useState(false);
  const answer = async (next: ToolAnswer) => {
    const all = { ...answers, [next.tool_call_id]: next };
    setAnswers(all);
    if (pending.every((p) => all[p.tool_call_id])) {
      setBusy(true);
      try {
        await onAnswer(pending.map((p) => all[p.tool_call_id] as ToolAnswer));
      } catch {
        setAnswers({});
      } finally {
        setBusy(false);
      }
    }
  };
  return (
    <div className="pending-cards">
      {pending.map((call) => (
        <PendingCard
          key={call.tool_call_id}
          call={call}
          answered={answers[call.tool_call_id]}
          disabled={busy}
          onAnswer={answer}
          label={t(call.kind === 'approval' ? 'pending.approveTitle' : 'pending.clientTitle', { name: call.name })}
        />
      ))}
    </div>
  );
}

function PendingCard({
  call,
  answered,
  disabled,
  onAnswer,
  label,
}: {
  call: PendingInput;
  answered: ToolAnswer | undefined;
  disabled: boolean;
  onAnswer: (answer: ToolAnswer) => void;
  label: string;
}) {
  const { t } = useI18n();
  const [output, setOutput] = useState('');
  const [invalid, setInvalid] = useState(false);
  const id = `pending-${call.tool_call_id}`;
  const off = disabled || answered !== undefined;
  const outcome = !answered
    ? ''
    : 'decision' in answered
      ? t(answered.decision === 'approve' ? 'pending.approved' : 'pending.declined')
      : answered.is_error
        ? t('pending.declined')
        : t('pending.sent');
  return (
    <fieldset className="pending-card" data-tool={call.name}>
      <legend id={`${id}-title`}>{label}</legend>
      <JsonBlock value={call.arguments} label={t('trace.arguments')} />
      {call.kind === 'approval' ? (
        <div className="inline">
          <button
            type="button"
            className="approve"
            disabled={off}
            onClick={() => onAnswer({ tool_call_id: call.tool_call_id, decision: 'approve' })}
          >
            {t('pending.approve')}
          </button>
          <button
            type="button"
            className="secondary decline"
            disabled={off}
            onClick={() => onAnswer({ tool_call_id: call.tool_call_id, decision: 'decline' })}
          >
            {t('pending.decline')}
          </button>
        </div>
      ) : (
        <>
          <div className={`field${invalid ? ' field-invalid' : ''}`}>
            <label htmlFor={`${id}-output`}>{t('pending.output')}</label>
            <textarea
              id={`${id}-output`}
              rows={2}
              value={output}
              aria-invalid={invalid}
              disabled={off}
              onChange={(e) => {
                setOutput(e.target.value);
                setInvalid(false);
              }}
            />
            <p className="help">{t('pending.outputHelp')}</p>
          </div>
          <div className="inline">
            <button
              type="button"
              disabled={off}
              onClick={() => {
                let value: unknown = output;
                try {
                  value = output.trim() ? JSON.parse(output) : null;
                } catch {
                  // Plain text is a fine tool result too.
                }
                if (value === null) {
                  setInvalid(true);
                  return;
                }
                onAnswer({ tool_call_id: call.tool_call_id, output: value });
              }}
            >
              {t('pending.send')}
            </button>
            <button
              type="button"
              className="secondary"
              disabled={off}
              onClick={() =>
                onAnswer({
                  tool_call_id: call.tool_call_id,
                  is_error: true,
                  output: 'The user declined to run this tool.',
                })
              }
            >
              {t('pending.decline')}
            </button>
          </div>
        </>
      )}
      <p className="muted" role="status">
        {outcome}
      </p>
    </fieldset>
  );
}
