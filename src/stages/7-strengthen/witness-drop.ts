import path from 'node:path';
import { parsePatch } from 'diff';
import type { Node } from 'web-tree-sitter';
import type { CacheLayout } from '../../core/cache.js';
import { sidePath } from '../../core/diff-stats.js';
import { errorMessage } from '../../core/errors.js';
import type { FileChange } from '../../core/file-change.js';
import { baseTestMethod } from '../../core/test-reports.js';
import {
  applyEdits,
  classMembers,
  loadJavaGrammar,
  nameOf,
  withJavaTree,
} from '../../lang/java/syntax.js';
import { superclassName } from '../../lang/java/type-index.js';
import { patchOf, stateFiles, treeReader } from '../../project/state.js';
import { splitTestId, type RepairInstance } from '../../repair/instance.js';
import { findClass } from '../../repair/test-methods.js';
import { resolveInstance, withTests, type RepairSubject } from '../../repair/project.js';
import { readInstanceFile, writeInstanceFile } from '../../repair/read.js';
import { testSourceFile } from '../../toolchains/layout.js';
import { frameworkOf, membersRemoval, runsOriginalTests } from './amplify/test-class.js';

/*
 * The witness-drop control of `witnessgym strengthen`: every instance loses its FAIL_TO_PASS tests
 * (the witness), so a patch that does nothing is accepted and only PASS_TO_PASS judges a fix. A
 * strengthening run on such an instance must recover, on its own, a test that fails on the buggy
 * base and passes on gold: how often it does measures the strengthening apart from the witness.
 */

/** What removing test methods from a test class's source came to. */
export type MethodRemoval =
  | { kind: 'Removed'; source: string }
  | { kind: 'ClassNotFound' }
  /** Methods the class does not declare; with a superclass, they are inherited from it. */
  | { kind: 'NotDeclared'; methods: string[]; superclass: string | null };

/**
 * `source` without the named test methods of `testClass` (a binary name, `pkg.Outer$Inner`),
 * each declaration going whole with its annotations and Javadoc. A parameterised run's suffix
 * (`method(String)[2]`) names its method; of same-named overloads only the tests go, so a helper
 * sharing a test's name stays. Needs `loadJavaGrammar()` awaited.
 */
export function withoutTestMethods(
  source: string,
  testClass: string,
  methods: readonly string[],
): MethodRemoval {
  return withJavaTree(source, (root): MethodRemoval => {
    const owner = findClass(root, testClass.slice(testClass.lastIndexOf('.') + 1));
    if (!owner) return { kind: 'ClassNotFound' };
    const framework = frameworkOf(root, owner);
    const declared = classMembers(owner).filter((member) => member.type === 'method_declaration');
    const removed: Node[] = [];
    const missing: string[] = [];
    for (const method of new Set(methods.map(baseTestMethod))) {
      const named = declared.filter((member) => nameOf(member) === method);
      const tests = framework ? named.filter((member) => runsOriginalTests(member, framework)) : [];
      if (named.length === 0) missing.push(method);
      removed.push(...(tests.length > 0 ? tests : named));
    }
    if (missing.length > 0) {
      return { kind: 'NotDeclared', methods: missing, superclass: superclassName(owner) ?? null };
    }
    removed.sort((a, b) => a.startIndex - b.startIndex);
    return { kind: 'Removed', source: applyEdits(source, membersRemoval(source, removed)) };
  });
}

/** Why a class's methods could not be removed, one clause. */
function removalProblem(
  removal: Exclude<MethodRemoval, { kind: 'Removed' }>,
  testClass: string,
  file: string,
): string {
  if (removal.kind === 'ClassNotFound') return `${testClass} is not declared in ${file}`;
  const ids = removal.methods.map((method) => `${testClass}#${method}`).join(', ');
  return removal.superclass
    ? `${ids} inherited from ${removal.superclass}: it cannot be removed from ${testClass} alone`
    : `${ids} not found in ${file}`;
}

interface InstanceTrees {
  subject: RepairSubject;
  read: (file: string) => Promise<string>;
  /** The files the base state changes, and those the base with the tests changes (null: removed). */
  base: Map<string, string | null>;
  tested: Map<string, string | null>;
}

async function instanceTrees(
  instance: RepairInstance,
  instanceFileDir: string,
  cache: CacheLayout,
): Promise<InstanceTrees> {
  const subject = await resolveInstance(instance, instanceFileDir, cache);
  const read = treeReader(subject.project.root);
  return {
    subject,
    read,
    base: await stateFiles(subject.base, read),
    tested: await stateFiles(withTests(subject, subject.base), read),
  };
}

/** One instance's control, or why it has none. */
export type WitnessDrop =
  | { kind: 'Dropped'; instance: RepairInstance }
  | { kind: 'Skipped'; instanceId: string; reason: string };

/**
 * The instance without its FAIL_TO_PASS tests: their methods removed from the test sources its
 * test patch leaves in the tree, the test patch rewritten as base → those sources, FAIL_TO_PASS
 * empty and the removed ids kept in `control`. Needs `loadJavaGrammar()` awaited.
 */
export async function dropWitness(
  instance: RepairInstance,
  instanceFileDir: string,
  cache: CacheLayout,
): Promise<WitnessDrop> {
  const skipped = (reason: string): WitnessDrop => ({
    kind: 'Skipped',
    instanceId: instance.instance_id,
    reason,
  });
  // Its original_* would give back the witness the control is without.
  if (instance.original_test_patch !== undefined) {
    return skipped('strengthened already: drop the witness from the file strengthen read');
  }
  if (instance.FAIL_TO_PASS.length === 0) return skipped('FAIL_TO_PASS is already empty');
  const trees = await instanceTrees(instance, instanceFileDir, cache).catch(errorMessage);
  if (typeof trees === 'string') return skipped(`its trees cannot be read: ${trees}`);
  const textIn = async (files: Map<string, string | null>, file: string) =>
    files.has(file) ? (files.get(file) ?? '') : trees.read(file);

  const methodsByClass = new Map<string, string[]>();
  for (const id of instance.FAIL_TO_PASS) {
    const { testClass, method } = splitTestId(id);
    methodsByClass.set(testClass, [...(methodsByClass.get(testClass) ?? []), method]);
  }
  const edited = new Map<string, string>();
  const problems: string[] = [];
  for (const [testClass, methods] of methodsByClass) {
    const file = testSourceFile(trees.subject.project.layout, testClass);
    const source = edited.get(file) ?? (await textIn(trees.tested, file));
    if (source === '') {
      problems.push(`${testClass}: no ${file} in the tree with the tests`);
      continue;
    }
    const removal = withoutTestMethods(source, testClass, methods);
    if (removal.kind === 'Removed') edited.set(file, removal.source);
    else problems.push(removalProblem(removal, testClass, file));
  }
  if (problems.length > 0) return skipped(problems.join('; '));

  // An empty test patch parses as one file patch naming no file.
  const touched = parsePatch(instance.test_patch).flatMap((filePatch) => {
    const file = sidePath(filePatch.newFileName) ?? sidePath(filePatch.oldFileName);
    return file ? [file] : [];
  });
  const files = [...new Set([...touched, ...[...edited.keys()].sort()])];
  const changes: FileChange[] = [];
  for (const file of files) {
    const before = await textIn(trees.base, file);
    const after = edited.get(file) ?? (await textIn(trees.tested, file));
    // A file whose only change was the witness is the base's again: no part of the patch.
    if (before !== after) changes.push({ file, before, after });
  }
  const dropped = new Set(instance.FAIL_TO_PASS);
  return {
    kind: 'Dropped',
    instance: {
      ...instance,
      test_patch: changes.length > 0 ? patchOf(changes).diff : '',
      FAIL_TO_PASS: [],
      PASS_TO_PASS: instance.PASS_TO_PASS.filter((id) => !dropped.has(id)),
      control: { kind: 'witness-dropped', dropped: [...instance.FAIL_TO_PASS] },
    },
  };
}

export interface WitnessDropSummary {
  /** The instance file written (absolute); not written when no instance was kept. */
  out: string;
  written: number;
  skipped: { instanceId: string; reason: string }[];
}

/** `witnessgym instances drop-failing`: every instance of a file as its witness-drop control. */
export async function dropFailingTests(
  instancesFile: string,
  options: { out: string; cache: CacheLayout },
): Promise<WitnessDropSummary> {
  const instances = await readInstanceFile(instancesFile);
  const fileDir = path.dirname(path.resolve(instancesFile));
  const out = path.resolve(options.out);
  const outDir = path.dirname(out);
  await loadJavaGrammar();
  const controls: RepairInstance[] = [];
  const skipped: WitnessDropSummary['skipped'] = [];
  for (const instance of instances) {
    const drop = await dropWitness(instance, fileDir, options.cache);
    if (drop.kind === 'Skipped') {
      skipped.push({ instanceId: drop.instanceId, reason: drop.reason });
      continue;
    }
    // A snapshot is named relative to its instance file: from the output's directory now.
    const snapshot = drop.instance.snapshot;
    controls.push({
      ...drop.instance,
      snapshot: path.isAbsolute(snapshot)
        ? snapshot
        : path.relative(outDir, path.resolve(fileDir, snapshot)),
    });
  }
  // An instance file with no instance is one no command reads.
  if (controls.length > 0) await writeInstanceFile(out, controls);
  return { out, written: controls.length, skipped };
}
