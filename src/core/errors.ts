/**
 * A mistake the user can fix (unknown name, missing file, bad flag). The CLI prints its message
 * as one line and exits with code 2; no stack trace.
 */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UserError';
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
