import { type AgentConfigDocument, type FieldIssue, ProblemError } from '@agentry/contract';
import type { Expectation, ExpectationType, ToolFixture } from '@agentry/contract/schemas';
import { useEffect, useMemo, useState } from 'react';
import { agentTestsApi } from '../../api/agent-tests-api.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { PointerIssues } from '../../components/issue-list.tsx';
import { IssuesContext } from '../../components/issues-context.tsx';
import { KeyValueEditor } from '../../components/key-value-editor.tsx';
import { MoveButtons } from '../../components/move-buttons.tsx';
import { TextField } from '../../components/text-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useCanWrite } from '../../components/use-can-write.ts';
import {
  blankExpectation,
  blankTest,
  EXPECTATION_TYPES,
  type TestDraft,
  testFieldPointer,
  testToolNames,
  toDraft,
} from '../../config/agent-tests.ts';
import { moveItem, setIn } from '../../config/config-edit.ts';
import { fieldId } from '../../config/field-pointer.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { TestsView } from '../../router/routes.ts';
import { ExpectationEditor } from './expectation-editor.tsx';
import { FixtureEditor } from './fixture-editor.tsx';

/** Field pointers of the form start here, so its ids never meet the agent editor's. */
const P = '/test';

type Path = ReadonlyArray<string | number>;

interface TestEditorProps {
  agentId: string;
  config: AgentConfigDocument;
  /** A stored case's id, or `new`. */
  testId: string;
  open: (view: TestsView) => void;
}

/**
 * One test case as forms (no JSON typed): name, description, the user's turns (added, removed,
 * reordered) each with its expectations, the tool fixtures, and under "More" the conversation's
 * context and end user. Saving sends the case as is; the API's issues land on their fields.
 */
export function TestEditor({ agentId, config, testId, open }: TestEditorProps) {
  const { t } = useI18n();
  const canWrite = useCanWrite();
  const isNew = testId === 'new';
  const [draft, setDraft] = useState<TestDraft | undefined>(() => (isNew ? blankTest('') : undefined));
  const [savedText, setSavedText] = useState(() => (isNew ? JSON.stringify(blankTest('')) : ''));
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const [notice, setNotice] = useState('');
  const load = useAction();
  const save = useAction();
  useEffect(() => {
    if (isNew) return;
    void load.run(async () => {
      const test = await agentTestsApi.get(agentId, testId);
      const loaded = toDraft(test.definition as Record<string, unknown>);
      setDraft(loaded);
      setSavedText(JSON.stringify(loaded));
    });
  }, [agentId, testId, isNew, load.run]);
  const byField = useMemo(() => {
    const map = new Map<string, FieldIssue[]>();
    for (const issue of issues) {
      const key = `${P}${testFieldPointer(issue.path)}`;
      map.set(key, [...(map.get(key) ?? []), issue]);
    }
    return map;
  }, [issues]);
  if (!draft)
    return <>{load.error ? <ErrorBanner error={load.error} /> : <p role="status">{t('common.loading')}</p>}</>;
  const dirty = JSON.stringify(draft) !== savedText;
  const edit = (path: Path, value: unknown) => setDraft((d) => (d ? setIn(d, path, value) : d));
  const submit = () =>
    save.run(async () => {
      setNotice('');
      try {
        const body = cleaned(draft);
        const stored = isNew
          ? await agentTestsApi.create(agentId, body)
          : await agentTestsApi.update(agentId, testId, body);
        setIssues([]);
        setSavedText(JSON.stringify(draft));
        setNotice(t('tests.editor.saved', { revision: stored.revision }));
        if (isNew) open({ testId: stored.id });
      } catch (error) {
        if (error instanceof ProblemError && error.problem.errors?.length) setIssues(error.problem.errors);
        throw error;
      }
    });
  const back = () => {
    if (dirty && !window.confirm(t('tests.editor.leaveConfirm'))) return;
    open({});
  };
  return (
    <IssuesContext.Provider value={byField}>
      <form
        className="stack test-editor"
        onSubmit={(e) => {
          e.preventDefault();
          void submit();
        }}
      >
        <div className="page-header">
          <div className="inline">
            <button type="button" className="secondary small" id="back-to-tests" onClick={back}>
              ← {t('tests.back')}
            </button>
            <h2>{isNew ? t('tests.editor.new') : draft.name || t('tests.editor.untitled')}</h2>
            {dirty ? <span className="badge">{t('editor.unsaved')}</span> : null}
          </div>
          {canWrite ? (
            <div className="inline">
              {!isNew ? <RunThisTest agentId={agentId} testId={testId} dirty={dirty} open={open} /> : null}
              <button type="submit" id="save-test" disabled={save.busy}>
                {t('tests.editor.save')}
              </button>
            </div>
          ) : null}
        </div>
        {notice ? (
          <p className="banner banner-ok" role="status" id="test-notice">
            {notice}
          </p>
        ) : null}
        <ErrorBanner error={save.error} />
        <section className="card">
          <TextField
            pointer={`${P}/name`}
            label={t('tests.editor.name')}
            value={draft.name}
            onChange={(v) => edit(['name'], v)}
          />
          <TextField
            pointer={`${P}/description`}
            label={t('tests.editor.description')}
            help={t('tests.editor.descriptionHelp')}
            multiline
            value={draft.description}
            onChange={(v) => edit(['description'], v || undefined)}
          />
        </section>
        <Turns draft={draft} config={config} edit={edit} />
        <Fixtures draft={draft} config={config} edit={edit} />
        <More draft={draft} config={config} edit={edit} />
        {!isNew && canWrite ? (
          <div className="inline">
            <ConfirmButton
              id="delete-test"
              label={t('tests.editor.delete')}
              question={t('tests.deleteConfirm', { name: draft.name })}
              confirmLabel={t('common.delete')}
              onConfirm={() =>
                save.run(async () => {
                  await agentTestsApi.remove(agentId, testId);
                  open({});
                })
              }
            />
          </div>
        ) : null}
      </form>
    </IssuesContext.Provider>
  );
}

interface SectionProps {
  draft: TestDraft;
  config: AgentConfigDocument;
  edit: (path: Path, value: unknown) => void;
}

/** The user's turns, in order, each with the checks its answer must pass. */
function Turns({ draft, config, edit }: SectionProps) {
  const { t } = useI18n();
  const turns = draft.turns;
  return (
    <section className="card" aria-labelledby="test-turns-title">
      <h3 id="test-turns-title">{t('tests.editor.turns')}</h3>
      <p className="help">{t('tests.editor.turnsHelp')}</p>
      <PointerIssues pointer={`${P}/turns`} />
      {turns.map((turn, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a turn's position is its identity in the case
        <section key={i} className="row-card test-turn" aria-label={t('tests.editor.turn', { n: i + 1 })}>
          <div className="card-header">
            <strong>{t('tests.editor.turn', { n: i + 1 })}</strong>
            <div className="inline">
              <MoveButtons
                first={i === 0}
                last={i === turns.length - 1}
                onMove={(step) => edit(['turns'], moveItem(turns, i, i + step))}
              />
              <button
                type="button"
                className="secondary small"
                id={`${fieldId(`${P}/turns/${i}`)}-remove`}
                disabled={turns.length === 1}
                onClick={() => edit(['turns', i], undefined)}
              >
                {t('common.remove')}
              </button>
            </div>
          </div>
          <TextField
            pointer={`${P}/turns/${i}/user`}
            label={t('tests.editor.user')}
            multiline
            value={turn.user}
            onChange={(v) => edit(['turns', i, 'user'], v)}
          />
          <fieldset className="stack expectations-list">
            <legend>{t('tests.editor.expectations')}</legend>
            {turn.expect.length === 0 ? <p className="help">{t('tests.editor.noExpectations')}</p> : null}
            {turn.expect.map((expectation, j) => (
              <ExpectationEditor
                // biome-ignore lint/suspicious/noArrayIndexKey: an expectation's position is its identity in the turn
                key={j}
                pointer={`${P}/turns/${i}/expect/${j}`}
                index={j}
                expectation={expectation}
                config={config}
                onChange={(next) => edit(['turns', i, 'expect', j], next)}
                onRemove={() => edit(['turns', i, 'expect', j], undefined)}
              />
            ))}
            <AddExpectation
              id={`add-expectation-${i}`}
              config={config}
              onAdd={(e) => edit(['turns', i, 'expect', turn.expect.length], e)}
            />
          </fieldset>
        </section>
      ))}
      <button
        type="button"
        className="secondary small"
        id="add-turn"
        onClick={() => edit(['turns', turns.length], { user: '', expect: [] })}
      >
        + {t('tests.editor.addTurn')}
      </button>
    </section>
  );
}

/** "Add a check: [kind] [Add]": the kind first, so the new row is already the right one. */
function AddExpectation({
  id,
  config,
  onAdd,
}: {
  id: string;
  config: AgentConfigDocument;
  onAdd: (e: Expectation) => void;
}) {
  const { t } = useI18n();
  const [kind, setKind] = useState<ExpectationType>(testToolNames(config).length ? 'tool_called' : 'reply_contains');
  return (
    <div className="inline add-expectation">
      <label htmlFor={`${id}-kind`} className="add-expectation-label">
        {t('tests.editor.addExpectation')}
      </label>
      <select id={`${id}-kind`} value={kind} onChange={(e) => setKind(e.target.value as ExpectationType)}>
        {EXPECTATION_TYPES.map((type) => (
          <option key={type} value={type}>
            {t(`tests.kind.${type}`)}
          </option>
        ))}
      </select>
      <button type="button" className="secondary small" id={id} onClick={() => onAdd(blankExpectation(kind, config))}>
        + {t('tests.editor.add')}
      </button>
    </div>
  );
}

/** What the tools answer during the test: nothing is sent to them. */
function Fixtures({ draft, config, edit }: SectionProps) {
  const { t } = useI18n();
  const fixtures = draft.fixtures;
  return (
    <section className="card" aria-labelledby="test-fixtures-title">
      <h3 id="test-fixtures-title">{t('tests.editor.fixtures')}</h3>
      <p className="help">{t('tests.editor.fixturesHelp')}</p>
      {fixtures.map((fixture, i) => (
        <FixtureEditor
          // biome-ignore lint/suspicious/noArrayIndexKey: the first matching fixture wins: position is identity
          key={i}
          pointer={`${P}/fixtures/${i}`}
          index={i}
          count={fixtures.length}
          fixture={fixture}
          config={config}
          onChange={(next) => edit(['fixtures', i], next)}
          onMove={(to) => edit(['fixtures'], moveItem(fixtures, i, to))}
          onRemove={() => edit(['fixtures', i], undefined)}
        />
      ))}
      <button
        type="button"
        className="secondary small"
        id="add-fixture"
        onClick={() =>
          edit(['fixtures', fixtures.length], { tool: testToolNames(config)[0] ?? '' } satisfies ToolFixture)
        }
      >
        + {t('tests.editor.addFixture')}
      </button>
    </section>
  );
}

/** The conversation's context variables and end user, which few cases need: folded away. */
function More({ draft, edit }: SectionProps) {
  const { t } = useI18n();
  const endUser = draft.end_user;
  const setEndUser = (next: { id: string; claims?: Record<string, unknown> } | undefined) =>
    edit(['end_user'], next?.id || next?.claims ? next : undefined);
  return (
    <details className="card" open={Boolean(draft.context || draft.end_user)}>
      <summary>{t('tests.editor.more')}</summary>
      <KeyValueEditor
        pointer={`${P}/context`}
        label={t('tests.editor.context')}
        value={draft.context}
        onChange={(v) => edit(['context'], v)}
        choices={[]}
      />
      <TextField
        pointer={`${P}/end_user/id`}
        label={t('tests.editor.endUser')}
        help={t('tests.editor.endUserHelp')}
        value={endUser?.id}
        onChange={(id) => setEndUser({ ...endUser, id })}
      />
      <KeyValueEditor
        pointer={`${P}/end_user/claims`}
        label={t('tests.editor.claims')}
        value={endUser?.claims}
        onChange={(claims) => setEndUser({ id: endUser?.id ?? '', ...(claims ? { claims } : {}) })}
        choices={[]}
      />
    </details>
  );
}

/** Saves nothing: runs the stored case (save first when there are changes) on the newest version. */
function RunThisTest({
  agentId,
  testId,
  dirty,
  open,
}: {
  agentId: string;
  testId: string;
  dirty: boolean;
  open: (view: TestsView) => void;
}) {
  const { t } = useI18n();
  const run = useAction();
  return (
    <>
      <button
        type="button"
        className="secondary"
        id="run-this-test"
        disabled={dirty || run.busy}
        title={dirty ? t('tests.editor.saveFirst') : undefined}
        onClick={() =>
          run.run(async () => {
            const started = await agentTestsApi.startRun(agentId, { test_ids: [testId] });
            open({ testRunId: started.id });
          })
        }
      >
        {t('tests.editor.runThis')}
      </button>
      <ErrorBanner error={run.error} />
    </>
  );
}

/** The case as the API takes it: an empty description or end user left out. */
function cleaned(draft: TestDraft): TestDraft {
  const { description, end_user: endUser, context, ...rest } = draft;
  return {
    ...rest,
    ...(description?.trim() ? { description } : {}),
    ...(endUser?.id ? { end_user: endUser } : {}),
    ...(context && Object.keys(context).length > 0 ? { context } : {}),
  };
}
