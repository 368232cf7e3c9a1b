package witnessgym.runner;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.security.CodeSigner;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import witnessgym.boot.Instrumenter;

/**
 * One run of one test class inside the evaluation sandbox, in a JVM of its own.
 *
 * <p>The production classes arrive as a jar on standard input, a pipe the harness fills: they are
 * defined from memory, every one before any test code runs, and their bytes are dropped then. No
 * file the test can open holds them and the loader serves no ".class" resource, so a test cannot
 * tell the buggy classes from the clean ones by their bytes, only by what they do. Other entries
 * of the jar (production resources, the same on both sides) are written to a directory the loader
 * reads them from.
 *
 * <p>Arguments: result file, test class, "trace" or "plain", resource directory, then the test
 * class directories (the agent's compiled tests first). The result is one JSON object written
 * beside the result file and renamed into place; the JVM then exits, its threads with it.
 */
public final class SandboxRun {
  private SandboxRun() {}

  public static void main(String[] args) throws Exception {
    File result = new File(args[0]);
    String testClass = args[1];
    boolean trace = "trace".equals(args[2]);
    File resources = new File(args[3]);
    List<URL> testDirs = new ArrayList<>();
    for (int i = 4; i < args.length; i++) testDirs.add(new File(args[i]).toURI().toURL());

    Map<String, byte[]> classes = readProduction(System.in, resources);
    System.in.close();
    System.setIn(new java.io.ByteArrayInputStream(new byte[0]));
    // Lines too: the verifier asks whether the bug's changed lines ran, not only its methods.
    Instrumenter.MethodTable table = trace ? new Instrumenter.MethodTable(true) : null;
    // One loader for production and tests: a test of a package-private member must be in the
    // same runtime package as the member, as it is under Surefire.
    List<URL> urls = new ArrayList<>();
    urls.add(resources.toURI().toURL());
    urls.addAll(testDirs);
    CaseLoader tests =
        new CaseLoader(urls.toArray(new URL[0]), SandboxRun.class.getClassLoader(), classes, table);
    tests.defineProduction();

    Map<String, Object> answer = new LinkedHashMap<>();
    Thread.currentThread().setContextClassLoader(tests);
    SystemLoader.setCurrent(tests);
    try {
      Method run =
          Class.forName("witnessgym.bridge.Bridge")
              .getMethod("run", ClassLoader.class, String.class, List.class);
      @SuppressWarnings("unchecked")
      Map<String, Object> outcome =
          (Map<String, Object>) run.invoke(null, tests, testClass, List.of());
      answer.put("kind", "Ran");
      answer.put("results", outcome.get("results"));
      answer.put("testMs", outcome.get("executionMs"));
      if (table != null) answer.put("entered", entered(table));
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof ClassNotFoundException) {
        answer.put("kind", "TestClassNotFound");
        answer.put("className", String.valueOf(cause.getMessage()));
      } else {
        answer.put("kind", "RunCrashed");
        answer.put("reason", cause.getClass().getName() + ": " + cause.getMessage());
      }
    }
    File partial = new File(result.getPath() + ".partial");
    Files.write(partial.toPath(), Json.write(answer).getBytes(StandardCharsets.UTF_8));
    Files.move(partial.toPath(), result.toPath(), StandardCopyOption.ATOMIC_MOVE);
    // Exit (not halt) so that a coverage agent's shutdown hook writes its data.
    System.exit(0);
  }

  /** Class bytes by binary name; every other entry is written under `resources`. */
  private static Map<String, byte[]> readProduction(InputStream in, File resources)
      throws IOException {
    Map<String, byte[]> classes = new HashMap<>();
    try (ZipInputStream zip = new ZipInputStream(in)) {
      for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
        String name = entry.getName();
        if (entry.isDirectory() || name.startsWith("META-INF/MANIFEST.MF")) continue;
        byte[] bytes = zip.readAllBytes();
        if (name.endsWith(".class")) {
          if (!name.endsWith("module-info.class")) {
            classes.put(name.substring(0, name.length() - 6).replace('/', '.'), bytes);
          }
        } else {
          File target = new File(resources, name);
          target.getParentFile().mkdirs();
          Files.write(target.toPath(), bytes);
        }
      }
    }
    return classes;
  }

  /**
   * The traced methods entered and their lines run, in first-hit order: owner, name, descriptor,
   * and the method's first line or the line run.
   */
  private static List<Map<String, Object>> entered(Instrumenter.MethodTable table)
      throws ReflectiveOperationException {
    int[] log = (int[]) Class.forName("witnessgym.trace.Trace").getMethod("drain").invoke(null);
    List<Map<String, Object>> methods = new ArrayList<>();
    for (int id : log) if (id >= 0) methods.add(table.get(id));
    return methods;
  }

  /**
   * Production classes from memory, tests and resources from the test directories. {@link
   * #defineProduction} defines every production class (without initialising it) before any test
   * code runs, and drops the bytes; a production class that cannot be defined (a missing optional
   * dependency) is dropped too, as it could not have been used. A test class cannot shadow a
   * production class, which is defined first; no production class is served as a resource.
   */
  private static final class CaseLoader extends URLClassLoader {
    static {
      registerAsParallelCapable();
    }

    private final Map<String, byte[]> pending;
    private final java.util.Set<String> productionResources = new java.util.HashSet<>();
    private final Instrumenter.MethodTable table;
    private final CodeSource source;

    CaseLoader(
        URL[] urls, ClassLoader parent, Map<String, byte[]> classes, Instrumenter.MethodTable table) {
      super(urls, parent);
      this.pending = classes;
      this.table = table;
      this.source = new CodeSource(urls[0], (CodeSigner[]) null);
      for (String name : classes.keySet()) productionResources.add(name.replace('.', '/') + ".class");
    }

    void defineProduction() {
      for (String name : new ArrayList<>(pending.keySet())) {
        try {
          loadClass(name);
        } catch (ClassNotFoundException | LinkageError unusable) {
          // left undefined: the test sees the same ClassNotFoundException on either side
        }
      }
      pending.clear();
    }

    @Override
    protected Class<?> findClass(String name) throws ClassNotFoundException {
      byte[] bytes;
      synchronized (pending) {
        bytes = pending.remove(name);
      }
      if (bytes == null) {
        if (productionResources.contains(name.replace('.', '/') + ".class")) {
          throw new ClassNotFoundException(name);
        }
        return super.findClass(name);
      }
      if (table != null) bytes = Instrumenter.instrument(bytes, table);
      int dot = name.lastIndexOf('.');
      if (dot > 0) {
        String pkg = name.substring(0, dot);
        if (getDefinedPackage(pkg) == null) {
          try {
            definePackage(pkg, null, null, null, null, null, null, null);
          } catch (IllegalArgumentException raced) {
            // defined meanwhile by another thread
          }
        }
      }
      return defineClass(name, bytes, 0, bytes.length, source);
    }

    @Override
    public URL findResource(String name) {
      return productionResources.contains(stripSlash(name)) ? null : super.findResource(name);
    }

    @Override
    public java.util.Enumeration<URL> findResources(String name) throws IOException {
      return productionResources.contains(stripSlash(name))
          ? java.util.Collections.emptyEnumeration()
          : super.findResources(name);
    }

    private static String stripSlash(String name) {
      return name.startsWith("/") ? name.substring(1) : name;
    }
  }
}
