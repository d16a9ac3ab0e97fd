import { useState } from 'react';
import { type PlaceholderChoice, tokenFor } from '../config/placeholders.ts';
import { useI18n } from '../i18n/i18n-context.tsx';
import { useTemplateTargets } from './template-target.tsx';

/**
 * Buttons that insert a placeholder into the template input that last had focus. Mouse-down does
 * not steal focus, so the caret position survives; keyboard users tab here and press Enter.
 */
export function ChipPalette({ choices }: { choices: PlaceholderChoice[] }) {
  const { t } = useI18n();
  const targets = useTemplateTargets();
  const [secret, setSecret] = useState('');
  const [notice, setNotice] = useState('');
  const insert = (token: string) => {
    const target = targets?.get();
    if (!target) {
      setNotice(t('placeholder.focusFirst'));
      return;
    }
    setNotice('');
    target.insert(token);
  };
  const groups: Array<[PlaceholderChoice['kind'], string]> = [
    ['parameter', t('placeholder.parameters')],
    ['context', t('placeholder.context')],
    ['secret', t('placeholder.secrets')],
  ];
  return (
    <section className="chip-palette" aria-label={t('placeholder.palette')}>
      {groups.map(([kind, label]) => (
        <div key={kind} className="chip-group">
          <span className="chip-group-label">{label}</span>
          {choices
            .filter((c) => c.kind === kind)
            .map((c) => (
              <button
                key={c.token}
                type="button"
                className={`chip chip-${kind}`}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => insert(c.token)}
              >
                {c.token}
              </button>
            ))}
          {kind === 'secret' ? (
            <span className="secret-adder">
              <input
                aria-label={t('placeholder.secretName')}
                placeholder="NAME"
                value={secret}
                onChange={(e) => setSecret(e.target.value.replace(/[^A-Za-z0-9_]/g, '').toUpperCase())}
              />
              <button
                type="button"
                className="chip chip-secret"
                disabled={!secret}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => insert(tokenFor('secret', secret))}
              >
                {t('placeholder.insertSecret')}
              </button>
            </span>
          ) : null}
        </div>
      ))}
      {notice ? (
        <p className="help" role="status">
          {notice}
        </p>
      ) : null}
    </section>
  );
}
