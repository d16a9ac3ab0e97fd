import { useRef, useState } from 'react';
import type { ControlProps } from './field.tsx';

interface ListInputProps extends ControlProps {
  value: string[] | undefined;
  onChange: (value: string[] | undefined) => void;
  placeholder?: string;
}

/** A comma-separated list in one input; the text is kept while typing so a trailing comma survives. */
export function ListInput({ value, onChange, placeholder, ...control }: ListInputProps) {
  const joined = (value ?? []).join(', ');
  const [text, setText] = useState(joined);
  const emitted = useRef(joined);
  if (joined !== emitted.current) {
    emitted.current = joined;
    setText(joined);
  }
  return (
    <input
      {...control}
      value={text}
      placeholder={placeholder}
      onChange={(e) => {
        setText(e.target.value);
        const list = e.target.value
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean);
        emitted.current = list.join(', ');
        onChange(list.length ? list : undefined);
      }}
    />
  );
}
