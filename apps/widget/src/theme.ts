import { WIDGET_DEFAULT_COLORS } from '@agentry/contract';
import type { WidgetSettings } from '@agentry/contract/schemas';

const HEX = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;

/** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
function onPrimary(hex: string): string {
  const full = hex.length === 4 ? hex.replace(/([0-9a-f])/gi, '$1$1') : hex;
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.45 ? '#111111' : '#ffffff';
}

/**
 * Applies the agent's colours and position to the widget's root as CSS custom properties.
 * Only `#rgb`/`#rrggbb` colours are taken: the values come from tenant settings and end up in CSS.
 */
export function applyTheme(root: HTMLElement, widget: Pick<WidgetSettings, 'colors' | 'position'>): void {
  const color = (value: string | undefined, fallback: string) => (value && HEX.test(value) ? value : fallback);
  const primary = color(widget.colors?.primary, WIDGET_DEFAULT_COLORS.primary);
  const style = root.style;
  style.setProperty('--primary', primary);
  style.setProperty('--on-primary', onPrimary(primary));
  style.setProperty('--bg', color(widget.colors?.background, WIDGET_DEFAULT_COLORS.background));
  style.setProperty('--text', color(widget.colors?.text, WIDGET_DEFAULT_COLORS.text));
  style.setProperty('--bubble', 'color-mix(in srgb, var(--text) 8%, var(--bg))');
  style.setProperty('--link', 'color-mix(in srgb, var(--primary) 75%, var(--text))');
  root.classList.toggle('left', widget.position === 'bottom-left');
}
