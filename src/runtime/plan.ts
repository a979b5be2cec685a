// The session's plan (todo_write): a list the model rewrites whole on each
// call. The reducer here is the one place its rules live, so the tool, the
// loop and a resumed session all agree on what a valid plan is.

export const TODO_STATUSES = ['pending', 'in_progress', 'completed'] as const;
export type TodoStatus = (typeof TODO_STATUSES)[number];

export interface Todo {
  /** What to do, imperative: "Run the tests". */
  content: string;
  status: TodoStatus;
  /** The same step while it runs: "Running the tests" (the panel's running bar shows it). */
  activeForm: string;
}

export type Plan = readonly Todo[];

export const EMPTY_PLAN: Plan = [];

export type PlanErrorKind = 'several_in_progress' | 'blank_text';

export class PlanError extends Error {
  override readonly name = 'PlanError';
  constructor(
    readonly kind: PlanErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export type PlanAction =
  /** The model's todo_write: the whole new list. */
  | { type: 'write'; todos: readonly Todo[] }
  /** A resumed session's last saved plan: kept if it is still valid, else dropped (a hand-edited file). */
  | { type: 'restore'; todos: readonly Todo[] }
  | { type: 'clear' };

/** What is wrong with a list, if anything: at most one item in progress, no blank text. */
export function planProblem(todos: readonly Todo[]): PlanError | undefined {
  const running = todos.filter((t) => t.status === 'in_progress');
  if (running.length > 1) {
    const names = running.map((t) => `"${t.content}"`).join(', ');
    return new PlanError('several_in_progress', `At most one todo may be in_progress at a time; ${running.length} are (${names}). Mark the others pending or completed and call todo_write again with the whole list.`);
  }
  const blank = todos.findIndex((t) => t.content.trim() === '' || t.activeForm.trim() === '');
  if (blank >= 0) return new PlanError('blank_text', `Todo ${blank + 1} has an empty content or activeForm; give both as short sentences.`);
  return undefined;
}

/** The next plan. A write that breaks the rules throws PlanError and leaves the plan as it was. */
export function reducePlan(plan: Plan, action: PlanAction): Plan {
  switch (action.type) {
    case 'clear':
      return EMPTY_PLAN;
    case 'restore':
      return planProblem(action.todos) ? plan : copy(action.todos);
    case 'write': {
      const problem = planProblem(action.todos);
      if (problem) throw problem;
      return copy(action.todos);
    }
  }
}

const copy = (todos: readonly Todo[]): Plan => todos.map(({ content, status, activeForm }) => ({ content, status, activeForm }));

export interface PlanProgress {
  completed: number;
  total: number;
  /** The item in progress, if any. */
  active: Todo | undefined;
}

export function planProgress(plan: Plan): PlanProgress {
  return { completed: plan.filter((t) => t.status === 'completed').length, total: plan.length, active: plan.find((t) => t.status === 'in_progress') };
}

/** What the model reads back after a write: short, and a nudge to keep the list current. */
export function planResultText(plan: Plan): string {
  if (plan.length === 0) return 'The plan is cleared.';
  const { completed, total, active } = planProgress(plan);
  const now = active ? ` In progress: ${active.content}.` : '';
  return `Plan updated: ${completed}/${total} completed.${now} Keep it current: mark each item completed as soon as it is done, and set the next one in_progress before you start it.`;
}

/** The plan as the model reads it after a compaction; undefined when there is none. */
export function planForModel(plan: Plan): string | undefined {
  if (plan.length === 0) return undefined;
  const lines = plan.map((t, i) => `${i + 1}. [${t.status}] ${t.content}`);
  return ['Your plan (todo_write) as you last wrote it; keep it current with todo_write as you work:', ...lines].join('\n');
}
