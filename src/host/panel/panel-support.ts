// What only an open chat panel needs on the host side, bundled apart as
// dist/panel-support.js and required when the panel first shows (see
// load-panel-support.ts), so activation does not compile it: the panel's
// message schemas (zod, and building the schemas, was half of activation's
// time) and the `@` picker's workspace index (with its .gitignore parser).
export { HostToWebview, WebviewToHost } from '../../webview/protocol';
export { WorkspaceIndex } from '../context/workspace-index';
export { sensitiveFileMatcher } from '../../runtime/policy/sensitive-files';
