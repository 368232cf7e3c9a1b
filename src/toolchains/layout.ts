import type { BuildSettings } from './build-settings.js';

/**
 * Where a project keeps its sources and build output, as paths relative to the project root with
 * `/` separators. Maven's standard layout, in the module the build settings name (if any): every
 * piece of code that needs a source root asks the layout instead of spelling `src/main/java`.
 */
export interface ProjectLayout {
  /** The module directory ('' for a single-module project). */
  module: string;
  /** Where the main source roots live (java/, resources/, and any other language's). */
  mainSourceRoots: string;
  mainSources: string;
  testSources: string;
  mainClasses: string;
  testClasses: string;
  /** Sources that build steps generate (straight in, or in a directory per tool). */
  generatedSources: string;
  surefireReports: string;
  /** Where Maven's test runs keep their temporary files. */
  testTemp: string;
}

/** The build output directory's name: never part of a project's sources. */
export const BUILD_OUTPUT = 'target';

export function projectLayout(build: Pick<BuildSettings, 'module'>): ProjectLayout {
  const module = build.module ?? '';
  const inModule = (relative: string) => (module ? `${module}/${relative}` : relative);
  return {
    module,
    mainSourceRoots: inModule('src/main'),
    mainSources: inModule('src/main/java'),
    testSources: inModule('src/test/java'),
    mainClasses: inModule(`${BUILD_OUTPUT}/classes`),
    testClasses: inModule(`${BUILD_OUTPUT}/test-classes`),
    generatedSources: inModule(`${BUILD_OUTPUT}/generated-sources`),
    surefireReports: inModule(`${BUILD_OUTPUT}/surefire-reports`),
    testTemp: inModule(`${BUILD_OUTPUT}/witnessgym-tmp`),
  };
}

/** The source file of a test class (nested classes live in their top-level class's file). */
export function testSourceFile(layout: ProjectLayout, testClass: string): string {
  return `${layout.testSources}/${testClass.split('$')[0]!.replace(/\./g, '/')}.java`;
}

/** Which Java sources a project-relative path is: production, test, or neither. */
export function sourceScope(layout: ProjectLayout, file: string): 'main' | 'test' | 'other' {
  if (!file.endsWith('.java')) return 'other';
  if (file.startsWith(`${layout.mainSources}/`)) return 'main';
  if (file.startsWith(`${layout.testSources}/`)) return 'test';
  return 'other';
}

/** Whether a project-relative path is a Java source of the production code. */
export function isProductionSource(layout: ProjectLayout, file: string): boolean {
  return sourceScope(layout, file) === 'main';
}
