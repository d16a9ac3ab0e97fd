import type { AgentConfigDocument } from '@agentry/contract';
import { PointerIssues } from '../../components/issue-list.tsx';
import { blankTool } from '../../config/agent-config.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';
import { ToolCard } from './tool-card.tsx';

export function ToolsForm({ config, edit }: { config: AgentConfigDocument; edit: Edit }) {
  const { t } = useI18n();
  const tools = config.tools ?? [];
  return (
    <div className="stack">
      <PointerIssues pointer="/tools" />
      {tools.length === 0 ? <p className="empty">{t('tools.empty')}</p> : null}
      {tools.map((tool, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: list position is the identity in the config
        <ToolCard key={i} config={config} tool={tool} index={i} edit={edit} />
      ))}
      <div>
        <button type="button" id="add-tool" onClick={() => edit(['tools', tools.length], blankTool(tools.length))}>
          + {t('tools.add')}
        </button>
      </div>
    </div>
  );
}
