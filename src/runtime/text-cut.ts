// The one way Turnstone shortens text the model will read (issue 26). A cut
// lands on a grapheme-cluster boundary, so it never splits a surrogate pair
// (the API refuses a lone surrogate with a 400 on every later request, which
// wedges the session) nor an emoji sequence, a flag or a letter and its
// combining marks. Limits count UTF-16 code units ("characters", what
// String#length says), UTF-8 bytes, or estimated tokens (4 characters each,
// as context-window.ts estimates them). A cut keeps at most the limit.
//
// Only a small window around the cut point is segmented, so cutting a
// megabyte costs about as much as cutting a line.

export type CutUnit = 'chars' | 'bytes' | 'tokens';

export interface MiddleCut {
  head: string;
  tail: string;
  /** How much was left out, in the unit of the cut (0: the text fit and `head` is all of it). */
  omitted: number;
}

/** Characters per estimated token: the same ratio as estimateTextTokens. */
const CHARS_PER_TOKEN = 4;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;
/** A regional indicator (flag half) is U+1F1E6–U+1F1FF: D83C DDE6–DDFF in UTF-16. */
const isRegionalAt = (text: string, i: number) => text.charCodeAt(i) === 0xd83c && text.charCodeAt(i + 1) >= 0xdde6 && text.charCodeAt(i + 1) <= 0xddff;

/** Where the cluster containing code unit `i` starts, found in a window beginning at `start`; undefined if the window cannot tell. */
function clusterStartIn(text: string, start: number, i: number): number | undefined {
  const end = Math.min(text.length, i + 64);
  const seg = segmenter.segment(text.slice(start, end)).containing(i - start);
  if (!seg) return undefined;
  // The cluster may begin before the window: only a start inside it is known.
  if (seg.index === 0 && start > 0) return undefined;
  return start + seg.index;
}

function windowStart(text: string, i: number, back: number): number {
  let start = Math.max(0, i - back);
  if (start > 0 && isLow(text.charCodeAt(start)) && isHigh(text.charCodeAt(start - 1))) start--;
  // Flags pair regional indicators counted from the start of their run: begin before the run.
  while (start >= 2 && isRegionalAt(text, start - 2) && isRegionalAt(text, start)) start -= 2;
  return start;
}

/**
 * The last grapheme boundary at or before code unit `i`. A window that starts
 * inside a long cluster (an emoji ZWJ sequence, a letter with many marks) can
 * misplace boundaries near its start, so two windows of different sizes must
 * agree; they are widened until they do.
 */
export function boundaryAtOrBefore(text: string, i: number): number {
  if (i <= 0) return 0;
  if (i >= text.length) return text.length;
  // Between two printable ASCII characters there is always a boundary (no mark, joiner or prepend is ASCII).
  const a = text.charCodeAt(i - 1);
  const b = text.charCodeAt(i);
  if (a >= 0x20 && a < 0x7f && b >= 0x20 && b < 0x7f) return i;
  for (let back = 64; ; back *= 4) {
    const near = clusterStartIn(text, windowStart(text, i, back), i);
    const far = clusterStartIn(text, windowStart(text, i, back * 2), i);
    if (near !== undefined && near === far) return near;
    if (i - back * 2 <= 0) return far ?? clusterStartIn(text, 0, i) ?? 0;
  }
}

/** The first grapheme boundary at or after code unit `i`. */
export function boundaryAtOrAfter(text: string, i: number): number {
  if (i <= 0) return 0;
  if (i >= text.length) return text.length;
  const start = boundaryAtOrBefore(text, i);
  if (start === i) return i;
  // From a true boundary the segmentation is exact: the cluster ends where its segment does.
  for (let ahead = 64; ; ahead *= 4) {
    const end = Math.min(text.length, i + ahead);
    const seg = segmenter.segment(text.slice(start, end)).containing(i - start)!;
    const stop = start + seg.index + seg.segment.length;
    // A boundary depends on the code point after it: it is certain only with that code point whole in the window.
    if (stop + 2 <= end || end === text.length) return stop;
  }
}

// Byte cuts are measured by the platform's UTF-8 encoder (native, and it never
// splits a surrogate pair): a loop over code units in JS took 5 ms per MB.
const encoder = new TextEncoder();

/** The code-unit index where the first `maxBytes` UTF-8 bytes of `text` end (whole characters). Only the head is read. */
function indexAfterBytes(text: string, maxBytes: number): number {
  if (maxBytes <= 0) return 0;
  return encoder.encodeInto(text.slice(0, maxBytes), new Uint8Array(maxBytes)).read;
}

/** The code-unit index where the last `maxBytes` UTF-8 bytes of `text` begin (whole characters). Only the tail is read. */
function indexBeforeBytes(text: string, maxBytes: number): number {
  // Every code unit is at least one byte: the last `maxBytes` bytes lie within the last `maxBytes` code units.
  const from = Math.max(0, text.length - maxBytes);
  const tail = text.slice(from);
  const excess = Buffer.byteLength(tail, 'utf8') - maxBytes;
  if (excess <= 0) return from;
  // Drop whole characters from the front until at least `excess` bytes are gone.
  const { read, written } = encoder.encodeInto(tail, new Uint8Array(excess));
  if (written >= excess) return from + read;
  const c = tail.charCodeAt(read);
  const pair = c >= 0xd800 && c <= 0xdbff && (tail.charCodeAt(read + 1) & 0xfc00) === 0xdc00;
  return from + read + (pair ? 2 : 1);
}

/** How long `text` is in `unit`. */
export function measure(text: string, unit: CutUnit = 'chars'): number {
  if (unit === 'bytes') return Buffer.byteLength(text, 'utf8');
  if (unit === 'tokens') return Math.ceil(text.length / CHARS_PER_TOKEN);
  return text.length;
}

const limit = (max: number) => (Number.isFinite(max) ? Math.max(0, Math.floor(max)) : Number.MAX_SAFE_INTEGER);

/** The raw end index of a head of at most `max` units. */
function headEnd(text: string, max: number, unit: CutUnit): number {
  if (unit === 'bytes') return indexAfterBytes(text, max);
  return Math.min(text.length, unit === 'tokens' ? max * CHARS_PER_TOKEN : max);
}

/** The raw start index of a tail of at most `max` units. */
function tailStart(text: string, max: number, unit: CutUnit): number {
  if (unit === 'bytes') return indexBeforeBytes(text, max);
  return Math.max(0, text.length - (unit === 'tokens' ? max * CHARS_PER_TOKEN : max));
}

function headOf(text: string, m: number, unit: CutUnit, total: number): string {
  if (total <= m) return text;
  return text.slice(0, boundaryAtOrBefore(text, headEnd(text, m, unit)));
}

function tailOf(text: string, m: number, unit: CutUnit, total: number): string {
  if (total <= m) return text;
  return text.slice(boundaryAtOrAfter(text, tailStart(text, m, unit)));
}

/** The beginning of `text`, at most `max` units, ending on a grapheme boundary. */
export function cutHead(text: string, max: number, unit: CutUnit = 'chars'): string {
  return headOf(text, limit(max), unit, measure(text, unit));
}

/** The end of `text`, at most `max` units, starting on a grapheme boundary. */
export function cutTail(text: string, max: number, unit: CutUnit = 'chars'): string {
  return tailOf(text, limit(max), unit, measure(text, unit));
}

/**
 * Keeps the beginning and the end of `text`, at most `max` units together
 * (`headShare` of them for the beginning), and leaves the middle out.
 */
export function cutMiddle(text: string, max: number, options: { unit?: CutUnit; headShare?: number } = {}): MiddleCut {
  const unit = options.unit ?? 'chars';
  const m = limit(max);
  const total = measure(text, unit);
  if (total <= m) return { head: text, tail: '', omitted: 0 };
  const share = Math.min(1, Math.max(0, options.headShare ?? 0.5));
  const headMax = Math.floor(m * share);
  const head = headOf(text, headMax, unit, total);
  const headSize = measure(head, unit);
  // The tail never reaches back into the head, whatever the boundaries did.
  const rest = text.slice(head.length);
  const tail = m - headMax > 0 ? tailOf(rest, m - headMax, unit, unit === 'bytes' ? total - headSize : measure(rest, unit)) : '';
  return { head, tail, omitted: total - headSize - measure(tail, unit) };
}

/** `cutHead` plus a marker when something was cut (the marker is not counted in `max`). */
export function cutHeadWith(text: string, max: number, marker: (omitted: number) => string, unit: CutUnit = 'chars'): string {
  const head = cutHead(text, max, unit);
  return head.length === text.length ? text : head + marker(measure(text, unit) - measure(head, unit));
}

interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** `text` with every lone surrogate replaced by U+FFFD (the API refuses lone surrogates). */
export function wellFormed(text: string): string {
  const s = text as unknown as WellFormed;
  return s.isWellFormed() ? text : s.toWellFormed();
}

export function isWellFormed(text: string): boolean {
  return (text as unknown as WellFormed).isWellFormed();
}

/**
 * A deep copy of a JSON-like value with lone surrogates repaired in every
 * string (keys included), and how many strings needed it. Values with nothing
 * to repair come back as the same object.
 */
export function repairLoneSurrogates<T>(value: T): { value: T; repaired: number } {
  let repaired = 0;
  const visit = (v: unknown): unknown => {
    if (typeof v === 'string') {
      if (isWellFormed(v)) return v;
      repaired++;
      return wellFormed(v);
    }
    if (Array.isArray(v)) {
      let changed = false;
      const out = v.map((x) => {
        const y = visit(x);
        if (y !== x) changed = true;
        return y;
      });
      return changed ? out : v;
    }
    if (v !== null && typeof v === 'object') {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const key = visit(k) as string;
        const y = visit(x);
        if (y !== x || key !== k) changed = true;
        out[key] = y;
      }
      return changed ? out : v;
    }
    return v;
  };
  const out = visit(value) as T;
  return { value: out, repaired };
}
