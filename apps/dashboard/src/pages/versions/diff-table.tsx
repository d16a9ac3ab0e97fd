import type { ConfigChange } from '@agentry/contract/schemas';
import { fieldLabel } from '../../config/plain-issues.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

function show(value: unknown): string {
  return value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** Changes between two versions side by side: the older value left, the newer right. */
export function DiffTable({ changes, a, b }: { changes: ConfigChange[]; a: number; b: number }) {
  const { t } = useI18n();
  if (changes.length === 0) return <p className="empty">{t('versions.same')}</p>;
  return (
    <table className="diff" aria-label={t('versions.diffTitle', { a, b })}>
      <thead>
        <tr>
          <th scope="col">{t('versions.path')}</th>
          <th scope="col">v{a}</th>
          <th scope="col">v{b}</th>
        </tr>
      </thead>
      <tbody>
        {changes.map((c) => (
          <tr key={`${c.op}:${c.path}`} className={`diff-${c.op}`}>
            <th scope="row">
              <ChangedField path={c.path} />
              <span className="muted"> {t(`versions.op.${c.op}`)}</span>
            </th>
            <td className="diff-before">
              <pre>{show(c.before)}</pre>
            </td>
            <td className="diff-after">
              <pre>{show(c.after)}</pre>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * The changed field by its form label where it has one, with the exact pointer under it (a label
 * can name only the card, "Flow 1", where the change is deeper inside).
 */
function ChangedField({ path }: { path: string }) {
  const { t } = useI18n();
  const label = fieldLabel(path, undefined, t);
  if (!label) return <code>{path}</code>;
  return (
    <>
      {label} <code className="muted">{path}</code>
    </>
  );
}
