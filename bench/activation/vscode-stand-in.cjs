// A minimal `vscode` module for measuring activation outside VS Code
// (bench/activation.bench.ts). It records what the extension registers and
// answers what activation asks (settings from package.json's defaults, an
// empty secret store, a trusted workspace folder) with plain values, so the
// figures are the extension's own work. Only for the bench, never a test of
// behaviour: anything it does not model is recorded in `misses` and answered
// with a no-op, so a new API call shows in the bench's JSON instead of
// silently changing what is measured.
'use strict';
const path = require('node:path');

/** What activation did through the API: registrations by kind, and members the stand-in does not model. */
const record = { commands: [], providers: [], calls: 0, misses: new Set() };

class VsDisposable {
  constructor(fn) {
    this._fn = fn;
  }
  static from(...items) {
    return new VsDisposable(() => items.forEach((d) => d?.dispose?.()));
  }
  dispose() {
    const fn = this._fn;
    this._fn = undefined;
    fn?.();
  }
}

class EventEmitter {
  constructor() {
    this._listeners = new Set();
    this.event = (listener, thisArg, disposables) => {
      const entry = thisArg ? listener.bind(thisArg) : listener;
      this._listeners.add(entry);
      const d = new VsDisposable(() => this._listeners.delete(entry));
      disposables?.push(d);
      return d;
    };
  }
  fire(value) {
    for (const l of [...this._listeners]) l(value);
  }
  dispose() {
    this._listeners.clear();
  }
}

/** Enough of vscode.Uri for the paths activation builds (file: and the extension's own schemes). */
class Uri {
  constructor(scheme, authority, p, query, fragment) {
    this.scheme = scheme;
    this.authority = authority ?? '';
    this.path = p ?? '';
    this.query = query ?? '';
    this.fragment = fragment ?? '';
  }
  get fsPath() {
    return this.path;
  }
  static file(p) {
    return new Uri('file', '', path.resolve(p));
  }
  static parse(value) {
    const m = /^([a-z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/i.exec(value);
    return m ? new Uri(m[1], m[2], decodeURIComponent(m[3] ?? ''), m[4], m[5]) : Uri.file(value);
  }
  static from(c) {
    return new Uri(c.scheme, c.authority, c.path, c.query, c.fragment);
  }
  static joinPath(base, ...parts) {
    return base.with({ path: path.posix.join(base.path, ...parts) });
  }
  with(change) {
    return new Uri(change.scheme ?? this.scheme, change.authority ?? this.authority, change.path ?? this.path, change.query ?? this.query, change.fragment ?? this.fragment);
  }
  toString() {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}`;
  }
  toJSON() {
    return { scheme: this.scheme, authority: this.authority, path: this.path, query: this.query, fragment: this.fragment };
  }
}

class RelativePattern {
  constructor(base, pattern) {
    this.baseUri = base.uri ?? base;
    this.pattern = pattern;
  }
}

class ThemeIcon {
  constructor(id, color) {
    this.id = id;
    this.color = color;
  }
}

class ThemeColor {
  constructor(id) {
    this.id = id;
  }
}

class MarkdownString {
  constructor(value = '', supportThemeIcons = false) {
    this.value = value;
    this.supportThemeIcons = supportThemeIcons;
  }
  appendMarkdown(value) {
    this.value += value;
    return this;
  }
  appendText(value) {
    this.value += value.replace(/[\\`*_{}[\]()#+\-.!]/g, '\\$&');
    return this;
  }
  appendCodeblock(value, language = '') {
    this.value += `\n\`\`\`${language}\n${value}\n\`\`\`\n`;
    return this;
  }
}

class FileSystemError extends Error {
  static FileNotFound(m) {
    return new FileSystemError(String(m ?? 'FileNotFound'));
  }
  static NoPermissions(m) {
    return new FileSystemError(String(m ?? 'NoPermissions'));
  }
  static FileExists(m) {
    return new FileSystemError(String(m ?? 'FileExists'));
  }
}

class Range {
  constructor(startLine, startCharacter, endLine, endCharacter) {
    this.start = { line: startLine, character: startCharacter };
    this.end = { line: endLine, character: endCharacter };
  }
}

/** Listener registration for an event nobody fires during activation. */
const quietEvent = () => new EventEmitter().event;

/** The settings activation reads: package.json's defaults, as a fresh profile has them. */
function configuration(defaults) {
  return (section) => {
    const prefix = section ? `${section}.` : '';
    const full = (key) => `${prefix}${key}`;
    return {
      get: (key, fallback) => {
        record.calls++;
        const k = full(key);
        return k in defaults ? defaults[k] : fallback;
      },
      has: (key) => full(key) in defaults,
      inspect: (key) => {
        const k = full(key);
        return k in defaults ? { key: k, defaultValue: defaults[k] } : undefined;
      },
      update: async () => undefined,
    };
  };
}

/** Members not modelled: recorded, answered with a function returning a disposable (what most registration calls return). */
function recorded(name, target) {
  return new Proxy(target, {
    get(obj, prop) {
      if (prop in obj || typeof prop === 'symbol') return obj[prop];
      record.misses.add(`${name}.${String(prop)}`);
      return () => new VsDisposable(() => undefined);
    },
  });
}

function register(kind, id) {
  record.calls++;
  record.providers.push(`${kind}:${id}`);
  return new VsDisposable(() => undefined);
}

/**
 * Builds the module for one extension folder: `extensionRoot` holds the unpacked VSIX
 * (its package.json gives the settings' defaults), `workspaceFolder` is the open folder.
 */
function createVscode({ extensionRoot, workspaceFolder }) {
  const manifest = require(path.join(extensionRoot, 'package.json'));
  const defaults = {};
  for (const [key, p] of Object.entries(manifest.contributes?.configuration?.properties ?? {})) defaults[key] = p.default;
  const folderUri = Uri.file(workspaceFolder);
  const channel = (name) =>
    recorded(`OutputChannel(${name})`, {
      name,
      logLevel: 2,
      onDidChangeLogLevel: quietEvent(),
      append() {},
      appendLine() {},
      replace() {},
      clear() {},
      show() {},
      hide() {},
      dispose() {},
      trace() {},
      debug() {},
      info() {},
      warn() {},
      error() {},
    });

  const vscode = {
    // What the real module answers for it (esbuild's interop asks): it is not an ES module.
    __esModule: undefined,
    version: '1.100.3',
    // English, as VS Code answers without a language pack: the message with {0}… filled in.
    l10n: { t: (message, ...args) => String(message).replace(/\{(\d+)\}/g, (m, i) => (args[i] === undefined ? m : String(args[i]))), bundle: undefined, uri: undefined },
    Disposable: VsDisposable,
    EventEmitter,
    Uri,
    RelativePattern,
    ThemeIcon,
    ThemeColor,
    MarkdownString,
    FileSystemError,
    Range,
    FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
    FileChangeType: { Changed: 1, Created: 2, Deleted: 3 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    ViewColumn: { Active: -1, Beside: -2, One: 1 },
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
    LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
    commands: recorded('commands', {
      registerCommand: (id) => {
        record.calls++;
        record.commands.push(id);
        return new VsDisposable(() => undefined);
      },
      executeCommand: async () => {
        record.calls++;
        return undefined;
      },
      getCommands: async () => [],
    }),
    window: recorded('window', {
      createOutputChannel: (name) => {
        record.calls++;
        return channel(name);
      },
      createStatusBarItem: () =>
        recorded('StatusBarItem', { text: '', tooltip: '', command: undefined, name: '', show() {}, hide() {}, dispose() {} }),
      registerWebviewViewProvider: (id) => register('webviewView', id),
      registerTreeDataProvider: (id) => register('treeData', id),
      onDidChangeActiveTextEditor: quietEvent(),
      onDidChangeTextEditorSelection: quietEvent(),
      onDidOpenTerminal: quietEvent(),
      onDidCloseTerminal: quietEvent(),
      onDidChangeActiveTerminal: quietEvent(),
      onDidStartTerminalShellExecution: quietEvent(),
      onDidEndTerminalShellExecution: quietEvent(),
      onDidChangeTerminalShellIntegration: quietEvent(),
      terminals: [],
      activeTerminal: undefined,
      activeTextEditor: undefined,
      visibleTextEditors: [],
      tabGroups: recorded('tabGroups', { all: [], onDidChangeTabs: quietEvent(), onDidChangeTabGroups: quietEvent() }),
      setStatusBarMessage: () => new VsDisposable(() => undefined),
      showInformationMessage: async () => undefined,
      showWarningMessage: async () => undefined,
      showErrorMessage: async () => undefined,
    }),
    workspace: recorded('workspace', {
      workspaceFolders: [{ uri: folderUri, name: path.basename(workspaceFolder), index: 0 }],
      isTrusted: true,
      textDocuments: [],
      getConfiguration: configuration(defaults),
      getWorkspaceFolder: () => undefined,
      asRelativePath: (p) => path.relative(workspaceFolder, typeof p === 'string' ? p : p.fsPath),
      registerTextDocumentContentProvider: (scheme) => register('textDocumentContent', scheme),
      registerFileSystemProvider: (scheme) => register('fileSystem', scheme),
      createFileSystemWatcher: (pattern) => {
        register('fileSystemWatcher', pattern.pattern ?? String(pattern));
        return { onDidChange: quietEvent(), onDidCreate: quietEvent(), onDidDelete: quietEvent(), dispose() {} };
      },
      onDidChangeConfiguration: quietEvent(),
      onDidGrantWorkspaceTrust: quietEvent(),
      onDidChangeWorkspaceFolders: quietEvent(),
      onDidSaveTextDocument: quietEvent(),
      onDidChangeTextDocument: quietEvent(),
      onDidOpenTextDocument: quietEvent(),
      onDidCloseTextDocument: quietEvent(),
      onDidCreateFiles: quietEvent(),
      onDidDeleteFiles: quietEvent(),
      onDidRenameFiles: quietEvent(),
      fs: recorded('workspace.fs', {}),
    }),
    languages: recorded('languages', { getDiagnostics: () => [], onDidChangeDiagnostics: quietEvent() }),
    env: recorded('env', { appName: 'Visual Studio Code', appRoot: '/', language: 'en', machineId: 'bench', sessionId: 'bench', uiKind: 1, remoteName: undefined, clipboard: { readText: async () => '', writeText: async () => undefined } }),
    extensions: recorded('extensions', { getExtension: () => undefined, all: [], onDidChange: quietEvent() }),
  };
  return recorded('vscode', vscode);
}

/** An in-memory Memento (globalState / workspaceState). */
function memento() {
  const values = new Map();
  return {
    keys: () => [...values.keys()],
    get: (key, fallback) => (values.has(key) ? values.get(key) : fallback),
    update: async (key, value) => {
      if (value === undefined) values.delete(key);
      else values.set(key, value);
    },
    setKeysForSync() {},
  };
}

/** An ExtensionContext as VS Code hands a freshly installed extension: empty state and secrets, storage folders that exist. */
function createContext({ extensionRoot, storageRoot }) {
  const manifest = require(path.join(extensionRoot, 'package.json'));
  const extensionUri = Uri.file(extensionRoot);
  const secretsChanged = new EventEmitter();
  const secrets = new Map();
  return {
    subscriptions: [],
    extensionUri,
    extensionPath: extensionRoot,
    extension: { id: `${manifest.publisher}.${manifest.name}`, extensionUri, extensionPath: extensionRoot, isActive: false, packageJSON: manifest, extensionKind: 2, exports: undefined },
    extensionMode: 1,
    globalState: memento(),
    workspaceState: memento(),
    secrets: {
      get: async (key) => secrets.get(key),
      store: async (key, value) => {
        secrets.set(key, value);
        secretsChanged.fire({ key });
      },
      delete: async (key) => {
        secrets.delete(key);
        secretsChanged.fire({ key });
      },
      onDidChange: secretsChanged.event,
    },
    storageUri: Uri.file(path.join(storageRoot, 'workspace')),
    globalStorageUri: Uri.file(path.join(storageRoot, 'global')),
    logUri: Uri.file(path.join(storageRoot, 'log')),
    storagePath: path.join(storageRoot, 'workspace'),
    globalStoragePath: path.join(storageRoot, 'global'),
    logPath: path.join(storageRoot, 'log'),
    environmentVariableCollection: { persistent: true, description: undefined, replace() {}, append() {}, prepend() {}, get() {}, forEach() {}, delete() {}, clear() {}, getScoped: () => undefined },
    languageModelAccessInformation: { onDidChange: quietEvent(), canSendRequest: () => undefined },
    asAbsolutePath: (rel) => path.join(extensionRoot, rel),
  };
}

module.exports = { createVscode, createContext, record };
