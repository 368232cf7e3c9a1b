package witnessgym.probe;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * What an amplified test's probe saw: one JSON line per observed value and one per exception that
 * left a probe method, appended to the file named by the system property {@value #FILE_PROPERTY}
 * (nothing is recorded without it). A value is recorded in full only when a test could write it
 * back as a literal; of any other object only its class, never its toString or identity hash, which
 * differ from run to run. Java 8 and the JDK alone, so it compiles on any project's test classpath.
 */
public final class Observe {
  public static final String FILE_PROPERTY = "witnessgym.observations";
  public static final String COVERAGE_PROPERTY = "witnessgym.coverage";

  private Observe() {}

  /** Records the value an assertion of the original test looked at, or a local it computed. */
  public static void value(String key, Object value) {
    record(key, value, false);
  }

  // javac picks these for expressions of primitive type (and the Object one for boxed values),
  // so the record tells which: an assertion must be written differently for each to compile.

  public static void value(String key, boolean value) {
    record(key, value, true);
  }

  public static void value(String key, char value) {
    record(key, value, true);
  }

  public static void value(String key, byte value) {
    record(key, value, true);
  }

  public static void value(String key, short value) {
    record(key, value, true);
  }

  public static void value(String key, int value) {
    record(key, value, true);
  }

  public static void value(String key, long value) {
    record(key, value, true);
  }

  public static void value(String key, float value) {
    record(key, value, true);
  }

  public static void value(String key, double value) {
    record(key, value, true);
  }

  private static void record(String key, Object value, boolean primitive) {
    StringBuilder line = new StringBuilder(64).append("{\"key\":");
    quote(line, key);
    if (value == null) {
      line.append(",\"type\":\"null\",\"value\":\"null\"}");
    } else {
      String type = typeOf(value);
      line.append(",\"type\":\"").append(type).append("\",\"class\":");
      quote(line, value.getClass().getName());
      String text = literalText(value, type);
      if (text != null) {
        line.append(",\"value\":");
        quote(line, text);
      }
      if (primitive) line.append(",\"primitive\":true");
      line.append('}');
    }
    append(line.toString());
  }

  /**
   * Records the class of an exception that left the probe method {@code method} (never its
   * message), and the line of that method it left from, when the trace tells it.
   */
  /**
   * Ends a probe method's run: JaCoCo's execution data since the last call (this method's, with
   * its set-up) written to {@code <dir>/<method>.exec} in the directory named by {@value
   * #COVERAGE_PROPERTY}, and reset. Without the property or the agent nothing is written.
   */
  public static void covered(String method) {
    String dir = System.getProperty(COVERAGE_PROPERTY);
    if (dir == null) return;
    byte[] data;
    try {
      Object agent = Class.forName("org.jacoco.agent.rt.RT").getMethod("getAgent").invoke(null);
      data =
          (byte[])
              Class.forName("org.jacoco.agent.rt.IAgent")
                  .getMethod("getExecutionData", boolean.class)
                  .invoke(agent, true);
    } catch (ReflectiveOperationException | LinkageError noAgent) {
      return;
    }
    try (OutputStream out = new FileOutputStream(new java.io.File(dir, method + ".exec"))) {
      out.write(data);
    } catch (IOException ignored) {
      // A coverage file that cannot be written only loses this method's coverage.
    }
  }

  public static void thrown(String method, Throwable thrown) {
    StringBuilder line = new StringBuilder(96).append("{\"key\":");
    quote(line, method);
    line.append(",\"thrown\":");
    quote(line, thrown.getClass().getName());
    int at = lineInProbe(method, thrown);
    if (at > 0) line.append(",\"line\":").append(at);
    append(line.append('}').toString());
  }

  private static String typeOf(Object value) {
    if (value instanceof Boolean) return "boolean";
    if (value instanceof Character) return "char";
    if (value instanceof Byte
        || value instanceof Short
        || value instanceof Integer
        || value instanceof Long) return "integral";
    if (value instanceof Float || value instanceof Double) return "floating";
    if (value instanceof String) return "string";
    // An enum of a local or anonymous class has no name a test could write.
    if (value instanceof Enum && ((Enum<?>) value).getDeclaringClass().getCanonicalName() != null)
      return "enum";
    return "other";
  }

  /** The value as text: Float's and Double's own toString, an enum constant's canonical name. */
  private static String literalText(Object value, String type) {
    if (type.equals("other")) return null;
    if (type.equals("enum")) {
      Enum<?> constant = (Enum<?>) value;
      return constant.getDeclaringClass().getCanonicalName() + "." + constant.name();
    }
    return value.toString();
  }

  /** The line of the probe method in the exception's trace: that method's frame in its class. */
  private static int lineInProbe(String method, Throwable thrown) {
    // [0] is this method, [1] thrown(), [2] the probe method's catch block.
    StackTraceElement[] here = new Throwable().getStackTrace();
    if (here.length < 3) return -1;
    String probeClass = here[2].getClassName();
    for (StackTraceElement frame : thrown.getStackTrace()) {
      if (frame.getClassName().equals(probeClass) && frame.getMethodName().equals(method)) {
        return frame.getLineNumber();
      }
    }
    return -1;
  }

  /** A JSON string; everything beyond printable ASCII escaped, so any UTF-16 text round-trips. */
  private static void quote(StringBuilder out, String text) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\\') {
        out.append('\\').append(c);
      } else if (c >= 0x20 && c < 0x7f) {
        out.append(c);
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    out.append('"');
  }

  private static synchronized void append(String line) {
    String file = System.getProperty(FILE_PROPERTY);
    if (file == null) return;
    try (OutputStream out = new FileOutputStream(file, true)) {
      out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      // A lost line only costs the assertions of its site; the test itself goes on.
      System.err.println("Observe: cannot append to " + file + ": " + e);
    }
  }
}
