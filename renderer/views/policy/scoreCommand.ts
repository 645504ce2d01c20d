/** The command that gives a database ŝ, with its path quoted for a POSIX shell when it needs quoting. */
export function scoreCommand(dbPath: string | undefined): string {
  const path = dbPath ?? 'FILE.db';
  const db = /^[\w./:\\-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
  return `routelens score --db ${db} --model models/default-estimator.onnx`;
}
