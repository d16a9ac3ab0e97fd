export { createSecretBox, parseSecretKey, type SealedSecret, type SecretBox } from './secret-box.ts';
