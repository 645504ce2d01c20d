/** The episode bootstrap lives in shared/ (Compare's paired statistics use it too); replay imports it from here. */
export { bootstrapIntervals, quantile } from '../../shared/bootstrap.ts';
