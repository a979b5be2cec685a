// todo_write: the model's visible plan. The tool only checks the list and hands
// it back beside its text (ToolOutput.plan); the session keeps it (the loop
// applies reducePlan), so the tool has no state and no effect to ask about.
import { z } from 'zod';
import { PlanError, reducePlan, EMPTY_PLAN, planResultText, TODO_STATUSES } from '../../runtime/plan';
import { defineTool } from '../tool';

const schema = z.object({
  todos: z
    .array(
      z.object({
        content: z.string().min(1).max(1000).describe('The step, imperative and short: "Run the tests".'),
        status: z.enum(TODO_STATUSES).describe('pending, in_progress (at most one item) or completed.'),
        activeForm: z.string().min(1).max(1000).describe('The same step as it is being done: "Running the tests". Shown while it is in progress.'),
      }),
    )
    .max(100)
    .describe('The whole plan, in order: every call replaces the previous list.'),
});

export const todoWriteTool = defineTool({
  name: 'todo_write',
  description: [
    'Creates or updates your plan for the current task: a short ordered list of steps the user sees next to the chat.',
    'Send the whole list on every call; it replaces the previous one. At most one item may be in_progress.',
    'Use it for work with several steps (three or more, or when the user gives you a list): write the plan first, set an item in_progress before you start it, and mark it completed as soon as it is done.',
    'Do not use it for a single simple step or a question you can answer at once.',
  ].join('\n'),
  schema,
  // No effect outside the session: runs without asking, in every mode (plan mode too).
  readOnly: true,
  need: 'read',
  assess: async () => ({ need: 'read', subject: '' }),
  async execute(input) {
    let plan;
    try {
      plan = reducePlan(EMPTY_PLAN, { type: 'write', todos: input.todos });
    } catch (error) {
      if (error instanceof PlanError) return { content: error.message, isError: true };
      throw error;
    }
    return { content: planResultText(plan), isError: false, plan };
  },
});
