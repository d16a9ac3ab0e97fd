import type { AgentConfigDocument } from '@agentry/contract';
import type { ToolFixture } from '@agentry/contract/schemas';
import { useState } from 'react';
import { ConditionEditor } from '../../components/condition-editor.tsx';
import { Field } from '../../components/field.tsx';
import { PointerIssues } from '../../components/issue-list.tsx';
import { KeyValueEditor } from '../../components/key-value-editor.tsx';
import { MoveButtons } from '../../components/move-buttons.tsx';
import { fieldId } from '../../config/field-pointer.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { argumentNames, textArgumentNames } from '../editor/permissions-form.tsx';
import { ToolPicker } from './tool-picker.tsx';

interface FixtureEditorProps {
  /** Pointer of the fixture (`/test/fixtures/0`). */
  pointer: string;
  index: number;
  count: number;
  fixture: ToolFixture;
  config: AgentConfigDocument;
  onChange: (fixture: ToolFixture) => void;
  onMove: (to: number) => void;
  onRemove: () => void;
}

/**
 * What a tool answers during the test instead of being called: the tool, optionally only for
 * calls whose arguments meet conditions, the answer (fields or a text), whether the call fails,
 * and for a call a person must approve, their decision.
 */
export function FixtureEditor(props: FixtureEditorProps) {
  const { pointer, index, count, fixture, config, onChange, onMove, onRemove } = props;
  const { t } = useI18n();
  const set = <K extends keyof ToolFixture>(key: K, value: ToolFixture[K] | undefined) => {
    const { [key]: _old, ...rest } = fixture;
    onChange((value === undefined ? rest : { ...rest, [key]: value }) as ToolFixture);
  };
  return (
    <section className="row-card fixture" aria-label={t('tests.fixture.title', { n: index + 1 })}>
      <div className="card-header">
        <strong>{t('tests.fixture.title', { n: index + 1 })}</strong>
        <div className="inline">
          <MoveButtons first={index === 0} last={index === count - 1} onMove={(step) => onMove(index + step)} />
          <button type="button" className="secondary small" id={`${fieldId(pointer)}-remove`} onClick={onRemove}>
            {t('common.remove')}
          </button>
        </div>
      </div>
      <PointerIssues pointer={pointer} />
      <ToolPicker
        pointer={`${pointer}/tool`}
        label={t('tests.fixture.tool')}
        value={fixture.tool}
        config={config}
        onChange={(tool) => set('tool', tool)}
      />
      <ConditionEditor
        pointer={`${pointer}/when`}
        value={fixture.when}
        argumentNames={argumentNames(config, fixture.tool)}
        textArguments={textArgumentNames(config, fixture.tool)}
        onChange={(when) => set('when', when)}
        labels={{
          legend: t('tests.when.legend'),
          empty: t('tests.when.empty'),
          help: t('tests.when.help'),
          json: t('tests.when.json'),
          jsonHelp: t('tests.when.jsonHelp'),
          jsonInvalid: t('tests.jsonInvalid'),
        }}
      />
      <OutputEditor pointer={`${pointer}/output`} value={fixture.output} onChange={(output) => set('output', output)} />
      <div className="grid-2">
        <Field pointer={`${pointer}/is_error`} label={t('tests.fixture.fails')} className="field-checkbox">
          {(control) => (
            <input
              {...control}
              type="checkbox"
              checked={fixture.is_error === true}
              onChange={(e) => set('is_error', e.target.checked ? true : undefined)}
            />
          )}
        </Field>
        <Field pointer={`${pointer}/decision`} label={t('tests.fixture.decision')}>
          {(control) => (
            <select
              {...control}
              value={fixture.decision ?? ''}
              onChange={(e) => set('decision', (e.target.value || undefined) as ToolFixture['decision'])}
            >
              <option value="">{t('tests.fixture.decisionDefault')}</option>
              <option value="approve">{t('tests.fixture.approve')}</option>
              <option value="decline">{t('tests.fixture.decline')}</option>
            </select>
          )}
        </Field>
      </div>
    </section>
  );
}

type OutputMode = 'fields' | 'text' | 'json';

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The answer's form: named fields for an object (or nothing yet), a text, or JSON for anything else (a list). */
function modeOf(value: unknown): OutputMode {
  if (value === undefined || isRecord(value)) return 'fields';
  return typeof value === 'string' ? 'text' : 'json';
}

/** The tool's answer: fields (key/value rows), a plain text, or, for a recorded list or number, its JSON. */
function OutputEditor({
  pointer,
  value,
  onChange,
}: {
  pointer: string;
  value: unknown;
  onChange: (v: unknown) => void;
}) {
  const { t } = useI18n();
  const mode = modeOf(value);
  const id = fieldId(pointer);
  return (
    <fieldset className="stack fixture-output">
      <legend>{t('tests.fixture.output')}</legend>
      <label className="inline output-mode">
        {t('tests.fixture.outputAs')}{' '}
        <select
          id={`${id}-mode`}
          value={mode}
          onChange={(e) => onChange(e.target.value === 'text' ? '' : e.target.value === 'json' ? [] : undefined)}
        >
          <option value="fields">{t('tests.fixture.outputFields')}</option>
          <option value="text">{t('tests.fixture.outputText')}</option>
          {mode === 'json' ? <option value="json">{t('tests.fixture.outputJson')}</option> : null}
        </select>
      </label>
      {mode === 'fields' ? (
        <KeyValueEditor
          pointer={pointer}
          label={t('tests.fixture.outputFields')}
          value={value as Record<string, unknown> | undefined}
          onChange={(object) => onChange(object)}
          choices={[]}
          keyPlaceholder={t('tests.fixture.fieldName')}
        />
      ) : mode === 'text' ? (
        <Field pointer={pointer} label={t('tests.fixture.outputText')}>
          {(control) => (
            <textarea {...control} rows={3} value={value as string} onChange={(e) => onChange(e.target.value)} />
          )}
        </Field>
      ) : (
        <JsonOutput pointer={pointer} value={value} onChange={onChange} />
      )}
      <p className="help">{t('tests.fixture.outputHelp')}</p>
    </fieldset>
  );
}

/** A recorded answer that is neither fields nor text (a list): shown and editable as JSON, kept while it does not parse. */
function JsonOutput({ pointer, value, onChange }: { pointer: string; value: unknown; onChange: (v: unknown) => void }) {
  const { t } = useI18n();
  const [text, setText] = useState(() => JSON.stringify(value, null, 2));
  const [bad, setBad] = useState(false);
  return (
    <Field pointer={pointer} label={t('tests.fixture.outputJson')}>
      {(control) => (
        <>
          <textarea
            {...control}
            rows={4}
            spellCheck={false}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              try {
                onChange(JSON.parse(e.target.value));
                setBad(false);
              } catch {
                setBad(true);
              }
            }}
          />
          {bad ? (
            <p className="issues" role="alert">
              {t('tests.jsonInvalid')}
            </p>
          ) : null}
        </>
      )}
    </Field>
  );
}
