import type { ToolConfig } from '@agentry/contract';
import type { ToolImportResult } from '@agentry/contract/schemas';
import { useEffect, useRef, useState } from 'react';
import { secretsApi } from '../../api/settings-api.ts';
import { toolsApi } from '../../api/tools-api.ts';
import { LabelledField } from '../../components/labelled-field.tsx';
import { PasswordField } from '../../components/password-field.tsx';
import { Tabs } from '../../components/tabs.tsx';
import { useAction } from '../../components/use-action.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import {
  describeImportFailure,
  type ImportSource,
  importBody,
  MAX_DOCUMENT_BYTES,
  mergeImportedTools,
  missingSecrets,
  secretsToStore,
  selectionChanged,
  sourceReady,
} from './import-tools.ts';

interface ImportToolsDialogProps {
  /** The draft's tools now: imported names that clash with them get a suffix. */
  existing: readonly ToolConfig[];
  /** The draft's new tool list, and what to tell the user about it. */
  onAdded: (tools: ToolConfig[], notice: string[]) => void;
  onClose: () => void;
}

type Kind = 'openapi' | 'curl';

/**
 * "Import tools": an OpenAPI/Swagger document (pasted, uploaded or at a URL) or a cURL command
 * becomes HTTP tools in the draft, after the user picked the operations and typed the secrets they
 * need. A modal `<dialog>`: focus stays inside, Escape closes. Loaded lazily from the tools tab.
 */
export default function ImportToolsDialog({ existing, onAdded, onClose }: ImportToolsDialogProps) {
  const { t } = useI18n();
  const ref = useRef<HTMLDialogElement>(null);
  const reviewHeading = useRef<HTMLHeadingElement>(null);
  // A call still running when the dialog closes is abandoned (a new controller per mount: StrictMode mounts twice).
  const abort = useRef<AbortController>(new AbortController());
  const [kind, setKind] = useState<Kind>('openapi');
  const [from, setFrom] = useState<'text' | 'url'>('text');
  const [text, setText] = useState('');
  const [url, setUrl] = useState('');
  const [command, setCommand] = useState('');
  const [fileNote, setFileNote] = useState('');
  const [read, setRead] = useState<{ source: ImportSource; result: ToolImportResult }>();
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [values, setValues] = useState<Record<string, string>>({});
  const [known, setKnown] = useState<Set<string>>();
  const [localError, setLocalError] = useState<unknown>();
  const action = useAction();

  useEffect(() => {
    const dialog = ref.current;
    dialog?.showModal();
    dialog?.querySelector<HTMLElement>('textarea')?.focus();
    const controller = new AbortController();
    abort.current = controller;
    return () => controller.abort();
  }, []);
  useEffect(() => {
    if (read) reviewHeading.current?.focus();
  }, [read]);

  const source: ImportSource =
    kind === 'curl' ? { kind, command } : from === 'url' ? { kind, from, url } : { kind, from, text };

  const readSource = () => {
    setLocalError(undefined);
    void action.run(async () => {
      const result = await toolsApi.import(importBody(source), abort.current.signal);
      if (result.secrets.length > 0) {
        // Who may not list secrets still gets the fields; every one then reads as not set yet.
        const list = await secretsApi.list().catch(() => undefined);
        setKnown(new Set(list?.map((s) => s.name)));
      }
      setPicked(new Set(result.operations.filter((op) => op.selected).map((op) => op.id)));
      setRead({ source, result });
    });
  };

  const add = () => {
    if (!read) return;
    void action.run(async () => {
      let result = read.result;
      if (selectionChanged(result.operations, picked)) {
        const ids = result.operations.filter((op) => picked.has(op.id)).map((op) => op.id);
        result = await toolsApi.import(importBody(read.source, ids), abort.current.signal);
      }
      for (const secret of secretsToStore(result.secrets, values)) await secretsApi.put(secret.name, secret.value);
      const merged = mergeImportedTools(existing, result.tools);
      const notice = [t('importTools.addedNotice', { n: merged.added.length, names: merged.added.join(', ') })];
      if (merged.renamed.length > 0)
        notice.push(
          t('importTools.renamedNotice', { list: merged.renamed.map((r) => `${r.from} → ${r.to}`).join(', ') }),
        );
      const missing = missingSecrets(result.secrets, values, known ?? new Set());
      if (missing.length > 0) notice.push(t('importTools.missingNotice', { names: missing.join(', ') }));
      onAdded(merged.tools, notice);
    });
  };

  const loadFile = async (file: File | undefined) => {
    if (!file) return;
    setLocalError(undefined);
    if (file.size > MAX_DOCUMENT_BYTES) {
      setLocalError(t('importTools.error.fileTooLarge', { name: file.name }));
      return;
    }
    setText(await file.text());
    setFileNote(t('importTools.fileLoaded', { name: file.name }));
  };

  const operations = read?.result.operations ?? [];
  const count = operations.filter((op) => picked.has(op.id)).length;
  const toggle = (id: string, on: boolean) =>
    setPicked((prev) => {
      const next = new Set(prev);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <dialog
      ref={ref}
      className="dialog dialog-wide"
      id="import-tools-dialog"
      aria-labelledby="import-title"
      onClose={onClose}
    >
      <header className="card-header">
        <h2 id="import-title">{t('importTools.title')}</h2>
        <button type="button" className="icon-button" aria-label={t('common.close')} onClick={onClose}>
          ×
        </button>
      </header>
      {read ? (
        <div className="stack import-review">
          <div className="card-header">
            <h3 id="import-review-title" ref={reviewHeading} tabIndex={-1}>
              {t('importTools.pickTitle', { n: count, total: operations.length })}
            </h3>
            <div className="inline">
              <button
                type="button"
                className="secondary small"
                id="import-select-all"
                onClick={() => setPicked(new Set(operations.map((op) => op.id)))}
              >
                {t('importTools.selectAll')}
              </button>
              <button
                type="button"
                className="secondary small"
                id="import-select-none"
                onClick={() => setPicked(new Set())}
              >
                {t('importTools.selectNone')}
              </button>
            </div>
          </div>
          <div className="import-operations">
            <table className="list" id="import-operations" aria-labelledby="import-review-title">
              <thead>
                <tr>
                  <th scope="col">
                    <span className="sr-only">{t('importTools.import')}</span>
                  </th>
                  <th scope="col">{t('importTools.method')}</th>
                  <th scope="col">{t('importTools.path')}</th>
                  <th scope="col">{t('importTools.summary')}</th>
                </tr>
              </thead>
              <tbody>
                {operations.map((op, i) => (
                  <tr key={op.id} data-operation={op.id}>
                    <td>
                      <input
                        type="checkbox"
                        id={`import-op-${i}`}
                        checked={picked.has(op.id)}
                        aria-labelledby={`import-op-${i}-path import-op-${i}-summary`}
                        onChange={(e) => toggle(op.id, e.target.checked)}
                      />
                    </td>
                    <td>
                      <label htmlFor={`import-op-${i}`} className={`op-method op-method-${op.method.toLowerCase()}`}>
                        {op.method}
                      </label>
                    </td>
                    <td>
                      <code id={`import-op-${i}-path`}>{op.path}</code>
                    </td>
                    <td id={`import-op-${i}-summary`}>{op.summary || op.id}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {read.result.notes.length > 0 ? (
            <section className="banner import-notes" aria-labelledby="import-notes-title" id="import-notes">
              <h3 id="import-notes-title">{t('importTools.notesTitle')}</h3>
              <ul>
                {read.result.notes.map((note, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: notes are shown as given, in order
                  <li key={i}>
                    <code>{note.tool}</code>: {note.message}
                  </li>
                ))}
              </ul>
            </section>
          ) : null}
          {read.result.secrets.length > 0 ? (
            <section aria-labelledby="import-secrets-title" id="import-secrets">
              <h3 id="import-secrets-title">{t('importTools.secretsTitle')}</h3>
              <p className="help">{t('importTools.secretsHelp')}</p>
              <div className="grid-2">
                {read.result.secrets.map((secret) => (
                  <PasswordField
                    key={secret.name}
                    id={`import-secret-${secret.name}`}
                    label={secret.name}
                    help={`${secret.description}${known?.has(secret.name) ? ` ${t('importTools.secretExists')}` : ''}`}
                    autoComplete="new-password"
                    required={false}
                    value={values[secret.name] ?? ''}
                    onChange={(value) => setValues((prev) => ({ ...prev, [secret.name]: value }))}
                  />
                ))}
              </div>
            </section>
          ) : null}
          <ImportError error={action.error} />
          <footer className="dialog-footer">
            <button type="button" className="secondary" id="import-back" onClick={() => setRead(undefined)}>
              {t('importTools.back')}
            </button>
            <button type="button" id="import-add" disabled={action.busy || count === 0} onClick={add}>
              {action.busy ? t('importTools.adding') : t('importTools.add', { n: count })}
            </button>
          </footer>
        </div>
      ) : (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            if (sourceReady(source)) readSource();
          }}
        >
          <p className="muted">{t('importTools.intro')}</p>
          <Tabs
            label={t('importTools.sourceLabel')}
            tabs={[
              { id: 'openapi', label: t('importTools.openapi') },
              { id: 'curl', label: t('importTools.curl') },
            ]}
            active={kind}
            onSelect={setKind}
          />
          <div role="tabpanel" id={`panel-${kind}`} aria-labelledby={`tab-${kind}`}>
            {kind === 'openapi' ? (
              <>
                <fieldset className="inline wrap">
                  <legend>{t('importTools.where')}</legend>
                  <label className="inline">
                    <input
                      type="radio"
                      name="import-from"
                      id="import-from-text"
                      checked={from === 'text'}
                      onChange={() => setFrom('text')}
                    />
                    {t('importTools.fromText')}
                  </label>
                  <label className="inline">
                    <input
                      type="radio"
                      name="import-from"
                      id="import-from-url"
                      checked={from === 'url'}
                      onChange={() => setFrom('url')}
                    />
                    {t('importTools.fromUrl')}
                  </label>
                </fieldset>
                {from === 'text' ? (
                  <>
                    <LabelledField
                      id="import-document"
                      label={t('importTools.document')}
                      help={t('importTools.documentHelp')}
                    >
                      {(control) => (
                        <textarea
                          {...control}
                          className="import-source"
                          rows={9}
                          spellCheck={false}
                          value={text}
                          onChange={(e) => {
                            setText(e.target.value);
                            setFileNote('');
                          }}
                        />
                      )}
                    </LabelledField>
                    <div className="inline wrap">
                      <label className="button secondary">
                        {t('importTools.upload')}
                        <input
                          type="file"
                          accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml"
                          className="sr-only"
                          id="import-file"
                          onChange={(e) => void loadFile(e.target.files?.[0])}
                        />
                      </label>
                      {fileNote ? (
                        <span className="muted" role="status">
                          {fileNote}
                        </span>
                      ) : null}
                    </div>
                  </>
                ) : (
                  <LabelledField id="import-url" label={t('importTools.url')} help={t('importTools.urlHelp')}>
                    {(control) => (
                      <input
                        {...control}
                        type="url"
                        inputMode="url"
                        spellCheck={false}
                        placeholder="https://api.example.com/openapi.json"
                        value={url}
                        onChange={(e) => setUrl(e.target.value)}
                      />
                    )}
                  </LabelledField>
                )}
              </>
            ) : (
              <LabelledField id="import-curl" label={t('importTools.command')} help={t('importTools.commandHelp')}>
                {(control) => (
                  <textarea
                    {...control}
                    className="import-source"
                    rows={6}
                    spellCheck={false}
                    placeholder="curl -X POST https://api.example.com/v1/orders -H 'Content-Type: application/json' -d '{&quot;item&quot;:&quot;x&quot;}'"
                    value={command}
                    onChange={(e) => setCommand(e.target.value)}
                  />
                )}
              </LabelledField>
            )}
          </div>
          <ImportError error={localError ?? action.error} />
          <footer className="dialog-footer">
            <button type="button" className="secondary" onClick={onClose}>
              {t('common.cancel')}
            </button>
            <button type="submit" id="import-read" disabled={action.busy || !sourceReady(source)}>
              {action.busy ? t('importTools.reading') : t('importTools.read')}
            </button>
          </footer>
        </form>
      )}
    </dialog>
  );
}

/** A failed read or add in plain words, with the API's own lines and code under it. */
function ImportError({ error }: { error: unknown }) {
  const { t } = useI18n();
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (error) box.current?.scrollIntoView({ block: 'nearest' });
  }, [error]);
  if (!error) return null;
  if (typeof error === 'string')
    return (
      <div className="banner banner-error" role="alert" id="import-error" ref={box}>
        {error}
      </div>
    );
  const failure = describeImportFailure(error);
  return (
    <div className="banner banner-error" role="alert" id="import-error" ref={box}>
      <strong>{t(failure.key, failure.vars)}</strong>
      {failure.details.length > 0 ? (
        <ul className="import-error-details">
          {failure.details.slice(0, 20).map((line, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the API's lines, in order
            <li key={i}>{line}</li>
          ))}
        </ul>
      ) : null}
      {failure.code ? <code className="code">{failure.code}</code> : null}
    </div>
  );
}
