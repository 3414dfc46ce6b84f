// A user's k6 script, run the way vtlab runs its own: vtlab's scenario, phases and thresholds (phases.js) around
// the script's default function, and every request an iteration makes tagged with the phase the iteration
// started in, so the hold counts the script's requests exactly as it counts orders.js's. The script keeps its
// own options except those that decide the load (the plan's users, rates, phases and shape do), and its
// setup() and teardown() run as k6 runs them (outside every phase: never counted).
import exec from 'k6/execution';
import { counted, handleSummary, phaseNow, rigOptions } from './phases.js';

// What decides the load or what is counted is the plan's: the users, rates, phases and shape, and the system
// tags the series and thresholds read (status, expected_response, scenario).
const LOAD_OPTIONS = ['scenarios', 'stages', 'vus', 'duration', 'iterations', 'rps', 'minIterationDuration', 'paused',
  'executionSegment', 'executionSegmentSequence', 'systemTags'];

// The script's thresholds judge it, as k6 would, but never end a row in the middle of its hold.
function withoutAbort(thresholds) {
  return Object.fromEntries(Object.entries(thresholds || {}).map(([metric, rules]) => [metric,
    (Array.isArray(rules) ? rules : [rules]).map((rule) => (typeof rule === 'object' ? rule.threshold : rule))]));
}

export function wrap(user) {
  if (typeof user.default !== 'function') {
    throw new Error('the script exports no default function: vtlab runs it as each iteration (export default function () {...})');
  }
  const own = Object.fromEntries(Object.entries(user.options || {}).filter(([name]) => !LOAD_OPTIONS.includes(name)));
  const rig = rigOptions();
  return {
    options: { ...own, ...rig, thresholds: { ...withoutAbort(own.thresholds), ...rig.thresholds } },
    setup: () => (typeof user.setup === 'function' ? user.setup() : undefined),
    iteration: (data) => {
      const now = phaseNow();
      // the VU's tags go on every metric it emits from here on, the script's requests included
      exec.vu.metrics.tags.phase = now.phase;
      exec.vu.metrics.tags.half = now.half;
      return counted(now, user.default, data); // an async default function's promise goes back to k6
    },
    teardown: (data) => (typeof user.teardown === 'function' ? user.teardown(data) : undefined),
    handleSummary,
  };
}
