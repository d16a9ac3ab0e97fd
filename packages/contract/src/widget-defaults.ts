/**
 * The chat widget's colours when the agent's `widget.colors` leaves one unset. The widget applies
 * them and the dashboard's look editor shows them, so both must read them from here.
 */
export const WIDGET_DEFAULT_COLORS = {
  primary: '#2563eb',
  background: '#ffffff',
  text: '#1f2937',
} as const;
