import { errorLineSummary, failedGoal, stripAnsi } from '../../toolchains/maven/output.js';
import type { PomEdit } from '../../toolchains/maven/pom-edit.js';

/*
 * Known build failures of projects that built on an older JDK or Maven, each with the change that
 * makes it build on JDK 17 and Maven 3.8 without touching the code under test. Data: the fetch
 * ladder tries the first one whose signature the failed build shows, then builds again.
 */

export type RemedyAction =
  | { kind: 'maven-args'; args: string[] }
  | { kind: 'pom-edit'; edit: PomEdit }
  /** Unbind the execution whose goal failed (the plugin and execution id the build names). */
  | { kind: 'disable-failed-execution' }
  /** `-Dmaven.compiler.source` and `.target` at `level`, spelled as the tree's poms spell levels. */
  | { kind: 'java-level-args'; level: number };

export interface Remedy {
  id: string;
  /** Why the build fails and what the remedy does, in one line. */
  why: string;
  /** What the failed build shows: a line of its output, the goal that failed, or both. */
  signature: { output?: RegExp; goal?: RegExp };
  adds: RemedyAction[];
}

const LEVEL_UNSUPPORTED =
  /(?:Source|Target) option (?:1\.)?[1-7] is no longer supported|release version (?:1\.)?[1-7] not supported|invalid (?:source|target) release: (?:1\.)?[1-7]\b/;

/** Plugins that check a release rather than build it; skipping them changes no class or test. */
function skipPlugin(id: string, goal: RegExp, flag: string, what: string): Remedy {
  return {
    id,
    why: `${what} failed; it plays no part in compiling or testing, so it is skipped (${flag})`,
    signature: { goal },
    adds: [{ kind: 'maven-args', args: [flag] }],
  };
}

export const REMEDIES: readonly Remedy[] = [
  {
    id: 'pin-compiler-plugin',
    why: "Maven 3.8's default maven-compiler-plugin (before 3.6) ignores maven.compiler.release and compiles at level 5; pinned to 3.11.0",
    signature: {
      output: LEVEL_UNSUPPORTED,
      goal: /^org\.apache\.maven\.plugins:maven-compiler-plugin:(?:[12]\.[^:]*|3\.[0-5](?:\.[^:]*)?):/,
    },
    adds: [
      {
        kind: 'pom-edit',
        edit: {
          kind: 'pin-plugin',
          groupId: 'org.apache.maven.plugins',
          artifactId: 'maven-compiler-plugin',
          version: '3.11.0',
        },
      },
    ],
  },
  {
    id: 'raise-java-level',
    why: 'JDK 17 compiles no Java level below 7; the levels the poms declare below 8 are raised to 8 (1.8 where they are written 1.x)',
    signature: { output: LEVEL_UNSUPPORTED },
    adds: [
      { kind: 'pom-edit', edit: { kind: 'raise-java-level', to: 8 } },
      // For a level set by a property of a parent pom outside the tree, which no edit reaches.
      { kind: 'java-level-args', level: 8 },
    ],
  },
  {
    // Only code written for Java ≤ 8 calls toArray(null): code written for 11+ would not compile
    // there either, so the signature itself says the declared level is at most 8.
    id: 'release-8-api',
    why: 'code written against the Java 8 API is ambiguous against JDK 17 (Collection.toArray(IntFunction) since 11); compiled with --release 8',
    signature: { output: /reference to toArray is ambiguous/ },
    adds: [{ kind: 'maven-args', args: ['-Dmaven.compiler.release=8'] }],
  },
  {
    // maven-bundle-plugin's manifest goal has no skip flag; 5.x reads JDK 17 class files.
    id: 'pin-bundle-plugin',
    why: 'maven-bundle-plugin before 5 fails on JDK 17 (ConcurrentModificationException in bnd); pinned to 5.1.8',
    signature: { goal: /^org\.apache\.felix:maven-bundle-plugin:[1-4]\.[^:]*:/ },
    adds: [
      {
        kind: 'pom-edit',
        edit: {
          kind: 'pin-plugin',
          groupId: 'org.apache.felix',
          artifactId: 'maven-bundle-plugin',
          version: '5.1.8',
        },
      },
    ],
  },
  {
    // Some projects' bnd instructions still fail in 5.x; the goal writes only the jar's manifest.
    id: 'disable-bundle-manifest',
    why: "maven-bundle-plugin's manifest goal fails on JDK 17 and has no skip flag; its execution is unbound (phase none): it writes only the jar's OSGi manifest",
    signature: { goal: /^org\.apache\.felix:maven-bundle-plugin:[^:]+:manifest$/ },
    adds: [{ kind: 'disable-failed-execution' }],
  },
  skipPlugin('skip-rat', /^org\.apache\.rat:apache-rat-plugin:/, '-Drat.skip=true', 'apache-rat'),
  skipPlugin(
    'skip-enforcer',
    /^org\.apache\.maven\.plugins:maven-enforcer-plugin:/,
    '-Denforcer.skip=true',
    'maven-enforcer-plugin',
  ),
  skipPlugin(
    'skip-animal-sniffer',
    /^org\.codehaus\.mojo:animal-sniffer-maven-plugin:/,
    '-Danimal.sniffer.skip=true',
    'animal-sniffer',
  ),
  skipPlugin(
    'skip-japicmp',
    /^com\.github\.siom79\.japicmp:japicmp-maven-plugin:/,
    '-Djapicmp.skip=true',
    'japicmp',
  ),
  skipPlugin(
    'skip-checkstyle',
    /^org\.apache\.maven\.plugins:maven-checkstyle-plugin:/,
    '-Dcheckstyle.skip=true',
    'checkstyle',
  ),
  skipPlugin('skip-jacoco', /^org\.jacoco:jacoco-maven-plugin:/, '-Djacoco.skip=true', 'jacoco'),
  skipPlugin(
    'skip-buildnumber',
    /^org\.codehaus\.mojo:buildnumber-maven-plugin:/,
    '-Dmaven.buildNumber.skip=true',
    'buildnumber',
  ),
  {
    // Last: a plugin with a skip flag of its own is skipped by it above. The build's own plugins
    // (compiler, resources, surefire) are left out, as the build means nothing without them.
    id: 'skip-unresolvable-plugin',
    why: "a build plugin's execution needs an artifact Maven Central does not have (e.g. an animal-sniffer signature); its execution is unbound (phase none)",
    signature: {
      goal: /^(?!org\.apache\.maven\.plugins:maven-(?:compiler|resources|surefire)-plugin:)[^:\s]+:[^:\s]+:[^:\s]+:[^:\s]+$/,
      // Absent from Central, now or at a cached earlier attempt; not a transfer that failed.
      output:
        /^[^:\s]+:[^:\s]+:[^:\s]+:[^:\s]+: .*(?:Could not find artifact |was not found in \S+ during a previous attempt)/,
    },
    adds: [{ kind: 'disable-failed-execution' }],
  },
];

/** A remedy whose signature a build output shows, and the line that showed it. */
export interface RemedyMatch {
  remedy: Remedy;
  trigger: string;
}

/** The first line of `output` that matches `pattern`, in one line (see errorLineSummary). */
function matchingLine(output: string, pattern: RegExp): string | undefined {
  return stripAnsi(output)
    .split(/\r?\n/)
    .map(errorLineSummary)
    .find((line) => pattern.test(line));
}

/** The remedies whose signature a failed build's output shows, in the table's order. */
export function matchingRemedies(
  output: string,
  remedies: readonly Remedy[] = REMEDIES,
): RemedyMatch[] {
  const failed = failedGoal(output);
  return remedies.flatMap((remedy) => {
    const { output: line, goal } = remedy.signature;
    if (goal && !(failed && goal.test(failed.goal))) return [];
    const trigger = line ? matchingLine(output, line) : failed?.line;
    return trigger ? [{ remedy, trigger }] : [];
  });
}
