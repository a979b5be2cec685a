// What a context chip shows, in the composer and in a sent message alike: an
// icon for its kind (an image file gets the media icon) and its label, with
// `@` before the specials.
import { type Attachment } from '../protocol';
import { el, icon } from './dom';

const KIND_ICONS: Record<Attachment['kind'], string> = { file: 'file', selection: 'selection', folder: 'folder', problems: 'warning', terminal: 'terminal', git: 'git-compare' };
const IMAGE_FILE = /\.(png|jpe?g|gif|webp|bmp|ico|svg)$/i;

export function chipIcon(a: Pick<Attachment, 'kind' | 'path' | 'label'>): string {
  if (a.kind === 'file' && (IMAGE_FILE.test(a.path) || IMAGE_FILE.test(a.label))) return 'file-media';
  return KIND_ICONS[a.kind];
}

export function chipLabel(a: Pick<Attachment, 'kind' | 'label'>): string {
  const special = a.kind === 'problems' || a.kind === 'terminal' || a.kind === 'git';
  return special && !a.label.startsWith('@') ? `@${a.label}` : a.label;
}

/** A sent message's chip (no remove button, no token count). */
export function sentChip(a: Attachment): HTMLElement {
  return el('span', { class: `chip chip-${a.kind}`, title: a.path }, icon(chipIcon(a)), el('span', { class: 'chip-text' }, chipLabel(a)));
}
