// Tiny DOM helpers. Text always goes in through textContent, never innerHTML:
// the only HTML the panel parses is sanitised markdown (./markdown.ts).

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | undefined> = {},
  ...children: (Node | string | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) node.setAttribute(k, v);
  for (const child of children) if (child !== undefined && child !== false) node.append(child);
  return node;
}

/** A transcript item's root, named for screen readers. */
export function article(kind: string, label: string): HTMLElement {
  return el('article', { class: `item ${kind}`, 'aria-label': label });
}

/** A codicon glyph; decorative, so hidden from screen readers. */
export function icon(name: string, extra = ''): HTMLSpanElement {
  return el('span', { class: `codicon codicon-${name}${extra ? ` ${extra}` : ''}`, 'aria-hidden': 'true' });
}

/** A button we create (never one from markdown); the handler is bound directly, not delegated. */
export function button(
  label: string,
  onClick: (ev: MouseEvent) => void,
  opts: { icon?: string; title?: string; secondary?: boolean; iconOnly?: boolean; cls?: string } = {},
): HTMLButtonElement {
  const classes = [opts.secondary ? 'secondary' : '', opts.iconOnly ? 'icon-button' : '', opts.cls ?? ''].filter(Boolean).join(' ');
  const b = el('button', { type: 'button', class: classes || undefined, title: opts.title ?? (opts.iconOnly ? label : undefined) });
  if (opts.icon) b.append(icon(opts.icon));
  if (opts.iconOnly) b.setAttribute('aria-label', label);
  else b.append(el('span', { class: 'label' }, label));
  b.addEventListener('click', onClick);
  return b;
}

/** The first line of a command or subject, with "…" when more follows. */
export const firstLine = (s: string) => {
  const i = s.indexOf('\n');
  return i < 0 ? s : `${s.slice(0, i)} …`;
};

/** "1 234" with a narrow no-break space, as in the design. */
export function formatInt(n: number): string {
  // Not toLocaleString: its first calls cost milliseconds each, on the restore path.
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, '\u202f');
}

/** Compact token counts for the footer: 950, 12.3k, 1.2M. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
