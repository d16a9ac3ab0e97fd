import { createContext, type ReactNode, useContext, useMemo, useRef } from 'react';

/** The template input a chip click writes into: the last one that had focus in this tool. */
export interface TemplateTarget {
  insert: (token: string) => void;
}

interface TargetRegistry {
  set: (target: TemplateTarget) => void;
  get: () => TemplateTarget | undefined;
}

const TargetContext = createContext<TargetRegistry | undefined>(undefined);

export function TemplateTargetProvider({ children }: { children: ReactNode }) {
  const current = useRef<TemplateTarget | undefined>(undefined);
  const registry = useMemo<TargetRegistry>(
    () => ({
      set: (target) => {
        current.current = target;
      },
      get: () => current.current,
    }),
    [],
  );
  return <TargetContext.Provider value={registry}>{children}</TargetContext.Provider>;
}

export function useTemplateTargets(): TargetRegistry | undefined {
  return useContext(TargetContext);
}
