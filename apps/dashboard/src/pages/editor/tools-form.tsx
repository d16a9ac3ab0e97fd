import type { AgentConfigDocument } from '@agentry/contract';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { PointerIssues } from '../../components/issue-list.tsx';
import { blankTool } from '../../config/agent-config.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';
import { ToolCard } from './tool-card.tsx';

// Importing is occasional: the dialog's code loads when it is opened.
const ImportToolsDialog = lazy(() => import('./import-tools-dialog.tsx'));

export function ToolsForm({ config, edit }: { config: AgentConfigDocument; edit: Edit }) {
  const { t } = useI18n();
  const tools = config.tools ?? [];
  const [importing, setImporting] = useState(false);
  const [notice, setNotice] = useState<string[]>([]);
  const importButton = useRef<HTMLButtonElement>(null);
  const wasImporting = useRef(false);
  // Back on the button once the modal dialog is gone (while it is open the page behind it is inert).
  useEffect(() => {
    if (wasImporting.current && !importing) importButton.current?.focus();
    wasImporting.current = importing;
  }, [importing]);
  const closeImport = () => setImporting(false);
  return (
    <div className="stack">
      <PointerIssues pointer="/tools" />
      {tools.length === 0 ? <p className="empty">{t('tools.empty')}</p> : null}
      {tools.map((tool, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: list position is the identity in the config
        <ToolCard key={i} config={config} tool={tool} index={i} edit={edit} />
      ))}
      {notice.length > 0 ? (
        <div className="banner banner-ok" role="status" id="import-notice">
          {notice.map((line) => (
            <p key={line}>{line}</p>
          ))}
        </div>
      ) : null}
      <div className="inline">
        <button type="button" id="add-tool" onClick={() => edit(['tools', tools.length], blankTool(tools.length))}>
          + {t('tools.add')}
        </button>
        <button
          type="button"
          className="secondary"
          id="import-tools"
          ref={importButton}
          onClick={() => {
            setNotice([]);
            setImporting(true);
          }}
        >
          {t('tools.import')}
        </button>
      </div>
      {importing ? (
        <Suspense fallback={<p role="status">{t('common.loading')}</p>}>
          <ImportToolsDialog
            existing={tools}
            onClose={closeImport}
            onAdded={(next, lines) => {
              edit(['tools'], next);
              setNotice(lines);
              closeImport();
            }}
          />
        </Suspense>
      ) : null}
    </div>
  );
}
