// What a finished turn leaves behind on GitHub: the job summary (result, usage,
// cost) and the text of the comment on the thread.
import { type CliResult } from '../cli/output';

export interface TurnReport {
  result: string;
  isError: boolean;
  /** Absent when the CLI stopped before the turn; null when a model had no price. */
  cli: CliResult | undefined;
  sessionFile: string | undefined;
  artifactName: string | undefined;
}

export function formatCost(cost: number | null | undefined): string {
  if (cost === undefined) return '';
  return cost === null ? 'unknown (a model without a price; see turnstone.modelPrices)' : `$${cost.toFixed(4)}`;
}

const count = (n: number) => n.toLocaleString('en-US');

export function summaryMarkdown(report: TurnReport, limitChars: number): string {
  const heading = report.isError ? '### ❌ Turnstone: the turn failed' : '### ✅ Turnstone';
  const rows: string[] = [];
  const cli = report.cli;
  if (cli) {
    rows.push(`| Model requests | ${cli.iterations} |`);
    rows.push(`| Input tokens | ${count(cli.usage.input_tokens)} (cache read ${count(cli.usage.cache_read_input_tokens)}, cache write ${count(cli.usage.cache_creation_input_tokens)}) |`);
    rows.push(`| Output tokens | ${count(cli.usage.output_tokens)} |`);
    rows.push(`| Cost | ${formatCost(cli.cost_usd)} |`);
    const failedTools = cli.tool_results.filter((t) => t.is_error).length;
    if (cli.tool_results.length > 0) rows.push(`| Tool uses | ${cli.tool_results.length}${failedTools ? ` (${failedTools} failed)` : ''} |`);
  }
  if (report.sessionFile) rows.push(`| Session file | \`${report.sessionFile}\`${report.artifactName ? ` (artifact \`${report.artifactName}\`)` : ''} |`);
  const table = rows.length > 0 ? `\n| | |\n| --- | --- |\n${rows.join('\n')}\n` : '';
  const room = Math.max(1000, limitChars - heading.length - table.length - 200);
  const text = report.result.length > room ? `${report.result.slice(0, room)}\n\n… (cut: the session file holds the whole reply)` : report.result;
  return `${heading}\n\n${text || '_(no text)_'}\n${table}\n`;
}

/** The comment: the reply (or why the turn failed), then one small line of figures and the run's link. */
export function commentText(report: TurnReport, runUrl: string | undefined): string {
  const figures = [report.cli ? `${report.cli.iterations} model request${report.cli.iterations === 1 ? '' : 's'}` : '', formatCost(report.cli?.cost_usd), runUrl ? `[run](${runUrl})` : '']
    .filter((s) => s !== '')
    .join(' · ');
  const body = report.isError ? `**Turnstone could not finish:** ${report.result}` : report.result || '_(no text)_';
  return `${body}\n\n<sub>Turnstone${figures ? ` · ${figures}` : ''}</sub>`;
}
