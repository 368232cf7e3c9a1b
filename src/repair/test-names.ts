/*
 * Test names as benchmarks and test runners spell them, read into the `pkg.Class#method` ids of
 * a repair instance where the spelling itself says which part is the method. A bare dotted name
 * (`pkg.Class` or `pkg.Class.method`) does not: only the test sources can tell them apart.
 */

const IDENT = '[A-Za-z_$][\\w$]*';
const QUALIFIED = `${IDENT}(?:\\.${IDENT})*`;
/** A parameter list as display names show it: `()`, `(String, int)`. */
const PARAMETERS = '\\([^()]*\\)';
/** One run of a parameterised test: `[0]`, `[1] input=foo`. */
const RUN = '\\[[^\\]]*\\]';

/** `pkg.Class#method` (witnessgym, SWE-bench) or `pkg.Class::method` (Defects4J, JUnit). */
const HASH_OR_COLONS = new RegExp(
  `^(${QUALIFIED})(?:#|::)(${IDENT})(?:${PARAMETERS})?(?:${RUN})?$`,
);
/** `method(pkg.Class)`: JUnit 4's description, as older Surefire prints it. */
const METHOD_OF_CLASS = new RegExp(`^(${IDENT})(?:${RUN})?\\((${QUALIFIED})\\)$`);
/** `pkg.Class.method()`: JUnit 5's method source, the parameter list saying it is a method. */
const DOTTED_CALL = new RegExp(`^(${QUALIFIED})\\.(${IDENT})${PARAMETERS}(?:${RUN})?$`);
const DOTTED = new RegExp(`^${QUALIFIED}$`);
const IDENTIFIER = new RegExp(`^${IDENT}$`);
const GRADLE_METHOD = new RegExp(`^(${IDENT})(${PARAMETERS})?(?:${RUN})?$`);

export type TestNameReading =
  | { kind: 'Method'; id: string }
  /** `pkg.Class` or `pkg.Class.method`: a class to expand, or a method, as the sources say. */
  | { kind: 'Dotted'; name: string }
  | { kind: 'Unreadable' };

/**
 * Gradle's `pkg.Class > method()` (JUnit 5; `> method` for JUnit 4), with `@Nested` classes
 * between (`pkg.Outer > Inner > method()`) and a parameterised run after
 * (`… > method(String) > [1] x`). Nested classes become binary names, `pkg.Outer$Inner`.
 */
function readGradleName(segments: readonly string[]): TestNameReading {
  const [testClass, ...rest] = segments;
  if (!DOTTED.test(testClass!)) return { kind: 'Unreadable' };
  // The method is the first segment with a parameter list; without one (JUnit 4), the only one.
  const withParameters = rest.findIndex((segment) => GRADLE_METHOD.exec(segment)?.[2]);
  const methodAt = withParameters !== -1 ? withParameters : rest.length === 1 ? 0 : -1;
  const method = GRADLE_METHOD.exec(rest[methodAt] ?? '')?.[1];
  const nested = rest.slice(0, Math.max(methodAt, 0));
  if (!method || !nested.every((name) => IDENTIFIER.test(name))) return { kind: 'Unreadable' };
  return { kind: 'Method', id: `${[testClass, ...nested].join('$')}#${method}` };
}

/** Reads a test name in any of the spellings above; parameterised runs fold into their method. */
export function readTestName(raw: string): TestNameReading {
  const name = raw.trim();
  if (name.includes(' > ')) return readGradleName(name.split(' > ').map((s) => s.trim()));
  const match =
    HASH_OR_COLONS.exec(name) ?? DOTTED_CALL.exec(name) ?? swapped(METHOD_OF_CLASS.exec(name));
  if (match) return { kind: 'Method', id: `${match[1]}#${match[2]}` };
  return DOTTED.test(name) ? { kind: 'Dotted', name } : { kind: 'Unreadable' };
}

/** `method(pkg.Class)` matched as [class, method], like the other spellings. */
function swapped(match: RegExpExecArray | null): [string, string, string] | null {
  return match ? [match[0], match[2]!, match[1]!] : null;
}

/** `pkg.Class::method` → `pkg.Class#method`; any other text is returned as it is. */
export function hashTestId(id: string): string {
  const colons = new RegExp(`^(${QUALIFIED})::(${IDENT})$`).exec(id);
  return colons ? `${colons[1]}#${colons[2]}` : id;
}
