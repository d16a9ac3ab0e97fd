import { type AppError, errors } from '@agentry/errors';

/**
 * A document we cannot read (corrupt, empty, hostile): `document_unreadable`, the user's to fix.
 *
 * @example
 * throw unreadable('The PDF could not be read: Invalid PDF structure');
 */
export function unreadable(message: string, details?: Record<string, unknown>): AppError {
  return errors.of({ code: 'document_unreadable', message, category: 'user', retryable: false, details });
}

/** A document past a limit of characters or pages: `document_too_large`. */
export function tooLarge(message: string, details: Record<string, unknown>): AppError {
  return errors.of({ code: 'document_too_large', message, category: 'user', retryable: false, details });
}

/** The caller cancelled the extraction. */
export function aborted(): AppError {
  return errors.of({ code: 'aborted', message: 'The extraction was aborted', category: 'user', retryable: false });
}
