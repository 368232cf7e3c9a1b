import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar, withJavaTree } from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { contextClassNames, isDefaultValue } from './local-state-bundle.js';
import { freeTypeName, namesInType, nestedClassText, variableNames } from './nested-class.js';
import { bundleClassNames } from './parameter-bundle.js';

const STYLE = { indentUnit: '    ', lineBreak: '\n', finalParameters: false } as const;
const STATIC = { kind: 'Nestable', isStatic: true, typeParameters: '', typeArguments: '' } as const;

beforeAll(async () => {
  await loadJavaGrammar();
});

describe('nested bundle classes', () => {
  it('reads the simple names out of a spelled type', () => {
    expect(namesInType('Map<K, List<? extends V>>')).toEqual(['Map', 'K', 'List', 'extends', 'V']);
    expect(namesInType('byte[]')).toEqual(['byte']);
  });

  it('names the value after the last word of its class', () => {
    expect(variableNames('ScanState')).toEqual(['state', 'scanState']);
    expect(variableNames('Range')).toEqual(['range']);
  });

  it('takes no class name the file already uses, as a type or a value', () => {
    const model = { types: [{ name: 'Holder' }] } as unknown as SourceModel;
    const source = 'class Holder { Range range; int slice; }';
    withJavaTree(source, (root) => {
      expect(freeTypeName(root, model, ['Holder', 'Range', 'Slice', 'Span'])).toBe('Slice');
    });
  });

  it('writes a parameter object with final fields and a constructor, a context with plain fields', () => {
    const fields = [
      { name: 'start', type: 'int' },
      { name: 'end', type: 'int' },
    ];
    const common = { name: 'Range', fields, shape: STATIC, indent: '    ', style: STYLE };
    expect(nestedClassText({ ...common, withConstructor: true })).toBe(
      `    private static final class Range {
        final int start;
        final int end;

        Range(int start, int end) {
            this.start = start;
            this.end = end;
        }
    }`,
    );
    expect(
      nestedClassText({
        ...common,
        withConstructor: false,
        shape: { kind: 'Nestable', isStatic: false, typeParameters: '<T>', typeArguments: '<T>' },
      }),
    ).toBe(`    private final class Range<T> {
        int start;
        int end;
    }`);
  });
});

describe('bundle names', () => {
  it('calls a start and an end a Range, over text a Slice, else a request of the helper', () => {
    const int = (name: string) => ({ name, type: 'int' });
    expect(bundleClassNames([int('start'), int('end')], 'CopyRequest')).toEqual([
      'Range',
      'Bounds',
      'CopyRequest',
    ]);
    expect(
      bundleClassNames([{ name: 'text', type: 'String' }, int('start'), int('end')], 'CopyRequest'),
    ).toEqual(['Slice', 'Range', 'Bounds', 'CopyRequest']);
    expect(bundleClassNames([int('line'), int('limit')], 'CheckLineRequest')).toEqual([
      'CheckLineRequest',
    ]);
  });

  it('calls counters a Tally, a position a Cursor, else the state of the method', () => {
    expect(contextClassNames(['count', 'letters'], 'average')[0]).toBe('Tally');
    expect(contextClassNames(['pos', 'builder'], 'print')[0]).toBe('Cursor');
    expect(contextClassNames(['labels', 'columnCount'], 'setHeader')).toEqual([
      'HeaderState',
      'HeaderContext',
    ]);
    expect(contextClassNames(['source', 'charset'], 'doEncode')[0]).toBe('EncodeState');
  });
});

describe('default values', () => {
  it('knows what a field starts at: zero for numbers, false, null for references', () => {
    expect(isDefaultValue('0', 'int')).toBe(true);
    expect(isDefaultValue('0L', 'long')).toBe(true);
    expect(isDefaultValue('0.0', 'double')).toBe(true);
    expect(isDefaultValue('1', 'int')).toBe(false);
    expect(isDefaultValue('0', 'Integer')).toBe(false);
    expect(isDefaultValue('null', 'String')).toBe(true);
    expect(isDefaultValue('null', 'int')).toBe(false);
    expect(isDefaultValue('false', 'boolean')).toBe(true);
  });
});
