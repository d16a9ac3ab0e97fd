import type { ModelProvider, ModelProviderKind, ModelProviderTest } from '@agentry/contract/schemas';
import { type FormEvent, useEffect, useState } from 'react';
import { modelProvidersApi } from '../../api/settings-api.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { PasswordField } from '../../components/password-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

/** The kinds a tenant may configure, in the order the page shows them. */
export const PROVIDER_KINDS: readonly ModelProviderKind[] = ['openai', 'anthropic', 'openai_compatible'];

/**
 * The tenant's own model providers, one card per kind: a write-only API key, a base URL, the
 * default model, whether agents that name no provider use it, and a connection test. The order
 * runs resolve a model in (agent config, these, the operator's environment) is stated on top.
 */
export function ProvidersPanel() {
  const { t } = useI18n();
  const providers = useLoad(() => modelProvidersApi.list());
  return (
    <div className="stack">
      <p className="muted">{t('providers.intro')}</p>
      {/* Wrapped: an empty list still shows the cards (Loaded shows nothing for one). */}
      <Loaded data={providers.data ? { rows: providers.data } : undefined} error={providers.error}>
        {({ rows }) => (
          <div className="stack">
            {PROVIDER_KINDS.map((kind) => (
              <ProviderCard
                key={kind}
                kind={kind}
                stored={rows.find((p) => p.provider === kind)}
                onChanged={providers.reload}
              />
            ))}
          </div>
        )}
      </Loaded>
    </div>
  );
}

interface CardProps {
  kind: ModelProviderKind;
  stored: ModelProvider | undefined;
  onChanged: () => Promise<unknown>;
}

function ProviderCard({ kind, stored, onChanged }: CardProps) {
  const { t } = useI18n();
  const [apiKey, setApiKey] = useState('');
  const [baseUrl, setBaseUrl] = useState(stored?.base_url ?? '');
  const [model, setModel] = useState(stored?.default_model ?? '');
  const [isDefault, setIsDefault] = useState(stored?.is_default ?? false);
  const [notice, setNotice] = useState('');
  const [test, setTest] = useState<ModelProviderTest>();
  const action = useAction();
  // A reload (another card made itself the default) shows the stored state again.
  useEffect(() => {
    setBaseUrl(stored?.base_url ?? '');
    setModel(stored?.default_model ?? '');
    setIsDefault(stored?.is_default ?? false);
  }, [stored?.base_url, stored?.default_model, stored?.is_default]);
  const needsBase = kind === 'openai_compatible';
  const canSave = !action.busy && (!needsBase || baseUrl.trim() !== '') && (stored || apiKey || baseUrl);
  const id = (field: string) => `provider-${kind}-${field}`;

  const save = (event: FormEvent) => {
    event.preventDefault();
    setNotice('');
    setTest(undefined);
    void action.run(async () => {
      const result = await modelProvidersApi.put(kind, {
        ...(apiKey ? { api_key: apiKey } : {}),
        base_url: baseUrl.trim() || null,
        default_model: model.trim() || null,
        is_default: isDefault,
      });
      setApiKey('');
      setNotice(t(result.created ? 'providers.addedNotice' : 'providers.savedNotice'));
      await onChanged();
    });
  };
  const runTest = () => {
    setNotice('');
    setTest(undefined);
    void action.run(async () => {
      setTest(await modelProvidersApi.test(kind));
      await onChanged();
    });
  };

  return (
    <form className="card stack" onSubmit={save} id={id('form')} data-provider={kind} aria-labelledby={id('title')}>
      <div className="page-header">
        <h2 id={id('title')}>{t(`providers.kind.${kind}`)}</h2>
        <span className="inline">
          {stored?.is_default ? <span className="badge badge-ok">{t('providers.defaultBadge')}</span> : null}
          <span className={stored ? 'badge badge-ok' : 'badge'} id={id('status')}>
            {stored ? t('providers.configured') : t('providers.notConfigured')}
          </span>
        </span>
      </div>
      <div className="grid-2">
        <PasswordField
          id={id('key')}
          label={t('providers.apiKey')}
          help={stored?.api_key_set ? t('providers.apiKeySetHelp') : t('providers.apiKeyHelp')}
          {...(stored?.api_key_set ? { placeholder: t('providers.apiKeySet') } : {})}
          autoComplete="off"
          required={false}
          value={apiKey}
          onChange={setApiKey}
        />
        <LabelledField
          id={id('base-url')}
          label={t('providers.baseUrl')}
          help={needsBase ? t('providers.baseUrlRequiredHelp') : t('providers.baseUrlHelp')}
        >
          {(control) => (
            <input
              {...control}
              type="url"
              value={baseUrl}
              spellCheck={false}
              autoComplete="off"
              placeholder={needsBase ? 'http://localhost:11434/v1' : ''}
              onChange={(e) => setBaseUrl(e.target.value)}
            />
          )}
        </LabelledField>
        <LabelledField id={id('model')} label={t('providers.defaultModel')} help={t('providers.defaultModelHelp')}>
          {(control) => (
            <>
              <input
                {...control}
                list={id('models')}
                value={model}
                spellCheck={false}
                autoComplete="off"
                onChange={(e) => setModel(e.target.value)}
              />
              <datalist id={id('models')}>
                {(stored?.models ?? []).map((m) => (
                  <option key={m} value={m} />
                ))}
              </datalist>
            </>
          )}
        </LabelledField>
        <label className="inline">
          <input
            type="checkbox"
            id={id('default')}
            checked={isDefault}
            onChange={(e) => setIsDefault(e.target.checked)}
          />
          {t('providers.makeDefault')}
        </label>
      </div>
      <ErrorBanner error={action.error} />
      <TestResult test={test} />
      <div className="inline">
        <button type="submit" id={id('save')} disabled={!canSave}>
          {stored ? t('providers.save') : t('providers.add')}
        </button>
        <button type="button" className="secondary" id={id('test')} disabled={!stored || action.busy} onClick={runTest}>
          {action.busy && !notice ? t('providers.testing') : t('providers.test')}
        </button>
        {stored ? (
          <ConfirmButton
            id={id('remove')}
            label={t('providers.remove')}
            question={t('providers.removeQuestion', { provider: t(`providers.kind.${kind}`) })}
            confirmLabel={t('providers.remove')}
            onConfirm={() =>
              action.run(async () => {
                await modelProvidersApi.remove(kind);
                setApiKey('');
                setTest(undefined);
                await onChanged();
              })
            }
          />
        ) : null}
      </div>
      <p className="banner-ok notice" role="status">
        {notice}
      </p>
    </form>
  );
}

/** What the connection test found: the models it listed, or why it failed (with its stable code). */
function TestResult({ test }: { test: ModelProviderTest | undefined }) {
  const { t } = useI18n();
  if (!test) return null;
  if (test.ok) {
    return (
      <div className="banner banner-ok" role="status" data-test-result="ok">
        <strong>{t('providers.testOk', { count: String(test.models.length), ms: String(test.latency_ms) })}</strong>{' '}
        {test.models.slice(0, 8).join(', ')}
        {test.models.length > 8 ? ' …' : ''}
      </div>
    );
  }
  return (
    <div className="banner banner-error" role="alert" data-test-result="failed">
      <strong>{t('providers.testFailed')}</strong> {test.error?.message}
      {test.error ? <code className="code">{test.error.code}</code> : null}
    </div>
  );
}
