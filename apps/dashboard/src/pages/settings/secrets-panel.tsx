import { type FormEvent, useState } from 'react';
import { secretsApi } from '../../api/settings-api.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { useLoad } from '../../components/use-load.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { formatDate } from './format.ts';

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Write-only secrets: names and dates come back, values never do. */
export function SecretsPanel() {
  const { t, lang } = useI18n();
  const secrets = useLoad(() => secretsApi.list());
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [notice, setNotice] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const badName = name.length > 0 && !NAME.test(name);
  const exists = secrets.data?.some((s) => s.name === name) ?? false;
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    setNotice('');
    try {
      const result = await secretsApi.put(name, value);
      setNotice(t(result.created ? 'secrets.createdNotice' : 'secrets.replacedNotice', { name }));
      setName('');
      setValue('');
      await secrets.reload();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="stack">
      <p className="muted">{t('secrets.intro')}</p>
      <form className="card" onSubmit={submit} aria-labelledby="secret-form-title" id="secret-form">
        <h2 id="secret-form-title">{t('secrets.setTitle')}</h2>
        <div className="grid-2">
          <div className={`field${badName ? ' field-invalid' : ''}`}>
            <label htmlFor="secret-name">{t('secrets.name')}</label>
            <input
              id="secret-name"
              value={name}
              spellCheck={false}
              autoComplete="off"
              aria-invalid={badName}
              aria-describedby="secret-name-help"
              onChange={(e) => setName(e.target.value)}
            />
            <p className={badName ? 'issues' : 'help'} id="secret-name-help">
              {t('secrets.nameHelp')}
            </p>
          </div>
          <div className="field">
            <label htmlFor="secret-value">{t('secrets.value')}</label>
            <input
              id="secret-value"
              type="password"
              autoComplete="new-password"
              value={value}
              onChange={(e) => setValue(e.target.value)}
            />
            <p className="help">{t('secrets.valueHelp')}</p>
          </div>
        </div>
        <ErrorBanner error={error} />
        <button type="submit" id="secret-save" disabled={busy || !name || badName || !value}>
          {exists ? t('secrets.replace') : t('secrets.save')}
        </button>
        <p className="banner-ok notice" role="status">
          {notice}
        </p>
      </form>
      <ErrorBanner error={secrets.error} />
      {secrets.data === undefined && !secrets.error ? <p role="status">{t('common.loading')}</p> : null}
      {secrets.data?.length === 0 ? <p className="empty">{t('secrets.empty')}</p> : null}
      {secrets.data && secrets.data.length > 0 ? (
        <table className="list" id="secrets-table">
          <thead>
            <tr>
              <th scope="col">{t('secrets.name')}</th>
              <th scope="col">{t('secrets.placeholder')}</th>
              <th scope="col">{t('keys.created')}</th>
              <th scope="col">{t('secrets.updated')}</th>
              <th scope="col">
                <span className="sr-only">{t('common.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {secrets.data.map((s) => (
              <tr key={s.name} data-secret={s.name}>
                <td>
                  <code>{s.name}</code>
                </td>
                <td>
                  <span className="chip chip-secret">{`{{secrets.${s.name}}}`}</span>
                </td>
                <td>{formatDate(lang, s.created_at)}</td>
                <td>{formatDate(lang, s.updated_at)}</td>
                <td className="inline">
                  <button type="button" className="secondary small" onClick={() => setName(s.name)}>
                    {t('secrets.replace')}
                  </button>
                  <ConfirmButton
                    id={`delete-secret-${s.name}`}
                    label={t('common.delete')}
                    question={t('secrets.deleteQuestion', { name: s.name })}
                    confirmLabel={t('common.delete')}
                    onConfirm={async () => {
                      setError(undefined);
                      try {
                        await secretsApi.remove(s.name);
                        await secrets.reload();
                      } catch (e) {
                        setError(e);
                      }
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
