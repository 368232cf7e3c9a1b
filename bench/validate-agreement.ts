/**
 * Do the warm JVM and the Maven replay agree? Real one-line mutants of production classes of
 * corpus projects, each validated by both runners; prints the agreement on the verdict kind and
 * on the verdict class (Passed / Exposed = TestFailed or TestErrored / CompileError / ...), and
 * lists every disagreement.
 *
 *   npm run bench:validate-agreement [-- --projects a,b,c] [--per-project 30] [--seed 1] [--out f.jsonl]
 *
 * Every corpus recipe takes part unless --projects names some. commons-io's sample rarely holds a
 * class that mocks with mockito-inline (7 of its 155), so that case is checked on its own:
 *
 *   npm run bench:validate-agreement -- --projects commons-io --test-classes \
 *     '(CloseShieldReader|CloseShieldWriter|ProxyCollectionWriter|Tee(Reader|Writer|InputStream|OutputStream))Test$'
 */
import { formatTable, sideBySideFromCommandLine, verdictClass } from './lib/candidates.js';

const { rows, seed } = await sideBySideFromCommandLine();

const byProject = new Map<string, typeof rows>();
for (const row of rows)
  byProject.set(row.candidate.project, [...(byProject.get(row.candidate.project) ?? []), row]);
const summary = [...byProject].map(([project, projectRows]) => {
  const kinds = projectRows.filter((r) => r.jvm.verdict.kind === r.maven.verdict.kind).length;
  const classes = projectRows.filter(
    (r) => verdictClass(r.jvm.verdict) === verdictClass(r.maven.verdict),
  ).length;
  const mix = new Map<string, number>();
  for (const r of projectRows)
    mix.set(verdictClass(r.maven.verdict), (mix.get(verdictClass(r.maven.verdict)) ?? 0) + 1);
  return [
    project,
    String(projectRows.length),
    `${kinds}/${projectRows.length}`,
    `${classes}/${projectRows.length}`,
    [...mix].map(([k, n]) => `${k} ${n}`).join(', '),
  ];
});
const sameKind = rows.filter((r) => r.jvm.verdict.kind === r.maven.verdict.kind).length;
const sameClass = rows.filter(
  (r) => verdictClass(r.jvm.verdict) === verdictClass(r.maven.verdict),
).length;
const pct = (n: number) => ((100 * n) / Math.max(rows.length, 1)).toFixed(1);

console.log(
  `Runner agreement on ${rows.length} one-line mutants (seed ${seed}), warm JVM vs Maven replay`,
);
console.log(
  formatTable(['project', 'candidates', 'same kind', 'same class', 'Maven verdicts'], summary),
);
console.log(`agreement on verdict kind:  ${sameKind}/${rows.length} (${pct(sameKind)}%)`);
console.log(`agreement on verdict class: ${sameClass}/${rows.length} (${pct(sameClass)}%)`);
// The target: wherever either runner says Passed, Exposed or CompileError, both must say the same.
const judged = rows.filter((r) =>
  [verdictClass(r.jvm.verdict), verdictClass(r.maven.verdict)].some((c) =>
    ['Passed', 'Exposed', 'CompileError'].includes(c),
  ),
);
const judgedSame = judged.filter(
  (r) => verdictClass(r.jvm.verdict) === verdictClass(r.maven.verdict),
);
console.log(
  `agreement where either runner says Passed, Exposed or CompileError: ${judgedSame.length}/${judged.length}`,
);
const disagreements = rows.filter((r) => r.jvm.verdict.kind !== r.maven.verdict.kind);
console.log(`disagreements: ${disagreements.length}`);
for (const r of disagreements) {
  const c = r.candidate;
  console.log(
    `  ${c.project} ${c.file}:${c.line} [${c.operator}] ${c.testClass}: jvm ${r.jvm.verdict.kind}, maven ${r.maven.verdict.kind}`,
  );
  console.log(`    - ${c.original.trim()}`);
  console.log(`    + ${c.mutated.trim()}`);
}
