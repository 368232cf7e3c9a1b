import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { thrownClass, type CaseReport, type SuiteReport } from '../../core/test-reports.js';
import type { TestFailureDetail } from '../../core/verdict.js';

const MAX_FRAMES = 8;
const MAX_STACK = 512;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  textNodeName: '#text',
  // Report elements that may repeat must always be arrays, even when there is only one.
  isArray: (name, _path, _leaf, isAttribute) =>
    !isAttribute && ['testsuite', 'testcase', 'failure', 'error', 'skipped'].includes(name),
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  // Reports escape every '<' and '&' of failure messages: a long message holds thousands of
  // entities. Surefire writes no DOCTYPE, so there are no user-defined entities to bound.
  processEntities: {
    enabled: true,
    maxTotalExpansions: Infinity,
    maxExpandedLength: 64 * 1024 * 1024,
  },
  htmlEntities: true,
});

type XmlNode = Record<string, unknown>;

function attr(node: XmlNode, name: string): string | undefined {
  const value = node[name];
  return typeof value === 'string' ? value : undefined;
}

function children(node: XmlNode, name: string): XmlNode[] {
  const value = node[name];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
}

function seconds(text: string | undefined): number {
  if (!text) return 0;
  // Surefire 2.x writes localised numbers such as "1,234.5".
  const value = Number(text.replace(/,/g, ''));
  return Number.isFinite(value) ? Math.round(value * 1000) : 0;
}

function count(text: string | undefined): number {
  const value = Number(text ?? '0');
  return Number.isInteger(value) && value >= 0 ? value : 0;
}

function failureDetail(
  node: XmlNode,
  category: 'failure' | 'error',
  testClass: string,
  testMethod: string,
): TestFailureDetail {
  const trace = typeof node['#text'] === 'string' ? node['#text'] : '';
  const stack = trace
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '))
    .slice(0, MAX_STACK)
    .map((line) => line.slice(3));
  const frames = stack.slice(0, MAX_FRAMES);
  return {
    testClass,
    testMethod,
    category,
    // The trace's first line is the throwable's toString(); `type` is its part before ':'.
    exceptionType: thrownClass({ printed: firstLine(trace) ?? attr(node, 'type'), frames }),
    message: attr(node, 'message') ?? '',
    frames,
    stack,
  };
}

/** The first line of a stack trace, the throwable as printed; none when there is no trace. */
function firstLine(trace: string): string | undefined {
  return trace === '' ? undefined : trace.split(/\r?\n/)[0];
}

function parseCase(node: XmlNode, suiteClass: string): CaseReport {
  const testClass = attr(node, 'classname') ?? suiteClass;
  const testMethod = attr(node, 'name') ?? '';
  const timeMs = seconds(attr(node, 'time'));
  const failure = children(node, 'failure')[0];
  const error = children(node, 'error')[0];
  if (failure) {
    return {
      testClass,
      testMethod,
      timeMs,
      outcome: 'failure',
      detail: failureDetail(failure, 'failure', testClass, testMethod),
    };
  }
  if (error) {
    return {
      testClass,
      testMethod,
      timeMs,
      outcome: 'error',
      detail: failureDetail(error, 'error', testClass, testMethod),
    };
  }
  if (children(node, 'skipped').length > 0 || 'skipped' in node) {
    return { testClass, testMethod, timeMs, outcome: 'skipped' };
  }
  return { testClass, testMethod, timeMs, outcome: 'passed' };
}

/** Parses the text of one Surefire `TEST-*.xml` report. */
export function parseSurefireXml(xml: string): SuiteReport[] {
  const document = parser.parse(xml) as XmlNode;
  const suites = [...children(document, 'testsuite')];
  const wrapper = document.testsuites as XmlNode | undefined;
  if (wrapper && typeof wrapper === 'object') suites.push(...children(wrapper, 'testsuite'));
  return suites.map((suite) => {
    const testClass = attr(suite, 'name') ?? '';
    const cases = children(suite, 'testcase').map((node) => parseCase(node, testClass));
    return {
      testClass,
      counts: {
        tests: count(attr(suite, 'tests')),
        failures: count(attr(suite, 'failures')),
        errors: count(attr(suite, 'errors')),
        skipped: count(attr(suite, 'skipped')),
      },
      timeMs: seconds(attr(suite, 'time')),
      cases,
    };
  });
}

/** Reads every `TEST-*.xml` report in a directory; a missing directory means no reports. */
export async function readSurefireReports(directory: string): Promise<SuiteReport[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const reports: SuiteReport[] = [];
  for (const name of names.filter((n) => n.startsWith('TEST-') && n.endsWith('.xml')).sort()) {
    reports.push(...parseSurefireXml(await readFile(path.join(directory, name), 'utf8')));
  }
  return reports;
}
