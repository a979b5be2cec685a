// GitHub Actions' side of the runner protocol, as @actions/core speaks it:
// workflow commands on stdout (`::name::data`), outputs and the job summary
// through the files GITHUB_OUTPUT and GITHUB_STEP_SUMMARY name. Written here
// instead of depending on @actions/core: the few rules below are all the action
// needs, and the escaping must match the runner's exactly.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { EOL } from 'node:os';

/** The runner un-escapes these in a command's data (toCommandValue/escapeData in @actions/core). */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A command's property values escape ':' and ',' as well. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export interface LogSink {
  write(text: string): void;
}

/**
 * The job log. Anything the model, a tool or a repository file produced is
 * printed with workflow commands stopped (`::stop-commands::<token>`), so a
 * line such as `::add-mask::` or `::set-env` inside a file the agent read is
 * shown as text and never acted on.
 */
export class WorkflowLog {
  private stoppedWith: string | undefined;

  constructor(private readonly out: LogSink) {}

  /** A workflow command; resumes command processing first if untrusted text was the last thing printed. */
  command(name: string, data: string, properties: Record<string, string> = {}): void {
    this.resume();
    const props = Object.entries(properties)
      .filter(([, v]) => v !== '')
      .map(([k, v]) => `${k}=${escapeProperty(v)}`)
      .join(',');
    this.out.write(`::${name}${props ? ` ${props}` : ''}::${escapeData(data)}${EOL}`);
  }

  /** Registers a secret with the runner: from here on it shows as *** wherever it is printed. */
  mask(secret: string): void {
    // The runner masks a value line by line; a multi-line secret is registered per line as @actions/core does not.
    for (const line of secret.split(/\r?\n/)) if (line.trim() !== '') this.command('add-mask', line);
  }

  /** Our own text: never contains a workflow command. */
  line(text: string): void {
    this.out.write(`${text}${EOL}`);
  }

  /** Text that did not come from this action (model replies, tool output, the CLI's stderr). */
  untrusted(text: string): void {
    if (text === '') return;
    if (this.stoppedWith === undefined) {
      this.stoppedWith = `turnstone-${randomUUID()}`;
      this.out.write(`::stop-commands::${this.stoppedWith}${EOL}`);
    }
    this.out.write(text.endsWith('\n') ? text : `${text}${EOL}`);
  }

  group(title: string, body: () => void): void {
    this.command('group', title);
    try {
      body();
    } finally {
      this.command('endgroup', '');
    }
  }

  warning(message: string): void {
    this.command('warning', message);
  }

  error(message: string): void {
    this.command('error', message);
  }

  /** Turns command processing back on; the runner expects the token alone as the command name. */
  resume(): void {
    if (this.stoppedWith === undefined) return;
    this.out.write(`::${this.stoppedWith}::${EOL}`);
    this.stoppedWith = undefined;
  }
}

/**
 * Appends `name<<DELIMITER\nvalue\nDELIMITER` to the file GITHUB_OUTPUT names, the
 * multiline-safe form; a value that contains the delimiter is refused, as
 * @actions/core refuses it (it would end the value early and set other outputs).
 */
export function setOutput(file: string, name: string, value: string): void {
  const delimiter = `ghadelimiter_${randomUUID()}`;
  if (name.includes(delimiter) || value.includes(delimiter)) throw new Error(`output ${name}: its value contains the delimiter ${delimiter}`);
  appendFileSync(file, `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`, 'utf8');
}

/** The job summary is Markdown appended to the file GITHUB_STEP_SUMMARY names; GitHub caps it at 1 MiB per step. */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024;

export function appendSummary(file: string, markdown: string): void {
  appendFileSync(file, markdown.endsWith('\n') ? markdown : `${markdown}${EOL}`, 'utf8');
}
