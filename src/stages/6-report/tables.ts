import { wilsonInterval, type Interval } from '../../metrics/interval.js';
import { ContextBucketSchema, type ContextBucket } from '../1-trace/trace.js';
import { BugTypeRefSchema, type BugTypeRef } from '../2-inject/records.js';
import {
  DiagnosisSchema,
  itemSucceeded,
  SETTINGS,
  type AttemptRow,
  type Diagnosis,
  type DiagnosisKind,
  type Setting,
} from '../5-evaluate/records.js';

/*
 * The evaluation's result tables (paper Tables 3, 4, 7 and 8, plus what the paper leaves out:
 * diagnoses and how much the remaining tests give away), computed from the attempt rows alone.
 * The unit is the item, one (case, agent, setting): it succeeds once any of its attempts does.
 * Every table is plain data built in a fixed key order, so the tables object is the --json form.
 */

export interface Count {
  successes: number;
  n: number;
}

export interface Proportion extends Count {
  rate: number;
  interval: Interval;
}

/** Only ever built over a non-empty group, so the rate is defined. */
function proportion(successes: number, n: number): Proportion {
  return { successes, n, rate: successes / n, interval: wilsonInterval(successes, n) };
}

function percentagePoints(to: Proportion, from: Proportion): number {
  return (to.rate - from.rate) * 100;
}

/** The offline agent that submits the case's own remaining tests: a floor, not a competitor. */
export const GIVE_AWAY_AGENT = 'existing-tests';

interface Item {
  case: AttemptRow['case'];
  agent: string;
  setting: Setting;
  /** By attempt number. */
  attempts: AttemptRow[];
}

/** Code-unit order: the same on every machine, unlike localeCompare. */
function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const CATEGORY_ORDER = BugTypeRefSchema.shape.category.options;
const BUCKET_ORDER = ContextBucketSchema.options;
const KIND_ORDER: readonly DiagnosisKind[] = DiagnosisSchema.options.map(
  (option) => option.shape.kind.value,
);

function compareBugTypes(a: BugTypeRef, b: BugTypeRef): number {
  return (
    CATEGORY_ORDER.indexOf(a.category) - CATEGORY_ORDER.indexOf(b.category) ||
    compareStrings(a.name, b.name) ||
    compareStrings(a.id, b.id)
  );
}

/**
 * Rows grouped into items. An agent whose spec changed between rows (another model under the
 * same --agent name) is two agents, labelled `name@spec`, so their results are not pooled.
 */
function itemsOf(rows: readonly AttemptRow[]): Item[] {
  const specsByAgent = new Map<string, Set<string>>();
  for (const row of rows) {
    const specs = specsByAgent.get(row.agent) ?? new Set<string>();
    specs.add(row.agentSpec);
    specsByAgent.set(row.agent, specs);
  }
  const label = (row: AttemptRow) =>
    specsByAgent.get(row.agent)!.size > 1 ? `${row.agent}@${row.agentSpec.slice(0, 8)}` : row.agent;
  const items = new Map<string, Item>();
  for (const row of rows) {
    const agent = label(row);
    const key = JSON.stringify([row.case.caseId, agent, row.setting]);
    const item = items.get(key) ?? { case: row.case, agent, setting: row.setting, attempts: [] };
    item.attempts.push(row);
    items.set(key, item);
  }
  for (const item of items.values()) item.attempts.sort((a, b) => a.attempt - b.attempt);
  return [...items.values()];
}

function agentsOf(items: readonly Item[]): string[] {
  return [...new Set(items.map((item) => item.agent))].sort(compareStrings);
}

function settingsOf(items: readonly Item[]): Setting[] {
  return SETTINGS.filter((setting) => items.some((item) => item.setting === setting));
}

function strictCount(items: readonly Item[]): Count {
  return {
    successes: items.filter((item) => itemSucceeded(item.attempts)).length,
    n: items.length,
  };
}

function strictProportion(items: readonly Item[]): Proportion {
  const { successes, n } = strictCount(items);
  return proportion(successes, n);
}

function paperSucceeded(item: Item): boolean {
  return item.attempts.some((attempt) => attempt.paperSuccess);
}

// --- Table 3 ------------------------------------------------------------------------------------

export interface AgentSettingSuccess {
  setting: Setting;
  /** The strict criterion (diagnosis Success). */
  strict: Proportion;
  /** The paper's looser criterion (fails on the buggy tree, not by a compile error). */
  paper: Proportion;
}

export interface AgentSuccess {
  agent: string;
  settings: AgentSettingSuccess[];
  /** Strict WithEC rate minus NoEC rate, in percentage points; null unless both settings ran. */
  withEcGainPp: number | null;
}

/** Paper Table 3: success per agent and setting. */
export function successByAgentSetting(rows: readonly AttemptRow[]): AgentSuccess[] {
  const items = itemsOf(rows);
  return agentsOf(items).map((agent) => {
    const settings = settingsOf(items.filter((item) => item.agent === agent)).map((setting) => {
      const group = items.filter((item) => item.agent === agent && item.setting === setting);
      return {
        setting,
        strict: strictProportion(group),
        paper: proportion(group.filter(paperSucceeded).length, group.length),
      };
    });
    const noEc = settings.find((entry) => entry.setting === 'NoEC');
    const withEc = settings.find((entry) => entry.setting === 'WithEC');
    return {
      agent,
      settings,
      withEcGainPp: noEc && withEc ? percentagePoints(withEc.strict, noEc.strict) : null,
    };
  });
}

// --- Table 4 ------------------------------------------------------------------------------------

export interface TypeBucketCell {
  agent: string;
  bucket: ContextBucket;
  /** Null where the agent has no item of the type, bucket and setting. */
  noEc: Count | null;
  withEc: Count | null;
}

export interface TypeBucketRow {
  bugType: Pick<BugTypeRef, 'id' | 'name' | 'category'>;
  /** Every agent × bucket of the table, agent-major. */
  cells: TypeBucketCell[];
}

export interface TypeBucketTable {
  agents: string[];
  buckets: ContextBucket[];
  types: TypeBucketRow[];
}

function bucketsOf(items: readonly Item[]): ContextBucket[] {
  return BUCKET_ORDER.filter((bucket) => items.some((item) => item.case.bucket === bucket));
}

function bugTypesOf(items: readonly Item[]): BugTypeRef[] {
  const byId = new Map<string, BugTypeRef>();
  for (const item of items) byId.set(item.case.bugType.id, item.case.bugType);
  return [...byId.values()].sort(compareBugTypes);
}

/** Paper Table 4: successful items per bug type × context bucket, WithEC and NoEC, per agent. */
export function successByTypeBucket(rows: readonly AttemptRow[]): TypeBucketTable {
  const items = itemsOf(rows);
  const agents = agentsOf(items);
  const buckets = bucketsOf(items);
  const countOf = (group: readonly Item[], setting: Setting) => {
    const inSetting = group.filter((item) => item.setting === setting);
    return inSetting.length === 0 ? null : strictCount(inSetting);
  };
  const types = bugTypesOf(items).map(({ id, name, category }) => ({
    bugType: { id, name, category },
    cells: agents.flatMap((agent) =>
      buckets.map((bucket) => {
        const group = items.filter(
          (item) =>
            item.case.bugType.id === id && item.agent === agent && item.case.bucket === bucket,
        );
        return { agent, bucket, noEc: countOf(group, 'NoEC'), withEc: countOf(group, 'WithEC') };
      }),
    ),
  }));
  return { agents, buckets, types };
}

// --- Tables 7 and 8 -----------------------------------------------------------------------------

export interface LevelSettingSuccess {
  setting: Setting;
  success: Proportion;
  /** Percentage points from the baseline level's rate; null at the baseline or without one. */
  deltaPp: number | null;
}

export interface LevelSuccess<Level> {
  level: Level;
  /** The settings the agent ran at this level, NoEC first. */
  settings: LevelSettingSuccess[];
}

export interface LevelTable<Level> {
  /** The table's levels in order; the first is the baseline the deltas start from. */
  levels: Level[];
  agents: { agent: string; levels: LevelSuccess<Level>[] }[];
}

function successByLevel<Level>(
  items: readonly Item[],
  levels: Level[],
  levelOf: (item: Item) => Level,
): LevelTable<Level> {
  const agents = agentsOf(items).map((agent) => {
    const own = items.filter((item) => item.agent === agent);
    const successAt = (level: Level, setting: Setting) => {
      const group = own.filter((item) => levelOf(item) === level && item.setting === setting);
      return group.length === 0 ? null : strictProportion(group);
    };
    const baseline = levels[0];
    return {
      agent,
      levels: levels
        .map((level) => ({
          level,
          settings: SETTINGS.flatMap((setting) => {
            const success = successAt(level, setting);
            if (success === null) return [];
            const from = baseline === undefined ? null : successAt(baseline, setting);
            const deltaPp =
              level === baseline || from === null ? null : percentagePoints(success, from);
            return [{ setting, success, deltaPp }];
          }),
        }))
        .filter((entry) => entry.settings.length > 0),
    };
  });
  return { levels, agents };
}

/**
 * Paper Table 7: success per agent × context bucket × setting, with deltas from the first bucket
 * in the enum's order that has items (short, as built cases come from the paper's four buckets).
 */
export function successByBucket(rows: readonly AttemptRow[]): LevelTable<ContextBucket> {
  const items = itemsOf(rows);
  return successByLevel(items, bucketsOf(items), (item) => item.case.bucket);
}

/** Paper Table 8: success per agent × transformation depth × setting, deltas from the shallowest. */
export function successByDepth(rows: readonly AttemptRow[]): LevelTable<number> {
  const items = itemsOf(rows);
  const depths = [...new Set(items.map((item) => item.case.depth))].sort((a, b) => a - b);
  return successByLevel(items, depths, (item) => item.case.depth);
}

// --- Diagnoses ----------------------------------------------------------------------------------

export interface DiagnosisCount {
  kind: DiagnosisKind;
  /** Items whose final diagnosis is of this kind. */
  items: number;
  /** Attempts of this kind. */
  attempts: number;
}

export interface DiagnosisBreakdownRow {
  agent: string;
  setting: Setting;
  items: number;
  attempts: number;
  /** The kinds that occur, in the order DiagnosisSchema declares them. */
  kinds: DiagnosisCount[];
  /**
   * Mean over attempts of covered / instrumentable changed lines; attempts without coverage or
   * without any instrumentable line say nothing and are left out. Null when none is left.
   */
  changeCoverage: { mean: number; attempts: number } | null;
}

/** An item's successful attempt's diagnosis, else its last attempt's: why it ended as it did. */
export function finalDiagnosis(attempts: readonly Pick<AttemptRow, 'diagnosis'>[]): Diagnosis {
  const decisive =
    attempts.find((attempt) => attempt.diagnosis.kind === 'Success') ?? attempts.at(-1);
  if (decisive === undefined) throw new Error('an item has at least one attempt');
  return decisive.diagnosis;
}

/** Per agent × setting: how items ended and what the attempts were diagnosed as. */
export function diagnosisBreakdown(rows: readonly AttemptRow[]): DiagnosisBreakdownRow[] {
  const items = itemsOf(rows);
  return agentsOf(items).flatMap((agent) =>
    settingsOf(items.filter((item) => item.agent === agent)).map((setting) => {
      const group = items.filter((item) => item.agent === agent && item.setting === setting);
      const attempts = group.flatMap((item) => item.attempts);
      const finals = group.map((item) => finalDiagnosis(item.attempts).kind);
      const kinds = KIND_ORDER.map((kind) => ({
        kind,
        items: finals.filter((final) => final === kind).length,
        attempts: attempts.filter((attempt) => attempt.diagnosis.kind === kind).length,
      })).filter((entry) => entry.attempts > 0);
      const ratios = attempts.flatMap(({ coverage }) =>
        coverage !== null && coverage.lines > 0 ? [coverage.covered / coverage.lines] : [],
      );
      return {
        agent,
        setting,
        items: group.length,
        attempts: attempts.length,
        kinds,
        changeCoverage:
          ratios.length === 0
            ? null
            : {
                mean: ratios.reduce((sum, ratio) => sum + ratio, 0) / ratios.length,
                attempts: ratios.length,
              },
      };
    }),
  );
}

// --- Give-away rate -----------------------------------------------------------------------------

export interface GiveAway {
  /** Cases the remaining test suite already exposes, over all cases the agent ran on. */
  overall: Proportion;
  byType: { bugType: Pick<BugTypeRef, 'id' | 'name' | 'category'>; cases: Proportion }[];
  byProject: { project: string; cases: Proportion }[];
}

/**
 * How many cases the case's own remaining tests already give away: the share of cases the
 * `existing-tests` agent succeeded on. Its submission does not read the prompt, so a case counts
 * once whichever settings it ran in, and succeeds when any of them did. Null when it did not run.
 */
export function giveAwayRate(rows: readonly AttemptRow[]): GiveAway | null {
  const byCase = new Map<string, { case: AttemptRow['case']; succeeded: boolean }>();
  for (const item of itemsOf(rows.filter((row) => row.agent === GIVE_AWAY_AGENT))) {
    const succeeded = byCase.get(item.case.caseId)?.succeeded ?? false;
    byCase.set(item.case.caseId, {
      case: item.case,
      succeeded: succeeded || itemSucceeded(item.attempts),
    });
  }
  const cases = [...byCase.values()];
  if (cases.length === 0) return null;
  const shareOf = (group: readonly (typeof cases)[number][]) =>
    proportion(group.filter((entry) => entry.succeeded).length, group.length);
  const bugTypes = [...new Map(cases.map((entry) => [entry.case.bugType.id, entry.case.bugType]))]
    .map(([, bugType]) => bugType)
    .sort(compareBugTypes);
  const projects = [...new Set(cases.map((entry) => entry.case.project))].sort(compareStrings);
  return {
    overall: shareOf(cases),
    byType: bugTypes.map(({ id, name, category }) => ({
      bugType: { id, name, category },
      cases: shareOf(cases.filter((entry) => entry.case.bugType.id === id)),
    })),
    byProject: projects.map((project) => ({
      project,
      cases: shareOf(cases.filter((entry) => entry.case.project === project)),
    })),
  };
}

// --- All tables ---------------------------------------------------------------------------------

export interface ResultTables {
  attempts: number;
  items: number;
  byAgentSetting: AgentSuccess[];
  byTypeBucket: TypeBucketTable;
  byBucket: LevelTable<ContextBucket>;
  byDepth: LevelTable<number>;
  diagnoses: DiagnosisBreakdownRow[];
  giveAway: GiveAway | null;
  /**
   * Items the harness could not judge: no attempt succeeded and one ended in a harness fault.
   * They are left out of every success table (a fault is no failure of the agent) and listed.
   */
  unjudged: { caseId: string; agent: string; setting: Setting }[];
}

/** Whether an item's outcome is unknown: it did not succeed and the harness faulted on it. */
function unjudged(item: Item): boolean {
  return (
    !itemSucceeded(item.attempts) &&
    item.attempts.some((attempt) => attempt.diagnosis.kind === 'HarnessFault')
  );
}

export function resultTables(rows: readonly AttemptRow[]): ResultTables {
  const faulted = itemsOf(rows).filter(unjudged);
  const faultedKeys = new Set(
    faulted.flatMap((item) =>
      item.attempts.map((row) => JSON.stringify([row.case.caseId, row.agent, row.setting])),
    ),
  );
  const judged = rows.filter(
    (row) => !faultedKeys.has(JSON.stringify([row.case.caseId, row.agent, row.setting])),
  );
  return {
    attempts: rows.length,
    items: itemsOf(rows).length,
    byAgentSetting: successByAgentSetting(judged),
    byTypeBucket: successByTypeBucket(judged),
    byBucket: successByBucket(judged),
    byDepth: successByDepth(judged),
    diagnoses: diagnosisBreakdown(rows),
    giveAway: giveAwayRate(judged),
    unjudged: faulted.map((item) => ({
      caseId: item.case.caseId,
      agent: item.agent,
      setting: item.setting,
    })),
  };
}

// --- Rendering ----------------------------------------------------------------------------------

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

/** `7/10 70.0% [39.7–89.2]` */
export function formatProportion({ successes, n, rate, interval }: Proportion): string {
  const bounds = `${(interval.low * 100).toFixed(1)}–${(interval.high * 100).toFixed(1)}`;
  return `${successes}/${n} ${percent(rate)} [${bounds}]`;
}

/** `+4.7 pp`, `-8.0 pp`; a delta that rounds to nothing has no sign. */
export function formatDelta(pp: number): string {
  const rounded = Math.round(pp * 10) / 10;
  if (rounded === 0) return '0.0 pp';
  return `${rounded > 0 ? '+' : '-'}${Math.abs(rounded).toFixed(1)} pp`;
}

const MISSING = '–';

interface TextTable {
  title: string;
  /** Lines under the title saying how to read the cells. */
  notes: string[];
  head: string[];
  rows: string[][];
  /** Leading columns that name the row: left-aligned and repeated in every block. */
  keyColumns: number;
}

const GAP = '  ';

/**
 * A table as aligned text. Columns that do not fit in `width` go on to further blocks, each
 * repeating the key columns, so a wide table stays readable in a narrow terminal.
 */
function renderTextTable(table: TextTable, width: number): string {
  const widths = table.head.map((cell, column) =>
    Math.max(cell.length, ...table.rows.map((row) => (row[column] ?? '').length)),
  );
  const keys = widths.slice(0, table.keyColumns).map((_, column) => column);
  const keyWidth = keys.reduce((sum, column) => sum + widths[column]! + GAP.length, 0);
  const blocks: number[][] = [];
  let block: number[] = [];
  let used = keyWidth;
  for (let column = table.keyColumns; column < widths.length; column++) {
    const needed = widths[column]! + GAP.length;
    if (block.length > 0 && used + needed > width) {
      blocks.push(block);
      block = [];
      used = keyWidth;
    }
    block.push(column);
    used += needed;
  }
  if (block.length > 0 || blocks.length === 0) blocks.push(block);
  const line = (cells: readonly string[], columns: readonly number[]) =>
    columns
      .map((column) => {
        const cell = cells[column] ?? '';
        return column < table.keyColumns
          ? cell.padEnd(widths[column]!)
          : cell.padStart(widths[column]!);
      })
      .join(GAP)
      .trimEnd();
  const rendered = blocks.map((columns) => {
    const all = [...keys, ...columns];
    const head = line(table.head, all);
    return [head, '-'.repeat(head.length), ...table.rows.map((row) => line(row, all))].join('\n');
  });
  return [table.title, ...table.notes, '', rendered.join('\n\n')].join('\n');
}

function agentSettingTable(rows: readonly AgentSuccess[]): TextTable {
  return {
    title: 'Success by agent and setting (paper Table 3)',
    notes: ['strict: diagnosis Success; paper: fails on the buggy tree, not by a compile error'],
    head: ['agent', ...SETTINGS.flatMap((setting) => [setting, `${setting} paper`]), 'WithEC gain'],
    rows: rows.map((row) => [
      row.agent,
      ...SETTINGS.flatMap((setting) => {
        const entry = row.settings.find((candidate) => candidate.setting === setting);
        if (entry === undefined) return [MISSING, MISSING];
        const { successes, n, rate } = entry.paper;
        return [formatProportion(entry.strict), `${successes}/${n} ${percent(rate)}`];
      }),
      row.withEcGainPp === null ? MISSING : formatDelta(row.withEcGainPp),
    ]),
    keyColumns: 1,
  };
}

function typeBucketCell({ noEc, withEc }: TypeBucketCell): string {
  if (noEc === null && withEc === null) return MISSING;
  const successes = `${withEc?.successes ?? MISSING}/${noEc?.successes ?? MISSING}`;
  const n =
    withEc !== null && noEc !== null && withEc.n === noEc.n
      ? `${withEc.n}`
      : `${withEc?.n ?? MISSING}/${noEc?.n ?? MISSING}`;
  return `${successes} of ${n}`;
}

function typeBucketTable(table: TypeBucketTable): TextTable {
  return {
    title: 'Successful items by bug type and context bucket (paper Table 4)',
    notes: ['cells: WithEC/NoEC successes of n items'],
    head: [
      'bug type',
      'category',
      ...table.agents.flatMap((agent) => table.buckets.map((bucket) => `${agent} ${bucket}`)),
    ],
    rows: table.types.map((row) => [
      row.bugType.name,
      row.bugType.category,
      ...row.cells.map(typeBucketCell),
    ]),
    keyColumns: 2,
  };
}

function levelTable<Level>(
  title: string,
  table: LevelTable<Level>,
  levelName: (level: Level) => string,
): TextTable {
  const baseline = table.levels[0];
  return {
    title,
    notes:
      baseline === undefined ? [] : [`deltas in percentage points from ${levelName(baseline)}`],
    head: [
      'agent',
      ...table.levels.flatMap((level) =>
        SETTINGS.map((setting) => `${levelName(level)} ${setting}`),
      ),
    ],
    rows: table.agents.map((row) => [
      row.agent,
      ...table.levels.flatMap((level) =>
        SETTINGS.map((setting) => {
          const entry = row.levels
            .find((candidate) => candidate.level === level)
            ?.settings.find((candidate) => candidate.setting === setting);
          if (entry === undefined) return MISSING;
          const delta = entry.deltaPp === null ? '' : ` ${formatDelta(entry.deltaPp)}`;
          return `${formatProportion(entry.success)}${delta}`;
        }),
      ),
    ]),
    keyColumns: 1,
  };
}

function diagnosisTable(rows: readonly DiagnosisBreakdownRow[]): TextTable {
  const kinds = KIND_ORDER.filter((kind) =>
    rows.some((row) => row.kinds.some((entry) => entry.kind === kind)),
  );
  return {
    title: 'Diagnoses',
    notes: [
      "cells: items ending so (by the successful attempt's diagnosis, else the last attempt's), and (attempts so)",
    ],
    head: ['agent', 'setting', 'items', 'attempts', ...kinds, 'change coverage'],
    rows: rows.map((row) => [
      row.agent,
      row.setting,
      String(row.items),
      String(row.attempts),
      ...kinds.map((kind) => {
        const entry = row.kinds.find((candidate) => candidate.kind === kind);
        return entry === undefined ? MISSING : `${entry.items} (${entry.attempts})`;
      }),
      row.changeCoverage === null
        ? MISSING
        : `${percent(row.changeCoverage.mean)} over ${row.changeCoverage.attempts}`,
    ]),
    keyColumns: 2,
  };
}

function giveAwayTables(giveAway: GiveAway): TextTable[] {
  const notes = [
    `cases the ${GIVE_AWAY_AGENT} agent exposes: ${formatProportion(giveAway.overall)}`,
  ];
  return [
    {
      title: 'Give-away rate by bug type',
      notes,
      head: ['bug type', 'category', 'cases'],
      rows: giveAway.byType.map((row) => [
        row.bugType.name,
        row.bugType.category,
        formatProportion(row.cases),
      ]),
      keyColumns: 2,
    },
    {
      title: 'Give-away rate by project',
      notes: [],
      head: ['project', 'cases'],
      rows: giveAway.byProject.map((row) => [row.project, formatProportion(row.cases)]),
      keyColumns: 1,
    },
  ];
}

/** The tables as plain aligned text for a terminal of `width` columns (default 100). */
export function renderTables(tables: ResultTables, options: { width?: number } = {}): string {
  if (tables.attempts === 0) return 'no finished attempts\n';
  const width = options.width ?? 100;
  const textTables = [
    agentSettingTable(tables.byAgentSetting),
    typeBucketTable(tables.byTypeBucket),
    levelTable('Success by context bucket (paper Table 7)', tables.byBucket, (bucket) => bucket),
    levelTable(
      'Success by transformation depth (paper Table 8)',
      tables.byDepth,
      (depth) => `depth ${depth}`,
    ),
    diagnosisTable(tables.diagnoses),
    ...(tables.giveAway === null ? [] : giveAwayTables(tables.giveAway)),
  ];
  const summary = [
    `${tables.attempts} finished attempts in ${tables.items} items (case × agent × setting)`,
    ...(tables.unjudged.length > 0
      ? [
          `${tables.unjudged.length} items left out of the tables: the harness faulted and nothing succeeded (${tables.unjudged
            .map((item) => `${item.caseId} ${item.agent} ${item.setting}`)
            .join('; ')})`,
        ]
      : []),
  ].join('\n');
  return `${[summary, ...textTables.map((table) => renderTextTable(table, width))].join('\n\n')}\n`;
}
