export type { AppErrorOptions, ErrorCategory, FieldIssue, SerializedAppError } from './app-error.ts';
export { AppError, infrastructureUnavailable, isAppError, toAppError } from './app-error.ts';
export { errors } from './errors.ts';
export {
  classifyInfrastructureError,
  type InfrastructureService,
  isTransientInfrastructureError,
} from './infrastructure-errors.ts';
