import { describe, expect, it } from 'vitest';
import { choosePlatform, type JarId } from './setup.js';

const jar = (group: string, artifact: string, version: string): JarId => ({
  group,
  artifact,
  version,
});

describe('JUnit Platform jars for a project', () => {
  it('matches a JUnit 5 project: launcher of its platform, engine of its Jupiter', () => {
    const choice = choosePlatform([
      jar('org.junit.jupiter', 'junit-jupiter-api', '5.7.2'),
      jar('org.junit.platform', 'junit-platform-commons', '1.7.2'),
    ]);
    expect(choice.coordinates).toEqual([
      'org.junit.platform:junit-platform-launcher:1.7.2',
      'org.junit.jupiter:junit-jupiter-engine:5.7.2',
    ]);
  });

  it('adds Vintage for JUnit 4 tests beside Jupiter ones (jackson-core)', () => {
    const choice = choosePlatform([
      jar('junit', 'junit', '4.13.2'),
      jar('org.junit.jupiter', 'junit-jupiter-api', '5.8.2'),
      jar('org.junit.platform', 'junit-platform-commons', '1.8.2'),
    ]);
    expect(choice.coordinates).toContain('org.junit.vintage:junit-vintage-engine:5.8.2');
    expect(choice.drop(jar('junit', 'junit', '4.13.2'))).toBe(false);
  });

  it('runs JUnit 3 tests on JUnit 4.13.2 under Vintage, replacing the old jar (joda-time)', () => {
    const choice = choosePlatform([jar('junit', 'junit', '3.8.2')]);
    expect(choice.coordinates).toEqual([
      'org.junit.platform:junit-platform-launcher:1.10.2',
      'org.junit.vintage:junit-vintage-engine:5.10.2',
      'junit:junit:4.13.2',
    ]);
    expect(choice.drop(jar('junit', 'junit', '3.8.2'))).toBe(true);
  });

  it('keeps JUnit 4.12 (json-simple) as it is', () => {
    const choice = choosePlatform([jar('junit', 'junit', '4.12')]);
    expect(choice.coordinates).not.toContain('junit:junit:4.13.2');
    expect(choice.drop(jar('junit', 'junit', '4.12'))).toBe(false);
  });
});
