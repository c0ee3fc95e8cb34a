// Which methods a path has, for the `Allow` header of a 405.
import type { ContractOperation } from '../contract/document.js';

export type AllowedMethods = (path: string) => string[];

export function allowedMethodsOf(operations: ContractOperation[]): AllowedMethods {
  const templates = new Map<string, { pattern: RegExp; methods: string[] }>();
  for (const { path, method } of operations) {
    let entry = templates.get(path);
    if (!entry) {
      const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      entry = { pattern: new RegExp(`^${pattern}$`), methods: [] };
      templates.set(path, entry);
    }
    entry.methods.push(method.toUpperCase());
  }
  return (path) => [...templates.values()].find(({ pattern }) => pattern.test(path))?.methods ?? [];
}
