// The GitHub side of a run on a pull request or an issue comment: who triggered
// it and whether they may (write access), and the one comment the action keeps
// on the thread, found again by a hidden marker and edited in place. Plain
// fetch against GITHUB_API_URL with the job's token.
import { readFileSync } from 'node:fs';
import { type Env } from './inputs';

/**
 * Events only someone with write access can cause (a push, a manual or scheduled run, a dispatch through a token
 * with write access, the merge queue, a release): the run is the repository's own, and nobody is checked.
 */
const WRITER_EVENTS = ['push', 'workflow_dispatch', 'schedule', 'repository_dispatch', 'merge_group', 'release'];

const one = (login: string | undefined): string[] => (login ? [login] : []);

/**
 * Events anybody who can read the repository may cause, each with who caused it: every one named is checked for
 * write access. For `workflow_run`, both the author of the first workflow's run (a fork's pull request runs this
 * one with the repository's secrets) and whoever triggered it (a maintainer's re-run of that fork's CI still runs
 * on the fork's content, so it does not make the run trusted).
 */
const ACTOR_EVENTS: Record<string, (p: Payload) => string[]> = {
  pull_request: (p) => one(p.sender?.login),
  pull_request_target: (p) => one(p.sender?.login),
  issues: (p) => one(p.sender?.login),
  issue_comment: (p) => one(p.comment?.user?.login ?? p.sender?.login),
  pull_request_review: (p) => one(p.review?.user?.login ?? p.sender?.login),
  pull_request_review_comment: (p) => one(p.comment?.user?.login ?? p.sender?.login),
  discussion: (p) => one(p.sender?.login),
  discussion_comment: (p) => one(p.comment?.user?.login ?? p.sender?.login),
  workflow_run: (p) => [...new Set([...one(p.workflow_run?.actor?.login), ...one(p.workflow_run?.triggering_actor?.login)])],
};

/** The events the action serves without allow_untrusted, for its messages and README. */
export const SERVED_EVENTS = [...Object.keys(ACTOR_EVENTS), ...WRITER_EVENTS];

/**
 * Who may have caused the run: `writers` (only someone with write access can cause this event), `actor` (anybody
 * could: `actors` must be checked), `unknown` (an event the action does not know, refused unless allow_untrusted).
 */
export type EventTrust = 'writers' | 'actor' | 'unknown';

export interface EventContext {
  name: string;
  owner: string;
  repo: string;
  /** The issue or pull request the event is about; absent for events on no thread (push, schedule, …). */
  issueNumber: number | undefined;
  trust: EventTrust;
  /** Who caused it, for an `actor` event (each must have write access); empty when neither the payload nor the runner names anybody. */
  actors: string[];
}

export class GitHubError extends Error {
  override readonly name = 'GitHubError';
}

interface Payload {
  number?: number;
  pull_request?: { number?: number };
  issue?: { number?: number };
  comment?: { user?: { login?: string } };
  review?: { user?: { login?: string } };
  workflow_run?: { actor?: { login?: string }; triggering_actor?: { login?: string } };
  sender?: { login?: string };
  repository?: { name?: string; owner?: { login?: string } };
}

export function readEvent(env: Env): EventContext {
  const name = env.GITHUB_EVENT_NAME ?? '';
  let payload: Payload = {};
  if (env.GITHUB_EVENT_PATH) {
    try {
      payload = JSON.parse(readFileSync(env.GITHUB_EVENT_PATH, 'utf8')) as Payload;
    } catch (error) {
      throw new GitHubError(`the event payload GITHUB_EVENT_PATH=${env.GITHUB_EVENT_PATH} cannot be read (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  const [owner = '', repo = ''] = (env.GITHUB_REPOSITORY ?? '').split('/');
  const issueNumber = payload.pull_request?.number ?? payload.issue?.number ?? payload.number;
  const actorOf = Object.hasOwn(ACTOR_EVENTS, name) ? ACTOR_EVENTS[name] : undefined;
  const trust: EventTrust = actorOf ? 'actor' : WRITER_EVENTS.includes(name) ? 'writers' : 'unknown';
  const named = actorOf?.(payload) ?? [];
  const fallback = env.GITHUB_TRIGGERING_ACTOR || env.GITHUB_ACTOR;
  const actors = actorOf && named.length === 0 && fallback ? [fallback] : named;
  return {
    name,
    trust,
    owner: payload.repository?.owner?.login ?? owner,
    repo: payload.repository?.name ?? repo,
    issueNumber: typeof issueNumber === 'number' ? issueNumber : undefined,
    actors,
  };
}

export class GitHubApi {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async request<T>(method: string, route: string, body?: unknown): Promise<{ data: T; headers: Headers }> {
    const url = route.startsWith('http') ? route : `${this.baseUrl.replace(/\/$/, '')}${route}`;
    const response = await fetch(url, {
      method,
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${this.token}`,
        'x-github-api-version': '2022-11-28',
        'user-agent': 'turnstone-action',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      const message = /"message"\s*:\s*"([^"]*)"/.exec(text)?.[1] ?? text.slice(0, 200);
      throw new GitHubError(`GitHub API ${method} ${new URL(url).pathname} answered ${response.status}${message ? `: ${message}` : ''}`);
    }
    const data = (response.status === 204 ? undefined : await response.json()) as T;
    return { data, headers: response.headers };
  }
}

/** Roles that may run the agent on the repository (`role_name`; `permission` is the older field, where maintain reads as write). */
const TRUSTED = ['admin', 'maintain', 'write'];

/** Whether `user` has write access or more; a user the API does not know as a collaborator has not. */
export async function hasWriteAccess(api: GitHubApi, ctx: EventContext, user: string): Promise<boolean> {
  try {
    const { data } = await api.request<{ permission?: string; role_name?: string }>('GET', `/repos/${ctx.owner}/${ctx.repo}/collaborators/${encodeURIComponent(user)}/permission`);
    return TRUSTED.includes(data.role_name ?? '') || TRUSTED.includes(data.permission ?? '');
  } catch (error) {
    if (error instanceof GitHubError && / answered 404/.test(error.message)) return false;
    throw error;
  }
}

/** Hidden in the rendered comment; one per workflow and job, so two workflows on a thread keep a comment each. */
export function commentMarker(env: Env): string {
  const key = `${env.GITHUB_WORKFLOW ?? ''}/${env.GITHUB_JOB ?? ''}`.replace(/--/g, '-');
  return `<!-- turnstone-action:${key} -->`;
}

interface IssueComment {
  id: number;
  body?: string;
}

/** GitHub refuses comment bodies over 65 536 characters. */
const MAX_COMMENT_CHARS = 65_000;

/** Creates the action's comment on the thread, or edits the one an earlier run left (found by its marker). Returns its id. */
export async function upsertComment(api: GitHubApi, ctx: EventContext & { issueNumber: number }, marker: string, text: string): Promise<{ id: number; updated: boolean }> {
  const body = `${marker}\n${text.length > MAX_COMMENT_CHARS ? `${text.slice(0, MAX_COMMENT_CHARS)}\n\n… (cut; the whole reply is in the job summary)` : text}`;
  const base = `/repos/${ctx.owner}/${ctx.repo}/issues`;
  let next: string | undefined = `${base}/${ctx.issueNumber}/comments?per_page=100`;
  while (next) {
    const page: { data: IssueComment[]; headers: Headers } = await api.request<IssueComment[]>('GET', next);
    const ours = page.data.find((c) => c.body?.startsWith(marker));
    if (ours) {
      await api.request('PATCH', `${base}/comments/${ours.id}`, { body });
      return { id: ours.id, updated: true };
    }
    next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.get('link') ?? '')?.[1];
  }
  const { data } = await api.request<IssueComment>('POST', `${base}/${ctx.issueNumber}/comments`, { body });
  return { id: data.id, updated: false };
}
