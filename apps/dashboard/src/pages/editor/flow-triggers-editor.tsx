import { ProblemError } from '@agentry/contract';
import type { FlowTriggerTest } from '@agentry/contract/schemas';
import { useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { IssueList } from '../../components/issue-list.tsx';
import { useIssues } from '../../components/issues-context.tsx';
import { fieldId } from '../../config/field-pointer.ts';
import { phrasePattern } from '../../config/trigger-phrase.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

interface TriggersProps {
  /** `/flows/<i>/triggers/patterns`; a row's issues sit at pointer + `/<n>`. */
  pointer: string;
  patterns: string[];
  onChange: (patterns: string[]) => void;
}

/** What starts the flow: phrases (turned into patterns) or patterns, and a tester. */
export function FlowTriggersEditor({ pointer, patterns, onChange }: TriggersProps) {
  const { t } = useI18n();
  const [phrase, setPhrase] = useState('');
  const base = fieldId(pointer);
  const addPhrase = () => {
    if (!phrase.trim()) return;
    onChange([...patterns, phrasePattern(phrase)]);
    setPhrase('');
  };
  return (
    <fieldset className="flow-triggers" id={base}>
      <legend>{t('flows.triggers')}</legend>
      <p className="help">{t('flows.triggersHelp')}</p>
      {patterns.map((pattern, n) => (
        <TriggerRow
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their position
          key={n}
          pointer={`${pointer}/${n}`}
          n={n}
          value={pattern}
          onChange={(v) => onChange(patterns.map((p, i) => (i === n ? v : p)))}
          onRemove={() => onChange(patterns.filter((_, i) => i !== n))}
        />
      ))}
      <div className="inline">
        <input
          id={`${base}-phrase`}
          aria-label={t('flows.phrase')}
          placeholder={t('flows.phrasePlaceholder')}
          value={phrase}
          onChange={(e) => setPhrase(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              addPhrase();
            }
          }}
        />
        <button type="button" className="secondary small" id={`${base}-add`} onClick={addPhrase}>
          + {t('flows.addPhrase')}
        </button>
      </div>
      <TriggerTester patterns={patterns} id={`${base}-tester`} />
    </fieldset>
  );
}

interface TriggerRowProps {
  pointer: string;
  n: number;
  value: string;
  onChange: (value: string) => void;
  onRemove: () => void;
}

function TriggerRow({ pointer, n, value, onChange, onRemove }: TriggerRowProps) {
  const { t } = useI18n();
  const issues = useIssues(pointer);
  const id = fieldId(pointer);
  return (
    <div className={`kv-row${issues.length > 0 ? ' field-invalid' : ''}`}>
      <input
        id={id}
        className="mono"
        aria-label={t('flows.pattern', { n: n + 1 })}
        aria-invalid={issues.length > 0}
        value={value}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
      />
      <button
        type="button"
        className="icon-button"
        aria-label={t('flows.removePattern', { n: n + 1 })}
        onClick={onRemove}
      >
        ×
      </button>
      <IssueList issues={issues} id={`${id}-issues`} />
    </div>
  );
}

/** "Does this sentence start the flow?", answered by the API with the engine's own matching. */
function TriggerTester({ patterns, id }: { patterns: string[]; id: string }) {
  const { t } = useI18n();
  const [text, setText] = useState('');
  const [result, setResult] = useState<FlowTriggerTest>();
  const [error, setError] = useState<unknown>();
  const test = async () => {
    setError(undefined);
    setResult(undefined);
    try {
      setResult(await agentsApi.testTrigger(patterns, text));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div className="trigger-tester">
      <label htmlFor={id}>{t('flows.testerLabel')}</label>
      <div className="inline">
        <input
          id={id}
          value={text}
          placeholder={t('flows.testerPlaceholder')}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="button" className="secondary small" id={`${id}-run`} disabled={!text.trim()} onClick={test}>
          {t('flows.testerRun')}
        </button>
      </div>
      <p role="status" id={`${id}-result`} className={result?.matches ? 'badge badge-ok' : result ? 'badge' : ''}>
        {result
          ? result.matches
            ? t('flows.testerMatch', { pattern: result.pattern ?? '' })
            : t('flows.testerNoMatch')
          : ''}
      </p>
      {error instanceof ProblemError && error.problem.errors?.length ? (
        <IssueList issues={error.problem.errors} />
      ) : (
        <ErrorBanner error={error} />
      )}
    </div>
  );
}
