// Headless CLI entry (contracts.md "Headless CLI"). The turn itself is wired in
// once the runtime lands; argument handling is here from the start.
import { parseArgs } from 'node:util';

const HELP = `Usage: turnstone -p <prompt> [options]

Runs one agent turn without an editor.

Options:
  -p, --print <prompt>          run one turn non-interactively and exit
  --cwd <dir>                   workspace root (default: current directory)
  --model <id>
  --permission-mode <mode>      plan | ask | acceptEdits | bypassPermissions (default ask)
  --allow <rule>, --deny <rule> repeatable permission rules, e.g. 'bash(git status:*)'
  --max-iterations <n>
  --output-format <fmt>         text | json | stream-json (default text)
  --session <file.jsonl>        append to / resume this session file
  --help, --version
`;

function main(argv: string[]): number {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        print: { type: 'string', short: 'p' },
        help: { type: 'boolean' },
        version: { type: 'boolean' },
      },
      strict: false,
    }));
  } catch (error) {
    process.stderr.write(`turnstone: ${(error as Error).message}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (values.version) {
    process.stdout.write(`${process.env.TURNSTONE_VERSION ?? '0.1.0'}\n`);
    return 0;
  }
  process.stderr.write('turnstone: running a turn from the CLI is not available in this build yet (see --help)\n');
  return 1;
}

process.exitCode = main(process.argv.slice(2));
