export { type EventLog, eventLog } from './event-log.ts';
export { createInMemoryTools, type InMemoryTool, type InMemoryToolExecutor } from './in-memory-tools.ts';
export {
  createScriptedModel,
  type ScriptedModel,
  type ScriptedModelOptions,
  type ScriptedStep,
  type ScriptedToolCall,
  type ScriptedTurn,
} from './scripted-model.ts';
