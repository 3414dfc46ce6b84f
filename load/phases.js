// The rig's side of every load script vtlab runs — its own (orders.js) and a user's (custom.js): the phases,
// the closed or open model's scenarios and the thresholds, all from the harness's environment, and the phase
// each request started in.
//
// One run covers ramp + warm-up + hold + cool-down. Each request is tagged with the phase in which it
// *started*, so the hold counts exactly the requests issued during the hold (requests crossing the hold's
// edges balance out at steady state). The hold is split in two halves (a, b) so the harness can check the
// throughput was steady.
//
// The hold begins either at fixed times (ramp + warm-up) or, when the harness names VTLAB_HOLD_FILE, when the
// harness decides the row has settled: it writes that moment to the file and vtlab's k6 module (k6/x/vtlab,
// load/k6build/hold) hands it to every VU. Until then every request is the warm-up's. Once the hold is over and
// the last iteration begun in it has ended, the harness ends the row: from then on no iteration makes a request,
// and once none still runs the harness stops k6 (which would interrupt a request in flight).
import { sleep } from 'k6';
import exec from 'k6/execution';
import * as vtlab from 'k6/x/vtlab';

// Bound once: every use of an imported name goes through the module's bindings, a lookup each time, and these run
// in every iteration (the load generator shares the machine with the service it measures).
const { awaitTurn, enter, holdStartUnixMs, leave, stopping } = vtlab;

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
const HOLD_DECIDED_BY_HARNESS = Boolean(__ENV.VTLAB_HOLD_FILE);

// Turns (a paired plan's blocks on one k6 per arm, vtlab's k6 module): the users run for the whole point, each
// iteration waits for its arm's turn, and the harness cuts each block from the series by its time. Every request is
// the warm-up's here; the harness tags a block's hold when it cuts it.
const TURNS = Boolean(__ENV.VTLAB_TURN_FILE);
const TURNS_S = Number(__ENV.TURNS_S || 0);
const TURN_SPREAD_MS = Number(__ENV.TURN_SPREAD_MS || 0);

// The hold's failed requests by status (0: no response at all, e.g. refused or timed out): the statuses the
// services answer with, and 'other' for anything else.
export const FAILURE_STATUSES = ['0', '400', '404', '500', '502', '503', '504', 'other'];

function closedModel() {
  if (TURNS) {
    return { orders: { executor: 'constant-vus', vus: VUS, duration: `${TURNS_S}s`, gracefulStop: '10s' } };
  }
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

// The tags k6 puts on every sample: what the series, the thresholds and a script's own checks and groups read.
// Not k6's default `url`: with a random id in every path each request would be a new time series, kept in k6's
// memory (and walked by its collector) for the rest of the run; `name` groups the requests instead. Nor the
// protocol, TLS and error-text tags nothing reads.
export const SYSTEM_TAGS = ['status', 'method', 'name', 'group', 'check', 'error_code', 'scenario',
  'expected_response'];

// k6's options for a run: the model's scenarios and the thresholds the harness reads. Thresholds say whether
// a row is valid (no errors, generator kept up), not whether it was fast; they also make k6 report the
// hold-phase sub-metrics. `extraThresholds`: a script's own counters to report.
export function rigOptions(extraThresholds = {}) {
  return {
    scenarios: MODEL === 'open' ? openModel() : closedModel(),
    systemTags: SYSTEM_TAGS,
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

// Where an iteration can start, each built once: an iteration reads one and allocates nothing for it (and a script
// can tell a change of phase by identity).
const PHASE_WARMUP = Object.freeze({ phase: 'warmup', half: 'none' });
const PHASE_HOLD_A = Object.freeze({ phase: 'hold', half: 'a' });
const PHASE_HOLD_B = Object.freeze({ phase: 'hold', half: 'b' });
const PHASE_COOLDOWN = Object.freeze({ phase: 'cooldown', half: 'none' });

function phaseAt(sinceHoldMs) {
  if (sinceHoldMs < 0) return PHASE_WARMUP;
  if (sinceHoldMs < (HOLD * 1000) / 2) return PHASE_HOLD_A;
  if (sinceHoldMs < HOLD * 1000) return PHASE_HOLD_B;
  return PHASE_COOLDOWN;
}

// Where the iteration starting now belongs: one of the four above.
export function phaseNow() {
  if (TURNS) return PHASE_WARMUP;
  if (HOLD_DECIDED_BY_HARNESS) {
    const holdStart = holdStartUnixMs();
    return holdStart < 0 ? PHASE_WARMUP : phaseAt(Date.now() - holdStart);
  }
  return phaseAt(exec.instance.currentTestRunDuration - HOLD_START_MS);
}

// Runs one iteration, `iteration(argument)`, started in `now` (phaseNow's), counted as running until it ends
// (its promise settles): the harness stops k6 only after the hold's last request, and then after the last request
// of any iteration. Once the harness is ending the row an iteration makes no request. (A function and its argument
// rather than a closure: nothing is allocated per iteration for it.)
export function counted(now, iteration, argument) {
  // blocks while the other arm has the turn; false (only that: a module of before answered nothing) says k6 is
  // stopping this user, which sends nothing more
  if (TURNS && awaitTurn(TURN_SPREAD_MS) === false) return undefined;
  if (HOLD_DECIDED_BY_HARNESS && stopping()) {
    sleep(0.1); // nothing to send: the row is over (an idle user, not a busy loop)
    return undefined;
  }
  const inHold = now.phase === 'hold';
  enter(inHold);
  let result;
  try {
    result = iteration(argument);
  } catch (error) {
    leave(inHold);
    throw error;
  }
  if (result && typeof result.then === 'function') {
    return result.finally(() => leave(inHold));
  }
  leave(inHold);
  return result;
}

// To the harness's file, or ('stdout') to a k6-operator runner's log, where it is a line of its own after the
// series (`vtlab k8s run` checks each runner's series against it).
export function handleSummary(data) {
  return { [__ENV.SUMMARY]: JSON.stringify(data) + '\n' };
}
