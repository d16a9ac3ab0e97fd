import { type FormEvent, useState } from 'react';
import { knowledgeApi } from '../../api/knowledge-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

type TextFormat = 'text' | 'markdown';

/** Text typed or pasted, with a title (what citations show), as plain text or Markdown. */
export function PasteTextForm({ baseId, onAdded }: { baseId: string; onAdded: () => Promise<void> }) {
  const { t } = useI18n();
  const [title, setTitle] = useState('');
  const [text, setText] = useState('');
  const [format, setFormat] = useState<TextFormat>('text');
  const [notice, setNotice] = useState('');
  const action = useAction();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setNotice('');
    void action.run(async () => {
      await knowledgeApi.addDocument(baseId, { title: title.trim(), text, format });
      setNotice(t('knowledge.text.queued', { title: title.trim() }));
      setTitle('');
      setText('');
      await onAdded();
    });
  };
  return (
    <form className="stack-tight" id="paste-text-form" onSubmit={submit}>
      <div className="grid-2">
        <LabelledField id="knowledge-text-title" label={t('knowledge.text.title')} help={t('knowledge.text.titleHelp')}>
          {(control) => (
            <input
              {...control}
              value={title}
              maxLength={300}
              autoComplete="off"
              onChange={(e) => setTitle(e.target.value)}
            />
          )}
        </LabelledField>
        <LabelledField id="knowledge-text-format" label={t('knowledge.text.format')}>
          {(control) => (
            <select {...control} value={format} onChange={(e) => setFormat(e.target.value as TextFormat)}>
              <option value="text">{t('knowledge.text.plain')}</option>
              <option value="markdown">{t('knowledge.text.markdown')}</option>
            </select>
          )}
        </LabelledField>
      </div>
      <LabelledField id="knowledge-text" label={t('knowledge.text.text')}>
        {(control) => <textarea {...control} rows={8} value={text} onChange={(e) => setText(e.target.value)} />}
      </LabelledField>
      <ErrorBanner error={action.error} />
      <div className="inline">
        <button type="submit" id="knowledge-text-add" disabled={action.busy || !title.trim() || !text.trim()}>
          {t('knowledge.text.add')}
        </button>
        <span className="banner-ok notice" role="status" id="knowledge-text-notice">
          {notice}
        </span>
      </div>
    </form>
  );
}
