import { type AgentConfigDocument, ProblemError } from '@agentry/contract';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { IssuesContext } from '../../components/issues-context.tsx';
import { Tabs } from '../../components/tabs.tsx';
import { blankConfig } from '../../config/agent-config.ts';
import { setIn } from '../../config/config-edit.ts';
import { issuesByField, isUnder } from '../../config/field-pointer.ts';
import { toPointer } from '../../config/json-pointer.ts';
import {
  type IssueVisibility,
  isStructuralEdit,
  plainIssue,
  type Translate,
  visibleIssues,
} from '../../config/plain-issues.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { EditorTab, TestsView } from '../../router/routes.ts';
import { navigate, setLeaveGuard } from '../../router/use-route.ts';
import { PlaygroundPanel } from '../playground/playground-panel.tsx';
import { GateBadge, isTestsFailed, NewVersionGateBadge, PublishRefusal } from '../tests/publish-gate.tsx';
import { VersionsPanel } from '../versions/versions-panel.tsx';
import { ActionBooksForm } from './action-books-form.tsx';
import { BasicSettingsForm } from './basic-settings-form.tsx';
import { takePendingDraft } from './draft-store.ts';
import type { Edit } from './edit.ts';
import { FlowsForm } from './flows-form.tsx';
import { IssueSummary } from './issue-summary.tsx';
import { JsonTab } from './json-tab.tsx';
import { PermissionsForm } from './permissions-form.tsx';
import { PromptTab } from './prompt-tab.tsx';
import { ToolsForm } from './tools-form.tsx';
import { useValidation } from './use-validation.ts';

interface Saved {
  agentId: string;
  version: number;
  text: string;
}

/** The tests' screens load on first use. */
const TestsPanel = lazy(() => import('../tests/tests-panel.tsx'));

/** A publish the tests refused, and how to publish anyway (owners, with a reason). */
interface Refusal {
  error: ProblemError;
  force: (reason: string) => Promise<void>;
}

/** Builds, checks, tests, versions and chats with one agent. The draft config is the single truth. */
export function EditorPage({
  agentId: routeAgentId,
  initialTab,
  ...testsView
}: { agentId?: string; initialTab: EditorTab } & TestsView) {
  const { t } = useI18n();
  const [config, setConfig] = useState<AgentConfigDocument>(() =>
    routeAgentId ? blankConfig() : (takePendingDraft() ?? blankConfig()),
  );
  // What "unchanged" means before the first save: the blank form (a template or a dropped file
  // is work the user would lose, so it counts as a change).
  const [blankText] = useState(() => JSON.stringify(blankConfig()));
  const [saved, setSaved] = useState<Saved>();
  /** The version chats use (null: none published), to say what the draft is based on. */
  const [liveVersion, setLiveVersion] = useState<number | null>(null);
  /** The agent's `require_passing_tests`: publishing needs the version's tests to pass. */
  const [requireTests, setRequireTests] = useState(false);
  const [refusal, setRefusal] = useState<Refusal>();
  /** Bumped when a test run ends: the publish button's gate state is read again. */
  const [gateKey, setGateKey] = useState(0);
  const [agentId, setAgentId] = useState(routeAgentId);
  const [loading, setLoading] = useState(Boolean(routeAgentId));
  const [error, setError] = useState<unknown>();
  const [tab, setTab] = useState<EditorTab>(initialTab);
  // A link into the editor (a saved test opening from the playground) changes the tab from outside.
  useEffect(() => setTab(initialTab), [initialTab]);
  const [refreshKey, setRefreshKey] = useState(0);
  const [saving, setSaving] = useState(false);
  const [notice, setNotice] = useState('');
  const validation = useValidation(config);
  const { visibility, markEdited, showAll } = useSeenFields();
  const allIssues = validation.status === 'invalid' ? validation.issues : [];
  const issues = useMemo(
    () => visibleIssues(allIssues, visibility).map((issue) => plainIssue(issue, config, t)),
    [allIssues, visibility, config, t],
  );
  const byField = useMemo(() => issuesByField(issues), [issues]);
  const text = useMemo(() => JSON.stringify(config), [config]);
  const dirty = saved ? saved.text !== text : text !== blankText;
  useLeaveGuard(dirty, t('editor.leaveConfirm'));

  // Opening another agent (or arriving from the list) loads its latest version into the draft.
  useEffect(() => {
    if (!routeAgentId || (routeAgentId === agentId && saved)) return;
    let live = true;
    setLoading(true);
    (async () => {
      const agent = await agentsApi.get(routeAgentId);
      const version = await agentsApi.version(routeAgentId, agent.latest_version);
      if (!live || !version.config) return;
      setLiveVersion(agent.published_version);
      setRequireTests(agent.require_passing_tests);
      setAgentId(routeAgentId);
      setConfig(version.config);
      setSaved({ agentId: routeAgentId, version: version.version, text: JSON.stringify(version.config) });
    })()
      .catch((e) => live && setError(e))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [routeAgentId, agentId, saved]);

  const edit = useCallback<Edit>(
    (path, value) => {
      if (!isStructuralEdit(path)) markEdited(toPointer([...path]));
      setConfig((c) => setIn(c, path, value));
    },
    [markEdited],
  );
  const loadVersion = useCallback((loaded: AgentConfigDocument, version: number, id: string) => {
    setConfig(loaded);
    setSaved({ agentId: id, version, text: JSON.stringify(loaded) });
  }, []);

  const save = useCallback(
    async (publish: boolean, force?: { reason: string }): Promise<Saved> => {
      // Trying to save is asking what is left to fix: every issue shows from now on.
      showAll();
      setSaving(true);
      setError(undefined);
      try {
        const snapshot = config;
        let result: Saved;
        if (!agentId) {
          const created = await agentsApi.create(snapshot, publish);
          result = { agentId: created.id, version: created.version.version, text: JSON.stringify(snapshot) };
          setAgentId(created.id);
          setSaved(result);
          setLiveVersion(created.published_version);
          navigate({ name: 'agent', id: created.id, tab }, true);
        } else {
          const version = await agentsApi.addVersion(agentId, snapshot, publish, force);
          result = { agentId, version: version.version, text: JSON.stringify(snapshot) };
          setSaved(result);
          if (version.published) setLiveVersion(version.version);
        }
        setNotice(t(publish ? 'editor.publishedNotice' : 'editor.savedNotice', { version: result.version }));
        setRefreshKey((k) => k + 1);
        return result;
      } catch (e) {
        // A config the loader refused is already listed, field by field, in plain words (every
        // issue shows after a save attempt): a banner repeating "2 problems" would only alarm.
        // A publish the tests refused has its own panel (the caller's).
        if (!(e instanceof ProblemError && e.problem.errors?.length) && !isTestsFailed(e)) setError(e);
        throw e;
      } finally {
        setSaving(false);
      }
    },
    [agentId, config, tab, t, showAll],
  );

  /** Publishes the saved version as it is (under the gate: the version whose tests ran). */
  const publishSaved = useCallback(
    async (force?: { reason: string }) => {
      if (!agentId || !saved) return;
      setSaving(true);
      setError(undefined);
      try {
        await agentsApi.publish(agentId, saved.version, force);
        setLiveVersion(saved.version);
        setNotice(t('editor.publishedNotice', { version: saved.version }));
        setRefreshKey((k) => k + 1);
      } finally {
        setSaving(false);
      }
    },
    [agentId, saved, t],
  );

  /**
   * "Save & publish". Under the gate an unchanged draft publishes its saved version (the one its
   * tests ran on) instead of a new, untested copy; a refusal shows why and, for owners, how to
   * publish anyway.
   */
  const publishDraft = useCallback(async () => {
    setRefusal(undefined);
    const savedAsIs = requireTests && saved !== undefined && !dirty;
    const attempt = (force?: { reason: string }) =>
      savedAsIs ? publishSaved(force) : save(true, force).then(() => {});
    try {
      await attempt();
    } catch (e) {
      if (isTestsFailed(e))
        setRefusal({
          error: e,
          force: async (reason) => {
            await attempt({ reason });
            setRefusal(undefined);
          },
        });
      else if (savedAsIs) setError(e);
    }
  }, [requireTests, saved, dirty, publishSaved, save]);

  // The playground reuses the saved version while the draft is unchanged, instead of piling up copies.
  const saveDraftForChat = useCallback(async () => {
    if (saved && !dirty) return { agentId: saved.agentId, version: saved.version };
    const result = await save(false);
    return { agentId: result.agentId, version: result.version };
  }, [saved, dirty, save]);

  const pendingFocus = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!pendingFocus.current) return;
    document.getElementById(pendingFocus.current)?.focus();
    pendingFocus.current = undefined;
  });
  const selectTab = (next: EditorTab) => {
    setTab(next);
    if (agentId) navigate({ name: 'agent', id: agentId, tab: next }, true);
  };

  const count = (...prefixes: string[]) => issues.filter((i) => prefixes.some((p) => isUnder(i.path, p))).length;
  const tabs = [
    {
      id: 'settings' as const,
      label: t('editor.tab.settings'),
      badge: count('/basic_settings', '/model', '/limits', '/context', '/knowledge'),
    },
    { id: 'actions' as const, label: t('editor.tab.actions'), badge: count('/action_books') },
    { id: 'tools' as const, label: t('editor.tab.tools'), badge: count('/tools', '/permissions') },
    { id: 'flows' as const, label: t('editor.tab.flows'), badge: count('/flows') },
    { id: 'json' as const, label: t('editor.tab.json') },
    ...(agentId ? [{ id: 'prompt' as const, label: t('editor.tab.prompt') }] : []),
    { id: 'playground' as const, label: t('editor.tab.playground') },
    ...(agentId ? [{ id: 'versions' as const, label: t('editor.tab.versions') }] : []),
    ...(agentId ? [{ id: 'tests' as const, label: t('editor.tab.tests') }] : []),
  ];
  const name = config.basic_settings?.name || t('editor.untitled');
  if (loading) return <p role="status">{t('common.loading')}</p>;
  return (
    <IssuesContext.Provider value={byField}>
      <div className="editor">
        <header className="page-header">
          <div>
            <h1>{name}</h1>
            <p className="muted" id="editor-based-on">
              {agentId ? (saved ? basedOn(t, saved.version, liveVersion) : '') : t('editor.new')}
              {dirty ? <span className="badge"> {t('editor.unsaved')}</span> : null}
            </p>
          </div>
          <div className="inline">
            <ValidationBadge
              state={validation.status}
              count={issues.length}
              hidden={allIssues.length - issues.length}
            />
            <button
              type="button"
              className="secondary"
              id="save-draft"
              disabled={saving}
              onClick={() => save(false).catch(() => {})}
            >
              {t('editor.saveDraft')}
            </button>
            <button type="button" id="save-publish" disabled={saving} onClick={() => void publishDraft()}>
              {t('editor.savePublish')}{' '}
              <PublishGateState
                agentId={agentId}
                requireTests={requireTests}
                dirty={dirty}
                saved={saved?.version}
                live={liveVersion}
                refresh={`${refreshKey}:${gateKey}`}
              />
            </button>
          </div>
        </header>
        {notice ? (
          <p className="banner banner-ok" role="status" id="editor-notice">
            {notice}
          </p>
        ) : null}
        {validation.status === 'unavailable' ? (
          <p className="banner">{t('editor.validationUnavailable', { message: validation.message })}</p>
        ) : null}
        <ErrorBanner error={error} />
        {refusal && agentId ? (
          <PublishRefusal
            agentId={agentId}
            error={refusal.error}
            onForce={refusal.force}
            onClose={() => setRefusal(undefined)}
          />
        ) : null}
        <IssueSummary
          issues={issues}
          onJump={(nextTab, id) => {
            pendingFocus.current = id;
            selectTab(nextTab);
            document.getElementById(id)?.focus();
          }}
        />
        <Tabs label={t('editor.tabs')} tabs={tabs} active={tab} onSelect={selectTab} />
        <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tab-panel">
          {tab === 'settings' ? <BasicSettingsForm config={config} edit={edit} /> : null}
          {tab === 'actions' ? <ActionBooksForm config={config} edit={edit} /> : null}
          {tab === 'tools' ? (
            <div className="stack">
              <ToolsForm config={config} edit={edit} />
              <PermissionsForm config={config} edit={edit} />
            </div>
          ) : null}
          {tab === 'flows' ? <FlowsForm config={config} edit={edit} /> : null}
          {tab === 'json' ? (
            <JsonTab
              config={config}
              onChange={(next) => {
                // Hand-written JSON has no fields to touch one by one: its issues all show.
                showAll();
                setConfig(next);
              }}
            />
          ) : null}
          {tab === 'prompt' && agentId && saved ? (
            <PromptTab agentId={agentId} version={saved.version} dirty={dirty} />
          ) : null}
          {tab === 'playground' ? <PlaygroundPanel saveDraft={saveDraftForChat} draftKey={text} /> : null}
          {tab === 'versions' && agentId ? (
            <VersionsPanel
              agentId={agentId}
              refreshKey={refreshKey}
              dirty={dirty}
              requireTests={requireTests}
              onRequireTestsChange={setRequireTests}
              onPublished={(version) => {
                // The editor follows the live version, so "Save & publish" never silently
                // re-publishes the newer draft it held before the roll back.
                setLiveVersion(version);
                agentsApi
                  .version(agentId, version)
                  .then((full) => {
                    if (full.config) loadVersion(full.config, version, agentId);
                    setNotice(t('editor.rolledBackNotice', { version }));
                  })
                  .catch(setError);
              }}
              onLoad={(loaded, version) => {
                loadVersion(loaded, version, agentId);
                setNotice(t('editor.loadedNotice', { version }));
                selectTab('settings');
              }}
            />
          ) : null}
          {tab === 'tests' && agentId ? (
            <Suspense fallback={<p role="status">{t('common.loading')}</p>}>
              <TestsPanel
                agentId={agentId}
                config={config}
                refreshKey={refreshKey}
                requireTests={requireTests}
                onRequireTestsChange={setRequireTests}
                onTestRunFinished={() => setGateKey((k) => k + 1)}
                {...testsView}
              />
            </Suspense>
          ) : null}
        </div>
      </div>
    </IssuesContext.Provider>
  );
}

interface PublishGateStateProps {
  agentId: string | undefined;
  requireTests: boolean;
  dirty: boolean;
  saved: number | undefined;
  live: number | null;
  refresh: string;
}

/**
 * Under the gate, what "Save & publish" would meet: changes make a new, untested version; an
 * unchanged draft publishes its saved version, whose tests' state shows; the live one, nothing.
 */
function PublishGateState({ agentId, requireTests, dirty, saved, live, refresh }: PublishGateStateProps) {
  if (!requireTests || !agentId) return null;
  if (dirty || saved === undefined) return <NewVersionGateBadge />;
  if (saved === live) return null;
  return <GateBadge agentId={agentId} version={saved} refresh={refresh} id="save-publish-gate" />;
}

/** What the draft is based on, and whether that is what chats use. */
function basedOn(t: Translate, version: number, live: number | null): string {
  if (live === null) return t('editor.basedOn', { version });
  return live === version ? t('editor.basedOnLive', { version }) : t('editor.basedOnNotLive', { version, live });
}

/**
 * While `dirty`, in-app navigation asks `question` first, and a reload or closing the tab makes the
 * browser ask its own (it shows no custom text).
 */
function useLeaveGuard(dirty: boolean, question: string): void {
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older Chromium asks only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    const removeGuard = setLeaveGuard(() => window.confirm(question));
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      removeGuard();
    };
  }, [dirty, question]);
}

/** Which fields the user has edited or left, and whether a save was tried: what lets issues show. */
function useSeenFields() {
  const [visibility, setVisibility] = useState<IssueVisibility>(() => ({
    all: false,
    edited: new Set(),
    left: new Set(),
  }));
  const markEdited = useCallback(
    (pointer: string) =>
      setVisibility((v) => (v.all || v.edited.has(pointer) ? v : { ...v, edited: new Set(v.edited).add(pointer) })),
    [],
  );
  const markLeft = useCallback(
    (id: string) =>
      setVisibility((v) => (v.all || !id || v.left.has(id) ? v : { ...v, left: new Set(v.left).add(id) })),
    [],
  );
  const showAll = useCallback(() => setVisibility((v) => (v.all ? v : { ...v, all: true })), []);
  // Leaving a field (focus moves on) touches it, even unchanged: "required" shows once passed by.
  useEffect(() => {
    const onFocusOut = (event: FocusEvent) => {
      if (event.target instanceof HTMLElement && event.target.closest('.editor')) markLeft(event.target.id);
    };
    document.addEventListener('focusout', onFocusOut);
    return () => document.removeEventListener('focusout', onFocusOut);
  }, [markLeft]);
  return { visibility, markEdited, showAll };
}

function ValidationBadge({ state, count, hidden }: { state: string; count: number; hidden: number }) {
  const { t } = useI18n();
  // Problems in fields not reached yet are not errors yet: the form is just not finished.
  if (state === 'invalid' && count === 0 && hidden > 0)
    return (
      <span className="badge" id="validation-state">
        {t('editor.incomplete')}
      </span>
    );
  if (state === 'valid')
    return (
      <span className="badge badge-ok" id="validation-state">
        {t('editor.valid')}
      </span>
    );
  if (state === 'invalid')
    return (
      <span className="badge badge-error" id="validation-state">
        {t('editor.problems', { n: count })}
      </span>
    );
  if (state === 'checking')
    return (
      <span className="badge" id="validation-state">
        {t('editor.checking')}
      </span>
    );
  return null;
}
