import type { FlowSlotConfig } from '@agentry/contract';
import { Field } from '../../components/field.tsx';
import { PointerIssues } from '../../components/issue-list.tsx';
import { ListInput } from '../../components/list-input.tsx';
import { SelectField, TextField } from '../../components/text-field.tsx';
import { freeStepId } from '../../config/flow-graph.ts';
import {
  autoPattern,
  blankSlot,
  SLOT_KINDS,
  type SlotKind,
  type SlotReading,
  slotChoices,
  slotKind,
  slotReading,
  slotSchema,
  withSlotKind,
} from '../../config/flow-slots.ts';
import { useI18n } from '../../i18n/i18n-context.tsx';

type Slots = Record<string, FlowSlotConfig>;

interface SlotsProps {
  /** `/flows/<i>/slots`. */
  pointer: string;
  slots: Slots;
  onChange: (slots: Slots) => void;
}

/** The values a flow collects, each with a type picked from a list (the JSON Schema is built). */
export function FlowSlotsEditor({ pointer, slots, onChange }: SlotsProps) {
  const { t } = useI18n();
  const entries = Object.entries(slots);
  // Renaming keeps the order of the slots (an object's keys keep insertion order).
  const rename = (from: string, to: string) =>
    onChange(Object.fromEntries(entries.map(([name, slot]) => [name === from ? to : name, slot])));
  const update = (name: string, slot: FlowSlotConfig | undefined) => {
    const next = { ...slots };
    if (slot) next[name] = slot;
    else delete next[name];
    onChange(next);
  };
  return (
    <fieldset className="flow-slots">
      <legend>{t('flows.slots')}</legend>
      <p className="help">{t('flows.slotsHelp')}</p>
      <PointerIssues pointer={pointer} />
      {entries.map(([name, slot], n) => (
        <SlotRow
          // biome-ignore lint/suspicious/noArrayIndexKey: a slot's name changes while it is typed
          key={n}
          n={n}
          pointer={`${pointer}/${name}`}
          name={name}
          slot={slot}
          onRename={(to) => (to === name || !(to in slots) ? rename(name, to) : undefined)}
          onChange={(next) => update(name, next)}
        />
      ))}
      <button
        type="button"
        className="secondary small"
        id={`add-slot-${pointer.split('/')[2]}`}
        onClick={() =>
          onChange({ ...slots, [freeStepId(Object.keys(slots), `value_${entries.length + 1}`)]: blankSlot() })
        }
      >
        + {t('flows.addSlot')}
      </button>
    </fieldset>
  );
}

interface SlotRowProps {
  n: number;
  pointer: string;
  name: string;
  slot: FlowSlotConfig;
  onRename: (name: string) => void;
  onChange: (slot: FlowSlotConfig | undefined) => void;
}

function SlotRow({ n, pointer, name, slot, onRename, onChange }: SlotRowProps) {
  const { t } = useI18n();
  const kind = slotKind(slot.schema);
  const reading = slotReading(slot);
  const setReading = (next: SlotReading) => {
    const { pattern: _old, ...rest } = slot;
    if (next === 'ai') onChange(rest);
    else onChange({ ...rest, pattern: next === 'auto' ? autoPattern(kind) : (slot.pattern ?? '(.+)') });
  };
  return (
    <div className="flow-slot" data-slot={name}>
      <PointerIssues pointer={pointer} />
      <div className="grid-3">
        <Field pointer={`${pointer}/name`} label={t('flows.slotName', { n: n + 1 })}>
          {(control) => <input {...control} value={name} onChange={(e) => onRename(e.target.value)} />}
        </Field>
        <SelectField<SlotKind>
          pointer={`${pointer}/kind`}
          label={t('flows.slotKind')}
          value={kind}
          options={SLOT_KINDS.map((k) => ({ value: k, label: t(`flows.kind.${k}`) }))}
          onChange={(k) => onChange(withSlotKind(slot, k))}
        />
        <SelectField<SlotReading>
          pointer={`${pointer}/reading`}
          label={t('flows.slotReading')}
          value={reading}
          options={(['auto', 'ai', 'custom'] as const).map((r) => ({ value: r, label: t(`flows.reading.${r}`) }))}
          onChange={setReading}
        />
      </div>
      {kind === 'choice' ? (
        <Field pointer={`${pointer}/choices`} label={t('flows.slotChoices')} help={t('flows.slotChoicesHelp')}>
          {(control) => (
            <ListInput
              {...control}
              value={slotChoices(slot.schema)}
              onChange={(choices) => onChange({ ...slot, schema: slotSchema('choice', choices ?? []) })}
            />
          )}
        </Field>
      ) : null}
      <div className="grid-2">
        <TextField
          pointer={`${pointer}/description`}
          label={t('flows.slotDescription')}
          value={slot.description}
          onChange={(v) => onChange({ ...slot, description: v || undefined })}
        />
        {reading === 'custom' ? (
          <TextField
            pointer={`${pointer}/pattern`}
            label={t('flows.slotPattern')}
            help={t('flows.slotPatternHelp')}
            value={slot.pattern}
            onChange={(v) => onChange({ ...slot, pattern: v })}
          />
        ) : null}
      </div>
      <button type="button" className="secondary small" onClick={() => onChange(undefined)}>
        {t('flows.removeSlot', { name })}
      </button>
    </div>
  );
}
