// The rig's side of every load script vtlab runs — its own (orders.js) and a user's (custom.js): the phases,
// the closed or open model's scenarios and the thresholds, all from the harness's environment, and the phase
// each request started in.
//
// One run covers ramp + warm-up + hold + cool-down. Each request is tagged with the phase in which it
// *started*, so the hold counts exactly the requests issued during the hold (requests crossing the hold's
// edges balance out at steady state). The hold is split in two halves (a, b) so the harness can check the
// throughput was steady.
import exec from 'k6/execution';

const MODEL = __ENV.MODEL || 'closed';
const RAMP = Number(__ENV.RAMP_S);
const WARMUP = Number(__ENV.WARMUP_S);
const HOLD = Number(__ENV.HOLD_S);
const COOLDOWN = Number(__ENV.COOLDOWN_S || 3);
const VUS = Number(__ENV.VUS);
const RATE = Number(__ENV.RATE || 0);

// The load's shape, as the harness computed it (vtlab.shapes): stages of the ramp and warm-up, and of the
// hold and cool-down (one stage for a steady hold; a spike or a staircase otherwise).
const WARMUP_STAGES = JSON.parse(__ENV.WARMUP_STAGES);
const HOLD_STAGES = JSON.parse(__ENV.HOLD_STAGES);

const HOLD_START_MS = (RAMP + WARMUP) * 1000;
const HALF_MS = HOLD_START_MS + (HOLD * 1000) / 2;
const HOLD_END_MS = HOLD_START_MS + HOLD * 1000;

// The hold's failed requests by status (0: no response at all, e.g. refused or timed out): the statuses the
// services answer with, and 'other' for anything else.
export const FAILURE_STATUSES = ['0', '400', '404', '500', '502', '503', '504', 'other'];

function closedModel() {
  return {
    orders: {
      executor: 'ramping-vus',
      startVUs: 0,
      stages: [...WARMUP_STAGES, ...HOLD_STAGES],
      // A spike's step down lets the extra users finish the request they are in (up to its 60 s timeout):
      // k6 drops the samples of a request it interrupts, so the spike's slowest requests would vanish.
      gracefulRampDown: '60s',
      gracefulStop: '10s',
    },
  };
}

function holdScenario() {
  const common = { startTime: `${RAMP + WARMUP}s`, timeUnit: '1s', preAllocatedVUs: VUS, maxVUs: VUS * 2,
    gracefulStop: '10s' };
  if (HOLD_STAGES.length === 1) {
    return { executor: 'constant-arrival-rate', rate: RATE, duration: `${HOLD + COOLDOWN}s`, ...common };
  }
  return { executor: 'ramping-arrival-rate', startRate: HOLD_STAGES[0].target, stages: HOLD_STAGES, ...common };
}

function openModel() {
  // Two scenarios so that dropped iterations during the hold can be told apart from those of the
  // JIT-bound warm-up.
  return {
    warmup: {
      executor: 'ramping-arrival-rate',
      startRate: 1,
      timeUnit: '1s',
      preAllocatedVUs: VUS,
      maxVUs: VUS * 2,
      stages: WARMUP_STAGES,
      gracefulStop: '10s',
    },
    hold: holdScenario(),
  };
}

// k6's options for a run: the model's scenarios and the thresholds the harness reads. Thresholds say whether
// a row is valid (no errors, generator kept up), not whether it was fast; they also make k6 report the
// hold-phase sub-metrics. `extraThresholds`: a script's own counters to report.
export function rigOptions(extraThresholds = {}) {
  return {
    scenarios: MODEL === 'open' ? openModel() : closedModel(),
    summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(95)', 'p(99)', 'p(99.9)'],
    thresholds: {
      'http_req_failed{phase:hold}': ['rate<0.01'],
      'http_req_duration{phase:hold,expected_response:true}': ['max>=0'],
      'http_req_duration{phase:hold}': ['max>=0'], // every response, failed ones too
      'http_reqs{phase:hold}': ['count>=0'],
      'dropped_iterations': ['count>=0'],
      ...extraThresholds,
      ...(MODEL === 'open' ? { 'dropped_iterations{scenario:hold}': ['count<1'] } : {}),
    },
  };
}

// The phase and half the iteration starting now belongs to.
export function phaseNow() {
  const elapsedMs = exec.instance.currentTestRunDuration;
  if (elapsedMs < HOLD_START_MS) return ['warmup', 'none'];
  if (elapsedMs < HALF_MS) return ['hold', 'a'];
  if (elapsedMs < HOLD_END_MS) return ['hold', 'b'];
  return ['cooldown', 'none'];
}

// To the harness's file, or ('stdout') to a k6-operator runner's log, where it is a line of its own after the
// series (`vtlab k8s run` checks each runner's series against it).
export function handleSummary(data) {
  return { [__ENV.SUMMARY]: JSON.stringify(data) + '\n' };
}
