import { useI18n } from '../i18n/i18n-context.tsx';

/**
 * The ↑ / ↓ buttons of a card in a reorderable list: `onMove(-1)` or `onMove(1)`; the first card
 * cannot go up, the last cannot go down.
 *
 * @example
 * <MoveButtons first={index === 0} last={index === count - 1} onMove={(step) => move(index + step)} />
 */
export function MoveButtons(props: { first: boolean; last: boolean; onMove: (step: -1 | 1) => void }) {
  const { t } = useI18n();
  return (
    <>
      <button
        type="button"
        className="icon-button"
        aria-label={t('common.moveUp')}
        disabled={props.first}
        onClick={() => props.onMove(-1)}
      >
        ↑
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label={t('common.moveDown')}
        disabled={props.last}
        onClick={() => props.onMove(1)}
      >
        ↓
      </button>
    </>
  );
}
