// Written by vtlab: the script below inside vtlab's phases (load/custom.js).
import * as user from "/work/main/load/endpoint.js";
import { wrap } from "/work/main/load/custom.js";

const run = wrap(user);
export const options = run.options;
export function setup() { return run.setup(); }
export default function (data) { run.iteration(data); }
export function teardown(data) { run.teardown(data); }
export const handleSummary = run.handleSummary;
