import { type FormEvent, useState } from 'react';
import { knowledgeApi } from '../../api/knowledge-api.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { LabelledField } from '../../components/labelled-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

const DEFAULT_PAGES = 20;
const MAX_PAGES = 500;

/** Whether `text` is an http(s) address the API will fetch. */
function isWebAddress(text: string): boolean {
  try {
    const url = new URL(text.trim());
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A web page, or a site crawled from it (same site, at most N pages; the server honours robots.txt). */
export function AddUrlForm({ baseId, onAdded }: { baseId: string; onAdded: () => Promise<void> }) {
  const { t } = useI18n();
  const [url, setUrl] = useState('');
  const [crawl, setCrawl] = useState(false);
  const [maxPages, setMaxPages] = useState(DEFAULT_PAGES);
  const [notice, setNotice] = useState('');
  const action = useAction();
  const bad = url.trim() !== '' && !isWebAddress(url);
  const pagesOk = Number.isInteger(maxPages) && maxPages >= 1 && maxPages <= MAX_PAGES;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setNotice('');
    void action.run(async () => {
      await knowledgeApi.addDocument(baseId, {
        url: url.trim(),
        ...(crawl ? { crawl: { max_pages: maxPages, same_site: true } } : {}),
      });
      setNotice(t(crawl ? 'knowledge.url.crawlQueued' : 'knowledge.url.queued', { url: url.trim() }));
      setUrl('');
      await onAdded();
    });
  };
  return (
    <form className="stack-tight" id="add-url-form" onSubmit={submit}>
      <LabelledField
        id="knowledge-url"
        label={t('knowledge.url.label')}
        help={t('knowledge.url.help')}
        invalid={bad}
        helpIsRule
      >
        {(control) => (
          <input
            {...control}
            type="url"
            inputMode="url"
            placeholder="https://"
            value={url}
            spellCheck={false}
            autoComplete="off"
            onChange={(e) => setUrl(e.target.value)}
          />
        )}
      </LabelledField>
      <label className="inline">
        <input type="checkbox" id="knowledge-crawl" checked={crawl} onChange={(e) => setCrawl(e.target.checked)} />
        {t('knowledge.url.crawl')}
      </label>
      {crawl ? (
        <LabelledField
          id="knowledge-max-pages"
          label={t('knowledge.url.maxPages')}
          help={t('knowledge.url.maxPagesHelp', { max: MAX_PAGES })}
          invalid={!pagesOk}
          helpIsRule
          className="narrow"
        >
          {(control) => (
            <input
              {...control}
              type="number"
              min={1}
              max={MAX_PAGES}
              step={1}
              value={Number.isNaN(maxPages) ? '' : maxPages}
              onChange={(e) => setMaxPages(e.target.valueAsNumber)}
            />
          )}
        </LabelledField>
      ) : null}
      <ErrorBanner error={action.error} />
      <div className="inline">
        <button
          type="submit"
          id="knowledge-url-add"
          disabled={action.busy || !url.trim() || bad || (crawl && !pagesOk)}
        >
          {crawl ? t('knowledge.url.addSite') : t('knowledge.url.addPage')}
        </button>
        <span className="banner-ok notice" role="status" id="knowledge-url-notice">
          {notice}
        </span>
      </div>
    </form>
  );
}
