import type { ReactNode } from 'react';
import { useI18n } from '../i18n/i18n-context.tsx';
import { ErrorBanner } from './error-banner.tsx';

interface LoadedProps<T> {
  data: T | undefined;
  error: unknown;
  /** Said (as `p.empty`) when `data` is an empty list; without it an empty list shows nothing. */
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}

/**
 * The states of something loaded: the error, "Loading…" until there is data, the empty message
 * for an empty list, else the children with the data.
 *
 * @example
 * <Loaded data={keys.data} error={keys.error} empty={t('keys.empty')}>
 *   {(rows) => <ListTable id="keys-table" headers={[t('keys.name')]}>{rows.map(row)}</ListTable>}
 * </Loaded>
 */
export function Loaded<T>({ data, error, empty, children }: LoadedProps<T>) {
  const { t } = useI18n();
  const none = Array.isArray(data) && data.length === 0;
  return (
    <>
      <ErrorBanner error={error} />
      {data === undefined && !error ? <p role="status">{t('common.loading')}</p> : null}
      {none && empty ? <p className="empty">{empty}</p> : null}
      {data !== undefined && !none ? children(data) : null}
    </>
  );
}
