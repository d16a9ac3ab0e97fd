import { type FormEvent, useState } from 'react';
import { secretsApi } from '../../api/settings-api.ts';
import { ConfirmButton } from '../../components/confirm-button.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { ListTable } from '../../components/list-table.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { PasswordField } from '../../components/password-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useLoad } from '../../components/use-load.ts';
import { formatDate } from '../../i18n/format-date.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Write-only secrets: names and dates come back, values never do. */
export function SecretsPanel() {
  const { t, lang } = useI18n();
  const secrets = useLoad(() => secretsApi.list());
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [notice, setNotice] = useState('');
  const action = useAction();
  const badName = name.length > 0 && !NAME.test(name);
  const exists = secrets.data?.some((s) => s.name === name) ?? false;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setNotice('');
    void action.run(async () => {
      const result = await secretsApi.put(name, value);
      setNotice(t(result.created ? 'secrets.createdNotice' : 'secrets.replacedNotice', { name }));
      setName('');
      setValue('');
      await secrets.reload();
    });
  };
  return (
    <div className="stack">
      <p className="muted">{t('secrets.intro')}</p>
      <form className="card" onSubmit={submit} aria-labelledby="secret-form-title" id="secret-form">
        <h2 id="secret-form-title">{t('secrets.setTitle')}</h2>
        <div className="grid-2">
          <LabelledField
            id="secret-name"
            label={t('secrets.name')}
            help={t('secrets.nameHelp')}
            invalid={badName}
            helpIsRule
          >
            {(control) => (
              <input
                {...control}
                value={name}
                spellCheck={false}
                autoComplete="off"
                onChange={(e) => setName(e.target.value)}
              />
            )}
          </LabelledField>
          <PasswordField
            id="secret-value"
            label={t('secrets.value')}
            help={t('secrets.valueHelp')}
            autoComplete="new-password"
            required={false}
            value={value}
            onChange={setValue}
          />
        </div>
        <ErrorBanner error={action.error} />
        <button type="submit" id="secret-save" disabled={action.busy || !name || badName || !value}>
          {exists ? t('secrets.replace') : t('secrets.save')}
        </button>
        <p className="banner-ok notice" role="status">
          {notice}
        </p>
      </form>
      <Loaded data={secrets.data} error={secrets.error} empty={t('secrets.empty')}>
        {(rows) => (
          <ListTable
            id="secrets-table"
            headers={[t('secrets.name'), t('secrets.placeholder'), t('keys.created'), t('secrets.updated')]}
            actions
          >
            {rows.map((s) => (
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
                    onConfirm={() =>
                      action.run(async () => {
                        await secretsApi.remove(s.name);
                        await secrets.reload();
                      })
                    }
                  />
                </td>
              </tr>
            ))}
          </ListTable>
        )}
      </Loaded>
    </div>
  );
}
