import { describe, expect, it } from 'vitest';
import { CASE_ID_PATTERN, CaseIndexLine, caseId, type CaseKey } from './case.js';

const key: CaseKey = {
  project: { name: 'json-simple', version: '2.3.0' },
  typeId: 'logic_predicate_inversion_in_guard',
  site: { file: 'src/main/java/A.java', member: 'A#f()', line: 3, description: '< to <=' },
  sequence: ['t_call_stack_deepen_v1', 't_private_adapter_layer_v1'],
  seed: 1,
};

describe('caseId', () => {
  it('is readable and stable: project@version, then a hash of the rest', () => {
    const id = caseId(key);
    expect(id).toMatch(/^json-simple@2\.3\.0-[0-9a-f]{16}$/);
    expect(id).toMatch(CASE_ID_PATTERN);
    expect(caseId({ ...key, sequence: [...key.sequence] })).toBe(id);
  });

  it('differs when any part of the address differs', () => {
    const variants: CaseKey[] = [
      { ...key, project: { ...key.project, version: '2.3.1' } },
      { ...key, typeId: 'npe_intra_method_guard_removed' },
      { ...key, site: { ...key.site, line: 4 } },
      { ...key, sequence: [...key.sequence].reverse() },
      { ...key, sequence: key.sequence.slice(0, 1) },
      { ...key, seed: 2 },
    ];
    const ids = new Set([caseId(key), ...variants.map(caseId)]);
    expect(ids.size).toBe(variants.length + 1);
  });

  it('keeps a local project name a directory can hold', () => {
    expect(caseId({ ...key, project: { name: 'my project', version: 'local-1' } })).toMatch(
      /^my-project@local-1-[0-9a-f]{16}$/,
    );
  });
});

describe('CaseIndexLine', () => {
  it('refuses a line whose instance id is not a case id', () => {
    const line = {
      instance_id: 'not an id',
      project: 'p',
      version: '1',
      base_commit: 'c',
      type_id: 't',
      category: 'Logic',
      bucket: 'short',
      injection_id: 'i1',
      depth: 1,
      transforms: ['t_call_stack_deepen_v1'],
      patch: '',
      test_class: 'a.B',
      test_path: 'src/test/java/a/B.java',
      verify_command: 'mvn test',
      FAIL_TO_PASS: ['m'],
    };
    expect(CaseIndexLine.schema.safeParse(line).success).toBe(false);
    expect(CaseIndexLine.schema.safeParse({ ...line, instance_id: caseId(key) }).success).toBe(
      true,
    );
  });
});
