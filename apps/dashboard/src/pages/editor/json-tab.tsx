import type { AgentConfigDocument } from '@agentry/contract';
import { useRef, useState } from 'react';
import { configToText, textToConfig } from '../../config/config-sync.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

/**
 * The draft as JSON. Typing valid JSON updates the form at once; while the text does not parse
 * the form keeps the last good config and the parse error is shown here.
 */
export function JsonTab({
  config,
  onChange,
}: {
  config: AgentConfigDocument;
  onChange: (config: AgentConfigDocument) => void;
}) {
  const { t } = useI18n();
  const rendered = configToText(config);
  const [text, setText] = useState(rendered);
  const [error, setError] = useState<string>();
  const lastOwn = useRef(rendered);
  // A form edit (or load) replaced the config: show it, unless it is our own parse echoing back.
  if (rendered !== lastOwn.current) {
    lastOwn.current = rendered;
    setText(rendered);
    setError(undefined);
  }
  return (
    <div className="json-tab">
      <label htmlFor="config-json">{t('json.label')}</label>
      <textarea
        id="config-json"
        className="code-editor"
        spellCheck={false}
        value={text}
        aria-invalid={Boolean(error)}
        aria-describedby={error ? 'config-json-error' : undefined}
        onChange={(e) => {
          setText(e.target.value);
          const parsed = textToConfig(e.target.value);
          if (parsed.ok) {
            setError(undefined);
            lastOwn.current = configToText(parsed.config);
            onChange(parsed.config);
          } else {
            setError(parsed.line ? t('json.errorAt', { line: parsed.line, message: parsed.error }) : parsed.error);
          }
        }}
      />
      {error ? (
        <p className="issues" id="config-json-error" role="alert">
          {error}
        </p>
      ) : (
        <p className="help">{t('json.help')}</p>
      )}
    </div>
  );
}
