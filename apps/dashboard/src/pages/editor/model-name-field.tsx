import type { ModelProvider } from '@agentry/contract/schemas';
import { modelProvidersApi } from '../../api/settings-api.ts';
import { Field } from '../../components/field.tsx';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

interface ModelNameFieldProps {
  /** The provider the config names (`undefined`: the tenant's default, else every configured one). */
  provider: string | undefined;
  value: string | undefined;
  onChange: (value: string) => void;
}

/**
 * The agent's model name: free text, with the models of the tenant's configured providers offered
 * (those of the chosen provider, else of the default one, else all), listed by the last connection
 * test or the provider's well-known names. A tenant without providers just types a name.
 *
 * @example
 * <ModelNameField provider={config.model?.provider} value={config.model?.name} onChange={setName} />
 */
export function ModelNameField({ provider, value, onChange }: ModelNameFieldProps) {
  const { t } = useI18n();
  // The editor works without the list (a viewer's key, an older API): a failed load offers nothing.
  const providers = useLoad(() => modelProvidersApi.list().catch(() => [] as ModelProvider[]));
  const offered = modelsFor(providers.data ?? [], provider);
  return (
    <Field
      pointer="/model/name"
      label={t('model.name')}
      {...(offered.length > 0 ? { help: t('model.suggestionsHelp') } : {})}
    >
      {(control) => (
        <>
          <input
            {...control}
            list="model-name-options"
            value={value ?? ''}
            placeholder={t('model.platformDefault')}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => onChange(e.target.value)}
          />
          <datalist id="model-name-options">
            {offered.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </>
      )}
    </Field>
  );
}

/** The models to offer for a provider choice, without duplicates. */
export function modelsFor(providers: readonly ModelProvider[], provider: string | undefined): string[] {
  const chosen = provider
    ? providers.filter((p) => p.provider === provider)
    : providers.some((p) => p.is_default)
      ? providers.filter((p) => p.is_default)
      : providers;
  return [...new Set(chosen.flatMap((p) => [...(p.default_model ? [p.default_model] : []), ...p.models]))];
}
