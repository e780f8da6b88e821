/** A command's usage line and one-line description, as `memplan --help` lists it. */
export interface CommandText {
  readonly usage: string;
  readonly describe: string;
}
