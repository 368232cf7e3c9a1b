package witnessgym.trace;

import java.util.Arrays;

/**
 * Receives the calls that traced production methods make on entry. It lives next to the JUnit
 * Platform jars, so every fresh test class loader sees the same recorder, which the runner drains
 * after each test class. Recording is an array write; only a method's first call in a test takes
 * the lock, so a traced suite runs close to full speed.
 */
public final class Trace {
  private static final Object LOCK = new Object();
  private static boolean[] seenInTest = new boolean[4096];
  private static int[] log = new int[4096];
  private static int size;
  private static int tests;
  private static boolean perTest;

  private Trace() {}

  /** Called on entry of every traced method with its id. */
  public static void hit(int id) {
    boolean[] seen = seenInTest;
    if (id < seen.length && seen[id]) return;
    synchronized (LOCK) {
      if (id >= seenInTest.length) seenInTest = Arrays.copyOf(seenInTest, Math.max(id + 1, seenInTest.length * 2));
      if (seenInTest[id]) return;
      seenInTest[id] = true;
      append(id);
    }
  }

  /** Per test: each test starts afresh and gets a marker; otherwise first hits per test class. */
  public static void recordPerTest(boolean enabled) {
    synchronized (LOCK) {
      perTest = enabled;
    }
  }

  /**
   * Marks the start of a test; later hits are attributed to it (first hit per test only).
   * Returns the test's index in this drain's log, or -1 when recording per test class.
   */
  public static int beginTest() {
    synchronized (LOCK) {
      if (!perTest) return -1;
      Arrays.fill(seenInTest, false);
      append(-1 - tests);
      return tests++;
    }
  }

  private static void append(int value) {
    if (size == log.length) log = Arrays.copyOf(log, log.length * 2);
    log[size++] = value;
  }

  /**
   * The hits since the last drain, in order: method ids (first hit per test), with -1-k marking
   * the start of the k-th test. Resets the recorder.
   */
  public static int[] drain() {
    synchronized (LOCK) {
      int[] result = Arrays.copyOf(log, size);
      size = 0;
      tests = 0;
      Arrays.fill(seenInTest, false);
      return result;
    }
  }
}
