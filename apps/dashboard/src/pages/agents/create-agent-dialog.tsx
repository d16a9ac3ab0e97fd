import type { AgentConfigDocument } from '@agentry/contract';
import { type DragEvent, useEffect, useRef, useState } from 'react';
import { blankConfig } from '../../config/agent-config.ts';
import { fileTextToConfig } from '../../config/config-sync.ts';
import { templates } from '../../config/templates.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { navigate } from '../../router/use-route.ts';
import { setPendingDraft } from '../editor/draft-store.ts';

/** Start a new agent: blank, from a bundled template, or from a JSON file (dropped or picked). */
export function CreateAgentDialog({ onClose }: { onClose: () => void }) {
  const { t } = useI18n();
  const ref = useRef<HTMLDialogElement>(null);
  const [dragging, setDragging] = useState(false);
  const [error, setError] = useState('');
  useEffect(() => {
    ref.current?.showModal();
  }, []);
  const open = (config: AgentConfigDocument) => {
    setPendingDraft(config);
    onClose();
    navigate({ name: 'new-agent' });
  };
  const readFile = async (file: File | undefined) => {
    if (!file) return;
    const parsed = fileTextToConfig(await file.text());
    if (parsed.ok) open(parsed.config);
    else setError(t('create.badFile', { name: file.name, message: parsed.error }));
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    readFile(event.dataTransfer.files[0]);
  };
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="create-title" onClose={onClose}>
      <header className="card-header">
        <h2 id="create-title">{t('create.title')}</h2>
        <button type="button" className="icon-button" aria-label={t('common.close')} onClick={onClose}>
          ×
        </button>
      </header>
      <div className="choice-grid">
        <button type="button" className="choice" id="create-blank" onClick={() => open(blankConfig())}>
          <strong>{t('create.blank')}</strong>
          <span className="muted">{t('create.blankHelp')}</span>
        </button>
        {templates.map((tpl) => (
          <button type="button" className="choice" key={tpl.id} data-template={tpl.id} onClick={() => open(tpl.config)}>
            <strong>{tpl.name}</strong>
            <span className="muted">{t('create.template', { file: `${tpl.id}.json` })}</span>
            <span>{tpl.description}</span>
          </button>
        ))}
      </div>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for mouse users; the file input inside serves the keyboard */}
      <div
        className={`dropzone${dragging ? ' dropzone-active' : ''}`}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p>{t('create.drop')}</p>
        <label className="button secondary">
          {t('create.pick')}
          <input
            type="file"
            accept="application/json,.json"
            className="sr-only"
            id="create-file"
            onChange={(e) => readFile(e.target.files?.[0])}
          />
        </label>
      </div>
      {error ? (
        <p className="issues" role="alert">
          {error}
        </p>
      ) : null}
    </dialog>
  );
}
