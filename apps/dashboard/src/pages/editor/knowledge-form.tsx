import type { AgentConfigDocument } from '@agentry/contract';
import { knowledgeApi } from '../../api/knowledge-api.ts';
import { Field } from '../../components/field.tsx';
import { PointerIssues } from '../../components/issue-list.tsx';
import { NumberField } from '../../components/text-field.tsx';
import { useLoad } from '../../components/use-load.ts';
import { fieldId } from '../../config/field-pointer.ts';
import {
  baseChoices,
  DEFAULT_MODE,
  DEFAULT_TOP_K,
  KNOWLEDGE_MODES,
  readKnowledge,
  TOP_K_MAX,
  TOP_K_MIN,
  toggleBase,
  withSetting,
} from '../../config/knowledge-config.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import { routeHref } from '../../router/routes.ts';
import type { Edit } from './edit.ts';

/**
 * The agent's knowledge: the bases it answers from (picked by name), whether it searches when it
 * needs to or before every answer, and how many sources a search gives. Writes `knowledge:
 * { bases, mode, top_k }`, or no block when no base is picked.
 */
export function KnowledgeForm({ config, edit }: { config: AgentConfigDocument; edit: Edit }) {
  const { t } = useI18n();
  // The editor works without the list (a key without knowledge:read, an older API): it says so.
  const bases = useLoad(() => knowledgeApi.list());
  const block = readKnowledge(config);
  const chosen = block?.bases ?? [];
  const choices = baseChoices(bases.data ?? [], chosen);
  const set = (next: unknown) => edit(['knowledge'], next);
  const off = chosen.length === 0;
  return (
    <section className="card" id="knowledge-section" aria-labelledby="knowledge-section-title">
      <h2 id="knowledge-section-title">{t('editor.knowledge.title')}</h2>
      <p className="muted">{t('editor.knowledge.intro')}</p>
      <PointerIssues pointer="/knowledge" />
      <Field pointer="/knowledge/bases" label={t('editor.knowledge.bases')}>
        {(control) => (
          <div className="checkbox-list" id={control.id}>
            {bases.error ? <span className="help">{t('editor.knowledge.listFailed')}</span> : null}
            {!bases.error && bases.data === undefined ? <span className="help">{t('common.loading')}</span> : null}
            {bases.data && choices.length === 0 ? (
              <span className="help">
                {t('editor.knowledge.none')} <a href={routeHref({ name: 'knowledge' })}>{t('editor.knowledge.open')}</a>
              </span>
            ) : null}
            {choices.map((choice) => (
              <label
                key={choice.ref}
                className={choice.missing ? 'missing' : ''}
                title={choice.missing ? t('editor.knowledge.missing') : undefined}
              >
                <input
                  type="checkbox"
                  data-base={choice.name}
                  checked={choice.chosen}
                  onChange={(e) =>
                    set(toggleBase(block, e.target.checked ? choice.name : choice.ref, e.target.checked))
                  }
                />{' '}
                {choice.name}
                {choice.missing ? ` (${t('editor.knowledge.missingShort')})` : null}
              </label>
            ))}
          </div>
        )}
      </Field>
      <fieldset
        className="knowledge-mode"
        id={fieldId('/knowledge/mode')}
        // The issue list's "go to field" focuses it.
        tabIndex={-1}
        disabled={off}
        aria-describedby={off ? 'knowledge-off-help' : undefined}
      >
        <legend>{t('editor.knowledge.mode')}</legend>
        {KNOWLEDGE_MODES.map((mode) => (
          <label key={mode} className="radio-choice">
            <input
              type="radio"
              className="radio-choice-input"
              name="knowledge-mode"
              id={`${fieldId('/knowledge/mode')}-${mode}`}
              value={mode}
              checked={(block?.mode ?? DEFAULT_MODE) === mode}
              onChange={() => set(withSetting(block, { mode }))}
            />
            <span>
              <strong>{t(`editor.knowledge.mode.${mode}`)}</strong>
              <span className="help">{t(`editor.knowledge.mode.${mode}Help`)}</span>
            </span>
          </label>
        ))}
        <PointerIssues pointer="/knowledge/mode" />
      </fieldset>
      <div className="knowledge-top-k">
        <NumberField
          pointer="/knowledge/top_k"
          label={t('editor.knowledge.topK')}
          help={t('editor.knowledge.topKHelp')}
          value={off ? undefined : (block?.top_k ?? DEFAULT_TOP_K)}
          min={TOP_K_MIN}
          max={TOP_K_MAX}
          step={1}
          onChange={(v) => {
            if (v !== undefined) set(withSetting(block, { top_k: v }));
          }}
        />
      </div>
      {off ? (
        <p className="help" id="knowledge-off-help">
          {t('editor.knowledge.offHelp')}
        </p>
      ) : null}
    </section>
  );
}
