export type { AppErrorOptions, ErrorCategory, FieldIssue, SerializedAppError } from './app-error.ts';
export { AppError, isAppError, toAppError } from './app-error.ts';
export { errors } from './errors.ts';
