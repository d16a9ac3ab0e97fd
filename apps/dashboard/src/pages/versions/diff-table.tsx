import type { ConfigChange } from '@agentry/contract/schemas';
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
              <code>{c.path}</code>
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
