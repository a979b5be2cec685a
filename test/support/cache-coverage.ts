// Replays the Messages API's prompt-cache prefix rules over recorded request
// bodies, to measure how much of each request would be read from cache (S7).
// Shared by the provider tests and bench/cache.bench.ts.
import { createHash } from 'node:crypto';

/** The API's lookback: a breakpoint also finds cache entries up to this many blocks before it. */
const LOOKBACK_BLOCKS = 20;

export interface Prefix {
  /** Serialised blocks in cache order: tools, system, messages (cache_control left out: it does not change the cached content). */
  blocks: string[];
  /** Indices into `blocks` that carry cache_control. */
  breakpoints: number[];
}

export function strip(block: Record<string, unknown>): string {
  const { cache_control: _cc, ...rest } = block;
  return JSON.stringify(rest);
}

export function prefixOf(body: Record<string, unknown>): Prefix {
  const blocks: string[] = [];
  const breakpoints: number[] = [];
  const add = (tag: string, block: Record<string, unknown>) => {
    if (block['cache_control']) breakpoints.push(blocks.length);
    blocks.push(`${tag}:${strip(block)}`);
  };
  for (const tool of (body['tools'] as Array<Record<string, unknown>> | undefined) ?? []) add('tool', tool);
  for (const s of (body['system'] as Array<Record<string, unknown>> | undefined) ?? []) add('system', s);
  const messages = body['messages'] as Array<{ role: string; content: Array<Record<string, unknown>> }>;
  messages.forEach((m, i) => m.content.forEach((b) => add(`${m.role}#${i}`, b)));
  return { blocks, breakpoints };
}

/** Token estimate of the first `n` blocks: chars / 4. */
const tokens = (p: Prefix, n: number) => p.blocks.slice(0, n).reduce((sum, b) => sum + b.length, 0) / 4;
const keyOf = (p: Prefix, n: number) => createHash('sha256').update(p.blocks.slice(0, n).join('\u0000')).digest('hex');

export interface Coverage {
  shared: number;
  hit: number;
  total: number;
}

/**
 * Replays the API's prefix rules over a sequence of requests: each breakpoint
 * writes the prefix ending at it; a later breakpoint reads the longest cached
 * prefix ending at it or up to LOOKBACK_BLOCKS blocks before it. For every later
 * request, reports how much of the input it shares with the request before it
 * (`shared`) and how much of that came from the cache (`hit`).
 */
export function cacheCoverage(bodies: Array<Record<string, unknown>>): Coverage[] {
  const cache = new Set<string>();
  const out: Coverage[] = [];
  let previous: Prefix | undefined;
  for (const body of bodies) {
    const p = prefixOf(body);
    if (previous) {
      let common = 0;
      while (common < p.blocks.length && common < previous.blocks.length && p.blocks[common] === previous.blocks[common]) common++;
      let hit = 0;
      for (const bp of p.breakpoints) {
        for (let end = bp + 1; end >= Math.max(1, bp + 1 - LOOKBACK_BLOCKS); end--) {
          if (cache.has(keyOf(p, end))) {
            hit = Math.max(hit, tokens(p, end));
            break;
          }
        }
      }
      out.push({ shared: tokens(p, common), hit, total: tokens(p, p.blocks.length) });
    }
    for (const bp of p.breakpoints) cache.add(keyOf(p, bp + 1));
    previous = p;
  }
  return out;
}

