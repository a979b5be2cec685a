// The GitHub Action's entry (action.yml runs `node dist/action.js`): masks the
// keys, checks who triggered the run, runs one CLI turn with its progress in
// the log, and leaves the outputs, the job summary and (comment: true) the one
// comment on the pull request or issue.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { commentMarker, GitHubApi, GitHubError, hasWriteAccess, readEvent, SERVED_EVENTS, upsertComment, type EventContext } from './github';
import { InputError, readInputs, secretsIn, type ActionInputs, type Env } from './inputs';
import { ProgressLog } from './progress';
import { commentText, summaryMarkdown, type TurnReport } from './report';
import { planTurn, runTurn, RUNNER_ONLY, type TurnOutcome } from './turn';
import { snapshotRunnerFiles } from './runner-files';
import { maskSecrets, maskSecretsInFile } from './session-mask';
import { scrubStartEnvironment } from '../cli/start-environment';
import { looksLikeCredential } from '../runtime/policy/secret-env';
import { appendSummary, setOutput, SUMMARY_LIMIT_BYTES, WorkflowLog } from './workflow';

const log = new WorkflowLog({ write: (text) => process.stdout.write(text) });

/** Outputs for every ending, so a later step can read is_error even when the turn never ran. */
function writeOutputs(env: Env, report: TurnReport, cost: number | null | undefined): void {
  const file = env.GITHUB_OUTPUT;
  if (!file) {
    log.line('turnstone-action: GITHUB_OUTPUT is not set (not on a runner?): no outputs written');
    return;
  }
  setOutput(file, 'result', report.result);
  setOutput(file, 'is_error', String(report.isError));
  setOutput(file, 'cost_usd', cost === undefined || cost === null ? '' : String(cost));
  setOutput(file, 'session_file', report.sessionFile ?? '');
}

function writeSummary(env: Env, report: TurnReport): void {
  if (env.GITHUB_STEP_SUMMARY) appendSummary(env.GITHUB_STEP_SUMMARY, summaryMarkdown(report, SUMMARY_LIMIT_BYTES / 4));
}

/** A run that ends before the turn: the reason as an error annotation, outputs and summary, exit 1. */
function stopEarly(env: Env, reason: string): number {
  const report: TurnReport = { result: reason, isError: true, cli: undefined, sessionFile: undefined, artifactName: undefined };
  log.error(reason);
  writeOutputs(env, report, undefined);
  writeSummary(env, report);
  return 1;
}

/** Why the turn has no result object: the CLI's own `turnstone:` lines (bad usage, no key), else its exit code. */
function failureText(outcome: TurnOutcome): string {
  const lines = outcome.stderr.split('\n').filter((l) => l.startsWith('turnstone: '));
  if (lines.length === 0) return `the Turnstone CLI exited with code ${outcome.exitCode} before the turn ended`;
  // The CLI names its environment variable; on a runner the fix is the action's input.
  return lines
    .map((l) => l.slice('turnstone: '.length))
    .map((l) => (/^no API key: set ANTHROPIC_API_KEY/.test(l) ? 'no API key: set the anthropic_api_key input from a secret (anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }})' : l))
    .join('\n');
}

/**
 * Refuses a run unless it is the repository's own or its cause has write access; allow_untrusted lifts that. Fails
 * closed: an event the action does not know, or one that names nobody who caused it, is refused too.
 */
async function trustProblem(inputs: ActionInputs, ctx: EventContext, api: GitHubApi | undefined): Promise<string | undefined> {
  if (inputs.allowUntrusted || ctx.trust === 'writers') return undefined;
  const lift = 'set allow_untrusted: true to run for anyone';
  if (ctx.trust === 'unknown') return `Turnstone does not run for ${ctx.name ? `${ctx.name} events` : 'a run with no GITHUB_EVENT_NAME'}: it cannot tell who caused them. It serves ${SERVED_EVENTS.join(', ')} (or ${lift})`;
  if (ctx.actors.length === 0) return `this ${ctx.name} event names nobody who caused it, so their access cannot be checked (${lift})`;
  if (!api) return `this ${ctx.name} event was triggered by ${ctx.actors.join(' and ')}, and without a token (the github_token input) the action cannot check their access; set github_token, or allow_untrusted: true to run for anyone`;
  for (const actor of ctx.actors) {
    if (!(await hasWriteAccess(api, ctx, actor))) return `${actor} has no write access to ${ctx.owner}/${ctx.repo}, so Turnstone does not run for this ${ctx.name} event (${lift})`;
  }
  return undefined;
}

/**
 * What this process must not show through /proc/<pid>/environ, which any command of the same user can read
 * with the sandbox off: its inputs (the keys arrive as INPUT_*), the runner's tokens and credentials, and
 * where the runner's file commands are. Its own copy of the environment keeps them.
 */
function hideStartEnvironment(env: Env): void {
  const hidden = Object.keys(env).filter((n) => n.startsWith('INPUT_') || RUNNER_ONLY.includes(n) || looksLikeCredential(n));
  if (!scrubStartEnvironment(hidden) && process.platform === 'linux') log.warning('could not hide the inputs from /proc/<pid>/environ; keep turnstone.sandbox on (the default) so commands cannot read them');
}

async function main(env: Env): Promise<number> {
  // Before anything else is printed: from here on the runner shows *** for each.
  const secrets = secretsIn(env);
  for (const secret of secrets) log.mask(secret);
  hideStartEnvironment(env);
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  let inputs: ActionInputs;
  let ctx: EventContext;
  try {
    inputs = readInputs(env, workspace);
    ctx = readEvent(env);
  } catch (error) {
    if (error instanceof InputError || error instanceof GitHubError) return stopEarly(env, error.message);
    throw error;
  }
  const api = inputs.githubToken ? new GitHubApi(env.GITHUB_API_URL || 'https://api.github.com', inputs.githubToken) : undefined;
  try {
    const problem = await trustProblem(inputs, ctx, api);
    if (problem) return stopEarly(env, problem);
  } catch (error) {
    if (error instanceof GitHubError) return stopEarly(env, `could not check who triggered this run: ${error.message}`);
    throw error;
  }
  const thread = ctx.issueNumber;
  if (inputs.comment && thread === undefined) log.warning(`comment: true, but a ${ctx.name || 'this'} event is on no pull request or issue: no comment is posted`);
  if (inputs.comment && thread !== undefined && !api) return stopEarly(env, 'comment: true needs a token: set the github_token input (the default, github.token, works with permissions pull-requests: write and issues: write)');

  const sessionName = `turnstone-${env.GITHUB_RUN_ID ?? 'local'}-${env.GITHUB_RUN_ATTEMPT ?? '1'}-${randomBytes(3).toString('hex')}`;
  const plan = planTurn(inputs, env, { workspace, temp: env.RUNNER_TEMP || os.tmpdir(), sessionName });
  const runnerFiles = snapshotRunnerFiles(env);
  const progress = new ProgressLog(log);
  log.line(`Turnstone: one turn in ${workspace} (permission mode ${inputs.permissionMode}${inputs.maxCostUsd ? `, at most $${inputs.maxCostUsd}` : ''})`);
  const outcome = await runTurn(path.join(__dirname, 'cli.js'), plan, {
    onEvent: (event) => progress.onEvent(event),
    onStderr: (text) => log.untrusted(text),
  });
  progress.finish();
  // Before the action's own outputs: nothing the turn wrote there reaches the steps after this one.
  const tampered = runnerFiles.restoreChanged();

  const cli = outcome.result;
  const sessionFile = existsSync(plan.sessionFile) ? plan.sessionFile : undefined;
  if (sessionFile) maskSecretsInFile(sessionFile, secrets);
  const tamperNote = tampered.length > 0 ? `the agent's commands wrote to the runner's ${tampered.join(', ')}, which would have changed the steps after this one: Turnstone put back what was there, and fails the run` : undefined;
  const report: TurnReport = {
    // The reply goes into a comment anyone can read: a secret it repeats is masked there as in the log.
    result: maskSecrets(tamperNote ?? (cli ? cli.result : failureText(outcome)), secrets),
    isError: tamperNote !== undefined || (cli ? cli.is_error || outcome.exitCode !== 0 : true),
    cli,
    sessionFile,
    artifactName: inputs.sessionArtifactName || undefined,
  };
  writeOutputs(env, report, cli?.cost_usd);
  writeSummary(env, report);
  if (report.isError) log.error(`the turn failed: ${report.result.split('\n', 1)[0] ?? ''}`);

  if (inputs.comment && thread !== undefined && api) {
    const runUrl = env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
    try {
      const posted = await upsertComment(api, { ...ctx, issueNumber: thread }, commentMarker(env), commentText(report, runUrl));
      log.line(`Turnstone: ${posted.updated ? 'updated' : 'posted'} comment ${posted.id} on #${thread}`);
    } catch (error) {
      if (!(error instanceof GitHubError)) throw error;
      log.error(`the reply could not be posted on #${thread}: ${error.message}`);
      return 1;
    }
  }
  return report.isError ? 1 : 0;
}

// A copy: hiding the start environment changes what process.env reads from then on.
main({ ...process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    log.error(`turnstone-action: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
