package witnessgym.boot;

import java.io.File;
import java.io.FilePermission;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.security.CodeSource;
import java.security.PermissionCollection;

/**
 * The per-request loader of a project's classes. Under Maven every class and resource of the
 * project sits in target/, so a class may read any of them even under a restrictive security
 * manager; here they are split between the overlay and the project's output directories, so each
 * class is granted read access to all of them.
 */
public class ProjectClassLoader extends URLClassLoader {
  static {
    registerAsParallelCapable();
  }

  private final URL[] directories;

  public ProjectClassLoader(URL[] urls, ClassLoader parent) {
    super(urls, parent);
    this.directories = urls.clone();
  }

  @Override
  protected PermissionCollection getPermissions(CodeSource codesource) {
    PermissionCollection permissions = super.getPermissions(codesource);
    for (URL url : directories) {
      try {
        permissions.add(new FilePermission(new File(url.toURI()).getPath() + File.separator + "-", "read"));
      } catch (URISyntaxException | IllegalArgumentException e) {
        // not a file URL: nothing to grant
      }
    }
    return permissions;
  }
}
