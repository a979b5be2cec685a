// Tool failures are values with a kind (ARCHITECTURE: never strings parsed
// later). The executor turns them into is_error tool results for the model.
export type ToolErrorKind =
  | 'not_found'
  | 'is_directory'
  | 'not_a_file'
  | 'binary'
  | 'too_large'
  | 'encoding'
  | 'not_read' // overwriting a file the agent never read
  | 'stale' // the file changed on disk since the agent read it
  | 'no_match'
  | 'ambiguous'
  | 'no_change'
  | 'out_of_range'
  | 'unavailable' // the host cannot run this tool (e.g. bash in a virtual workspace)
  | 'search_failed'
  | 'invalid_input' // a well-formed input that cannot be used (a filter that is no regular expression)
  | 'too_many' // a limit on things running at once (turnstone.bash.maxBackground)
  | 'io'
  // memory
  | 'outside' // a path out of the folder the tool keeps (`..`, another root, a link leading out)
  | 'secret' // text that looks like a credential, refused before anything is written
  // web_fetch
  | 'bad_url'
  | 'network' // DNS, connection and TLS failures
  | 'network_refused' // a private, loopback or metadata address
  | 'timeout'
  | 'bad_redirect'
  | 'too_many_redirects'
  | 'unsupported_type';

export class ToolError extends Error {
  override readonly name = 'ToolError';
  constructor(
    readonly kind: ToolErrorKind,
    message: string,
  ) {
    super(message);
  }
}
