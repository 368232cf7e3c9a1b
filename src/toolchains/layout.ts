import type { BuildSettings } from './build.js';

/**
 * Where a project keeps its sources and build output, as paths relative to the project root with
 * `/` separators. Maven's standard layout, in the module the build settings name (if any): every
 * piece of code that needs a source root asks the layout instead of spelling `src/main/java`.
 */
export interface ProjectLayout {
  /** The module directory ('' for a single-module project). */
  module: string;
  mainSources: string;
  testSources: string;
  mainClasses: string;
  testClasses: string;
}

export function projectLayout(build: Pick<BuildSettings, 'module'>): ProjectLayout {
  const module = build.module ?? '';
  const inModule = (relative: string) => (module ? `${module}/${relative}` : relative);
  return {
    module,
    mainSources: inModule('src/main/java'),
    testSources: inModule('src/test/java'),
    mainClasses: inModule('target/classes'),
    testClasses: inModule('target/test-classes'),
  };
}

/** The source file of a test class (nested classes live in their top-level class's file). */
export function testSourceFile(layout: ProjectLayout, testClass: string): string {
  return `${layout.testSources}/${testClass.split('$')[0]!.replace(/\./g, '/')}.java`;
}

/** Whether a project-relative path is a Java source of the production code. */
export function isProductionSource(layout: ProjectLayout, file: string): boolean {
  return file.startsWith(`${layout.mainSources}/`) && file.endsWith('.java');
}
