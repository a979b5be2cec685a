// What activation compiles. dist/extension.js holds the wiring only; what an
// open panel needs loads from dist/panel-support.js when the panel first shows,
// the agent (runtime, SDKs, tools) from dist/core.js on the first turn. A module
// that slips back into the activation bundle is paid by every window at start
// (bench/activation.bench.ts measures it: zod and the panel's schemas alone
// were half of activation). Read from the metafile esbuild.mjs writes beside
// the bundles.
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Metafile } from 'esbuild';

const root = path.resolve(__dirname, '..', '..');
const metaPath = path.join(root, 'dist', 'extension.meta.json');

/** Modules of the lazy bundles that activation itself needs too, with why (keep this short). */
const SHARED: Record<string, string> = {
  'src/runtime/session/user-text.ts': 'the host formats attachment blocks with it (a few pure functions, no dependencies)',
};

/** The lazy bundles' entries: what each one exists to keep out of activation is what it exports. */
const LAZY_ENTRIES = ['src/host/panel/panel-support.ts', 'src/host/session/core.ts'];

describe('activation bundle (dist/extension.js)', function () {
  let meta: Metafile;
  let activation: Set<string>;

  before(function () {
    assert.ok(existsSync(metaPath), `${metaPath} is missing: build first (node esbuild.mjs; npm run test:unit does)`);
    meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Metafile;
    const out = meta.outputs['dist/extension.js'];
    assert.ok(out, 'the metafile has no dist/extension.js');
    activation = new Set(Object.keys(out.inputs));
  });

  /** How the activation entry reaches `module`: "src/extension.ts → … → module", for the failure message. */
  function chain(module: string): string {
    const from = new Map<string, string>();
    const queue = ['src/extension.ts'];
    while (queue.length > 0) {
      const at = queue.shift()!;
      if (at === module) break;
      for (const imp of meta.inputs[at]?.imports ?? []) {
        if (imp.external || from.has(imp.path) || imp.path === 'src/extension.ts') continue;
        from.set(imp.path, at);
        queue.push(imp.path);
      }
    }
    const steps = [module];
    for (let at = from.get(module); at !== undefined; at = from.get(at)) steps.unshift(at);
    return steps.join(' → ');
  }

  it('holds no third-party package: zod, the SDKs, MCP, the parsers and the rest load with the lazy bundles', () => {
    // One import chain per package, to the module that pulled it in first.
    const byPackage = new Map<string, string>();
    for (const m of activation) {
      const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(m)?.[1];
      if (name && !byPackage.has(name)) byPackage.set(name, m);
    }
    assert.deepEqual([...byPackage.values()].map(chain), [], 'import these where they are used after activation (a module of panel-support.ts or core.ts), or load them on first use');
  });

  it('holds none of the modules the lazy bundles export (the panel\'s schemas, the @ index, the runtime, tools and providers)', () => {
    for (const entry of LAZY_ENTRIES) assert.ok(meta.inputs[entry], `${entry} is not built: esbuild.mjs must keep it an entry point`);
    for (const file of ['dist/panel-support.js', 'dist/core.js']) assert.ok(meta.outputs[file], `${file} is not built`);
    const lazy = LAZY_ENTRIES.flatMap((entry) => [entry, ...meta.inputs[entry]!.imports.filter((i) => !i.external).map((i) => i.path)]);
    const leaked = [...new Set(lazy)].filter((m) => activation.has(m) && !(m in SHARED));
    assert.deepEqual(
      leaked.map(chain),
      [],
      'use `import type` for these, or reach them through loadPanelSupport() / loadCore() (src/host/panel/load-panel-support.ts, load-core.ts)',
    );
  });
});
