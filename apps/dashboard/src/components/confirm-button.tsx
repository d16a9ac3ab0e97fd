import { useEffect, useRef, useState } from 'react';
import { useI18n } from '../i18n/i18n-context.tsx';

interface ConfirmButtonProps {
  id?: string;
  label: string;
  /** The question shown on the second step, e.g. "Revoke key sk_ab12…?". */
  question: string;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  disabled?: boolean;
  /** `danger` (default) for what destroys; `normal` for a weighty but undoable step (publishing). */
  tone?: 'danger' | 'normal';
}

/**
 * A destructive action in two steps without a modal: the button turns into "question? Yes / Cancel",
 * focus moves to Cancel (the safe choice), Escape cancels.
 */
export function ConfirmButton(props: ConfirmButtonProps) {
  const { id, label, question, confirmLabel, onConfirm, disabled, tone = 'danger' } = props;
  const { t } = useI18n();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const openRef = useRef<HTMLButtonElement>(null);
  const wasAsking = useRef(false);
  useEffect(() => {
    if (asking) cancelRef.current?.focus();
    else if (wasAsking.current) openRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);
  if (!asking)
    return (
      <button
        ref={openRef}
        type="button"
        className={`secondary small${tone === 'danger' ? ' danger' : ''}`}
        {...(id ? { id } : {})}
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  return (
    <fieldset
      className="confirm inline"
      onKeyDown={(e) => {
        if (e.key === 'Escape') setAsking(false);
      }}
    >
      <legend className="confirm-question">{question}</legend>
      <button
        type="button"
        className={`small${tone === 'danger' ? ' danger-solid' : ''}`}
        {...(id ? { id: `${id}-confirm` } : {})}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {confirmLabel}
      </button>
      <button ref={cancelRef} type="button" className="secondary small" onClick={() => setAsking(false)}>
        {t('common.cancel')}
      </button>
    </fieldset>
  );
}
