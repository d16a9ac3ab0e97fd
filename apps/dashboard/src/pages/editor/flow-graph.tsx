import type { FlowStepConfig } from '@agentry/contract';
import { END, type FlowEdge, flowEdges } from '../../config/flow-graph.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

const NODE_W = 220;
const NODE_H = 38;
const GAP = 26;
const LEFT = 12;
const TOP = 10;
const LANE = 22;
const END_W = 100;

const EDGE_CLASS: Record<FlowEdge['kind'], string> = {
  next: 'edge-next',
  yes: 'edge-yes',
  no: 'edge-no',
  goto: 'edge-goto',
  else: 'edge-else',
  on_error: 'edge-error',
};

const nodeY = (row: number) => TOP + row * (NODE_H + GAP);

/**
 * A read-only picture of the flow: steps top to bottom in their order, an End node last; an arrow
 * to the step right below is straight, every other jump bends out to the right on a lane of its
 * own, so crossings stay readable without a layout library.
 */
export function FlowGraph({ steps }: { steps: readonly FlowStepConfig[] }) {
  const { t } = useI18n();
  const rows = new Map(steps.map((s, i) => [s.id, i]));
  rows.set(END, steps.length);
  const edges = flowEdges(steps).filter((e) => rows.has(e.to));
  let lanes = 0;
  const drawn = edges.map((edge) => {
    const from = rows.get(edge.from) ?? 0;
    const to = rows.get(edge.to) ?? 0;
    const straight = to === from + 1 && edge.kind !== 'no' && edge.kind !== 'on_error' && edge.kind !== 'goto';
    return { edge, from, to, lane: straight ? 0 : ++lanes };
  });
  const width = LEFT + NODE_W + 40 + lanes * LANE + 70;
  const height = nodeY(steps.length) + NODE_H + TOP;
  return (
    <figure className="flow-graph" aria-label={t('flows.graph')}>
      <figcaption className="muted">{t('flows.graph')}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={t('flows.graph')}>
        <defs>
          <marker id="flow-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" className="arrow-head" />
          </marker>
        </defs>
        {drawn.map(({ edge, from, to, lane }) => (
          <Edge key={`${edge.from}-${edge.kind}-${edge.to}-${lane}`} edge={edge} from={from} to={to} lane={lane} />
        ))}
        {steps.map((step, i) => (
          <g key={step.id || i} className={`node node-${step.type}`} data-node={step.id}>
            <rect x={LEFT} y={nodeY(i)} width={NODE_W} height={NODE_H} rx="8" />
            <text x={LEFT + 10} y={nodeY(i) + 16} className="node-type">
              {t(`flows.type.${step.type}`)}
            </text>
            <text x={LEFT + 10} y={nodeY(i) + 31} className="node-id">
              {step.id}
              {step.type === 'ask' && step.slot ? ` → ${step.slot}` : ''}
              {step.type === 'tool' && step.tool ? ` · ${step.tool}` : ''}
            </text>
          </g>
        ))}
        <g className="node node-final" data-node={END}>
          <rect x={LEFT + NODE_W / 2 - END_W / 2} y={nodeY(steps.length)} width={END_W} height={NODE_H} rx="19" />
          <text x={LEFT + NODE_W / 2} y={nodeY(steps.length) + 24} textAnchor="middle" className="node-type">
            {t('flows.graphEnd')}
          </text>
        </g>
      </svg>
    </figure>
  );
}

function Edge({ edge, from, to, lane }: { edge: FlowEdge; from: number; to: number; lane: number }) {
  const { t } = useI18n();
  const label = edge.kind === 'next' ? '' : t(`flows.edge.${edge.kind}`);
  const cls = `edge ${EDGE_CLASS[edge.kind]}`;
  if (lane === 0) {
    const x = LEFT + NODE_W / 2;
    return (
      <g className={cls}>
        <path d={`M${x},${nodeY(from) + NODE_H} L${x},${nodeY(to) - 1}`} markerEnd="url(#flow-arrow)" />
        {label ? (
          <text x={x + 6} y={nodeY(from) + NODE_H + 16} className="edge-label">
            {label}
          </text>
        ) : null}
      </g>
    );
  }
  // Out of the right side, along the lane, back into the target's right side.
  const right = LEFT + NODE_W;
  const x = right + 16 + lane * LANE;
  const y1 = nodeY(from) + NODE_H / 2 + 6;
  const y2 = nodeY(to) + NODE_H / 2 - 6;
  // The End pill is narrower than a step box.
  const into = edge.to === END ? LEFT + NODE_W / 2 + END_W / 2 + 1 : right + 1;
  return (
    <g className={cls}>
      <path d={`M${right},${y1} H${x} V${y2} H${into}`} fill="none" markerEnd="url(#flow-arrow)" />
      <text x={x + 4} y={(y1 + y2) / 2} className="edge-label">
        {label}
      </text>
    </g>
  );
}
