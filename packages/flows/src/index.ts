export { type CompiledFlow, compileFlows, DEFAULT_EXIT_PHRASES } from './compile-flows.ts';
export {
  FLOW_TOOL_PREFIX,
  type FlowAwaiting,
  type FlowState,
  type FlowStatus,
  flowNameOf,
  flowToolName,
  latestFlowState,
} from './flow-state.ts';
export { flowToolDefinition, withFlowTools } from './flow-tools.ts';
export { extractWithModel, type ModelReading } from './model-extraction.ts';
export {
  type FlowTurnDeps,
  type FlowTurnResult,
  MAX_TRANSITIONS,
  runFlowTurn,
  startFlowState,
} from './run-flow-turn.ts';
export { matchTrigger } from './triggers.ts';
