package witnessgym.runner;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TimeZone;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import witnessgym.boot.DependencyClassLoader;
import witnessgym.boot.Instrumenter;
import witnessgym.boot.Loaders;
import witnessgym.boot.MethodFingerprints;

/**
 * A long-lived JVM that validates candidates: it compiles changed sources in-process into an
 * overlay directory and runs one test class through the JUnit Platform in a fresh class loader
 * (overlay, then the project's classes, then its dependencies). Requests and responses are JSON
 * lines over the Unix socket named by the first argument, which the harness owns; the standard
 * streams belong to the code under test and are discarded. Every answer names its `kind`; the
 * harness reads them strictly against src/toolchains/jvm/protocol.ts, which must change with this.
 */
public final class Main {
  /** The wire format's version, answered to a ping; the same number as in protocol.ts. */
  private static final int PROTOCOL_VERSION = 1;

  private static final Map<String, ProjectSpace> SPACES = new HashMap<>();
  private static final Instrumenter.MethodTable METHODS = new Instrumenter.MethodTable();
  private static final JavaCompiler COMPILER = ToolProvider.getSystemJavaCompiler();

  private Main() {}

  public static void main(String[] args) throws IOException {
    SocketChannel channel = SocketChannel.open(UnixDomainSocketAddress.of(args[0]));
    Writer protocol =
        new OutputStreamWriter(Channels.newOutputStream(channel), StandardCharsets.UTF_8);
    BufferedReader requests =
        new BufferedReader(
            new InputStreamReader(Channels.newInputStream(channel), StandardCharsets.UTF_8));
    PrintStream discard = new PrintStream(OutputStream.nullOutputStream(), true);
    System.setOut(discard);
    System.setErr(discard);
    System.setIn(new ByteArrayInputStream(new byte[0]));
    String line;
    while ((line = requests.readLine()) != null) {
      if (line.isBlank()) continue;
      Map<String, Object> response;
      Object id = null;
      try {
        @SuppressWarnings("unchecked")
        Map<String, Object> request = (Map<String, Object>) Json.parse(line);
        id = request.get("id");
        response = handle(request);
      } catch (Throwable t) {
        response = answer("Error");
        response.put("message", t.getClass().getName() + ": " + t.getMessage());
      }
      response.put("id", id);
      protocol.write(Json.write(response));
      protocol.write('\n');
      protocol.flush();
    }
  }

  /** An answer of the given kind, its fields to be added. */
  private static Map<String, Object> answer(String kind) {
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("kind", kind);
    return answer;
  }

  private static Map<String, Object> handle(Map<String, Object> request) throws Exception {
    String op = (String) request.get("op");
    if ("ping".equals(op)) {
      Map<String, Object> pong = answer("Pong");
      pong.put("v", PROTOCOL_VERSION);
      pong.put("pid", ProcessHandle.current().pid());
      pong.put("java", System.getProperty("java.version"));
      return pong;
    }
    if ("compile".equals(op)) return compile(request);
    if ("run".equals(op)) return run(request);
    if ("analyse".equals(op)) return analyse(request);
    throw new IllegalArgumentException("unknown op " + op);
  }

  /** A javac analysis of one file (SourceModel, Slicer), in this JVM whose javac is warm. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> analyse(Map<String, Object> request) throws IOException {
    String name = (String) request.get("analysis");
    Attributed.Analysis analysis;
    if ("SourceModel".equals(name)) analysis = SourceModel::analyze;
    else if ("Slicer".equals(name)) analysis = Slicer::analyze;
    else throw new IllegalArgumentException("unknown analysis " + name);
    Map<String, Object> analysed = answer("Analysed");
    analysed.put("answer", Attributed.answer((Map<String, Object>) request.get("request"), analysis));
    return analysed;
  }

  @SuppressWarnings("unchecked")
  private static ProjectSpace space(Map<String, Object> request) throws Exception {
    Map<String, Object> project = (Map<String, Object>) request.get("project");
    ProjectSpace space = SPACES.get((String) project.get("key"));
    if (space == null) {
      space = new ProjectSpace(project);
      SPACES.put((String) project.get("key"), space);
    }
    return space;
  }

  /**
   * Compiles the changed sources into the overlay and reruns the generators they affect. A run
   * request for the same overlay follows, with its own time limit.
   */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> compile(Map<String, Object> request) throws Exception {
    ProjectSpace space = space(request);
    File overlay = new File((String) request.get("overlay"));
    long compileStart = System.nanoTime();
    Map<String, Object> response =
        space.compile((List<Map<String, Object>>) request.get("sources"), overlay);
    if (response == null) {
      space.learnt((Map<String, Object>) request.get("learnt"));
      BuildSteps steps = new BuildSteps();
      runGenerators((List<Map<String, Object>>) request.get("generators"), overlay, space, steps);
      response = answer(steps.error == null ? "Compiled" : "BuildStepFailed");
      if (steps.error != null) response.put("reason", steps.error);
      response.put("buildSteps", steps.summary());
    }
    response.put("compileMs", millisSince(compileStart));
    return response;
  }

  /** Runs the test class over the overlay a compile request prepared. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> run(Map<String, Object> request) throws Exception {
    ProjectSpace space = space(request);
    File overlay = new File((String) request.get("overlay"));

    long loadStart = System.nanoTime();
    boolean trace = Boolean.TRUE.equals(request.get("trace"));
    URL[] urls = {
      overlay.toURI().toURL(), space.testClasses.toURI().toURL(), space.classes.toURI().toURL()
    };
    URLClassLoader testLoader =
        trace
            ? Loaders.tracing(urls, space.dependencies, overlay, space.classes, METHODS)
            : Loaders.project(urls, space.dependencies);
    space.drainTrace(); // nothing from an earlier request may be attributed to this one
    space.recordPerTest(trace && Boolean.TRUE.equals(request.get("perTest")));

    long loaderMs = millisSince(loadStart);
    Snapshot snapshot = new Snapshot();
    Thread current = Thread.currentThread();
    ClassLoader previous = current.getContextClassLoader();
    current.setContextClassLoader(testLoader);
    SystemLoader.setCurrent(testLoader);
    Map<String, Object> response;
    boolean fit;
    try {
      Map<String, Object> outcome =
          (Map<String, Object>)
              space.bridge.invoke(
                  null,
                  testLoader,
                  (String) request.get("testClass"),
                  request.get("methods") == null ? List.of() : request.get("methods"));
      response = answer("Ran");
      response.put("results", outcome.get("results"));
      if (trace) response.put("trace", traceOf(space.drainTrace()));
      // Loading covers the class loader, the test class and the test plan; the rest is the run.
      response.put("loadMs", loaderMs + (Long) outcome.get("discoveryMs"));
      response.put("testMs", outcome.get("executionMs"));
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof ClassNotFoundException) {
        response = answer("TestClassNotFound");
        response.put("className", String.valueOf(cause.getMessage()));
      } else if (cause instanceof VirtualMachineError) {
        // The platform rethrows these (out of memory, say): the JVM is no longer fit to judge.
        response = answer("RunCrashed");
        response.put("reason", cause.getClass().getName() + ": " + cause.getMessage());
      } else {
        throw e;
      }
    } finally {
      // Dropped while the tests' loaders are still current, as Mockito looks up its
      // configuration through them.
      boolean mockitoForgotten = space.forgetMockito();
      current.setContextClassLoader(previous);
      SystemLoader.setCurrent(null);
      // Threads the tests left running would carry state into the next request, as would
      // Mockito's state if it could not be dropped.
      fit = snapshot.restore(testLoader) && mockitoForgotten;
      testLoader.close();
    }
    response.put("restart", !fit);
    return response;
  }

  /** What the build steps did for one compile request, for the harness to report and keep. */
  private static final class BuildSteps {
    String error;
    int rerun;
    long rerunMs;
    long learningMs;
    /** Generators whose executed methods were learnt by this request, by key. */
    final Map<String, Object> learnt = new LinkedHashMap<>();

    Map<String, Object> summary() {
      Map<String, Object> summary = new LinkedHashMap<>();
      summary.put("rerun", rerun);
      summary.put("rerunMs", rerunMs);
      summary.put("learningMs", learningMs);
      summary.put("learnt", learnt);
      return summary;
    }
  }

  /**
   * Reruns the build steps that execute project code (the recipe's generators) with the
   * candidate's classes, writing their output into the overlay. A step that executes none of the
   * changed methods cannot produce different output and is skipped: which methods it executes is
   * learnt once, by tracing a run on the unchanged classes, and handed back to the harness so that
   * a restarted JVM need not learn it again.
   */
  @SuppressWarnings("unchecked")
  private static void runGenerators(
      List<Map<String, Object>> generators, File overlay, ProjectSpace space, BuildSteps steps)
      throws Exception {
    if (generators == null || generators.isEmpty()) return;
    Set<String> changed = changedMethods(overlay, space.classes);
    if (changed.isEmpty()) return;
    for (Map<String, Object> generator : generators) {
      String key = Json.write(generator);
      Set<String> executed = space.generatorMethods.get(key);
      if (executed == null) {
        long started = System.nanoTime();
        File scratch = Files.createTempDirectory("witnessgym-generator").toFile();
        try {
          GeneratorRun learning = runGenerator(generator, null, scratch, space);
          if (learning.error != null) {
            steps.error = learning.error;
            return;
          }
          executed = learning.executed;
          space.generatorMethods.put(key, executed);
          steps.learnt.put(key, new ArrayList<>(executed));
        } finally {
          deleteTree(scratch);
          steps.learningMs += millisSince(started);
        }
      }
      if (!touches(changed, executed)) continue;
      long started = System.nanoTime();
      String error = runGenerator(generator, overlay, overlay, space).error;
      steps.rerun++;
      steps.rerunMs += millisSince(started);
      if (error != null) {
        steps.error = error;
        return;
      }
    }
  }

  /** Whether a changed method (or a changed class shape, "owner.#class") was executed. */
  private static boolean touches(Set<String> changed, Set<String> executed) {
    for (String method : changed) {
      if (executed.contains(method)) return true;
      if (method.endsWith("." + MethodFingerprints.CLASS_SHAPE)) {
        String owner = method.substring(0, method.length() - MethodFingerprints.CLASS_SHAPE.length());
        for (String run : executed) if (run.startsWith(owner)) return true;
      }
    }
    return false;
  }

  /** "owner.name(descriptor)" of every method whose code differs from the project's classes. */
  private static Set<String> changedMethods(File overlay, File classes) throws IOException {
    Set<String> changed = new HashSet<>();
    for (String name : classesIn(overlay)) {
      String path = name.replace('.', '/') + ".class";
      Map<String, String> now = MethodFingerprints.of(Files.readAllBytes(new File(overlay, path).toPath()));
      File original = new File(classes, path);
      Map<String, String> before =
          original.isFile() ? MethodFingerprints.of(Files.readAllBytes(original.toPath())) : Map.of();
      Set<String> keys = new HashSet<>(now.keySet());
      keys.addAll(before.keySet());
      for (String key : keys) {
        if (!java.util.Objects.equals(now.get(key), before.get(key))) {
          changed.add(name.replace('.', '/') + "." + key);
        }
      }
    }
    return changed;
  }

  private static final class GeneratorRun {
    String error;
    Set<String> executed = Set.of();
  }

  /** Runs a generator's main method; when learning (no overlay), traces what it executes. */
  @SuppressWarnings("unchecked")
  private static GeneratorRun runGenerator(
      Map<String, Object> generator, File overlay, File output, ProjectSpace space)
      throws Exception {
    GeneratorRun run = new GeneratorRun();
    Properties saved = (Properties) System.getProperties().clone();
    Thread current = Thread.currentThread();
    ClassLoader previous = current.getContextClassLoader();
    boolean learning = overlay == null;
    File firstDir = learning ? output : overlay;
    URL[] urls = {firstDir.toURI().toURL(), space.classes.toURI().toURL()};
    URLClassLoader loader =
        learning
            ? Loaders.tracing(urls, space.dependencies, output, space.classes, METHODS)
            : Loaders.project(urls, space.dependencies);
    space.drainTrace();
    space.recordPerTest(false);
    try {
      for (Map.Entry<String, Object> property :
          ((Map<String, Object>) generator.get("systemProperties")).entrySet()) {
        System.setProperty(property.getKey(), (String) property.getValue());
      }
      current.setContextClassLoader(loader);
      List<String> args = new ArrayList<>();
      for (Object arg : (List<Object>) generator.get("args")) {
        args.add(((String) arg).replace("{outputDir}", output.getPath()));
      }
      Class.forName((String) generator.get("mainClass"), true, loader)
          .getMethod("main", String[].class)
          .invoke(null, (Object) args.toArray(new String[0]));
      if (learning) {
        Set<String> executed = new HashSet<>();
        for (int id : space.drainTrace()) {
          Map<String, Object> method = METHODS.get(id);
          executed.add(method.get("owner") + "." + method.get("name") + method.get("descriptor"));
        }
        run.executed = executed;
      }
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      run.error =
          generator.get("mainClass") + ": " + cause.getClass().getName() + ": " + cause.getMessage();
    } finally {
      current.setContextClassLoader(previous);
      System.setProperties(saved);
      loader.close();
    }
    return run;
  }

  /** Binary names of the classes compiled into a directory. */
  private static Set<String> classesIn(File root) throws IOException {
    Set<String> names = new HashSet<>();
    if (!root.isDirectory()) return names;
    try (java.util.stream.Stream<java.nio.file.Path> files = Files.walk(root.toPath())) {
      files
          .filter(p -> p.toString().endsWith(".class"))
          .forEach(
              p -> {
                String relative = root.toPath().relativize(p).toString();
                names.add(relative.substring(0, relative.length() - 6).replace(File.separatorChar, '.'));
              });
    }
    return names;
  }

  private static void deleteTree(File root) throws IOException {
    try (java.util.stream.Stream<java.nio.file.Path> files = Files.walk(root.toPath())) {
      files.sorted(java.util.Comparator.reverseOrder()).map(java.nio.file.Path::toFile).forEach(File::delete);
    }
  }

  /** The hit log and the table entries of the methods it names. */
  private static Map<String, Object> traceOf(int[] log) {
    List<Integer> entries = new ArrayList<>(log.length);
    Map<String, Object> methods = new LinkedHashMap<>();
    for (int value : log) {
      entries.add(value);
      if (value >= 0 && !methods.containsKey(String.valueOf(value))) {
        methods.put(String.valueOf(value), METHODS.get(value));
      }
    }
    Map<String, Object> trace = new LinkedHashMap<>();
    trace.put("log", entries);
    trace.put("methods", methods);
    return trace;
  }

  private static long millisSince(long start) {
    return (System.nanoTime() - start) / 1_000_000;
  }

  /** Process-wide state that tests commonly change, put back after every request. */
  private static final class Snapshot {
    private final Properties properties = (Properties) System.getProperties().clone();
    private final Locale locale = Locale.getDefault();
    private final TimeZone timeZone = TimeZone.getDefault();
    private final Set<Thread> threads = new HashSet<>(Thread.getAllStackTraces().keySet());

    /**
     * Restores the state; false when threads the tests started refuse to stop. A thread counts as
     * the tests' when it keeps the JVM alive or inherited the test class loader; pool threads the
     * JDK starts on demand (common fork-join pool, cleaners) do neither.
     */
    boolean restore(ClassLoader testLoader) {
      System.setProperties(properties);
      Locale.setDefault(locale);
      TimeZone.setDefault(timeZone);
      List<Thread> leftovers = new ArrayList<>();
      for (Thread thread : Thread.getAllStackTraces().keySet()) {
        boolean fromTests = !thread.isDaemon() || thread.getContextClassLoader() == testLoader;
        if (!threads.contains(thread) && thread.isAlive() && fromTests) {
          thread.interrupt();
          leftovers.add(thread);
        }
      }
      for (Thread thread : leftovers) {
        try {
          thread.join(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      for (Thread thread : leftovers) {
        if (thread.isAlive()) return false;
      }
      return true;
    }
  }

  /** What is kept per project between requests: its dependency loader and a compiler setup. */
  private static final class ProjectSpace {
    final File classes;
    final File testClasses;
    final DependencyClassLoader dependencies;
    final Method bridge;
    /** Per generator, the project methods it executes (learnt on its first run). */
    final Map<String, Set<String>> generatorMethods = new HashMap<>();
    private final Method drain;
    private final Method recordPerTest;
    private final List<File> compileClasspath = new ArrayList<>();
    private final String release;
    private final String encoding;
    private final StandardJavaFileManager fileManager;

    @SuppressWarnings("unchecked")
    ProjectSpace(Map<String, Object> spec) throws Exception {
      classes = new File((String) spec.get("classes"));
      testClasses = new File((String) spec.get("testClasses"));
      List<URL> urls = new ArrayList<>();
      urls.add(new File((String) spec.get("bridge")).toURI().toURL());
      compileClasspath.add(testClasses);
      compileClasspath.add(classes);
      for (Object entry : (List<Object>) spec.get("classpath")) {
        File file = new File((String) entry);
        urls.add(file.toURI().toURL());
        compileClasspath.add(file);
      }
      // The platform loader as parent keeps the runner's own classes out of the project's view.
      dependencies =
          Loaders.dependencies(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
      bridge =
          Class.forName("witnessgym.bridge.Bridge", true, dependencies)
              .getMethod("run", ClassLoader.class, String.class, List.class);
      Class<?> trace = Class.forName("witnessgym.trace.Trace", true, dependencies);
      drain = trace.getMethod("drain");
      recordPerTest = trace.getMethod("recordPerTest", boolean.class);
      release = (String) spec.get("release");
      encoding = spec.get("encoding") == null ? "UTF-8" : (String) spec.get("encoding");
      fileManager = COMPILER.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
    }

    /** Takes in what an earlier JVM learnt about the generators, keyed as here. */
    @SuppressWarnings("unchecked")
    void learnt(Map<String, Object> learnt) {
      if (learnt == null) return;
      for (Map.Entry<String, Object> entry : learnt.entrySet()) {
        generatorMethods.computeIfAbsent(
            entry.getKey(), key -> new HashSet<>((List<String>) entry.getValue()));
      }
    }

    /**
     * Mockito keeps state in the dependency loader, which outlives the request: per thread, a
     * stubbing or verification left unfinished or a misplaced matcher, reported at the next use
     * of Mockito; and the inline mock maker's mocks, including static mocks never closed (of
     * dependency classes too, which every later request shares). Surefire's replay of one class
     * starts a fresh JVM, so all of it is dropped after each request in which Mockito was used.
     * False when it could not be, and only a new JVM is clean.
     */
    boolean forgetMockito() {
      Class<?> mockito = dependencies.loaded("org.mockito.Mockito");
      if (mockito == null) return true;
      try {
        return forget(mockito);
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        return false;
      }
    }

    private boolean forget(Class<?> mockito) throws ReflectiveOperationException {
      try {
        Method clearInlineMocks =
            Class.forName("org.mockito.MockitoFramework", false, dependencies)
                .getMethod("clearInlineMocks");
        clearInlineMocks.invoke(mockito.getMethod("framework").invoke(null));
      } catch (ClassNotFoundException | NoSuchMethodException beforeMockito2_25) {
        // this Mockito has no inline mocks to clear
      }
      // validateMockitoUsage() reports one kind of misuse at a time, clearing it as it does;
      // there are three (verification, stubbing, matchers), so a fourth report means it stays.
      for (int reports = 0; reports < 4; reports++) {
        try {
          mockito.getMethod("validateMockitoUsage").invoke(null);
          return true;
        } catch (InvocationTargetException misuse) {
          // cleared; look for the next kind
        }
      }
      return false;
    }

    int[] drainTrace() throws ReflectiveOperationException {
      return (int[]) drain.invoke(null);
    }

    void recordPerTest(boolean enabled) throws ReflectiveOperationException {
      recordPerTest.invoke(null, enabled);
    }

    /** Compiles the sources into the overlay: null when they compiled, else the failure. */
    Map<String, Object> compile(List<Map<String, Object>> sources, File overlay)
        throws IOException {
      if (sources.isEmpty()) return null;
      overlay.mkdirs();
      Map<String, String> scopeOfFile = new HashMap<>();
      List<File> files = new ArrayList<>();
      for (Map<String, Object> source : sources) {
        File file = new File((String) source.get("path"));
        files.add(file);
        scopeOfFile.put(file.getAbsolutePath(), (String) source.get("scope"));
      }
      List<File> classpath = new ArrayList<>();
      classpath.add(overlay);
      classpath.addAll(compileClasspath);
      List<String> options = new ArrayList<>();
      // The overlay comes first so changed classes see each other, not their stale versions.
      options.add("-classpath");
      options.add(joinPaths(classpath));
      options.add("-d");
      options.add(overlay.getPath());
      options.add("-encoding");
      options.add(encoding);
      options.add("-proc:none");
      options.add("-g");
      options.add("-nowarn");
      options.add("-Xlint:-options");
      if (release != null) {
        options.add("-source");
        options.add(release);
        options.add("-target");
        options.add(release);
      }
      DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
      Iterable<? extends JavaFileObject> units = fileManager.getJavaFileObjectsFromFiles(files);
      boolean ok = COMPILER.getTask(null, fileManager, diagnostics, options, null, units).call();
      if (ok) return null;
      List<Map<String, Object>> messages = new ArrayList<>();
      String scope = "main";
      for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
        if (d.getKind() != Diagnostic.Kind.ERROR) continue;
        Map<String, Object> message = new LinkedHashMap<>();
        String file = d.getSource() == null ? "" : new File(d.getSource().toUri()).getPath();
        if (messages.isEmpty() && scopeOfFile.containsKey(file)) scope = scopeOfFile.get(file);
        message.put("file", file);
        message.put("line", d.getLineNumber() < 0 ? null : d.getLineNumber());
        message.put("column", d.getColumnNumber() < 0 ? null : d.getColumnNumber());
        message.put("message", d.getMessage(Locale.ROOT).split("\n")[0]);
        messages.add(message);
      }
      Map<String, Object> failed = answer("CompileFailed");
      failed.put("scope", scope);
      failed.put("messages", messages);
      return failed;
    }

    private static String joinPaths(List<File> files) {
      StringBuilder out = new StringBuilder();
      for (File file : files) {
        if (out.length() > 0) out.append(File.pathSeparatorChar);
        out.append(file.getPath());
      }
      return out.toString();
    }
  }
}
