// Permission analysis of a 10 kB compound command (issue 21): the bash parser
// (tree-sitter-bash via web-tree-sitter) builds the syntax tree, the analysis
// walks it and the policy matches every part against the allow and deny rules.
// Target: median < 5 ms. Also reported: loading the parser on first use (the
// wasm files are read only then, never at activation).
import { PermissionPolicy } from '../src/runtime/policy/permissions';
import { analyseCommand } from '../src/runtime/policy/shell-analysis';
import { loadShellParser, parseShell } from '../src/runtime/policy/shell-parser';
import { round, type BenchResult, type Sampled } from './lib';

function stats(times: number[]): Sampled {
  const t = [...times].sort((x, y) => x - y);
  return { median: t[Math.floor(t.length / 2)]!, min: t[0]!, max: t[t.length - 1]! };
}

/** ~10 kB of ordinary commands joined by && ; | with quotes and /dev/null redirections. */
function compoundCommand(bytes: number): string {
  const parts: string[] = [];
  let i = 0;
  while (parts.join(' && ').length < bytes) {
    parts.push(`git status --short src/file${i}.ts | grep -v 'x y' > /dev/null; echo "done ${i}" 2>&1`);
    i++;
  }
  return parts.join(' && ');
}

export default async function (): Promise<BenchResult[]> {
  const t0 = performance.now();
  await loadShellParser();
  const loadMs = performance.now() - t0;

  const command = compoundCommand(10 * 1024);
  const policy = new PermissionPolicy('ask', { allow: ['bash(git status:*)', 'bash(grep:*)', 'bash(echo:*)'], deny: ['bash(rm:*)'] });
  let kind = '';
  const judge = () => {
    const shell = analyseCommand(command);
    kind = policy.decide({ toolName: 'bash', readOnly: false, assessment: { need: 'command', subject: command, shell } }).kind;
  };
  // Baseline, interleaved: the bare parse, the floor any tree-based decision pays.
  const parseOnly = () => parseShell(command).delete();
  const ours: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < 5; i++) {
    judge();
    parseOnly();
  }
  for (let i = 0; i < 31; i++) {
    let t = performance.now();
    judge();
    ours.push(performance.now() - t);
    t = performance.now();
    parseOnly();
    base.push(performance.now() - t);
  }
  const s = stats(ours);
  const b = stats(base);
  if (kind !== 'allow') throw new Error(`the bench command should be allowed, got ${kind}`);
  return [
    {
      name: 'permission analysis of a 10 kB compound command',
      measured: `parse (tree-sitter-bash) + analysis + allow/deny rule matching of ${command.length} characters (baseline: the bare parse), ${analyseCommand(command).commands.length} simple commands`,
      unit: 'ms',
      ours: round(s.median),
      baseline: round(b.median),
      ratio: round(s.median / b.median),
      target: '< 5 ms',
      pass: s.median < 5,
      min: round(s.min),
      max: round(s.max),
    },
    {
      name: 'bash parser load on first use',
      measured: 'web-tree-sitter init + tree-sitter-bash.wasm load, once per process (never at activation)',
      unit: 'ms',
      ours: round(loadMs),
      baseline: null,
      ratio: null,
      target: 'report',
      pass: null,
    },
  ];
}
