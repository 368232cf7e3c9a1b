/** One file a change touches, by its path relative to the project root ('' = absent). */
export interface FileChange {
  file: string;
  before: string;
  after: string;
}
