import { WIDGET_DEFAULT_COLORS } from '@agentry/contract';
import type { Agent } from '@agentry/contract/schemas';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { agentsApi } from '../../api/agents-api.ts';
import { apiBase } from '../../api/api-base.ts';
import { keysApi } from '../../api/settings-api.ts';
import { AgentSelect } from '../../components/agent-select.tsx';
import { CopyField } from '../../components/copy-field.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useAction } from '../../components/use-action.ts';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { OriginsField, originList } from './origins-field.tsx';
import { PublishableKeyValue, ShowKeyButton } from './publishable-key-value.tsx';
import { WidgetPreview } from './widget-preview.tsx';
import { HEX_COLOR, pickerColor, type ThemeForm, themeForm, withTheme } from './widget-theme.ts';

const PREVIEW_KEY = (agentId: string) => `agentry.widgetKey.${agentId}`;

/**
 * The chat widget of one agent: its theme (saved to the draft, like every other change, so it can
 * be tried in the playground and published from the editor), the publishable keys and origins it
 * may be used from, a live preview with the real /widget.js, and the embed code.
 */
export function WidgetPanel() {
  const { t } = useI18n();
  const agents = useLoad(() => agentsApi.list());
  const [agentId, setAgentId] = useState('');
  const [agent, setAgent] = useState<Agent>();
  const [previewKey, setPreviewKey] = useState('');
  const [reload, setReload] = useState(0);
  useEffect(() => {
    if (!agentId && agents.data?.[0]) setAgentId(agents.data[0].id);
  }, [agents.data, agentId]);
  useEffect(() => {
    setAgent(agents.data?.find((a) => a.id === agentId));
    setPreviewKey(agentId ? (sessionStorage.getItem(PREVIEW_KEY(agentId)) ?? '') : '');
  }, [agentId, agents.data]);
  const keepKey = (key: string) => {
    setPreviewKey(key);
    if (agentId) sessionStorage.setItem(PREVIEW_KEY(agentId), key);
  };
  const scriptOrigin = apiBase() || window.location.origin;
  return (
    <div className="stack">
      <p className="muted">{t('widget.intro')}</p>
      <Loaded data={agents.data} error={agents.error} empty={t('widget.noAgents')}>
        {(list) => (
          <LabelledField id="widget-agent" label={t('widget.agent')} className="widget-agent">
            {(control) => (
              <AgentSelect {...control} agents={list} value={agentId} onChange={(id) => setAgentId(id ?? '')} />
            )}
          </LabelledField>
        )}
      </Loaded>
      {agent ? (
        <div className="widget-layout">
          <div className="stack">
            <ThemeEditor key={agent.id} agent={agent} onSaved={() => void agents.reload()} />
            <WidgetKeys agent={agent} onKey={keepKey} hasPreviewKey={previewKey !== ''} />
          </div>
          <div className="stack">
            <WidgetPreview
              key={`${agent.id}:${reload}`}
              agent={agent}
              scriptOrigin={scriptOrigin}
              previewKey={previewKey}
              onPreviewKey={keepKey}
              onReload={() => setReload((n) => n + 1)}
            />
          </div>
        </div>
      ) : null}
    </div>
  );
}

/**
 * The widget's look, edited on the agent's draft (its latest version) and saved as a new draft
 * version: publishing stays in the editor, after the playground, as for every other change.
 */
function ThemeEditor({ agent, onSaved }: { agent: Agent; onSaved: () => void }) {
  const { t } = useI18n();
  const base = agent.latest_version;
  const version = useLoad(() => agentsApi.version(agent.id, base), { key: base });
  const [form, setForm] = useState<ThemeForm>();
  const [saved, setSaved] = useState<number>();
  const save = useAction();
  useEffect(() => {
    if (version.data?.config) setForm(themeForm(version.data.config.widget));
  }, [version.data]);
  if (!form) return version.error ? <ErrorBanner error={version.error} /> : <p role="status">{t('common.loading')}</p>;
  const set = (patch: Partial<ThemeForm>) => setForm({ ...form, ...patch });
  const badColor = (['primary', 'background', 'text'] as const).filter((k) => form[k] && !HEX_COLOR.test(form[k]));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const config = version.data?.config;
    if (!config) return;
    setSaved(undefined);
    void save.run(async () => {
      const draft = await agentsApi.addVersion(agent.id, withTheme(config, form), false);
      setSaved(draft.version);
      onSaved();
    });
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="theme-title" id="widget-theme-form">
      <h2 id="theme-title">{t('widget.themeTitle')}</h2>
      <p className="help">{t('widget.themeHelp', { version: base })}</p>
      <LabelledField id="widget-title" label={t('widget.title')}>
        {(control) => (
          <input {...control} maxLength={100} value={form.title} onChange={(e) => set({ title: e.target.value })} />
        )}
      </LabelledField>
      <LabelledField id="widget-greeting" label={t('widget.greeting')}>
        {(control) => (
          <textarea
            {...control}
            rows={2}
            maxLength={1000}
            value={form.greeting}
            onChange={(e) => set({ greeting: e.target.value })}
          />
        )}
      </LabelledField>
      <fieldset>
        <legend>{t('widget.colors')}</legend>
        <div className="grid-3">
          {(['primary', 'background', 'text'] as const).map((k) => (
            <LabelledField
              key={k}
              id={`widget-color-${k}`}
              label={t(`widget.color.${k}`)}
              invalid={badColor.includes(k)}
            >
              {(control) => (
                <div className="inline">
                  <input
                    type="color"
                    className="swatch"
                    aria-label={t('widget.pick', { name: t(`widget.color.${k}`) })}
                    value={pickerColor(form[k], k)}
                    onChange={(e) => set({ [k]: e.target.value })}
                  />
                  <input
                    {...control}
                    value={form[k]}
                    placeholder={t('widget.colorDefault', { color: WIDGET_DEFAULT_COLORS[k] })}
                    spellCheck={false}
                    onChange={(e) => set({ [k]: e.target.value })}
                  />
                </div>
              )}
            </LabelledField>
          ))}
        </div>
        {badColor.length ? <p className="issues">{t('widget.badColor')}</p> : null}
      </fieldset>
      <LabelledField id="widget-position" label={t('widget.position')}>
        {(control) => (
          <select
            {...control}
            value={form.position}
            onChange={(e) => set({ position: e.target.value as ThemeForm['position'] })}
          >
            <option value="bottom-right">{t('widget.bottomRight')}</option>
            <option value="bottom-left">{t('widget.bottomLeft')}</option>
          </select>
        )}
      </LabelledField>
      <LabelledField id="widget-questions" label={t('widget.questions')} help={t('widget.questionsHelp')}>
        {(control) => (
          <textarea {...control} rows={3} value={form.questions} onChange={(e) => set({ questions: e.target.value })} />
        )}
      </LabelledField>
      <ErrorBanner error={save.error} />
      <button type="submit" id="widget-save" disabled={save.busy || badColor.length > 0}>
        {t('widget.save')}
      </button>
      <p className="banner-ok notice" role="status" id="widget-notice">
        {saved === undefined ? null : (
          <>
            {t('widget.savedNotice', { version: saved })}{' '}
            <a href={routeHref({ name: 'agent', id: agent.id, tab: 'playground' })} id="widget-open-editor">
              {t('widget.openEditor')}
            </a>
          </>
        )}
      </p>
    </form>
  );
}

/** The agent's publishable keys with their origins (and values, to owners and editors), and a form to make one. */
function WidgetKeys({
  agent,
  onKey,
  hasPreviewKey,
}: {
  agent: Agent;
  onKey: (key: string) => void;
  hasPreviewKey: boolean;
}) {
  const { t } = useI18n();
  const keys = useLoad(() => keysApi.list());
  const [origins, setOrigins] = useState(window.location.origin);
  const [created, setCreated] = useState('');
  const [shownKey, setShownKey] = useState<string>();
  const create = useAction();
  const mine = (keys.data ?? []).filter(
    (k) => k.kind === 'publishable' && !k.revoked_at && k.agents.includes(agent.id),
  );
  // A kept key that allows this dashboard's origin previews the widget without pasting anything
  // (offered once: a preview key the user clears stays cleared).
  const usable = mine.find((k) => k.key && k.allowed_origins.includes(window.location.origin))?.key;
  const offered = useRef(false);
  useEffect(() => {
    if (offered.current || !usable) return;
    offered.current = true;
    if (!hasPreviewKey) onKey(usable);
  }, [hasPreviewKey, usable, onKey]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void create.run(async () => {
      const key = await keysApi.create({
        kind: 'publishable',
        name: t('widget.keyName', { agent: agent.name }),
        agents: [agent.id],
        allowed_origins: originList(origins),
      });
      setCreated(key.key);
      onKey(key.key);
      await keys.reload();
    });
  };
  return (
    <section className="card" aria-labelledby="widget-keys-title">
      <h2 id="widget-keys-title">{t('widget.keysTitle')}</h2>
      <ErrorBanner error={keys.error} />
      {mine.length === 0 ? <p className="muted">{t('widget.noKeys')}</p> : null}
      <ul className="plain-list" id="widget-keys">
        {mine.map((k) => (
          <li key={k.id} className="stack-tight">
            <span className="inline wrap">
              <code>{k.prefix}…</code>
              {k.allowed_origins.map((o) => (
                <span key={o} className="chip chip-context">
                  {o}
                </span>
              ))}
              {k.key !== undefined ? (
                <ShowKeyButton
                  id={`widget-show-${k.prefix}`}
                  shown={shownKey === k.id}
                  onToggle={() => setShownKey(shownKey === k.id ? undefined : k.id)}
                />
              ) : null}
            </span>
            {shownKey === k.id ? <PublishableKeyValue apiKey={k} id={`widget-key-${k.prefix}`} /> : null}
          </li>
        ))}
      </ul>
      <form onSubmit={submit}>
        <OriginsField
          id="widget-origins"
          label={t('widget.origins')}
          help={t('widget.originsHelp')}
          value={origins}
          onChange={setOrigins}
        />
        <ErrorBanner error={create.error} />
        <button type="submit" className="secondary" id="widget-create-key" disabled={create.busy || !origins.trim()}>
          {t('widget.createKey')}
        </button>
      </form>
      {created ? (
        <div className="banner-ok created-key" role="status">
          <p>{t('keys.showAgain')}</p>
          <CopyField id="widget-key-value" label={t('keys.value')} value={created} />
        </div>
      ) : null}
    </section>
  );
}
