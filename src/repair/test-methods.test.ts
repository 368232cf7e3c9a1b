import { describe, expect, it } from 'vitest';
import { declaredTestMethods } from './test-methods.js';

const JUNIT = `package p;

import org.junit.Ignore;
import org.junit.Test;
import org.junit.jupiter.params.ParameterizedTest;

public class FooTest {
    @Test
    public void parsesEmpty() {}

    @org.junit.Test(expected = IllegalStateException.class)
    public void rejectsNull() {}

    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void parsesNumbers(int n) {}

    @Ignore("flaky")
    @Test
    public void ignored() {}

    public void testLooksLikeJUnit3ButIsNot() {}

    private static String helper() { return ""; }

    static class Inner {
        @Test
        void innerTest() {}
    }
}
`;

const JUNIT3 = `package p;

import junit.framework.TestCase;

public class LegacyTest extends TestCase {
    public void testZero() {}
    public void testOne() throws Exception {}
    public void testWithArgument(int n) {}
    public static void testStatic() {}
    protected void testProtected() {}
    public int testReturning() { return 0; }
    public void helper() {}
}
`;

describe('declaredTestMethods', () => {
  it('finds JUnit 4/5 test methods in source order, leaving out disabled ones and helpers', async () => {
    expect(await declaredTestMethods(JUNIT, 'FooTest')).toEqual({
      kind: 'Found',
      methods: ['parsesEmpty', 'rejectsNull', 'parsesNumbers'],
    });
  });

  it("finds a nested class's own tests by its binary name", async () => {
    expect(await declaredTestMethods(JUNIT, 'FooTest$Inner')).toEqual({
      kind: 'Found',
      methods: ['innerTest'],
    });
  });

  it("finds a TestCase's public void no-argument test* methods", async () => {
    expect(await declaredTestMethods(JUNIT3, 'LegacyTest')).toEqual({
      kind: 'Found',
      methods: ['testZero', 'testOne'],
    });
  });

  it('says when the source does not declare the class', async () => {
    expect(await declaredTestMethods(JUNIT, 'BarTest')).toEqual({ kind: 'NoSuchClass' });
    expect(await declaredTestMethods(JUNIT, 'FooTest$Missing')).toEqual({ kind: 'NoSuchClass' });
  });
});
