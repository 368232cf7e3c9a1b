import { z } from 'zod';

/**
 * A build step that runs the project's own code to produce resources (joda-time compiles its
 * time-zone data with its own classes). Maven reruns it on every build; the warm JVM reruns it
 * on every changed candidate, so a candidate's effect on generated data is not missed.
 * `{sourceDir}` is the main source directory, `{outputDir}` the directory compiled classes go to.
 */
export const GeneratorSchema = z.strictObject({
  mainClass: z.string().min(1),
  args: z.array(z.string()).default([]),
  systemProperties: z.record(z.string(), z.string()).default({}),
});

/** How a project is built and its tests run; a local project without a recipe gets the defaults. */
export const BuildSettingsSchema = z.strictObject({
  /** Flags given to every Maven invocation (plugin skips, profiles). */
  mavenArgs: z.array(z.string()).default([]),
  /** JVM flags for the forked test JVM, passed as Surefire's argLine. */
  jvmArgs: z.array(z.string()).default([]),
  /** Surefire run by coordinates, so every project gets the same JUnit 3/4/5 support. */
  surefireVersion: z.string().default('3.5.2'),
  /** Sub-module holding the code and tests, for multi-module projects (`-pl`). */
  module: z.string().optional(),
  generators: z.array(GeneratorSchema).default([]),
});
export type BuildSettings = z.infer<typeof BuildSettingsSchema>;

/** Heap limit of a test JVM (Maven's fork or the warm runner) when the recipe sets none. */
const DEFAULT_TEST_HEAP = '-Xmx2g';

/** The recipe's JVM flags for running tests, always with a bounded heap. */
export function testJvmArgs(build: BuildSettings): string[] {
  return build.jvmArgs.some((arg) => arg.startsWith('-Xmx'))
    ? build.jvmArgs
    : [...build.jvmArgs, DEFAULT_TEST_HEAP];
}

export const DEFAULT_BUILD: BuildSettings = BuildSettingsSchema.parse({});
