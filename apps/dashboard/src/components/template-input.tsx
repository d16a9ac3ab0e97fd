import { useRef } from 'react';
import { insertAt, type PlaceholderChoice, splitTemplate } from '../config/placeholders.ts';
import { useI18n } from '../i18n/i18n-context.tsx';
import type { ControlProps } from './field.tsx';
import { useTemplateTargets } from './template-target.tsx';

interface TemplateInputProps extends Partial<ControlProps> {
  value: string;
  onChange: (value: string) => void;
  choices: PlaceholderChoice[];
  ariaLabel?: string;
  placeholder?: string;
}

/**
 * A text input for template values. Focusing it makes it the target of the placeholder chips;
 * under it the placeholders it holds are shown as chips, an unknown one flagged at once (the
 * loader's own message follows after the debounced validation).
 */
export function TemplateInput({ value, onChange, choices, ariaLabel, placeholder, ...control }: TemplateInputProps) {
  const { t } = useI18n();
  const ref = useRef<HTMLInputElement>(null);
  const targets = useTemplateTargets();
  const latest = useRef({ value, onChange });
  latest.current = { value, onChange };
  const register = () =>
    targets?.set({
      insert: (token) => {
        const el = ref.current;
        const current = latest.current.value;
        const start = el?.selectionStart ?? current.length;
        const end = el?.selectionEnd ?? start;
        const next = insertAt(current, token, start, end);
        latest.current.onChange(next.value);
        requestAnimationFrame(() => {
          el?.focus();
          el?.setSelectionRange(next.caret, next.caret);
        });
      },
    });
  const pieces = splitTemplate(value, choices).filter((p) => p.placeholder);
  return (
    <div className="template-input">
      <input
        {...control}
        ref={ref}
        value={value}
        aria-label={ariaLabel}
        placeholder={placeholder}
        spellCheck={false}
        onFocus={register}
        onChange={(e) => onChange(e.target.value)}
      />
      {pieces.length > 0 ? (
        <div className="chip-preview">
          {pieces.map((piece, i) => (
            <span
              // biome-ignore lint/suspicious/noArrayIndexKey: the same placeholder may appear twice
              key={i}
              className={`chip chip-${piece.placeholder?.kind}${piece.placeholder?.known ? '' : ' chip-unknown'}`}
              title={piece.placeholder?.known ? undefined : t('placeholder.unknown')}
            >
              {piece.text}
            </span>
          ))}
        </div>
      ) : null}
    </div>
  );
}
