import type { ReactNode } from 'react';
import { useI18n } from '../i18n/i18n-context.tsx';

interface ListTableProps {
  id?: string;
  /** Added to `list`. */
  className?: string;
  /** Column headings, in order (each heading's text is its key, so they must differ). */
  headers: string[];
  /** A last column of row buttons, headed for screen readers only. */
  actions?: boolean;
  /** The body rows. */
  children: ReactNode;
}

/**
 * A `table.list` with its column headings; the rows are the caller's.
 *
 * @example
 * <ListTable id="secrets-table" headers={[t('secrets.name')]} actions>
 *   {secrets.map((s) => <tr key={s.name}>…</tr>)}
 * </ListTable>
 */
export function ListTable({ id, className, headers, actions, children }: ListTableProps) {
  const { t } = useI18n();
  return (
    <table className={className ? `list ${className}` : 'list'} id={id}>
      <thead>
        <tr>
          {headers.map((h) => (
            <th key={h} scope="col">
              {h}
            </th>
          ))}
          {actions ? (
            <th scope="col">
              <span className="sr-only">{t('common.actions')}</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
