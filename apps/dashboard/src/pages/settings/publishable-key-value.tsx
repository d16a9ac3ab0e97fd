import type { ApiKey } from '@agentry/contract/schemas';
import { CopyField } from '../../components/copy-field.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';

/** Whether the list shows this key's value on request: live publishable keys, to owners and editors. */
export function canShowKey(key: ApiKey): boolean {
  return key.kind === 'publishable' && !key.revoked_at && key.key !== undefined;
}

/**
 * A publishable key's value with a Copy button, or, for a key made before the API kept them, why it
 * cannot be shown. Publishable keys are public (every page with the widget has one), so owners and
 * editors may see them again; secret keys never come back from the API.
 */
export function PublishableKeyValue({ apiKey, id }: { apiKey: ApiKey; id: string }) {
  const { t } = useI18n();
  if (!apiKey.key) {
    return (
      <p className="help" id={`${id}-not-kept`} role="status">
        {t('keys.notKept')}
      </p>
    );
  }
  return <CopyField id={id} label={t('keys.valueOf', { prefix: apiKey.prefix })} value={apiKey.key} />;
}

/** The Show/Hide toggle for {@link PublishableKeyValue}. */
export function ShowKeyButton({ id, shown, onToggle }: { id: string; shown: boolean; onToggle: () => void }) {
  const { t } = useI18n();
  return (
    <button type="button" className="secondary small" id={id} aria-expanded={shown} onClick={onToggle}>
      {t(shown ? 'keys.hide' : 'keys.show')}
    </button>
  );
}
