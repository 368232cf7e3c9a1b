package witnessgym.runner;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The runner JVM's system class loader. Under Surefire the system class loader holds the test
 * class path, and tests rely on it (commons-csv reads its test files with
 * {@code ClassLoader.getSystemClassLoader().getResource(...)}); here it answers from the current
 * request's fresh project loader first, so those tests see the candidate's classes and resources,
 * and otherwise behaves as the JVM's own application loader, including taking the jar of a Java
 * agent loaded at run time (see {@link #appendToClassPathForInstrumentation}).
 */
public final class SystemLoader extends ClassLoader {
  static {
    registerAsParallelCapable();
  }

  private static volatile ClassLoader current;

  /** Jars appended for Java agents; only read from, never asked to delegate. */
  private final AgentJars agentJars = new AgentJars();

  public SystemLoader(ClassLoader parent) {
    super(parent);
  }

  /** The project loader of the request being run, or null between requests. */
  static void setCurrent(ClassLoader loader) {
    current = loader;
  }

  /**
   * Called by the JVM when a Java agent is loaded into the running JVM (byte-buddy-agent's attach,
   * which mockito-inline's mock maker uses): a custom system class loader must define it, or the
   * agent fails to load. As with the application loader, the jar is searched after the class path;
   * the agent's classes are still looked up in the current project loader first, so a project's
   * byte-buddy-agent finds the instrumentation its own attach installed.
   */
  @SuppressWarnings("unused")
  void appendToClassPathForInstrumentation(String jar) throws MalformedURLException {
    agentJars.add(new File(jar).toURI().toURL());
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    ClassLoader project = current;
    if (project != null && !name.startsWith("witnessgym.runner.")) {
      try {
        return project.loadClass(name);
      } catch (ClassNotFoundException notInProject) {
        // fall through to the runner's own class path
      }
    }
    return super.loadClass(name, resolve);
  }

  @Override
  protected Class<?> findClass(String name) throws ClassNotFoundException {
    URL found = agentJars.findResource(name.replace('.', '/') + ".class");
    if (found == null) throw new ClassNotFoundException(name);
    try (InputStream in = found.openStream()) {
      byte[] bytes = in.readAllBytes();
      return defineClass(name, bytes, 0, bytes.length);
    } catch (IOException e) {
      throw new ClassNotFoundException(name, e);
    }
  }

  @Override
  protected URL findResource(String name) {
    return agentJars.findResource(name);
  }

  @Override
  protected Enumeration<URL> findResources(String name) throws IOException {
    return agentJars.findResources(name);
  }

  @Override
  public URL getResource(String name) {
    ClassLoader project = current;
    URL found = project == null ? null : project.getResource(name);
    return found != null ? found : super.getResource(name);
  }

  @Override
  public Enumeration<URL> getResources(String name) throws IOException {
    Set<URL> all = new LinkedHashSet<>();
    ClassLoader project = current;
    if (project != null) all.addAll(Collections.list(project.getResources(name)));
    all.addAll(Collections.list(super.getResources(name)));
    return Collections.enumeration(all);
  }

  /**
   * A jar list to read classes and resources from. Not the system loader itself: the JDK's
   * application loader is no URLClassLoader either, and tests may tell the two apart.
   */
  private static final class AgentJars extends URLClassLoader {
    AgentJars() {
      super(new URL[0], null);
    }

    void add(URL jar) {
      addURL(jar);
    }
  }
}
