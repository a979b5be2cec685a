// Issue 32: action.yml against the action metadata schema (SchemaStore's
// github-action.json, as @action-validator/core ships it), the contract's names,
// and the composite step that hands each input to the entry under the variable
// @actions/core would read.
import { validateAction, validateWorkflow } from '@action-validator/core';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { load } from 'js-yaml';
import { inputVariable } from '../../../src/action/inputs';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SOURCE = readFileSync(path.join(ROOT, 'action.yml'), 'utf8');

interface Step {
  id?: string;
  run?: string;
  uses?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
  if?: string;
}
interface ActionYml {
  inputs: Record<string, { description: string; default?: string; required?: boolean }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: Step[] };
}

const CONTRACT_INPUTS = ['prompt', 'prompt_file', 'model', 'provider', 'permission_mode', 'allowed_rules', 'denied_rules', 'max_cost_usd', 'max_iterations', 'settings', 'mcp_config', 'anthropic_api_key', 'openai_api_key', 'comment', 'allow_untrusted'];
const CONTRACT_OUTPUTS = ['result', 'is_error', 'cost_usd', 'session_file'];

describe('GitHub Action: action.yml (issue 32)', () => {
  const action = load(SOURCE) as ActionYml;

  it('is valid against the action metadata schema', () => {
    const state = validateAction(SOURCE);
    assert.equal(state.actionType, 'action');
    assert.deepEqual(state.errors, []);
  });

  it('the validator does catch a broken file (an output of a composite action without its value, an unknown runtime)', () => {
    const noValue = SOURCE.replace(/^ {4}value: \$\{\{ steps\.turn\.outputs\.result \}\}\n/m, '');
    assert.notEqual(noValue, SOURCE);
    assert.ok(validateAction(noValue).errors.length > 0);
    assert.ok(validateAction(SOURCE.replace('using: composite', 'using: node99')).errors.length > 0);
  });

  it('has the contract’s inputs and outputs, permission_mode defaulting to acceptEdits, and an artifact name input', () => {
    for (const name of CONTRACT_INPUTS) assert.ok(action.inputs[name], `input ${name} is missing`);
    for (const name of CONTRACT_OUTPUTS) assert.ok(action.outputs[name], `output ${name} is missing`);
    assert.equal(action.inputs.permission_mode!.default, 'acceptEdits');
    assert.ok(action.inputs.session_artifact_name?.default, 'session_artifact_name has a default');
    for (const [name, input] of Object.entries(action.inputs)) assert.notEqual(input.required, true, `${name} is required: the entry says which one is missing instead`);
  });

  it('the entry step gets every input as INPUT_<NAME> (the mangling of @actions/core) and each output is that step’s', () => {
    const turn = action.runs.steps.find((s) => s.id === 'turn');
    assert.ok(turn?.env, 'a step with id turn and env');
    assert.match(turn.run ?? '', /node "\$GITHUB_ACTION_PATH\/dist\/action\.js"/);
    const expected = Object.fromEntries(Object.keys(action.inputs).map((name) => [inputVariable(name), `\${{ inputs.${name} }}`]));
    assert.deepEqual(turn.env, expected);
    for (const name of CONTRACT_OUTPUTS) assert.equal(action.outputs[name]!.value, `\${{ steps.turn.outputs.${name} }}`);
  });

  it('uploads the session file as the named artifact even when the turn failed', () => {
    const upload = action.runs.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    assert.ok(upload, 'an upload-artifact step');
    assert.equal(upload.with?.name, '${{ inputs.session_artifact_name }}');
    assert.equal(upload.with?.path, '${{ steps.turn.outputs.session_file }}');
    assert.match(upload.if ?? '', /always\(\)/);
  });

  it('the workflows in docs/ci.md are valid workflows (the same validator, its workflow schema)', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'ci.md'), 'utf8');
    const workflows = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((b) => /^jobs:/m.test(b));
    assert.ok(workflows.length >= 3, 'the review, comment and matrix examples');
    for (const w of workflows) assert.deepEqual(validateWorkflow(w).errors, [], w.split('\n', 1)[0]);
    assert.ok(validateWorkflow(workflows[0]!.replace('timeout-minutes: 20', 'timeout-minutes: [20]')).errors.length > 0, 'a broken workflow is caught');
    const matrix = workflows.find((w) => w.includes('strategy:'));
    assert.ok(matrix, 'a matrix example');
    assert.match(matrix, /max_cost_usd: /);
    assert.match(matrix, /session_artifact_name: session-\$\{\{ matrix\.id \}\}/);
  });

  it('@actions/core’s name mangling: upper case, spaces to underscores, dashes kept', () => {
    assert.equal(inputVariable('max_cost_usd'), 'INPUT_MAX_COST_USD');
    assert.equal(inputVariable('my input'), 'INPUT_MY_INPUT');
    assert.equal(inputVariable('some-name'), 'INPUT_SOME-NAME');
  });

  it('dist/action.js carries neither vscode nor the agent (it runs dist/cli.js), and the VSIX leaves it out', () => {
    const bundle = path.join(ROOT, 'dist', 'action.js');
    assert.ok(existsSync(bundle), 'run node esbuild.mjs first');
    const text = readFileSync(bundle, 'utf8');
    assert.doesNotMatch(text, /require\("vscode"\)/);
    assert.doesNotMatch(text, /ConversationRuntime|@anthropic-ai\/sdk/);
    assert.doesNotMatch(readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8'), /dist\/action/);
  });
});
