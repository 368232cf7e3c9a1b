package witnessgym.boot;

import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.security.AccessController;
import java.security.PrivilegedAction;

/**
 * Creates the runner's class loaders from the boot class path. A URLClassLoader reads resources
 * with the access-control context of the code that created it; created here, that context holds
 * only boot frames, as for the JVM's own class-path loader. Tests that install a security
 * manager denying file reads (joda-time does) then load resources as they do under Surefire.
 */
@SuppressWarnings("removal")
public final class Loaders {
  private Loaders() {}

  public static DependencyClassLoader dependencies(URL[] urls, ClassLoader parent) {
    return AccessController.doPrivileged(
        (PrivilegedAction<DependencyClassLoader>) () -> new DependencyClassLoader(urls, parent));
  }

  public static ProjectClassLoader project(URL[] urls, ClassLoader parent) {
    return AccessController.doPrivileged(
        (PrivilegedAction<ProjectClassLoader>) () -> new ProjectClassLoader(urls, parent));
  }

  public static URLClassLoader tracing(
      URL[] urls,
      ClassLoader parent,
      File overlay,
      File classes,
      Instrumenter.MethodTable table) {
    return AccessController.doPrivileged(
        (PrivilegedAction<URLClassLoader>)
            () -> new TracingClassLoader(urls, parent, overlay, classes, table));
  }
}
