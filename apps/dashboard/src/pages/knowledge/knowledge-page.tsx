import { type FormEvent, useState } from 'react';
import { knowledgeApi } from '../../api/knowledge-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { ListTable } from '../../components/list-table.tsx';
import { Loaded } from '../../components/loaded.tsx';
import { useAction } from '../../components/use-action.ts';
import { useCanWrite } from '../../components/use-can-write.ts';
import { useLoad } from '../../components/use-load.ts';
import { formatBytes } from '../../config/knowledge-files.ts';
import { formatDate } from '../../i18n/format-date.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import { navigate } from '../../router/use-route.ts';

/** The tenant's knowledge bases: what agents answer from, with sources (lazy-loaded chunk). */
export default function KnowledgePage() {
  const { t, lang } = useI18n();
  const canWrite = useCanWrite();
  const bases = useLoad(() => knowledgeApi.list());
  const [creating, setCreating] = useState(false);
  return (
    <div className="stack knowledge">
      <header className="page-header">
        <div>
          <h1>{t('knowledge.title')}</h1>
          <p className="muted">{t('knowledge.intro')}</p>
        </div>
        {canWrite && !creating ? (
          <button type="button" id="new-knowledge-base" onClick={() => setCreating(true)}>
            + {t('knowledge.new')}
          </button>
        ) : null}
      </header>
      {creating ? <CreateBaseForm onCancel={() => setCreating(false)} /> : null}
      <Loaded data={bases.data} error={bases.error} empty={t('knowledge.empty')}>
        {(rows) => (
          <ListTable
            id="knowledge-bases-table"
            headers={[
              t('knowledge.name'),
              t('knowledge.documents'),
              t('knowledge.chunks'),
              t('knowledge.size'),
              t('knowledge.updated'),
            ]}
          >
            {rows.map((base) => (
              <tr key={base.id} data-base={base.name}>
                <td>
                  <a href={routeHref({ name: 'knowledge-base', id: base.id })}>{base.name}</a>
                  {base.description ? <p className="help">{base.description}</p> : null}
                </td>
                <td>{base.document_count}</td>
                <td>{base.chunk_count}</td>
                <td className="nowrap">{formatBytes(base.bytes)}</td>
                <td>{formatDate(lang, base.updated_at)}</td>
              </tr>
            ))}
          </ListTable>
        )}
      </Loaded>
    </div>
  );
}

/** Name and description of a new base; made, it opens so documents can be added at once. */
function CreateBaseForm({ onCancel }: { onCancel: () => void }) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      const base = await knowledgeApi.create({
        name: name.trim(),
        ...(description.trim() ? { description: description.trim() } : {}),
      });
      navigate({ name: 'knowledge-base', id: base.id });
    });
  };
  return (
    <form className="card" id="create-knowledge-base" aria-labelledby="create-knowledge-title" onSubmit={submit}>
      <h2 id="create-knowledge-title">{t('knowledge.createTitle')}</h2>
      <LabelledField id="knowledge-name" label={t('knowledge.name')} help={t('knowledge.nameHelp')}>
        {(control) => (
          <input
            {...control}
            value={name}
            maxLength={120}
            required
            autoComplete="off"
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </LabelledField>
      <LabelledField
        id="knowledge-description"
        label={t('knowledge.description')}
        help={t('knowledge.descriptionHelp')}
      >
        {(control) => (
          <textarea
            {...control}
            rows={2}
            maxLength={2000}
            value={description}
            onChange={(e) => setDescription(e.target.value)}
          />
        )}
      </LabelledField>
      <ErrorBanner error={action.error} />
      <div className="inline">
        <button type="submit" id="create-knowledge-submit" disabled={action.busy || !name.trim()}>
          {t('knowledge.create')}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
