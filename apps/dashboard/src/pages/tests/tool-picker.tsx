import type { AgentConfigDocument } from '@agentry/contract';
import { useState } from 'react';
import { Field } from '../../components/field.tsx';
import { testToolNames } from '../../config/agent-tests.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

/** The select's choice that switches to typing a name (a colon is in no tool name). */
const OTHER = ':other';

interface ToolPickerProps {
  pointer: string;
  label: string;
  value: string;
  config: AgentConfigDocument;
  onChange: (tool: string) => void;
}

/**
 * A tool of the agent, picked from a list of its tools and skills; "Another tool…" lets a name be
 * typed (an MCP server's tools are only known once discovered, as `server__tool`).
 */
export function ToolPicker({ pointer, label, value, config, onChange }: ToolPickerProps) {
  const { t } = useI18n();
  const names = testToolNames(config);
  const [typing, setTyping] = useState(!names.includes(value) && (value !== '' || names.length === 0));
  return (
    <Field pointer={pointer} label={label}>
      {(control) =>
        typing ? (
          <div className="inline">
            <input
              {...control}
              value={value}
              placeholder={t('tests.tool.typePlaceholder')}
              spellCheck={false}
              onChange={(e) => onChange(e.target.value.trim())}
            />
            {names.length > 0 ? (
              <button
                type="button"
                className="secondary small"
                onClick={() => {
                  setTyping(false);
                  if (!names.includes(value)) onChange(names[0] ?? '');
                }}
              >
                {t('tests.tool.fromList')}
              </button>
            ) : null}
          </div>
        ) : (
          <select
            {...control}
            value={value}
            onChange={(e) => {
              if (e.target.value === OTHER) setTyping(true);
              else onChange(e.target.value);
            }}
          >
            {names.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
            <option value={OTHER}>{t('tests.tool.other')}</option>
          </select>
        )
      }
    </Field>
  );
}
