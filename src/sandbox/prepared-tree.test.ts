import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, removeTree } from '../core/fs.js';
import { runProcess } from '../core/process.js';
import { jdkTool } from '../toolchains/maven/maven.js';
import { projectCopiesOn, surefireArgLine } from './prepared-tree.js';

/*
 * Effective POMs shaped as maven-help-plugin writes them: project properties before <build>,
 * <pluginManagement> before <plugins>, the configuration merged into the plugins' entries.
 */
function effectivePom(parts: {
  properties?: string;
  managed?: string;
  plugin?: string;
  reporting?: string;
}): string {
  const surefire = (configuration: string) => `
        <plugin>
          <groupId>org.apache.maven.plugins</groupId>
          <artifactId>maven-surefire-plugin</artifactId>
          <version>3.5.2</version>
          ${configuration}
        </plugin>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<project>
  <modelVersion>4.0.0</modelVersion>
  <artifactId>fixture</artifactId>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>${parts.properties ?? ''}
  </properties>
  <build>
    <pluginManagement>
      <plugins>${parts.managed === undefined ? '' : surefire(parts.managed)}
      </plugins>
    </pluginManagement>
    <plugins>
      <plugin>
        <artifactId>maven-compiler-plugin</artifactId>
        <configuration><compilerArgs><arg>-Xlint</arg></compilerArgs></configuration>
      </plugin>${parts.plugin === undefined ? '' : surefire(parts.plugin)}
      <plugin>
        <artifactId>maven-failsafe-plugin</artifactId>
        <configuration><argLine>-Dfailsafe.only=true</argLine></configuration>
      </plugin>
    </plugins>
  </build>${parts.reporting ?? ''}
</project>
`;
}

const configured = (argLine: string) =>
  `<configuration><argLine>${argLine}</argLine></configuration>`;

describe('surefireArgLine', () => {
  it('returns the flags of a literal argLine in the Surefire configuration', () => {
    expect(
      surefireArgLine(
        effectivePom({ plugin: configured('-Xss512k\n   -Dwitnessgym.fixture=argline') }),
      ),
    ).toEqual(['-Xss512k', '-Dwitnessgym.fixture=argline']);
  });

  it('reads the plugins entry when Surefire is also managed without an argLine, as a commons-parent child has it', () => {
    expect(
      surefireArgLine(
        effectivePom({
          managed: '<configuration><trimStackTrace>false</trimStackTrace></configuration>',
          plugin: configured('--add-opens java.base/java.lang=ALL-UNNAMED'),
        }),
      ),
    ).toEqual(['--add-opens', 'java.base/java.lang=ALL-UNNAMED']);
  });

  it('drops an @{argLine} or ${argLine} placeholder that no property defines (JaCoCo sets it at build time)', () => {
    expect(surefireArgLine(effectivePom({ plugin: configured('@{argLine} -Xss1m') }))).toEqual([
      '-Xss1m',
    ]);
    expect(
      surefireArgLine(effectivePom({ plugin: configured('${argLine} -Dfile.encoding=UTF-8') })),
    ).toEqual(['-Dfile.encoding=UTF-8']);
  });

  it('puts the argLine property in place of the placeholder once', () => {
    expect(
      surefireArgLine(
        effectivePom({
          properties: '\n    <argLine>-Duser.language=en</argLine>',
          plugin: configured('@{argLine} -Xss1m'),
        }),
      ),
    ).toEqual(['-Duser.language=en', '-Xss1m']);
  });

  it('takes the argLine property when the configuration sets none (Surefire reads it by default)', () => {
    expect(
      surefireArgLine(
        effectivePom({
          properties: '\n    <argLine>-Xmx1g -Duser.timezone=UTC</argLine>',
          plugin: '<configuration><forkCount>1</forkCount></configuration>',
        }),
      ),
    ).toEqual(['-Xmx1g', '-Duser.timezone=UTC']);
  });

  it('unescapes XML entities in the flags', () => {
    expect(
      surefireArgLine(effectivePom({ plugin: configured('-Dsep=&lt;&amp;&gt; -ea') })),
    ).toEqual(['-Dsep=<&>', '-ea']);
  });

  it('returns no flags when neither the configuration nor a property sets an argLine', () => {
    expect(surefireArgLine(effectivePom({}))).toEqual([]);
    expect(surefireArgLine(effectivePom({ plugin: '' }))).toEqual([]);
  });

  it('reads the property from the project properties only, not from a plugin configuration after them', () => {
    // Surefire's own <properties> (JUnit listeners) follows the argLine in its configuration.
    const listener =
      '<properties><property><name>listener</name><value>x.Listener</value></property></properties>';
    expect(
      surefireArgLine(
        effectivePom({
          plugin: `<configuration><argLine>@{argLine} -Xss1m</argLine>${listener}</configuration>`,
        }),
      ),
    ).toEqual(['-Xss1m']);
  });
});

describe('projectCopiesOn', () => {
  it('finds a class-path jar or directory holding a production class, shaded or not', async () => {
    const root = await makeTempDir('copies');
    try {
      const classes = path.join(root, 'classes');
      await mkdir(path.join(classes, 'org/example'), { recursive: true });
      await writeFile(path.join(classes, 'org/example/Parser.class'), 'bytes');
      const jarOf = async (name: string, entry: string) => {
        const content = path.join(root, `${name}-content`);
        await mkdir(path.dirname(path.join(content, entry)), { recursive: true });
        await writeFile(path.join(content, entry), 'bytes');
        const jar = path.join(root, `${name}.jar`);
        const made = await runProcess(jdkTool('jar'), [
          '--create',
          '--file',
          jar,
          '-C',
          content,
          '.',
        ]);
        expect(made.exitCode).toBe(0);
        return jar;
      };
      const shaded = await jarOf('tool', 'com/tool/shaded/org/example/Parser.class');
      const plain = await jarOf('older', 'org/example/Parser.class');
      const unrelated = await jarOf('junit', 'org/junit/Test.class');
      const lookalike = await jarOf('other', 'org/example/ParserTest.class');
      const directory = path.join(root, 'dir');
      await mkdir(path.join(directory, 'x/org/example'), { recursive: true });
      await writeFile(path.join(directory, 'x/org/example/Parser.class'), 'bytes');
      expect(
        await projectCopiesOn(classes, [shaded, plain, unrelated, lookalike, directory]),
      ).toEqual([shaded, plain, directory]);
    } finally {
      await removeTree(root);
    }
  });
});
