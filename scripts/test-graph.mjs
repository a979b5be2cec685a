// The two judgements `npm test` (scripts/test-all.mjs) makes, apart so a unit test holds them
// (test/unit/scripts/test-graph.test.ts): which parts may start now, and what a finished part
// counts. A slip in either lets a red run look green, or a run hang.

/** code-server of today's VS Code (1.139.1), beside 4.100.3 (1.100.3): one place for npm test and test:file. */
export const TODAY_CODE_SERVER = '4.139.1';
export const TODAY_VSCODE = '1.139.1';

/**
 * The waiting parts that may start now, in the listed order: every part it `needs` has ended
 * (passed or not: a failed build still lets the later parts show what they can), fewer than
 * `maxAtOnce` are running, and a part marked `alone` (it drives a real VS Code) has nothing
 * beside it. An `alone` part that may not start yet holds back the parts listed after it, or
 * a stream of small parts could keep it waiting for ever.
 */
export function partsToStart(waiting, runningParts, ended, maxAtOnce) {
  const starting = [];
  const busy = () => [...runningParts, ...starting];
  for (const part of waiting) {
    if (!(part.needs ?? []).every((name) => ended.has(name))) continue;
    const now = busy();
    if (now.some((p) => p.alone) || now.length >= maxAtOnce || (part.alone && now.length > 0)) {
      if (part.alone) break;
      continue;
    }
    starting.push(part);
  }
  return starting;
}

/** The part's own result line (its runner prints it last); undefined when it printed none (a crash, a cut run). */
export function readResult(out) {
  const line = [...out.matchAll(/^TURNSTONE_RESULT (\{.*\})$/gm)].at(-1);
  if (!line) return undefined;
  let r;
  try {
    r = JSON.parse(line[1]);
  } catch {
    return undefined; // a cut or garbled line is no result: the part counts as failed
  }
  return [r.passed, r.failed, r.skipped].every(Number.isInteger) && Array.isArray(r.skippedTitles) ? r : undefined;
}

/**
 * What a finished part adds to the run's counts. A check (`gate`) is one failure when it exits
 * non-zero. A test part counts what its result line says, and one failure more when that line
 * is missing (it crashed or was cut), when it exited non-zero with no failing test (the runner
 * itself threw), or when it ran no test at all.
 */
export function judge(part, { code, out }, seconds) {
  const secs = seconds.toFixed(1);
  if (part.gate) {
    return {
      passed: 0,
      failed: code === 0 ? 0 : 1,
      skipped: 0,
      skippedTitles: [],
      failedTitles: code === 0 ? [] : [`${part.name}: exit ${code}`],
      line: `${part.name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${secs}s`,
    };
  }
  const result = readResult(out);
  const c = result ? { ...result, failedTitles: [...(result.failedTitles ?? [])] } : { passed: 0, failed: 1, skipped: 0, skippedTitles: [], failedTitles: [] };
  let note = '';
  if (!result) note = ' (no result line: the part crashed or its count was lost)';
  else if (code !== 0 && c.failed === 0) {
    c.failed = 1;
    note = ` (exit ${code})`;
  } else if (c.passed + c.failed === 0) {
    c.failed = 1;
    note = ' (ran no test)';
  }
  if (note) c.failedTitles.push(note.trim());
  return {
    passed: c.passed,
    failed: c.failed,
    skipped: c.skipped,
    skippedTitles: c.skippedTitles.map((t) => `${part.name}: ${t}`),
    failedTitles: c.failedTitles.map((t) => `${part.name}: ${t}`),
    line: `${part.name}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped${note} in ${secs}s`,
  };
}
