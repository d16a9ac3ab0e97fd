import { Tabs } from '../../components/tabs.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { SETTINGS_TABS, type SettingsTab } from '../../router/routes.ts';
import { navigate } from '../../router/use-route.ts';
import { HandoffPanel } from './handoff-panel.tsx';
import { KeysPanel } from './keys-panel.tsx';
import { MembersPanel } from './members-panel.tsx';
import { ProvidersPanel } from './providers-panel.tsx';
import { SecretsPanel } from './secrets-panel.tsx';
import { WidgetPanel } from './widget-panel.tsx';

/** Settings: API keys, secrets, model providers, members and the chat widget, one tab each (lazy-loaded chunk). */
export default function SettingsPage({ tab }: { tab: SettingsTab }) {
  const { t } = useI18n();
  return (
    <div className="stack">
      <header className="page-header">
        <h1>{t('settings.title')}</h1>
      </header>
      <Tabs
        label={t('settings.tabs')}
        tabs={SETTINGS_TABS.map((id) => ({ id, label: t(`settings.tab.${id}`) }))}
        active={tab}
        onSelect={(next) => navigate({ name: 'settings', tab: next }, true)}
      />
      <section role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === 'keys' ? <KeysPanel /> : null}
        {tab === 'secrets' ? <SecretsPanel /> : null}
        {tab === 'providers' ? <ProvidersPanel /> : null}
        {tab === 'members' ? <MembersPanel /> : null}
        {tab === 'widget' ? <WidgetPanel /> : null}
        {tab === 'handoff' ? <HandoffPanel /> : null}
      </section>
    </div>
  );
}
