// Types of test-graph.mjs for the unit test that holds it.
export const TODAY_CODE_SERVER: string;
export const TODAY_VSCODE: string;
export interface GraphPart {
  name: string;
  needs?: string[];
  alone?: boolean;
  gate?: boolean;
}

export interface PartCount {
  passed: number;
  failed: number;
  skipped: number;
  skippedTitles: string[];
  failedTitles: string[];
  /** The part's line in the summary. */
  line: string;
}

export function partsToStart<P extends GraphPart>(waiting: P[], runningParts: GraphPart[], ended: Map<string, unknown>, maxAtOnce: number): P[];
export function readResult(out: string): { passed: number; failed: number; skipped: number; skippedTitles: string[]; failedTitles?: string[] } | undefined;
export function judge(part: GraphPart, outcome: { code: number; out: string }, seconds: number): PartCount;
