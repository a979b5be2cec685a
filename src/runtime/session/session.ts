// C3: sessions as append-only JSONL, one record per line, written as the turn
// goes so a crash loses at most the step in flight. Loading replays the
// records, skips a corrupt or truncated line with a warning, and normalises
// the history (T9) so a resumed session is always valid for the API.
import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../errors';
import { normaliseHistory } from './history';
import { externaliseImages, imageFileIntact, imagesDirFor, resolveImages } from './session-images';
import { cutHead, repairLoneSurrogates } from '../text-cut';
import { IMAGE_MEDIA_TYPES, type Message, type Usage } from '../types';
import { type SavedCost } from '../spend/usage';
import { splitAttachments } from './user-text';
import { EMPTY_PLAN, reducePlan, TODO_STATUSES, type Plan } from '../plan';

const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
/**
 * In a session file an image is a reference (`ref`: a file name in the session's
 * `.images` folder, content-addressed) rather than its bytes; in memory it has
 * `data`. Loading turns refs back into data (see session-images.ts).
 */
const ImageBlock = z.object({
  type: z.literal('image'),
  mediaType: z.enum(IMAGE_MEDIA_TYPES),
  width: z.number(),
  height: z.number(),
  data: z.string().optional(),
  ref: z.string().optional(),
});
const UserMessageSchema = z.object({
  role: z.literal('user'),
  content: z.array(
    z.union([
      TextBlock,
      ImageBlock,
      z.object({
        type: z.literal('tool_result'),
        tool_use_id: z.string(),
        content: z.string(),
        images: z.array(ImageBlock).optional(),
        is_error: z.boolean().optional(),
        aborted: z.literal(true).optional(),
        exit: z.object({ code: z.number().nullable(), note: z.string().optional() }).optional(),
        counts: z.object({ lines: z.number().optional(), matches: z.number().optional() }).optional(),
      }),
    ]),
  ),
});
const AssistantMessageSchema = z.object({
  role: z.literal('assistant'),
  content: z.array(
    z.union([
      TextBlock,
      z.object({
        type: z.literal('thinking'),
        thinking: z.string(),
        signature: z.string(),
        reasoning: z.object({ provider: z.literal('openai'), model: z.string().optional(), id: z.string(), encryptedContent: z.string(), summary: z.array(z.string()) }).optional(),
      }),
      z.object({ type: z.literal('redacted_thinking'), data: z.string() }),
      z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()), unparsedInput: z.string().optional() }),
    ]),
  ),
});
const MessageSchema = z.union([UserMessageSchema, AssistantMessageSchema]);
const UsageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number(),
  cache_read_input_tokens: z.number(),
});

const ConversationRecordSchemas = [
  z.object({
    type: z.literal('meta'),
    version: z.literal(1),
    id: z.string(),
    createdAt: z.string(),
    cwd: z.string().optional(),
    model: z.string().optional(),
    forkedFrom: z.string().optional(),
  }),
  /**
   * `usage`: the session's cumulative usage once the step that produced this assistant message was charged (C4: a crash loses none);
   * `costUsd` / `unpricedRequests`: the session's cost at that point, each request priced at its own model when it was made.
   */
  z.object({
    type: z.literal('message'),
    ts: z.number(),
    message: MessageSchema,
    usage: UsageSchema.optional(),
    costUsd: z.number().optional(),
    unpricedRequests: z.number().optional(),
  }),
  /** Replaces the whole history: written by compaction and at the top of a fork. */
  z.object({ type: z.literal('snapshot'), ts: z.number(), reason: z.enum(['compaction', 'fork', 'retract']), messages: z.array(MessageSchema) }),
  /** Turn markers (turn_ended carries cumulative usage): for listing and resuming counters, never replayed into history. */
  z.object({ type: z.literal('event'), ts: z.number(), name: z.string(), data: z.record(z.string(), z.unknown()).optional() }),
] as const;
/** A record of one subagent's own conversation (its messages, snapshots and events), as its conversation wrote it. */
const SubagentInnerSchema = z.discriminatedUnion('type', ConversationRecordSchemas);
export type SubagentInnerRecord = z.infer<typeof SubagentInnerSchema>;

export const SessionRecordSchema = z.discriminatedUnion('type', [
  ...ConversationRecordSchemas,
  /**
   * A subagent's transcript lives in its parent's file, each record wrapped and linked to the parent's `agent`
   * tool use by its id: resume, history and checkpoints see one file. Never replayed into the parent's history.
   */
  z.object({ type: z.literal('subagent'), ts: z.number(), agentId: z.string(), record: SubagentInnerSchema }),
]);
export type SessionRecord = z.infer<typeof SessionRecordSchema>;

/** The data of a `plan_updated` event record (todo_write). */
const PlanRecordSchema = z.object({
  todos: z.array(z.object({ content: z.string(), status: z.enum(TODO_STATUSES), activeForm: z.string() })),
});
export type SessionMeta = Extract<SessionRecord, { type: 'meta' }>;

export interface SessionStore {
  /** Where the session lives, for "session_file" in CLI output; undefined for in-memory stores. */
  readonly path: string | undefined;
  /**
   * Queues one record; records are written in order. A rejection is a disk error the caller reports and survives;
   * the record is kept and written, still in order, once a later write succeeds.
   */
  append(record: SessionRecord): Promise<void>;
  /** Resolves when everything queued so far is on disk (or failed). */
  flush(): Promise<void>;
}

interface Pending {
  line: string;
  /** Image files the line refers to: written before it. */
  images: Map<string, Buffer>;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** A message or snapshot record with its images as references to files in the `.images` folder (`keep` writes them). */
function withImageRefs<R extends SubagentInnerRecord>(record: R, keep: (name: string, bytes: Buffer) => void): R {
  if (record.type === 'message') return { ...record, message: externaliseImages([record.message as Message], keep)[0]! as typeof record.message };
  if (record.type === 'snapshot') return { ...record, messages: externaliseImages(record.messages as Message[], keep) as typeof record.messages };
  return record;
}

export class JsonlSessionStore implements SessionStore {
  private queue: Pending[] = [];
  private writing: Promise<void> | undefined;
  private checkTail = false;
  /** Lines of batches that failed to write, retried first by the next write. */
  private unwritten: string[] = [];
  private unwrittenImages = new Map<string, Buffer>();
  /** Image files known to be on disk: each is written once. */
  private readonly storedImages = new Set<string>();

  private constructor(readonly path: string) {}

  /** Starts a new session file in `dir`. */
  static async create(dir: string, meta: { cwd?: string; model?: string; forkedFrom?: string; id?: string } = {}): Promise<JsonlSessionStore> {
    await mkdir(dir, { recursive: true });
    const id = meta.id ?? randomUUID();
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const store = new JsonlSessionStore(join(dir, `${stamp}-${id.slice(0, 8)}.jsonl`));
    const { id: _id, ...rest } = meta;
    await store.append({ type: 'meta', version: 1, id, createdAt: new Date().toISOString(), ...rest });
    return store;
  }

  /**
   * Appends to an existing (or new, headerless) session file, e.g. `--session file.jsonl`.
   * A file cut off mid-line by a crash gets a newline before the first record,
   * so the torn line stays one skipped line instead of corrupting the next too.
   */
  static open(path: string): JsonlSessionStore {
    const store = new JsonlSessionStore(path);
    store.checkTail = true;
    return store;
  }

  append(record: SessionRecord): Promise<void> {
    const images = new Map<string, Buffer>();
    const keep = (name: string, bytes: Buffer) => {
      if (!this.storedImages.has(name)) images.set(name, bytes);
    };
    const stored: SessionRecord = record.type === 'subagent' ? { ...record, record: withImageRefs(record.record, keep) } : withImageRefs(record, keep);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ line: `${JSON.stringify(stored)}\n`, images, resolve, reject });
      this.writing ??= this.drain();
    });
  }

  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  // Records queued while a write is in flight go out together in one write:
  // one syscall per batch keeps persistence off the loop's hot path.
  // A failed batch is kept and written again, ahead of later records, by the
  // next write: when the disk comes back (space freed, remounted, file put
  // back) the file holds every record in order instead of a silent gap. A
  // failed write is cut back to where it started so a retry cannot duplicate
  // the records of a partial write; if that cut fails too, the next write
  // starts on a new line so the torn line stays one skipped line.
  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        const lines = [...this.unwritten, ...batch.map((p) => p.line)];
        const images = new Map([...this.unwrittenImages, ...batch.flatMap((p) => [...p.images])]);
        try {
          await this.writeImages(images);
          this.unwrittenImages = new Map();
          await this.write(lines.join(''));
          this.unwritten = [];
          for (const p of batch) p.resolve();
        } catch (error) {
          this.unwritten = lines;
          for (const [name, bytes] of images) if (!this.storedImages.has(name)) this.unwrittenImages.set(name, bytes);
          this.checkTail = true;
          for (const p of batch) p.reject(error);
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  // Written to a temporary name and renamed, so a crash never leaves a torn file under a content address.
  private async writeImages(images: Map<string, Buffer>): Promise<void> {
    if (images.size === 0) return;
    const dir = imagesDirFor(this.path);
    await mkdir(dir, { recursive: true });
    for (const [name, bytes] of images) {
      if (this.storedImages.has(name)) continue;
      const target = join(dir, name);
      // "Already stored" means stored whole: a file a crash left short under this name is written again.
      const exists = await readFile(target).then((b) => imageFileIntact(name, b), () => false);
      if (!exists) {
        const temp = `${target}.${process.pid}.tmp`;
        await writeFile(temp, bytes);
        await rename(temp, target);
      }
      this.storedImages.add(name);
    }
  }

  private async write(text: string): Promise<void> {
    const handle = await open(this.path, 'a+');
    try {
      const { size } = await handle.stat();
      let prefix = '';
      if (this.checkTail && size > 0) {
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) prefix = '\n';
      }
      this.checkTail = false;
      try {
        await handle.appendFile(prefix + text, 'utf8');
      } catch (error) {
        // Only a regular file can be cut back (a device like /dev/full cannot, and has nothing to cut).
        if ((await handle.stat().catch(() => undefined))?.isFile()) await handle.truncate(size).catch(() => undefined);
        throw error;
      }
    } finally {
      await handle.close().catch(() => undefined);
    }
  }
}

export class MemorySessionStore implements SessionStore {
  readonly path = undefined;
  readonly records: SessionRecord[] = [];
  async append(record: SessionRecord): Promise<void> {
    this.records.push(record);
  }
  async flush(): Promise<void> {}
}

export interface LoadedSession {
  path: string;
  meta: SessionMeta | undefined;
  /** Normalised (T9): safe to send as is. */
  messages: Message[];
  /** Cumulative usage as last recorded, to resume counters and cost. */
  usage: Usage | undefined;
  /** The session's cost as last saved, and the usage it belongs to (C4: summed as saved, never re-priced). */
  cost: SavedCost | undefined;
  /** The plan (todo_write) as last saved; empty when there is none. */
  plan: Plan;
  /** Each subagent's messages, by the id of the `agent` tool use that started it (as they were, not normalised). */
  subagents: Record<string, Message[]>;
  warnings: string[];
}

/** `images: false` skips reading image files (listing needs titles only); their blocks then lack data. */
export async function loadSession(path: string, options: { images?: boolean } = {}): Promise<LoadedSession> {
  const text = await readFile(path, 'utf8');
  const session = parseSession(path, text);
  if (options.images === false) return session;
  return { ...session, messages: await resolveImages(session.messages, imagesDirFor(path), session.warnings) };
}

export function parseSession(path: string, text: string): LoadedSession {
  const warnings: string[] = [];
  let meta: SessionMeta | undefined;
  let messages: Message[] = [];
  let usage: Usage | undefined;
  let cost: SavedCost | undefined;
  let plan = EMPTY_PLAN;
  const subagents: Record<string, Message[]> = {};
  const saveCost = (at: Usage, usd: unknown, unpriced: unknown) => {
    if (typeof usd === 'number' && Number.isFinite(usd)) cost = { usd, unpricedRequests: typeof unpriced === 'number' ? unpriced : 0, usage: at };
  };
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (!line.trim()) return;
    const where = index === lines.length - 1 ? 'last line' : `line ${index + 1}`;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      warnings.push(`${basename(path)}: ${where} is not valid JSON (${errorMessage(error)}); skipped`);
      return;
    }
    // JSON writes a lone surrogate as a \udXXX escape. Sent back, the API refuses it on every request,
    // so a session that holds one (cut by an older version mid-emoji) is repaired as it loads.
    if (/\\u[dD][89a-fA-F]/.test(line)) {
      const fixed = repairLoneSurrogates(json);
      if (fixed.repaired > 0) {
        json = fixed.value;
        warnings.push(`${basename(path)}: ${where} held ${fixed.repaired} text${fixed.repaired === 1 ? '' : 's'} with a broken character (a lone UTF-16 surrogate); replaced by \uFFFD`);
      }
    }
    const parsed = SessionRecordSchema.safeParse(json);
    if (!parsed.success) {
      warnings.push(`${basename(path)}: ${where} is not a session record (${parsed.error.issues[0]?.message ?? 'bad shape'}); skipped`);
      return;
    }
    const record = parsed.data;
    if (record.type === 'subagent') {
      const inner = record.record;
      if (inner.type === 'message') (subagents[record.agentId] ??= []).push(inner.message as Message);
      else if (inner.type === 'snapshot') subagents[record.agentId] = [...(inner.messages as Message[])];
    } else if (record.type === 'meta') meta ??= record;
    else if (record.type === 'message') {
      messages.push(record.message as Message);
      if (record.usage) {
        usage = record.usage;
        saveCost(record.usage, record.costUsd, record.unpricedRequests);
      }
    } else if (record.type === 'snapshot') messages = [...(record.messages as Message[])];
    else if (record.name === 'plan_updated') {
      const saved = PlanRecordSchema.safeParse(record.data);
      if (saved.success) plan = reducePlan(plan, { type: 'restore', todos: saved.data.todos });
      else warnings.push(`${basename(path)}: ${where} is not a valid plan; skipped`);
    } else if (record.name === 'usage' || record.name === 'turn_ended') {
      const u = UsageSchema.safeParse(record.data?.cumulative);
      if (u.success) {
        usage = u.data;
        saveCost(u.data, record.data?.costUsd, record.data?.unpricedRequests);
      }
    }
  });
  return { path, meta, messages: normaliseHistory(messages), usage, cost, plan, subagents, warnings };
}

export interface SessionInfo {
  id: string;
  path: string;
  createdAt: string;
  updatedAt: Date;
  /** The first user prompt, shortened: what a picker shows. */
  title: string;
  messageCount: number;
}

export async function listSessions(dir: string): Promise<SessionInfo[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.jsonl'));
  } catch {
    return [];
  }
  const infos = await Promise.all(
    names.map(async (name): Promise<SessionInfo | undefined> => {
      const path = join(dir, name);
      try {
        const [loaded, st] = await Promise.all([loadSession(path, { images: false }), stat(path)]);
        const first = loaded.messages.find((m) => m.role === 'user' && m.content.some((b) => b.type === 'text'));
        const text = first?.content.find((b) => b.type === 'text');
        // The user's words, never the attached files' text.
        const words = text && 'text' in text ? splitAttachments(text.text).words.replace(/\s+/g, ' ').trim() : '';
        const title = words ? cutHead(words, 80) : text ? '(attachments only)' : '(empty session)';
        return {
          id: loaded.meta?.id ?? name.replace(/\.jsonl$/, ''),
          path,
          createdAt: loaded.meta?.createdAt ?? st.birthtime.toISOString(),
          updatedAt: st.mtime,
          title,
          messageCount: loaded.messages.length,
        };
      } catch {
        return undefined;
      }
    }),
  );
  return infos.filter((i): i is SessionInfo => i !== undefined).sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime());
}

/**
 * Copies a session's (normalised) history into a new file; the original is never touched, so it stays in the
 * session list as the branch left behind. `upTo` keeps only the messages before that index (a checkpoint's
 * user message: going back to it).
 */
export async function forkSession(path: string, dir: string, upTo?: number): Promise<{ store: JsonlSessionStore; session: LoadedSession }> {
  const loaded = await loadSession(path);
  const session = upTo === undefined ? loaded : { ...loaded, messages: normaliseHistory(loaded.messages.slice(0, upTo)) };
  const store = await JsonlSessionStore.create(dir, { forkedFrom: session.meta?.id ?? path, ...(session.meta?.cwd ? { cwd: session.meta.cwd } : {}) });
  await store.append({ type: 'snapshot', ts: Date.now(), reason: 'fork', messages: session.messages });
  // The saved cost with the usage it belongs to, then any usage recorded after it (priced on resume).
  const saved = session.cost;
  if (saved) await store.append({ type: 'event', ts: Date.now(), name: 'usage', data: { cumulative: saved.usage, costUsd: saved.usd, unpricedRequests: saved.unpricedRequests } });
  if (session.usage && JSON.stringify(session.usage) !== JSON.stringify(saved?.usage)) await store.append({ type: 'event', ts: Date.now(), name: 'usage', data: { cumulative: session.usage } });
  // The plan goes with a whole copy; going back to a checkpoint starts without one (the later plan would describe work undone).
  if (upTo === undefined && session.plan.length > 0) await store.append({ type: 'event', ts: Date.now(), name: 'plan_updated', data: { todos: session.plan } });
  else if (upTo !== undefined) return { store, session: { ...session, plan: EMPTY_PLAN, path: store.path } };
  return { store, session: { ...session, path: store.path } };
}
