// One line about a tool use, wherever a tool use is listed in a line: the CLI's progress on stderr and a
// subagent's steps in the panel.
import { cutHead } from './text-cut';

/** Its name and main argument, shortened. */
export function describeToolUse(name: string, input: Record<string, unknown>): string {
  const main = input['command'] ?? input['path'] ?? input['pattern'] ?? input['url'] ?? input['description'];
  const text = typeof main === 'string' ? main.replace(/\s+/g, ' ') : '';
  return text ? `${name} ${text.length > 80 ? `${cutHead(text, 79)}…` : text}` : name;
}
