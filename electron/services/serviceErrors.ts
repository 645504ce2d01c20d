/**
 * The errors a service throws to say whose fault a call was (dispatch.ts turns them into an ApiError): plain classes
 * with no imports, so the CLI's commands throw and catch them without loading the API.
 */

/** Thrown by services for a well-formed request naming something that does not exist. */
export class NotFoundError extends Error {}

/** Thrown by services for a request the schema accepts but the service cannot (an unsafe upload path). */
export class InputError extends Error {}
