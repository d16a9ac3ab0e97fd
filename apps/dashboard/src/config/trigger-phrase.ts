/**
 * A trigger pattern for a plain phrase: case-insensitive, special characters escaped, and for a
 * phrase of ASCII words whole words only (RE2's \b knows only ASCII, so a Chinese phrase is matched
 * anywhere in the message).
 *
 * @example
 * phrasePattern('leave request'); // '(?i)\\bleave request\\b'
 * phrasePattern('请假'); // '请假'
 */
export function phrasePattern(phrase: string): string {
  const text = phrase.trim().replace(/\s+/g, ' ');
  const escaped = text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
  if (/^[A-Za-z0-9 '-]+$/.test(text)) return `(?i)\\b${escaped}\\b`;
  return /[A-Za-z]/.test(text) ? `(?i)${escaped}` : escaped;
}
