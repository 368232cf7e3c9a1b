package witnessgym.bridge;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import witnessgym.trace.Trace;

/**
 * Runs one test class through the JUnit Platform inside the project's class loaders. It is loaded
 * next to the platform jars (one copy per project), so it is compiled against the launcher API
 * and hands back only java.* types to the runner.
 */
public final class Bridge {
  private static final int MAX_FRAMES = 8;

  private Bridge() {}

  /**
   * Runs the class and returns "results" (one map per test, or failed container: class, method,
   * outcome, failure details), "discoveryMs" (loading the class and building the test plan) and
   * "executionMs" (running it).
   */
  public static Map<String, Object> run(
      ClassLoader testLoader, String className, List<String> methods) throws ClassNotFoundException {
    long discoveryStart = System.nanoTime();
    Class<?> testClass = Class.forName(className, false, testLoader);
    List<DiscoverySelector> selectors = new ArrayList<>();
    if (methods.isEmpty()) {
      selectors.add(selectClass(testClass));
    } else {
      for (String method : methods) selectors.add(selectMethod(testClass, method));
    }
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
    // Listeners registered by the project (META-INF/services) must not see or alter results.
    Launcher launcher =
        LauncherFactory.create(
            LauncherConfig.builder().enableTestExecutionListenerAutoRegistration(false).build());
    TestPlan plan = launcher.discover(request);
    long executionStart = System.nanoTime();
    Recorder recorder = new Recorder(className);
    launcher.execute(plan, recorder);
    Map<String, Object> outcome = new LinkedHashMap<>();
    outcome.put("results", recorder.results);
    outcome.put("discoveryMs", (executionStart - discoveryStart) / 1_000_000);
    outcome.put("executionMs", (System.nanoTime() - executionStart) / 1_000_000);
    return outcome;
  }

  private static final class Recorder implements TestExecutionListener {
    final List<Map<String, Object>> results = new ArrayList<>();
    private final Map<String, Integer> traceIndex = new HashMap<>();
    private final String requestedClass;

    Recorder(String requestedClass) {
      this.requestedClass = requestedClass;
    }

    @Override
    public void executionStarted(TestIdentifier id) {
      if (!id.isTest()) return;
      int index = Trace.beginTest();
      if (index >= 0) traceIndex.put(id.getUniqueId(), index);
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
      // A skipped container (a @Disabled class) counts once, as Surefire reports it.
      if (id.isTest() || id.getSource().map(s -> s instanceof ClassSource).orElse(false)) {
        results.add(entry(id, "skipped"));
      }
    }

    @Override
    public void executionFinished(TestIdentifier id, TestExecutionResult result) {
      TestExecutionResult.Status status = result.getStatus();
      if (id.isTest()) {
        if (status == TestExecutionResult.Status.SUCCESSFUL) {
          results.add(entry(id, "passed"));
        } else if (status == TestExecutionResult.Status.ABORTED) {
          results.add(entry(id, "skipped"));
        } else {
          results.add(failure(id, result.getThrowable()));
        }
      } else if (status == TestExecutionResult.Status.FAILED) {
        // A container that failed (e.g. @BeforeAll threw) is an error of the class.
        results.add(failure(id, result.getThrowable()));
      }
    }

    private Map<String, Object> entry(TestIdentifier id, String outcome) {
      Map<String, Object> map = new LinkedHashMap<>();
      Optional<TestSource> source = id.getSource();
      String className = requestedClass;
      String method = id.getDisplayName();
      if (source.isPresent() && source.get() instanceof MethodSource) {
        MethodSource ms = (MethodSource) source.get();
        className = ms.getClassName();
        method = ms.getMethodName();
      } else if (source.isPresent() && source.get() instanceof ClassSource) {
        className = ((ClassSource) source.get()).getClassName();
      }
      map.put("testClass", className);
      map.put("testMethod", method);
      map.put("outcome", outcome);
      Integer index = traceIndex.get(id.getUniqueId());
      if (index != null) map.put("traceIndex", index);
      return map;
    }

    private Map<String, Object> failure(TestIdentifier id, Optional<Throwable> thrown) {
      Throwable t = thrown.orElse(null);
      // Surefire's rule: AssertionError and its subclasses are failures, anything else an error.
      Map<String, Object> map = entry(id, t instanceof AssertionError ? "failure" : "error");
      if (t != null) {
        String printed = printed(t);
        if (printed != null) map.put("printed", printed);
        map.put("message", t.getMessage() == null ? "" : t.getMessage());
        List<String> frames = new ArrayList<>();
        for (StackTraceElement frame : t.getStackTrace()) {
          if (frames.size() == MAX_FRAMES) break;
          frames.add(frame.toString());
        }
        map.put("frames", frames);
      }
      return map;
    }

    /**
     * The first line of the throwable as a trace prints it (its toString()), which is all Surefire
     * reads its type from: the harness reads both runners' types from the same text. A toString()
     * that throws prints nothing.
     */
    private String printed(Throwable t) {
      try {
        String text = String.valueOf(t);
        int end = text.indexOf('\n');
        return end == -1 ? text : text.substring(0, end);
      } catch (RuntimeException | LinkageError e) {
        return null;
      }
    }
  }
}
