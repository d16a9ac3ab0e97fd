import { useState } from 'react';
import { useI18n } from '../i18n/i18n-context.tsx';

interface CopyFieldProps {
  id: string;
  label: string;
  value: string;
  multiline?: boolean;
}

/** A read-only value with a Copy button; if the clipboard is not available the text is selected instead. */
export function CopyField({ id, label, value, multiline }: CopyFieldProps) {
  const { t } = useI18n();
  const [copied, setCopied] = useState<'yes' | 'select' | ''>('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      const field = document.getElementById(id) as HTMLInputElement | HTMLTextAreaElement | null;
      field?.focus();
      field?.select();
      setCopied('select');
    }
  };
  return (
    <div className="field copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="inline">
        {multiline ? (
          <textarea id={id} readOnly rows={3} value={value} spellCheck={false} onFocus={(e) => e.target.select()} />
        ) : (
          <input id={id} readOnly value={value} spellCheck={false} onFocus={(e) => e.target.select()} />
        )}
        <button type="button" className="secondary" id={`${id}-copy`} onClick={copy}>
          {t('common.copy')}
        </button>
      </div>
      <p className="help" role="status">
        {copied === 'yes' ? t('common.copied') : copied === 'select' ? t('common.copySelect') : ''}
      </p>
    </div>
  );
}
