import type { AgentConfigDocument, PermissionRuleConfig } from '@agentry/contract';
import { ConditionEditor } from '../../components/condition-editor.tsx';
import { Field } from '../../components/field.tsx';
import { PointerIssues } from '../../components/issue-list.tsx';
import { useIssueCount } from '../../components/issues-context.tsx';
import { MoveButtons } from '../../components/move-buttons.tsx';
import { SelectField, TextField } from '../../components/text-field.tsx';
import { moveItem } from '../../config/config-edit.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';

type Rule = PermissionRuleConfig;
const ACTIONS = ['allow', 'ask', 'deny'] as const;

/**
 * The agent's permission rules: which tool calls run, wait for a person, or are refused. Tools are
 * picked from the agent's own (or typed as a pattern with *); a rule's condition is built from
 * simple "argument operator value" rows (`ConditionEditor`), and only a `when` those cannot
 * express is shown as JSON.
 */
export function PermissionsForm({ config, edit }: { config: AgentConfigDocument; edit: Edit }) {
  const { t } = useI18n();
  const rules = config.permissions ?? [];
  const options = toolOptions(config);
  const setRules = (next: Rule[]) => edit(['permissions'], next.length > 0 ? next : undefined);
  return (
    <section className="card" aria-labelledby="permissions-title">
      <h2 id="permissions-title">{t('permissions.title')}</h2>
      <p className="help">{t('permissions.help')}</p>
      <PointerIssues pointer="/permissions" />
      <datalist id="permission-tools">
        {options.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      {rules.map((rule, i) => (
        <RuleRow
          // biome-ignore lint/suspicious/noArrayIndexKey: list position is the identity in the config
          key={i}
          config={config}
          rule={rule}
          index={i}
          count={rules.length}
          edit={edit}
          move={(to) => setRules(moveItem(rules, i, to))}
          remove={() => setRules(rules.filter((_, j) => j !== i))}
        />
      ))}
      <button
        type="button"
        className="secondary small"
        id="add-permission"
        onClick={() => edit(['permissions', rules.length], { tool: options[0] ?? '*', action: 'ask' })}
      >
        + {t('permissions.add')}
      </button>
    </section>
  );
}

interface RuleRowProps {
  config: AgentConfigDocument;
  rule: Rule;
  index: number;
  count: number;
  edit: Edit;
  move: (to: number) => void;
  remove: () => void;
}

function RuleRow({ config, rule, index, count, edit, move, remove }: RuleRowProps) {
  const { t } = useI18n();
  const base = `/permissions/${index}`;
  const issues = useIssueCount(base);
  const set = (key: keyof Rule, value: unknown) => edit(['permissions', index, key], value);
  return (
    <section
      className={`row-card${issues ? ' card-invalid' : ''}`}
      aria-label={t('permissions.rule', { n: index + 1 })}
    >
      <div className="card-header">
        <strong>{t('permissions.rule', { n: index + 1 })}</strong>
        <div className="inline">
          <MoveButtons first={index === 0} last={index === count - 1} onMove={(step) => move(index + step)} />
          <button type="button" className="secondary small" onClick={remove}>
            {t('common.remove')}
          </button>
        </div>
      </div>
      <PointerIssues pointer={base} />
      <div className="grid-2">
        <Field pointer={`${base}/tool`} label={t('permissions.tool')} help={t('permissions.toolHelp')}>
          {(control) => (
            <input
              {...control}
              list="permission-tools"
              value={rule.tool}
              onChange={(e) => set('tool', e.target.value)}
            />
          )}
        </Field>
        <SelectField
          pointer={`${base}/action`}
          label={t('permissions.action')}
          value={rule.action}
          options={ACTIONS.map((a) => ({ value: a, label: t(`permissions.action.${a}`) }))}
          onChange={(v) => {
            set('action', v);
            if (v !== 'deny') set('message', undefined);
          }}
        />
      </div>
      {rule.action === 'deny' ? (
        <TextField
          pointer={`${base}/message`}
          label={t('permissions.message')}
          help={t('permissions.messageHelp')}
          value={rule.message}
          onChange={(v) => set('message', v || undefined)}
        />
      ) : null}
      <ConditionEditor
        pointer={`${base}/when`}
        value={rule.when}
        argumentNames={argumentNames(config, rule.tool)}
        textArguments={textArgumentNames(config, rule.tool)}
        onChange={(when) => set('when', when)}
        newOperator=">="
        labels={{
          legend: t('permissions.when'),
          empty: t('permissions.always'),
          help: t('permissions.whenHelp'),
          json: t('permissions.whenJson'),
          jsonHelp: t('permissions.whenJsonHelp'),
          jsonInvalid: t('permissions.jsonInvalid'),
        }}
      />
    </section>
  );
}

/** What the tool box offers: the agent's tools, skills and flows, each MCP server's tools as a pattern, and `*`. */
export function toolOptions(config: AgentConfigDocument): string[] {
  const names = [
    ...(config.tools ?? []).map((tool) => tool.name),
    ...(config.skills ?? []).map((skill) => `skill__${skill.name}`),
    ...(config.mcp_servers ?? []).map((server) => `${server.name}__*`),
    ...(config.flows ?? []).map((flow) => `flow__${flow.name}`),
    '*',
  ];
  return [...new Set(names.filter(Boolean))];
}

/** Argument names to suggest: the parameters of the tool named exactly (a rule's, a test's). */
export function argumentNames(config: AgentConfigDocument, toolName: string): string[] {
  const tool = (config.tools ?? []).find((t) => t.name === toolName);
  if (tool) return Object.keys(tool.parameters?.properties ?? {});
  return toolName.startsWith('skill__') ? ['input'] : [];
}

/** The parameters of the tool named exactly that it declares as text (a skill's `input` is). */
export function textArgumentNames(config: AgentConfigDocument, toolName: string): string[] {
  const tool = (config.tools ?? []).find((t) => t.name === toolName);
  if (!tool) return toolName.startsWith('skill__') ? ['input'] : [];
  return Object.entries(tool.parameters?.properties ?? {})
    .filter(([, schema]) => (schema as { type?: unknown } | undefined)?.type === 'string')
    .map(([name]) => name);
}
