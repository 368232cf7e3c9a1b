/*
 * Minimal text edits of pom.xml files, for build remedies that no Maven flag can express (a
 * plugin version, a level written into a plugin's configuration). Text, not a parsed model, so
 * that the diff recorded in a recipe touches only the lines it must.
 */

/** A pom of a project tree: its path relative to the project root, and its text. */
export interface PomFile {
  path: string;
  text: string;
}

export type PomEdit =
  /** Every declaration of the plugin gets `version`; with none, the root pom declares it. */
  | { kind: 'pin-plugin'; groupId: string; artifactId: string; version: string }
  /**
   * Every Java level below `to` written in a pom (property or plugin configuration) becomes `to`,
   * spelled as it was: `1.5` becomes `1.8`, since parents read the digits (commons-parent names the
   * animal-sniffer signature `java${major}${minor}`: `1.8` gives java18, `8` the missing java80).
   */
  | { kind: 'raise-java-level'; to: number }
  /**
   * An execution the project inherits is unbound (`<phase>none</phase>` under its id, in the
   * root pom): the way Maven offers to turn off a goal that has no skip flag.
   */
  | { kind: 'disable-execution'; groupId: string; artifactId: string; executionId: string };

const DEFAULT_PLUGIN_GROUP = 'org.apache.maven.plugins';

/** `<plugin>` elements do not nest, so each one is the shortest match (`<plugins>` is not one). */
const PLUGIN_ELEMENT = /<plugin>[\s\S]*?<\/plugin>/g;

/** A plugin's own coordinates come before its executions, configuration and dependencies. */
function pluginHeader(element: string): string {
  const end = element.search(/<(executions|configuration|dependencies|extensions|inherited)\b/);
  return end === -1 ? element : element.slice(0, end);
}

function declares(element: string, groupId: string, artifactId: string): boolean {
  const header = pluginHeader(element);
  const artifact = /<artifactId>\s*([^<\s]+)\s*<\/artifactId>/.exec(header)?.[1];
  const group = /<groupId>\s*([^<\s]+)\s*<\/groupId>/.exec(header)?.[1] ?? DEFAULT_PLUGIN_GROUP;
  return artifact === artifactId && group === groupId;
}

function withVersion(element: string, version: string): string {
  const header = pluginHeader(element);
  const rest = element.slice(header.length);
  const pinned = /<version>[^<]*<\/version>/.test(header)
    ? header.replace(/<version>[^<]*<\/version>/, `<version>${version}</version>`)
    : header.replace(/(<artifactId>[^<]*<\/artifactId>)/, `$1<version>${version}</version>`);
  return pinned + rest;
}

/** Start and end of the first `<tag>…</tag>` in `text` at or after `from`, outside `skip` ranges. */
function elementRange(
  text: string,
  tag: string,
  from: number,
  skip: Array<[number, number]> = [],
): [number, number] | undefined {
  const open = new RegExp(`<${tag}>`, 'g');
  open.lastIndex = from;
  for (let match = open.exec(text); match; match = open.exec(text)) {
    const start = match.index;
    if (skip.some(([a, b]) => start >= a && start < b)) continue;
    const end = text.indexOf(`</${tag}>`, start);
    return end === -1 ? undefined : [start, end + `</${tag}>`.length];
  }
  return undefined;
}

/** The root pom with the plugin declared in its own `<build><plugins>` with `body` inside. */
function declarePlugin(text: string, groupId: string, artifactId: string, body: string[]): string {
  // Laid out as poms usually are (two spaces a level), so the recorded patch reads well.
  const plugin = (depth: number) =>
    [
      '<plugin>',
      `  <groupId>${groupId}</groupId>`,
      `  <artifactId>${artifactId}</artifactId>`,
      ...body.map((line) => `  ${line}`),
      '</plugin>',
    ]
      .map((line) => `\n${'  '.repeat(depth)}${line}`)
      .join('');
  const profiles = elementRange(text, 'profiles', 0);
  const build = elementRange(text, 'build', 0, profiles ? [profiles] : []);
  if (!build) {
    const end = text.lastIndexOf('</project>');
    return `${text.slice(0, end).trimEnd()}\n  <build>\n    <plugins>${plugin(3)}\n    </plugins>\n  </build>\n${text.slice(end)}`;
  }
  const management = elementRange(text, 'pluginManagement', build[0]);
  const skip: Array<[number, number]> = management && management[1] <= build[1] ? [management] : [];
  const plugins = elementRange(text, 'plugins', build[0], skip);
  if (plugins && plugins[0] < build[1]) {
    const at = plugins[0] + '<plugins>'.length;
    return `${text.slice(0, at)}${plugin(3)}${text.slice(at)}`;
  }
  const at = build[0] + '<build>'.length;
  return `${text.slice(0, at)}\n    <plugins>${plugin(3)}\n    </plugins>${text.slice(at)}`;
}

/** The root pom with the execution unbound, in the plugin's own declaration if it has one. */
function disableExecution(
  text: string,
  edit: Extract<PomEdit, { kind: 'disable-execution' }>,
): string {
  const unbound = `<execution><id>${edit.executionId}</id><phase>none</phase></execution>`;
  const management = elementRange(text, 'pluginManagement', 0);
  const profiles = elementRange(text, 'profiles', 0);
  const outside = (index: number) =>
    ![management, profiles].some((range) => range && index >= range[0] && index < range[1]);
  for (const match of text.matchAll(PLUGIN_ELEMENT)) {
    const element = match[0];
    if (!outside(match.index) || !declares(element, edit.groupId, edit.artifactId)) continue;
    if (element.includes(`<id>${edit.executionId}</id>`)) break;
    const changed = element.includes('<executions>')
      ? element.replace('<executions>', `<executions>${unbound}`)
      : element.replace('</plugin>', `  <executions>${unbound}</executions>\n      </plugin>`);
    return text.slice(0, match.index) + changed + text.slice(match.index + element.length);
  }
  return declarePlugin(text, edit.groupId, edit.artifactId, [
    '<executions>',
    '  <execution>',
    `    <id>${edit.executionId}</id>`,
    '    <phase>none</phase>',
    '  </execution>',
    '</executions>',
  ]);
}

/** Levels under the names Maven, the compiler plugin and common parents give them. */
const JAVA_LEVEL =
  /<((?:maven\.compiler\.)?(?:release|source|target|testRelease|testSource|testTarget)|(?:[\w-]+\.)?java\.version)>\s*(1\.)?(\d+)\s*<\/\1>/g;
/**
 * A parent's own level property (joda-parent: `<release>${joda.release.version}</release>`),
 * taken only as a bare number: `commons.release.version` holds a version such as 1.5.
 */
const PARENT_LEVEL_PROPERTY = /<([\w-]+\.release\.version)>\s*(\d+)\s*<\/\1>/g;

/** A Java level in the `1.x` form where asked and valid (up to 8), else as a bare number. */
function spelledLevel(level: number, dotted: boolean): string {
  return dotted && level <= 8 ? `1.${level}` : String(level);
}

/**
 * `level` spelled as the poms spell the levels below it: `1.8` unless they write bare numbers
 * only. With none in the tree the level comes from a parent outside it, old enough (below 8)
 * to write `1.x`.
 */
export function javaLevelAsWritten(poms: PomFile[], level: number): string {
  const below = poms.flatMap((pom) => [
    ...[...pom.text.matchAll(JAVA_LEVEL)].map((match) => ({
      dotted: match[2] !== undefined,
      level: Number(match[3]),
    })),
    ...[...pom.text.matchAll(PARENT_LEVEL_PROPERTY)].map((match) => ({
      dotted: false,
      level: Number(match[2]),
    })),
  ]);
  const raised = below.filter((found) => found.level < level);
  const dotted = raised.length === 0 || raised.some((found) => found.dotted);
  return spelledLevel(level, dotted);
}

/** The poms `edit` changes, with their new text; `root` is the project's own pom. */
export function applyPomEdit(poms: PomFile[], root: string, edit: PomEdit): PomFile[] {
  if (edit.kind === 'raise-java-level') {
    const to = edit.to;
    return poms.flatMap((pom) => {
      const raise = (whole: string, tag: string, dotted: string | undefined, level: string) =>
        Number(level) < to ? `<${tag}>${spelledLevel(to, dotted !== undefined)}</${tag}>` : whole;
      const text = pom.text
        .replace(JAVA_LEVEL, raise)
        .replace(PARENT_LEVEL_PROPERTY, (whole: string, tag: string, level: string) =>
          raise(whole, tag, undefined, level),
        );
      return text === pom.text ? [] : [{ path: pom.path, text }];
    });
  }
  if (edit.kind === 'disable-execution') {
    const rootPom = poms.find((pom) => pom.path === root);
    return rootPom ? [{ path: root, text: disableExecution(rootPom.text, edit) }] : [];
  }
  const { groupId, artifactId, version } = edit;
  const changed = poms.flatMap((pom) => {
    const text = pom.text.replace(PLUGIN_ELEMENT, (element) =>
      declares(element, groupId, artifactId) ? withVersion(element, version) : element,
    );
    return text === pom.text ? [] : [{ path: pom.path, text }];
  });
  const declared = poms.some((pom) =>
    (pom.text.match(PLUGIN_ELEMENT) ?? []).some((element) =>
      declares(element, groupId, artifactId),
    ),
  );
  if (declared) return changed;
  const rootPom = poms.find((pom) => pom.path === root);
  if (!rootPom) return [];
  return [
    {
      path: root,
      text: declarePlugin(rootPom.text, groupId, artifactId, [`<version>${version}</version>`]),
    },
  ];
}
