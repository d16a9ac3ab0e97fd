/** A tiny JS/JSON highlighter that builds DOM nodes (never HTML strings). */
const TOKENS =
  /(\/\/[^\n]*|\/\*[\s\S]*?\*\/)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`)|\b(\d+(?:\.\d+)?(?:e[+-]?\d+)?)\b|\b(const|let|var|function|return|if|else|for|while|do|break|continue|new|typeof|instanceof|in|of|class|extends|async|await|try|catch|finally|throw|switch|case|default|true|false|null|undefined|this|import|export|from)\b/g;
const CLASSES = ['', 'c', 's', 'n', 'k'];

export function highlight(code: string, into: HTMLElement): void {
  let last = 0;
  for (const match of code.matchAll(TOKENS)) {
    const index = match.index ?? 0;
    if (index > last) into.append(code.slice(last, index));
    const group = match.findIndex((g, i) => i > 0 && g !== undefined);
    const span = document.createElement('span');
    span.className = CLASSES[group] ?? '';
    span.textContent = match[0];
    into.append(span);
    last = index + match[0].length;
  }
  if (last < code.length) into.append(code.slice(last));
}
