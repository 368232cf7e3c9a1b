/**
 * Path globs as used in recipes and Surefire patterns: `**` crosses directories, `*` and `?` do
 * not. Paths use `/` separators.
 */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i]!;
    if (char === '*' && glob[i + 1] === '*') {
      const slashFollows = glob[i + 2] === '/';
      source += slashFollows ? '(?:.*/)?' : '.*';
      i += slashFollows ? 2 : 1;
    } else if (char === '*') {
      source += '[^/]*';
    } else if (char === '?') {
      source += '[^/]';
    } else {
      source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`);
}

/** Surefire's reading of a test pattern: a class path such as `org/foo/BarTest` without suffix. */
function surefirePatternRegExp(pattern: string): RegExp {
  let normalized = pattern.trim().replace(/\.(java|class)$/, '');
  if (!normalized.includes('/') && /^[\w$.*?]+$/.test(normalized) && normalized.includes('.')) {
    normalized = normalized.replace(/\./g, '/'); // a fully qualified name
  }
  if (!normalized.includes('/')) normalized = `**/${normalized}`;
  return globToRegExp(normalized);
}

/**
 * Whether a test class (`org.foo.BarTest`) is selected by a Surefire `-Dtest` value made of
 * comma-separated patterns, `!`-prefixed ones excluding.
 */
export function surefireSelects(selection: string, testClass: string): boolean {
  const classPath = testClass.replace(/\./g, '/');
  const patterns = selection
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const includes = patterns.filter((p) => !p.startsWith('!'));
  const excludes = patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1));
  const included =
    includes.length === 0 || includes.some((p) => surefirePatternRegExp(p).test(classPath));
  return included && !excludes.some((p) => surefirePatternRegExp(p).test(classPath));
}
