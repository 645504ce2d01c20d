/**
 * The type of an open RouteLens database. It sits below database.ts, which opens one, so the modules that
 * database.ts calls while opening (models.ts seeds the model pool) can name it without importing their caller.
 */
import type Database from 'better-sqlite3';

export type Db = Database.Database;
