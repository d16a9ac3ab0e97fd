import type { Agent } from '@agentry/contract/schemas';
import { apiBase } from '../../api/api-base.ts';
import { CopyField } from '../../components/copy-field.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { embedSnippet, previewDocument } from './widget-theme.ts';

interface WidgetPreviewProps {
  agent: Agent;
  scriptOrigin: string;
  previewKey: string;
  onPreviewKey: (key: string) => void;
  onReload: () => void;
}

/**
 * The real /widget.js in an iframe, with a publishable key of this agent (kept for this tab only;
 * the key must allow this dashboard's origin), and the embed code to copy.
 */
export function WidgetPreview({ agent, scriptOrigin, previewKey, onPreviewKey, onReload }: WidgetPreviewProps) {
  const { t, lang } = useI18n();
  const usable = /^pk_[A-Za-z0-9_-]{8,}$/.test(previewKey);
  return (
    <>
      <section className="card" aria-labelledby="preview-title">
        <div className="card-header">
          <h2 id="preview-title">{t('widget.previewTitle')}</h2>
          <button type="button" className="secondary small" id="widget-reload" onClick={onReload}>
            {t('widget.reload')}
          </button>
        </div>
        <LabelledField
          id="widget-preview-key"
          label={t('widget.previewKey')}
          help={t('widget.previewKeyHelp', { origin: window.location.origin })}
        >
          {(control) => (
            <input
              {...control}
              value={previewKey}
              spellCheck={false}
              placeholder="pk_…"
              onChange={(e) => onPreviewKey(e.target.value.trim())}
            />
          )}
        </LabelledField>
        {agent.published_version === null ? (
          <p className="banner">{t('widget.notPublished')}</p>
        ) : usable ? (
          <iframe
            className="widget-preview"
            id="widget-preview"
            title={t('widget.previewFrame', { agent: agent.name })}
            srcDoc={previewDocument({
              scriptOrigin,
              apiBase: apiBase() || window.location.origin,
              key: previewKey,
              agentId: agent.id,
              lang,
              text: t('widget.previewPage'),
            })}
          />
        ) : (
          <p className="empty">{t('widget.previewNeedsKey')}</p>
        )}
      </section>
      <section className="card" aria-labelledby="snippet-title">
        <h2 id="snippet-title">{t('widget.snippetTitle')}</h2>
        <p className="help">{t('widget.snippetHelp')}</p>
        <CopyField
          id="widget-snippet"
          label={t('widget.snippet')}
          multiline
          value={embedSnippet(scriptOrigin, usable ? previewKey : 'pk_…', agent.id)}
        />
      </section>
    </>
  );
}
