// `import source from './x?worker'`: the text of ./x bundled as a browser script (scripts/inline-worker.mjs).
declare module '*?worker' {
  const source: string;
  export default source;
}
