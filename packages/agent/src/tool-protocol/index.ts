export { BlockScanner } from './block-scanner.ts';
export { jsonProfile } from './json-profile.ts';
export type { ProtocolProfile } from './protocol-profile.ts';
export { renderHistory } from './render-history.ts';
export { type ToolProtocolName, toProtocolRequest, withToolProtocol } from './with-tool-protocol.ts';
export { xmlProfile } from './xml-profile.ts';
