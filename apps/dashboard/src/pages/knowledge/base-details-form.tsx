import type { KnowledgeBase } from '@agentry/contract/schemas';
import { type FormEvent, useState } from 'react';
import { knowledgeApi } from '../../api/knowledge-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

/** Rename and describe a base (agents that name it by its old name must be updated: the help says so). */
export function BaseDetailsForm({
  base,
  onSaved,
  onCancel,
}: {
  base: KnowledgeBase;
  onSaved: (base: KnowledgeBase) => void;
  onCancel: () => void;
}) {
  const { t } = useI18n();
  const [name, setName] = useState(base.name);
  const [description, setDescription] = useState(base.description ?? '');
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void action.run(async () => {
      onSaved(
        await knowledgeApi.update(base.id, {
          name: name.trim(),
          description: description.trim() ? description.trim() : null,
        }),
      );
    });
  };
  return (
    <form className="card" id="knowledge-base-details" aria-labelledby="details-title" onSubmit={submit}>
      <h2 id="details-title">{t('knowledge.editTitle')}</h2>
      <LabelledField
        id="knowledge-edit-name"
        label={t('knowledge.name')}
        help={name.trim() !== base.name ? t('knowledge.renameHelp') : undefined}
      >
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
      <LabelledField id="knowledge-edit-description" label={t('knowledge.description')}>
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
        <button type="submit" id="knowledge-edit-save" disabled={action.busy || !name.trim()}>
          {t('knowledge.save')}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          {t('common.cancel')}
        </button>
      </div>
    </form>
  );
}
