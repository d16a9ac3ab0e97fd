import { execFileSync } from 'node:child_process';

/** True when `name` is a program on PATH (`command -v`). */
export function commandExists(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
