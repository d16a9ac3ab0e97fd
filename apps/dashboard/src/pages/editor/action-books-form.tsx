import type { ActionBook, AgentConfigDocument } from '@agentry/contract';
import { Field } from '../../components/field.tsx';
import { PointerIssues } from '../../components/issue-list.tsx';
import { useIssueCount } from '../../components/issues-context.tsx';
import { MoveButtons } from '../../components/move-buttons.tsx';
import { TextField } from '../../components/text-field.tsx';
import { blankActionBook } from '../../config/agent-config.ts';
import { moveItem } from '../../config/config-edit.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';
import type { Edit } from './edit.ts';

/** "When … then …" rules as cards, each with the tools it may use picked from the agent's tools. */
export function ActionBooksForm({ config, edit }: { config: AgentConfigDocument; edit: Edit }) {
  const { t } = useI18n();
  const books = config.action_books ?? [];
  const toolNames = (config.tools ?? []).map((tool) => tool.name).filter(Boolean);
  return (
    <div className="stack">
      <PointerIssues pointer="/action_books" />
      {books.length === 0 ? <p className="empty">{t('actions.empty')}</p> : null}
      {books.map((book, i) => (
        <ActionBookCard
          // biome-ignore lint/suspicious/noArrayIndexKey: list position is the identity in the config
          key={i}
          book={book}
          index={i}
          count={books.length}
          toolNames={toolNames}
          edit={edit}
          move={(to) => edit(['action_books'], moveItem(books, i, to))}
        />
      ))}
      <div>
        <button
          type="button"
          id="add-action-book"
          onClick={() => edit(['action_books', books.length], blankActionBook())}
        >
          + {t('actions.add')}
        </button>
      </div>
    </div>
  );
}

interface CardProps {
  book: ActionBook;
  index: number;
  count: number;
  toolNames: string[];
  edit: Edit;
  move: (to: number) => void;
}

function ActionBookCard({ book, index, count, toolNames, edit, move }: CardProps) {
  const { t } = useI18n();
  const base = `/action_books/${index}`;
  const issues = useIssueCount(base);
  const chosen = book.tools ?? [];
  // Tools named in the book but not defined stay visible, so the loader's unknown_tool error has a place.
  const options = [...new Set([...toolNames, ...chosen])];
  const toggle = (name: string, on: boolean) =>
    edit([...['action_books', index, 'tools']], on ? [...chosen, name] : chosen.filter((n) => n !== name));
  return (
    <section className={`card${issues ? ' card-invalid' : ''}`} aria-label={t('actions.card', { n: index + 1 })}>
      <header className="card-header">
        <h3>{t('actions.card', { n: index + 1 })}</h3>
        <div className="inline">
          <MoveButtons first={index === 0} last={index === count - 1} onMove={(step) => move(index + step)} />
          <button type="button" className="secondary small" onClick={() => edit(['action_books', index], undefined)}>
            {t('common.remove')}
          </button>
        </div>
      </header>
      <PointerIssues pointer={base} />
      <TextField
        pointer={`${base}/condition`}
        label={t('actions.condition')}
        value={book.condition}
        multiline
        onChange={(v) => edit(['action_books', index, 'condition'], v)}
      />
      <TextField
        pointer={`${base}/action`}
        label={t('actions.action')}
        value={book.action}
        multiline
        onChange={(v) => edit(['action_books', index, 'action'], v)}
      />
      <Field pointer={`${base}/tools`} label={t('actions.tools')}>
        {(control) => (
          <div className="checkbox-list" id={control.id}>
            {options.length === 0 ? <span className="help">{t('actions.noTools')}</span> : null}
            {options.map((name) => (
              <label key={name} className={toolNames.includes(name) ? '' : 'missing'}>
                <input
                  type="checkbox"
                  checked={chosen.includes(name)}
                  onChange={(e) => toggle(name, e.target.checked)}
                />{' '}
                {name}
              </label>
            ))}
          </div>
        )}
      </Field>
    </section>
  );
}
