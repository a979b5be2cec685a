// The line a bash card shows when its command runs in the background: that it
// runs (its id) and a Stop button, then how it ended. The output tail above it
// is the bash card's own; the host bounds and paces it.
import { type ToolView } from '../protocol';
import { button, el, firstLine, icon } from './dom';
import { type Post } from './item-view';
import { t } from './l10n';

type Background = NonNullable<Extract<ToolView, { kind: 'bash' }>['background']>;

export class BackgroundLine {
  readonly root = el('div', { class: 'background-line', role: 'status' });
  private shown = '';

  constructor(private readonly post: Post) {}

  update(background: Background, command: string): HTMLElement {
    const key = `${background.id}\u0000${background.state}\u0000${background.exitCode}\u0000${command}`;
    if (key === this.shown) return this.root;
    this.shown = key;
    this.root.dataset.state = background.state;
    const [glyph, text] = describe(background);
    const parts: (Node | string)[] = [icon(glyph), el('span', { class: 'background-text' }, text)];
    if (background.state === 'running') {
      const stop = button(t('Stop'), () => this.post({ type: 'stop_background', id: background.id }), { icon: 'debug-stop', secondary: true, cls: 'stop-background' });
      // Names the command: with several running, "Stop" alone says not which.
      stop.setAttribute('aria-label', t('Stop {0}', firstLine(command)));
      stop.title = t('Stop {0} and everything it started', background.id);
      const open = button(t('Open in terminal'), () => this.post({ type: 'open_terminal', backgroundId: background.id }), { icon: 'terminal', secondary: true, cls: 'open-background-terminal' });
      open.title = t('Show the terminal {0} runs in', background.id);
      parts.push(stop, open);
    }
    this.root.replaceChildren(...parts);
    return this.root;
  }
}

function describe(b: Background): [string, string] {
  switch (b.state) {
    case 'running':
      return ['loading codicon-modifier-spin', t('Running in the background as {0}', b.id)];
    case 'killed':
      return ['debug-stop', t('{0} stopped', b.id)];
    case 'exited':
      if (b.exitCode === 0) return ['check', t('{0} exited with code 0', b.id)];
      return ['error', b.exitCode === null || b.exitCode === undefined ? t('{0} exited', b.id) : t('{0} exited with code {1}', b.id, b.exitCode)];
  }
}
