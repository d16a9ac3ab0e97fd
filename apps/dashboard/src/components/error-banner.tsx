import { ProblemError } from '@agentry/contract';
import { useI18n } from '../i18n/i18n-context.tsx';

/** A failed call, with the API's code so support can look it up. */
export function ErrorBanner({ error }: { error: unknown }) {
  const { t } = useI18n();
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof ProblemError ? error.code : undefined;
  const missing = error instanceof ProblemError && (error.code === 'route_not_found' || error.status === 404);
  return (
    <div className="banner banner-error" role="alert">
      <strong>{t('error.title')}</strong> {message}
      {code ? <code className="code">{code}</code> : null}
      {missing && error instanceof ProblemError && error.code === 'route_not_found' ? (
        <p>{t('error.routeMissing')}</p>
      ) : null}
    </div>
  );
}
