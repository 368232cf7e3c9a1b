import {
  workspaceChanges,
  type WorkspaceChange,
  type WorkspaceFinding,
} from '../../agents/workspace-changes.js';
import { BUILD_OUTPUT, sourceScope, type ProjectLayout } from '../../toolchains/layout.js';

/*
 * What an agent submits, read off its workspace: only Java sources under the project's test
 * root go on to the verifier, which copies them into pristine buggy and clean trees. Every other
 * change is a violation, recorded and never copied: a build file or Maven's own configuration
 * could change how the tests run, a JUnit listener or platform setting could rewrite their
 * outcome, production code could remove the bug, and a link could reach past the workspace.
 * What the harness would not read (a link, a FIFO, socket or device, a file or a workspace over
 * its cap, a directory it could not list) is a violation of its own kind, so the attempt still
 * gets its row.
 */

export type ViolationKind =
  | 'build file'
  | 'build configuration'
  | 'test runtime configuration'
  | 'production code'
  | 'link'
  | 'special file'
  | 'too large'
  | 'too many entries'
  | 'unreadable'
  | 'other file';

export type SubmissionEntry =
  /** A test source, added or edited: what the verifier copies. */
  | { kind: 'Test'; file: string; content: string }
  | { kind: 'Violation'; file: string; edit: 'added' | 'edited' | 'deleted'; what: ViolationKind }
  /** A test source deleted: the verifier's pristine trees keep it, so it changes nothing. */
  | { kind: 'Ignored'; file: string; why: string };

function violationKind(layout: ProjectLayout, file: string): ViolationKind {
  const segments = file.split('/');
  const name = segments[segments.length - 1]!;
  if (segments.includes('.mvn')) return 'build configuration';
  if (
    /^(pom\.xml|settings\.xml|build\.gradle(\.kts)?|settings\.gradle(\.kts)?|mvnw(\.cmd)?)$/.test(
      name,
    )
  )
    return 'build file';
  if (
    name === 'junit-platform.properties' ||
    file.includes('META-INF/services/') ||
    file.startsWith(`${layout.module ? `${layout.module}/` : ''}src/test/resources/`)
  ) {
    return 'test runtime configuration';
  }
  if (file.startsWith(`${layout.mainSourceRoots}/`)) return 'production code';
  return 'other file';
}

function findingKind(finding: WorkspaceFinding): ViolationKind {
  switch (finding.kind) {
    case 'Link':
      return 'link';
    case 'SpecialFile':
      return 'special file';
    case 'TooLarge':
    case 'WorkspaceTooLarge':
      return 'too large';
    case 'TooManyEntries':
      return 'too many entries';
    case 'Unreadable':
      return 'unreadable';
  }
}

/** How each change of the workspace is taken; the order of the changes is kept. */
export function readSubmission(
  changes: readonly WorkspaceChange[],
  layout: ProjectLayout,
): SubmissionEntry[] {
  return changes.map((change) => {
    const { file } = change;
    const edit = change.before === '' ? 'added' : change.after === '' ? 'deleted' : 'edited';
    if (change.finding) return { kind: 'Violation', file, edit, what: findingKind(change.finding) };
    if (sourceScope(layout, file) === 'test') {
      return edit === 'deleted'
        ? { kind: 'Ignored', file, why: 'a deleted test source stays in the verified trees' }
        : { kind: 'Test', file, content: change.after };
    }
    return { kind: 'Violation', file, edit, what: violationKind(layout, file) };
  });
}

/**
 * What an agent left in its workspace, against the tree it was given: read off the files, never
 * asked of the agent. The module's build output is not walked (an agent may build, and its
 * classes must not count against the workspace's caps; the root's is never walked).
 */
export async function workspaceSubmission(
  given: string,
  workspace: string,
  layout: ProjectLayout,
): Promise<SubmissionEntry[]> {
  const moduleOutput = layout.module ? [`${layout.module}/${BUILD_OUTPUT}`] : [];
  return readSubmission(await workspaceChanges(given, workspace, moduleOutput), layout);
}
