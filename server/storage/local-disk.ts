import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { contentTypeOf, type ImageStorage, isStoredName } from './storage.js';

/** Images as files in `directory`; written to a temporary name and renamed, so readers never see half a file. */
export function createLocalDiskStorage(options: { directory: string; publicBaseUrl: string }): ImageStorage {
  const directory = path.resolve(options.directory);
  let ready: Promise<unknown> | null = null;
  const ensureDirectory = () => (ready ??= mkdir(directory, { recursive: true }));
  const fileOf = (name: string) => {
    if (!isStoredName(name)) throw new Error(`Not an image name: ${name}`);
    return path.join(directory, name);
  };

  return {
    async put(name, data) {
      await ensureDirectory();
      const file = fileOf(name);
      const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await writeFile(temporary, data);
        await rename(temporary, file);
      } catch (error) {
        await rm(temporary, { force: true });
        throw error;
      }
    },
    async get(name) {
      if (!isStoredName(name)) return null;
      try {
        const data = await readFile(fileOf(name));
        return { data, contentType: contentTypeOf(name) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async delete(name) {
      if (!isStoredName(name)) return;
      await rm(fileOf(name), { force: true });
    },
    async *list() {
      let names: string[];
      try {
        names = await readdir(directory);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const name of names.filter(isStoredName)) {
        const info = await stat(path.join(directory, name)).catch(() => null);
        if (info) yield { name, modifiedAt: info.mtimeMs };
      }
    },
    url: (name) => `${options.publicBaseUrl}/images/${name}`,
  };
}
