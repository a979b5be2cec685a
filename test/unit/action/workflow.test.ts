// Issue 32: the runner protocol the action speaks (workflow commands, the
// outputs file) and its input reading, against the rules of @actions/core.
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { getBooleanInput, getMultilineInput, InputError, readInputs, secretsIn } from '../../../src/action/inputs';
import { escapeData, escapeProperty, setOutput, WorkflowLog } from '../../../src/action/workflow';
import { parseOutputsFile } from '../../support/run-action';

describe('GitHub Action: workflow commands, outputs and inputs (issue 32)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'turnstone-wf-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('escapes command data and properties as the runner un-escapes them', () => {
    assert.equal(escapeData('100%\r\nnext'), '100%25%0D%0Anext');
    assert.equal(escapeProperty('a:b,c%'), 'a%3Ab%2Cc%25');
  });

  it('a group title or annotation cannot end its line: a newline in it is escaped', () => {
    let out = '';
    const log = new WorkflowLog({ write: (t) => (out += t) });
    log.group('bash echo hi\n::error::x', () => log.line('inside'));
    assert.equal(out, `::group::bash echo hi%0A::error::x${os.EOL}inside${os.EOL}::endgroup::${os.EOL}`);
  });

  it('untrusted text is printed with commands stopped, and the next command resumes them with the same token', () => {
    let out = '';
    const log = new WorkflowLog({ write: (t) => (out += t) });
    log.untrusted('::set-env name=X::1');
    log.untrusted('more');
    log.warning('ours');
    const lines = out.split(os.EOL);
    const token = /^::stop-commands::(turnstone-[0-9a-f-]+)$/.exec(lines[0]!)?.[1];
    assert.ok(token, out);
    assert.deepEqual(lines.slice(1), ['::set-env name=X::1', 'more', `::${token}::`, '::warning::ours', '']);
  });

  it('masks every line of a secret, and finds the keys in inputs and the environment', () => {
    let out = '';
    const log = new WorkflowLog({ write: (t) => (out += t) });
    for (const s of secretsIn({ INPUT_ANTHROPIC_API_KEY: ' sk-a ', OPENAI_API_KEY: 'sk-b', INPUT_PROMPT: 'not secret' })) log.mask(s);
    assert.equal(out, ['::add-mask:: sk-a ', '::add-mask::sk-a', '::add-mask::sk-b', ''].join(os.EOL));
    out = '';
    log.mask('line1\nline2');
    assert.equal(out, ['::add-mask::line1', '::add-mask::line2', ''].join(os.EOL));
  });

  it('outputs use the delimiter syntax: a value with newlines and its own <<EOF comes back whole', () => {
    const file = path.join(dir, 'out');
    writeFileSync(file, '');
    setOutput(file, 'result', 'a\nb<<EOF\nc');
    setOutput(file, 'is_error', 'false');
    assert.deepEqual(parseOutputsFile(readFileSync(file, 'utf8')), { result: 'a\nb<<EOF\nc', is_error: 'false' });
  });

  it('reads inputs as @actions/core does: trimmed, multiline lists without empty lines, YAML booleans only', () => {
    assert.deepEqual(getMultilineInput({ INPUT_ALLOWED_RULES: ' bash(npm test) \n\n  read_file\r\n' }, 'allowed_rules'), ['bash(npm test)', 'read_file']);
    assert.equal(getBooleanInput({ INPUT_COMMENT: 'True' }, 'comment', false), true);
    assert.equal(getBooleanInput({}, 'comment', false), false);
    assert.throws(() => getBooleanInput({ INPUT_COMMENT: 'yes' }, 'comment', false), InputError);
    const inputs = readInputs({ INPUT_PROMPT: '  fix it  ', INPUT_PERMISSION_MODE: '', INPUT_GITHUB_TOKEN: '', GITHUB_TOKEN: 'ghs_env' }, dir);
    assert.equal(inputs.prompt, 'fix it');
    assert.equal(inputs.permissionMode, 'acceptEdits');
    assert.equal(inputs.githubToken, 'ghs_env');
    assert.throws(() => readInputs({ INPUT_PROMPT: 'a', INPUT_PROMPT_FILE: 'b.md' }, dir), /both prompt and prompt_file are set/);
    assert.throws(() => readInputs({}, dir), /no prompt: set the prompt input/);
    assert.throws(() => readInputs({ INPUT_PROMPT: 'a', INPUT_MAX_ITERATIONS: '2.5' }, dir), /input max_iterations is '2\.5': use a whole number/);
  });
});
