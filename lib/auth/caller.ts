/** A caller whose access token verified. */
export interface Caller {
  sub: string;
  username: string | undefined;
  groups: readonly string[];
}
