// How resuming grows with the session: a generated session of 1 000 and 10 000
// messages, written by the real JsonlSessionStore, resumed as the CLI resumes
// (`--session`: loadSession, which validates and normalises every record, then
// the interrupted-write clean-up) against the least any resume must do: read
// the file and JSON.parse each line. Target: < 500 ms at 10 000 messages.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JsonlSessionStore, loadSession } from '../src/runtime/session/session';
import { type Message } from '../src/runtime/types';
import { cleanUpInterruptedWrites } from '../src/tools/files/interrupted-writes';
import { type BenchResult, ratioResult, round, sample } from './lib';

const SIZES = [1_000, 10_000];
const TARGET_MS = 500;

const WORDS = 'the function returns a value when called with an empty list so we check the length first and then map each entry to its parsed form'.split(' ');
const words = (i: number, n: number) => Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]).join(' ');

/**
 * A session of `count` messages as turns of tool steps: each step is an
 * assistant message (text + a tool use) and a user message with its result,
 * a few hundred bytes to a few kB each, with turn markers between turns.
 */
async function writeSession(dir: string, count: number): Promise<string> {
  const store = await JsonlSessionStore.create(dir, { cwd: dir, model: 'claude-sonnet-5-5' });
  const tools = ['read_file', 'grep_search', 'edit_file', 'bash'] as const;
  let written = 0;
  let turn = 0;
  const message = (m: Message) => {
    written++;
    return store.append({ type: 'message', ts: 1_700_000_000_000 + written, message: m });
  };
  while (written < count) {
    turn++;
    await message({ role: 'user', content: [{ type: 'text', text: `Turn ${turn}: ${words(turn, 25)}?` }] });
    for (let step = 0; step < 9 && written < count - 1; step++) {
      const id = `toolu_${turn}_${step}`;
      const name = tools[(turn + step) % tools.length]!;
      const input: Record<string, unknown> =
        name === 'bash' ? { command: `npm test -- --grep step${step}` } : name === 'edit_file' ? { path: `src/f${step}.ts`, old_string: words(step, 6), new_string: words(step + 1, 6) } : { path: `src/f${step}.ts` };
      await message({ role: 'assistant', content: [{ type: 'text', text: words(turn + step, 40) }, { type: 'tool_use', id, name, input }] });
      if (written >= count) break;
      await message({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: Array.from({ length: 20 }, (_, l) => `${l + 1}\t${words(step + l, 12)}`).join('\n') }] });
    }
    if (written < count) await message({ role: 'assistant', content: [{ type: 'text', text: words(turn, 80) }] });
    const cumulative = { input_tokens: turn * 1000, output_tokens: turn * 100, cache_creation_input_tokens: 0, cache_read_input_tokens: turn * 900 };
    await store.append({ type: 'event', ts: 1_700_000_000_000 + written, name: 'turn_ended', data: { cumulative } });
  }
  await store.flush();
  return store.path!;
}

export default async function (): Promise<BenchResult[]> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turnstone-bench-session-')));
  try {
    const results: BenchResult[] = [];
    for (const count of SIZES) {
      const file = await writeSession(dir, count);
      const bytes = fs.statSync(file).size;
      let loadedMessages = 0;
      // What `turnstone --session FILE` does before the first request (src/cli.ts openSession).
      const resume = async () => {
        const loaded = await loadSession(file);
        if (loaded.warnings.length > 0) throw new Error(loaded.warnings.join('\n'));
        await cleanUpInterruptedWrites(loaded.messages, dir);
        loadedMessages = loaded.messages.length;
      };
      const raw = async () => {
        const text = await fs.promises.readFile(file, 'utf8');
        let n = 0;
        for (const line of text.split('\n')) if (line) n += JSON.parse(line) ? 1 : 0;
        if (n < count) throw new Error('short read');
      };
      const runs = 9;
      // Interleave: warm-ups (JIT, zod's first parses), then alternate so both see the same load.
      for (let w = 0; w < 3; w++) {
        await resume();
        await raw();
      }
      const ours: number[] = [];
      const base: number[] = [];
      for (let i = 0; i < runs; i++) {
        for (const [fn, into] of (i % 2 ? [[raw, base], [resume, ours]] : [[resume, ours], [raw, base]]) as [() => Promise<void>, number[]][]) {
          const s = await sample(fn, 1, 0);
          into.push(s.median);
        }
      }
      if (loadedMessages !== count) throw new Error(`resumed ${loadedMessages} messages, wrote ${count}`);
      const st = (xs: number[]) => {
        const s = [...xs].sort((a, b) => a - b);
        return { median: s[Math.floor(s.length / 2)]!, min: s[0]!, max: s[s.length - 1]! };
      };
      const o = st(ours);
      const r = ratioResult(
        `resume ${count / 1000}k-message session`,
        `loadSession (parse + validate + normalise) and the interrupted-write clean-up, as \`--session\` resumes, on a ${Math.round(bytes / 1024)} kB JSONL written by JsonlSessionStore; baseline: readFile + JSON.parse of each line`,
        o,
        st(base),
        Infinity,
        { file_kb: Math.round(bytes / 1024) },
      );
      results.push({ ...r, target: count >= 10_000 ? `< ${TARGET_MS} ms` : 'report', pass: count >= 10_000 ? o.median < TARGET_MS : null, min: round(o.min), max: round(o.max) });
    }
    return results;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
