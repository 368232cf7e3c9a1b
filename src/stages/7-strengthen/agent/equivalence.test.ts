import { describe, expect, it } from 'vitest';
import type { AgentTaskResult } from '../../../agents/engine.js';
import { parseReport, type ReportParse } from '../../../agents/report.js';
import {
  countedVotes,
  EQUIVALENCE_REPORT_PREFIX,
  equivalenceReportFormat,
  type EquivalenceReport,
} from './equivalence.js';

/** A judge's run whose one attempt ended with `report` (only what the count reads). */
function run(report: ReportParse<EquivalenceReport>): AgentTaskResult<EquivalenceReport> {
  return { attempts: [{ report }] } as unknown as AgentTaskResult<EquivalenceReport>;
}

describe("the equivalence judge's votes", () => {
  it('counts one vote a sound answer, with its reason and telling input', () => {
    const parsed = (line: string) => run(parseReport(line, equivalenceReportFormat));
    const votes = countedVotes([
      parsed(
        `${EQUIVALENCE_REPORT_PREFIX} {"equivalent": false, "input": "escape(\\"/\\")", "reason": "the slash"}`,
      ),
      parsed(`${EQUIVALENCE_REPORT_PREFIX} {"equivalent": true, "reason": "same output"}`),
      parsed(`${EQUIVALENCE_REPORT_PREFIX} {"equivalent": "maybe", "reason": "?"}`),
    ]);
    expect(votes).toEqual({
      equivalent: 1,
      different: 1,
      unanswered: 1,
      reasons: ['the slash (escape("/"))', 'same output'],
    });
    expect(countedVotes([run({ kind: 'Missing' })])).toMatchObject({ unanswered: 1, reasons: [] });
  });
});
