import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, lchownSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, join, posix } from 'node:path';

/** One instruction of a Dockerfile, with the line it starts on. */
interface Instruction {
  line: number;
  keyword: string;
  args: string;
}

/** A user or group of a base image: its name and its id there. */
type Accounts = Record<string, number>;

/**
 * The users and groups of the base images this emulator knows, as in their /etc/passwd and
 * /etc/group (the official node images add `node`, 1000:1000); the stand-in for the base image is
 * this machine, whose own accounts may differ.
 */
const BASE_IMAGE_ACCOUNTS: Record<string, { users: Accounts; groups: Accounts }> = {
  node: { users: { root: 0, node: 1000 }, groups: { root: 0, node: 1000 } },
};

/** What a stage built: its file system (a directory), working directory, environment and runtime settings. */
export interface EmulatedStage {
  name: string;
  image: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  cmd: string[] | undefined;
  healthcheck: string | undefined;
  user: string | undefined;
  /** The numeric ids USER names, in the base image. */
  ids: { uid: number; gid: number } | undefined;
  volumes: string[];
  exposed: string[];
}

/**
 * Builds a Dockerfile's stages without a container engine (there is none on this machine, and no
 * registry to pull the base image from): each stage is a directory standing for its file system,
 * COPY copies exactly the files the instruction names (from the build context, or from an earlier
 * stage), RUN runs in the stage's working directory with the stage's environment, on this
 * machine's Node (the base image's stand-in). Anything it cannot emulate faithfully — an
 * instruction it does not know, a RUN that reaches outside the stage by an absolute path, a COPY
 * source that does not exist — fails with the Dockerfile line, never silently.
 */
export class DockerfileEmulator {
  readonly stages: EmulatedStage[] = [];
  /** Only root can give files away: otherwise `COPY --chown` keeps this process's own user. */
  readonly owns = process.getuid?.() === 0;

  constructor(
    private readonly context: string,
    private readonly out: string,
    private readonly runEnv: Record<string, string> = {},
  ) {}

  build(dockerfile: string): EmulatedStage {
    for (const instruction of parse(dockerfile)) this.apply(instruction);
    if (this.stages.length === 0) throw new Error('The Dockerfile has no FROM');
    return this.stages[this.stages.length - 1];
  }

  /** Where an absolute path of a stage's file system is on this machine. */
  hostPath(stage: EmulatedStage, path: string): string {
    return join(stage.root, posix.isAbsolute(path) ? path : posix.join(stage.workdir, path));
  }

  private apply({ line, keyword, args }: Instruction): void {
    const fail = (problem: string): never => {
      throw new Error(`Dockerfile line ${line} (${keyword} ${args}): ${problem}`);
    };
    if (keyword === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!match) fail('expected FROM <image> [AS <name>]');
      const name = match![2] ?? `stage-${this.stages.length}`;
      const root = join(this.out, name);
      mkdirSync(root, { recursive: true });
      this.stages.push({
        name,
        image: match![1],
        root,
        workdir: '/',
        env: {},
        cmd: undefined,
        healthcheck: undefined,
        user: undefined,
        ids: undefined,
        volumes: [],
        exposed: [],
      });
      return;
    }
    const stage = this.stages[this.stages.length - 1] ?? fail('comes before FROM');
    switch (keyword) {
      case 'WORKDIR':
        stage.workdir = posix.isAbsolute(args) ? args : posix.join(stage.workdir, args);
        mkdirSync(this.hostPath(stage, stage.workdir), { recursive: true });
        return;
      case 'ENV': {
        const pair = /([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g;
        // Only the KEY=value form, without substitutions: anything else would be read wrongly.
        if (args.replace(pair, '').trim() !== '' || args.includes('$')) {
          fail('expected ENV KEY=value … without $ substitutions');
        }
        for (const [, key, value] of args.matchAll(pair)) stage.env[key] = value.replace(/^"|"$/g, '');
        return;
      }
      case 'COPY':
        return this.copy(stage, args, fail);
      case 'RUN':
        // The stage is a directory, not a root: an absolute path would reach this machine's own.
        if (/(^|[\s;&|=])\/(?!dev\/null)/.test(args))
          fail('reaches an absolute path, which only a container could give it: use paths relative to WORKDIR');
        try {
          execFileSync('sh', ['-c', args], {
            cwd: this.hostPath(stage, stage.workdir),
            env: { ...process.env, ...stage.env, ...this.runEnv },
            stdio: ['ignore', 'pipe', 'pipe'],
            maxBuffer: 64 * 2 ** 20,
          });
        } catch (error) {
          const { stdout, stderr } = error as { stdout?: Buffer; stderr?: Buffer };
          fail(`failed:\n${String(stdout ?? '').slice(-2_000)}\n${String(stderr ?? '').slice(-4_000)}`);
        }
        return;
      case 'USER': {
        const [user, group] = args.split(':');
        stage.user = args;
        stage.ids = {
          uid: this.id(stage, 'users', user, fail),
          gid: this.id(stage, 'groups', group ?? user, fail),
        };
        return;
      }
      case 'EXPOSE':
        stage.exposed.push(...args.split(/\s+/));
        return;
      case 'VOLUME':
        for (const volume of args.split(/\s+/)) {
          if (!existsSync(this.hostPath(stage, volume)))
            fail(`${volume} does not exist in the image: an empty volume would be owned by root, not the USER`);
          stage.volumes.push(volume);
        }
        return;
      case 'HEALTHCHECK': {
        const match = /\bCMD\s+(.+)$/s.exec(args);
        stage.healthcheck = match?.[1] ?? fail('expected HEALTHCHECK [options] CMD <command>');
        return;
      }
      case 'CMD':
        try {
          stage.cmd = JSON.parse(args) as string[];
        } catch {
          fail('expected the exec form, CMD ["executable", "arg", …]');
        }
        return;
      default:
        fail('this instruction is not emulated: teach test/support/dockerfile-emulator.ts what it does');
    }
  }

  private copy(stage: EmulatedStage, args: string, fail: (problem: string) => never): void {
    const words = args.split(/\s+/);
    const flags = words.filter((word) => word.startsWith('--'));
    const paths = words.filter((word) => !word.startsWith('--'));
    for (const flag of flags) if (!/^--(from|chown)=\S+$/.test(flag)) fail(`the flag ${flag} is not emulated`);
    const from = flags.find((flag) => flag.startsWith('--from='))?.slice('--from='.length);
    const chown = flags
      .find((flag) => flag.startsWith('--chown='))
      ?.slice('--chown='.length)
      .split(':');
    const owner = chown && {
      uid: this.id(stage, 'users', chown[0], fail),
      gid: this.id(stage, 'groups', chown[1] ?? chown[0], fail),
    };
    const source = from
      ? (this.stages.find((candidate) => candidate.name === from) ?? fail(`no earlier stage "${from}"`))
      : undefined;
    if (paths.length < 2) fail('expected COPY <source>… <destination>');
    const destination = paths.pop()!;
    const target = this.hostPath(stage, destination);
    const intoDirectory = destination.endsWith('/') || paths.length > 1;
    for (const path of paths) {
      const origin = source ? this.hostPath(source, path) : join(this.context, path);
      if (!existsSync(origin))
        fail(`the source "${path}" does not exist ${source ? `in stage "${source.name}"` : 'in the build context'}`);
      // A directory's contents go into the destination; a file goes to it, or into it when it is a directory.
      const directory = statSync(origin).isDirectory();
      const to = directory ? target : intoDirectory ? join(target, basename(origin)) : target;
      const existed = existsSync(to);
      // Links are copied as they are, as Docker does: cp would otherwise make a relative link
      // (node_modules/nest-mcp-host -> ../libs) absolute, reaching into the stage it came from.
      cpSync(origin, to, { recursive: true, dereference: false, verbatimSymlinks: true });
      if (!owner || !this.owns) continue;
      if (!directory) {
        chownTree(to, owner.uid, owner.gid);
        continue;
      }
      // --chown applies to what the COPY creates, not to a directory that was there before.
      if (!existed) lchownSync(to, owner.uid, owner.gid);
      for (const name of readdirSync(origin)) chownTree(join(to, name), owner.uid, owner.gid);
    }
  }

  /** The id of a user or group of the stage's base image; a name it does not know fails. */
  private id(stage: EmulatedStage, kind: 'users' | 'groups', name: string, fail: (problem: string) => never): number {
    if (/^\d+$/.test(name)) return Number(name);
    const repository = stage.image.split(':')[0].replace(/^(docker\.io\/)?(library\/)?/, '');
    const id = BASE_IMAGE_ACCOUNTS[repository]?.[kind][name];
    return (
      id ?? fail(`the ${kind.slice(0, -1)} "${name}" of ${stage.image} is not known: add it to BASE_IMAGE_ACCOUNTS`)
    );
  }
}

/** chown -R, without following links. */
function chownTree(path: string, uid: number, gid: number): void {
  lchownSync(path, uid, gid);
  if (!lstatSync(path).isDirectory()) return;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child, uid, gid);
    else lchownSync(child, uid, gid);
  }
}

/** The instructions of a Dockerfile, continuation lines joined, comments and parser directives dropped. */
function parse(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const start = index + 1;
    let line = lines[index];
    if (!line.trim() || line.trimStart().startsWith('#')) continue;
    while (line.endsWith('\\') && index + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++index].trim()}`;
    const match = /^\s*(\S+)\s+(.*)$/.exec(line);
    if (match) instructions.push({ line: start, keyword: match[1].toUpperCase(), args: match[2].trim() });
  }
  return instructions;
}
