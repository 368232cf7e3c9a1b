import os from 'node:os';
import path from 'node:path';

/** Where fetched projects, downloads and the Maven repository live: flag, env, then XDG. */
export function resolveCacheDir(flag?: string): string {
  if (flag) return path.resolve(flag);
  const fromEnv = process.env.WITNESSGYM_CACHE;
  if (fromEnv) return path.resolve(fromEnv);
  const xdg = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(xdg, 'witnessgym');
}

export interface CacheLayout {
  root: string;
  apt: string;
  downloads: string;
  mavenRepo: string;
  projects: string;
}

export function cacheLayout(root: string): CacheLayout {
  return {
    root,
    apt: path.join(root, 'apt'),
    downloads: path.join(root, 'downloads'),
    mavenRepo: path.join(root, 'maven-repo'),
    projects: path.join(root, 'projects'),
  };
}
